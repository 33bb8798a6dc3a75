# SPDX-License-Identifier: MIT
"""tilecopy.Array: what convert() returns - a numpy array holding a tensor's
physical buffer (1-D, padding included) plus its logical shape and format."""
import numpy as np

from ._capi import int_tuple, text
from ._errors import BufferSizeError, InvalidArgumentError, ShapeError, UnsupportedError


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
    executor       what ran the conversion ("cpu:avx512", "device:auto";
                   None when there was nothing to convert)

    Both views share this array's memory, so torch.from_dlpack() of either
    (or of the array itself) copies nothing. The metadata stays only with
    the same bytes in the same order: a view of the whole array (same
    address, strides and length), copy(), copy.copy() and pickle keep it;
    a slice, a reversed or reshaped view, np.roll(), arithmetic and every
    other new array are plain buffers (format None). Reductions (y.sum())
    give numpy scalars.
    """

    def __new__(cls, buffer, format, logical_shape, block=None, executor=None):
        a = np.asarray(buffer)
        if a.ndim != 1:             # the metadata describes a 1-D buffer only
            raise ShapeError("array: the buffer has shape %s; an Array is the 1-D physical "
                             "buffer (x.reshape(-1))" % (a.shape,))
        a = a.view(cls)
        a._tc = (text(format), int_tuple(logical_shape, "logical_shape"), text(block))
        a.executor = executor
        return a

    # The metadata is kept with the signature of the bytes it describes
    # (address, shape, strides, element size) and read only while they
    # still match: a view whose dtype or shape is changed in place
    # (y.view(np.int16), y.shape = ...) loses it as a new view does.
    @property
    def _tc(self):
        meta, sig = getattr(self, "_tc_sig", (None, None))
        return meta if sig is not None and sig == _signature(self) else None

    @_tc.setter
    def _tc(self, meta):
        self._tc_sig = (meta, _signature(self) if meta is not None else None)

    def __array_finalize__(self, obj):
        meta = getattr(obj, "_tc", None)
        keep = meta is not None and _signature(self) == _signature(obj)
        self._tc = meta if keep else None
        self.executor = getattr(obj, "executor", None) if keep else None

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        if arr.ndim == 0:               # a reduction: a scalar, as numpy gives
            return arr[()]
        return np.ndarray.__array_wrap__(self, arr, context)

    # ---- copies keep the metadata: the same elements in the same order ------

    def copy(self, order="C"):
        c = np.ndarray.copy(self, order)
        c._tc, c.executor = self._tc, self.executor
        return c

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        fn, args, state = np.ndarray.__reduce__(self)
        return fn, args, (state, self._tc, self.executor)

    def __setstate__(self, state):
        meta = executor = None
        if isinstance(state, tuple) and len(state) == 3 and isinstance(state[0], tuple):
            state, meta, executor = state
        np.ndarray.__setstate__(self, state)
        self._tc, self.executor = meta, executor

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
                "array: no tilecopy layout: a slice, a view that moves or resizes the data, "
                "or a new array (np.roll, arithmetic) is a plain buffer")
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
        fmt, shape, block = self._meta()
        if 0 in shape:
            return self._empty_view(physical)
        lay = self.layout
        if self.nbytes != lay.nbytes or not self.flags.c_contiguous:
            raise BufferSizeError("array: %d bytes%s; %s of shape %s takes %d contiguous bytes"
                                  % (self.nbytes, "" if self.flags.c_contiguous else
                                     " (not contiguous)", fmt, shape, lay.nbytes),
                                  status_name=("buffer size mismatch" if self.nbytes > lay.nbytes
                                               else None))
        shape, strides, offset = lay._t.dlpack_view(physical)
        it = self.dtype.itemsize
        return np.ndarray(shape, self.dtype, buffer=np.asarray(self), offset=offset,
                          strides=tuple(s * it for s in strides))

    def _empty_view(self, physical):
        """An empty tensor (an extent 0) has no layout: its logical view is
        empty, if its format has one stride per dim."""
        from . import _dtypes
        from ._tensor import Tensor
        fmt, shape, block = self._tc
        if physical:
            raise ShapeError("physical: shape %s has an extent 0: an empty tensor has no "
                             "physical layout (its buffer is empty)" % (shape,))
        probe = Tensor.of_format(fmt, [max(s, 1) for s in shape],
                                 _dtypes.parse(self.dtype)[0], block)
        if probe.blocked:
            raise UnsupportedError("logical: %s is blocked: one stride per dim cannot "
                                   "describe it" % fmt)
        return np.asarray(self).reshape(shape)

    def logical(self):
        """The tensor as an N-d array of its logical shape (no copy)."""
        return self._view(False)

    def physical(self):
        """The buffer as an N-d array, one dim per leaf (no copy)."""
        return self._view(True)


def _signature(a):
    """Where a 1-D array's bytes are and how they are read: only a view of
    the very bytes in the same order (same address, length, strides and
    element size) keeps an Array's metadata."""
    if a.ndim != 1:
        return None
    return (a.__array_interface__["data"][0], a.shape, a.strides, a.dtype.itemsize)
