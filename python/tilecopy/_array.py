# SPDX-License-Identifier: MIT
"""tilecopy.Array: what convert() returns - a numpy array holding a tensor's
physical buffer (1-D, padding included) plus its logical shape and format."""
import numpy as np

from ._errors import InvalidArgumentError


class Array(np.ndarray):
    """A 1-D numpy array: the physical buffer of a tensor in ``format``.

    logical_shape  the tensor's logical shape (N,C,H,W; rows, cols; ...)
    format, block  its format and block override (None: the format's default)
    layout         its tilecopy.Layout (CuTe notation, offsets)
    logical()      an N-d numpy view of logical shape, for formats with one
                   stride per dim (NHWC, strided:...); UnsupportedError for
                   blocked ones
    physical()     an N-d view with a dim per leaf, outermost first
                   (nChw16c of 2x20x3x5: 2x2x3x5x16)
    executor       what ran the conversion ("cpu:avx512", "device:auto")

    Both views share this array's memory, so torch.from_dlpack() of either
    (or of the array itself) copies nothing. A slice or reshape of an Array
    is a plain buffer again (its metadata is dropped).
    """

    def __new__(cls, buffer, format, logical_shape, block=None, executor=None):
        a = np.asarray(buffer).view(cls)
        a._tc = (format, tuple(int(s) for s in logical_shape), block)
        a.executor = executor
        return a

    def __array_finalize__(self, obj):
        meta = getattr(obj, "_tc", None)
        keep = (meta is not None and self.ndim == 1 and self.shape == obj.shape
                and self.dtype.itemsize == obj.dtype.itemsize)
        self._tc = meta if keep else None
        self.executor = getattr(obj, "executor", None) if keep else None

    def __reduce__(self):       # pickles as a plain array: the buffer only
        return np.asarray(self).__reduce__()

    def __repr__(self):
        if self._tc is None:
            return "tilecopy.Array(%r)" % np.asarray(self)
        return "tilecopy.Array(%r, format=%r, logical_shape=%r%s)" % (
            np.asarray(self), self._tc[0], self._tc[1],
            ", block=%r" % self._tc[2] if self._tc[2] is not None else "")

    # ---- metadata ------------------------------------------------------------

    def _meta(self):
        if self._tc is None:
            raise InvalidArgumentError(
                "array: a slice, reshape or view of another size has no tilecopy layout")
        return self._tc

    @property
    def format(self):
        return self._tc[0] if self._tc else None

    @property
    def logical_shape(self):
        return self._tc[1] if self._tc else None

    @property
    def block(self):
        return self._tc[2] if self._tc else None

    @property
    def layout(self):
        from ._layout import Layout
        fmt, shape, block = self._meta()
        return Layout(fmt, shape, self.dtype, block)

    def _view(self, physical):
        shape, strides, offset = self.layout._t.dlpack_view(physical)
        it = self.dtype.itemsize
        return np.ndarray(shape, self.dtype, buffer=np.asarray(self), offset=offset,
                          strides=tuple(s * it for s in strides))

    def logical(self):
        """The tensor as an N-d array of its logical shape (no copy)."""
        return self._view(False)

    def physical(self):
        """The buffer as an N-d array, one dim per leaf (no copy)."""
        return self._view(True)
