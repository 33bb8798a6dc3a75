# SPDX-License-Identifier: MIT
"""tilecopy.layout(): a format at a shape, as CuTe notation and offsets."""
import contextlib
import math

import numpy as np

from . import _dtypes
from ._capi import cstr, index, int_tuple, text
from ._errors import BlockError, Error, InvalidArgumentError, NoMemoryError, ShapeError
from ._tensor import Tensor

GRID_MAX = 32   # the CLI's drawing shows at most 32 x 32


def layout(format, shape=None, dtype="float32", block=None):
    """The layout of ``format`` for a tensor of logical ``shape``.

    format  a format name ("NCHW", "nChw16c", "OIhw16i16o", "zN", any oneDNN
            tag, "strided:s0,s1,...") or a layout in CuTe notation
    shape   the logical shape (N,C,H,W; rows, cols; ...), every extent >= 1;
            None only for a CuTe layout: its mode sizes
    dtype   element type: sizes fractals (C0 = 32 bytes / element size)
    block   a block override: "RxC" for zN/zZ/nZ/nN, "C0" for NC1HWC0

    print(l) shows the CuTe notation; l.offsets() (or np.asarray(l)) is the
    offset of every logical element, in elements.
    """
    return Layout(format, shape, dtype, block)


def is_cute(fmt):
    """Is this format text a CuTe layout (as the library tells them apart)?"""
    f = text(fmt)
    return isinstance(f, str) and (f[:1] == "(" or f[:1].isdigit() or f.startswith("cute:"))


class Layout:
    """A format laid out for one shape and element type (immutable).

    Layouts compare equal when they are the same layout (CuTe notation,
    logical shape, element type, bytes): layout("nhwc", s) == layout("NHWC",
    s). Copies are the layout itself; a pickle holds the arguments that
    make it again (format, shape, dtype, block), so it crosses processes."""

    __slots__ = ("_t", "_args", "_modes", "format", "block", "dtype", "itemsize", "shape",
                 "cute")

    def __init__(self, format, shape=None, dtype="float32", block=None):
        dt, name = _dtypes.parse(dtype)
        cstr(format, "format")
        if block is not None:
            cstr(block, "block")
        if shape is None:
            if not is_cute(text(format).lstrip()):
                raise InvalidArgumentError(
                    "shape: format %r needs a shape (only a CuTe layout such as "
                    "\"(4,2):(1,4)\" has its own)" % (text(format),))
            if block is not None:
                raise BlockError("block: a CuTe layout takes no block (%r); its leaves are "
                                 "the blocks" % (text(block),))
            cute = text(format).lstrip()
            t = Tensor.of_cute(cute[5:] if cute.startswith("cute:") else cute, None, dt)
        else:
            shape = int_tuple(shape, "shape")
            if 0 in shape:
                raise ShapeError("shape: %s has an extent 0: an empty tensor has no layout "
                                 "(convert() takes empty arrays)" % (shape,))
            t = Tensor.of_format(format, shape, dt, block)
        init = object.__setattr__
        init(self, "_t", t)
        init(self, "_args", (format, shape, name, block))
        init(self, "_modes", t.modes())
        init(self, "format", text(format))
        init(self, "block", text(block))
        init(self, "dtype", name)
        init(self, "itemsize", _dtypes.SIZES[dt])
        init(self, "shape", t.shape)
        init(self, "cute", t.cute())

    def __setattr__(self, name, value):
        raise AttributeError("tilecopy.Layout is immutable: make another with tilecopy.layout()")

    def __delattr__(self, name):
        self.__setattr__(name, None)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (Layout, self._args)

    def _key(self):
        return (self.cute, self.shape, self.dtype, self.nbytes)

    def __eq__(self, other):
        if not isinstance(other, Layout):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    # ---- what it is --------------------------------------------------------

    def __str__(self):
        return self.cute

    def __repr__(self):
        blk = ", block=%r" % self.block if self.block is not None else ""
        return "tilecopy.layout(%r, shape=%r, dtype=%r%s)  # %s" % (
            self.format, self.shape, self.dtype, blk, self.cute)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def nbytes(self):
        """Bytes of a buffer holding the tensor, padding included."""
        return self._t.nbytes

    @property
    def size(self):
        """Elements of that buffer (its length as a 1-D array)."""
        return self.nbytes // self.itemsize

    @property
    def padded(self):
        """True when the buffer holds elements outside the logical shape."""
        return self._t.has_padding

    @property
    def strides(self):
        """Per-dim strides in elements (as DLPack), or None when a dim is
        blocked into several leaves of different strides. A dim of extent 1
        has the stride of its innermost leaf, as a contiguous tensor of
        numpy or PyTorch has."""
        return self._t.strides()

    @property
    def blocked(self):
        """True when a dim is split into blocks (nChw16c's C, zN's rows and
        cols), even where one block covers it (C = 7 of NCHW8)."""
        return any(len(leaves) > 1 for leaves in self._modes)

    @property
    def physical_order(self):
        """Logical dims from outermost to innermost in memory (NHWC: 0, 2, 3, 1)."""
        return self._t.physical_order()

    @property
    def modes(self):
        """Per logical dim, its leaves ((shape, stride), ...), innermost first."""
        return self._modes

    # ---- offsets -----------------------------------------------------------

    def _dim_offsets(self, m, idx):
        """The offsets of coordinates idx of dim m (other coordinates 0): the
        coordinate split over the dim's leaves colexicographically, as CuTe's
        crd2idx does."""
        idx = np.asarray(idx, dtype=np.int64)
        off = np.zeros(idx.shape, dtype=np.int64)
        leaves = self._modes[m]
        for k, (size, stride) in enumerate(leaves):
            last = k == len(leaves) - 1
            off += (idx if last else idx % size) * stride
            idx = idx // size
        return off

    def offsets(self):
        """The offset (in elements) of every logical element: an int64 array of
        the logical shape."""
        with _room("offsets", self.shape):
            total = np.zeros(self.shape, dtype=np.int64)
            for m, extent in enumerate(self.shape):
                sh = [1] * self.ndim
                sh[m] = extent
                total += self._dim_offsets(m, np.arange(extent)).reshape(sh)
        return total

    def __array__(self, dtype=None):
        o = self.offsets()
        return o if dtype is None else o.astype(dtype)

    def axes(self):
        """(row dim or None, column dim) of the drawing, as the CLI picks them:
        the first two blocked dims (O x I of OIhw16i16o, rows x cols of zN),
        else the first blocked one and the last dim (C x W of nChw16c), else
        dim 1 x the last (C x W of NCHW), or a matrix's rows x cols."""
        blocked = [m for m, lv in enumerate(self._modes) if len(lv) > 1][:2]
        rank = self.ndim
        col = blocked[1] if len(blocked) == 2 else rank - 1
        if blocked:
            row = None if blocked[0] == col else blocked[0]
        else:
            row = 1 if rank >= 3 else (rank - 2 if rank >= 2 else None)
        return row, col

    def _dim(self, d, what):
        d = index(d, what)
        if not -self.ndim <= d < self.ndim:
            raise InvalidArgumentError("grid: %s=%d is not a dim of a rank-%d layout"
                                       % (what, d, self.ndim))
        return d % self.ndim

    def grid(self, rows=None, cols=None):
        """A 2-D int64 array of offsets: dim ``rows`` down, dim ``cols`` across,
        every other coordinate 0 (default: the axes the CLI draws). Only
        those offsets are computed, not the whole tensor's."""
        return self._grid(rows, cols, None)

    def _grid(self, rows, cols, limit):
        if rows is None and cols is None:
            rows, cols = self.axes()
        elif cols is None:
            raise InvalidArgumentError("grid: cols is needed with rows")
        cols = self._dim(cols, "cols")

        def extent(d):
            return self.shape[d] if limit is None else min(self.shape[d], limit)
        if rows is not None:
            rows = self._dim(rows, "rows")
            if rows == cols:
                raise InvalidArgumentError("grid: rows and cols are both dim %d" % rows)
        with _room("grid", (1 if rows is None else extent(rows), extent(cols))):
            c = self._dim_offsets(cols, np.arange(extent(cols)))
            if rows is None:
                return c.reshape(1, -1)
            return self._dim_offsets(rows, np.arange(extent(rows)))[:, None] + c[None, :]

    def draw(self):
        """The text `tilecopy layout` prints: CuTe notation, the grid of
        offsets (at most 32 x 32 shown, and only those computed), the
        physical size."""
        row, col = self.axes()
        g = self._grid(row, col, GRID_MAX)
        ext_r = 1 if row is None else self.shape[row]
        ext_c = self.shape[col]
        w = max(len(str(self._cosize())), 1)
        cut = (row is not None and ext_r > GRID_MAX) or ext_c > GRID_MAX
        lines = [self.cute, "offsets (%s, rows = dim %d, cols = dim %d, other coordinates 0%s):"
                 % (self._t.format, 0 if row is None else row, col,
                    ", first 32 shown" if cut else "")]
        for r in g:
            lines.append(" ".join("%*d" % (w, v) for v in r) + (" ..." if ext_c > GRID_MAX else ""))
        if row is not None and ext_r > GRID_MAX:
            lines.append("...")
        lines.append("physical size: %d bytes (%d elements of %d bytes)%s"
                     % (self.nbytes, self.size, self.itemsize,
                        ", with padding" if self.padded else ""))
        return "\n".join(lines) + "\n"

    def _cosize(self):
        import ctypes as C
        from ._capi import check, lib
        c = C.c_int64()
        check(lib.tilecopy_layout_cosize(self._t.layout_handle(), C.byref(c)))
        return c.value


@contextlib.contextmanager
def _room(what, shape):
    """numpy's MemoryError (or ValueError: "array is too big") for an array
    of offsets as the NoMemoryError every tilecopy call raises."""
    try:
        yield
    except (MemoryError, ValueError) as e:
        if isinstance(e, Error) or (isinstance(e, ValueError) and "too big" not in str(e)):
            raise
        raise NoMemoryError("%s: %s int64 offsets (shape %s) do not fit in memory"
                            % (what, math.prod(shape), "x".join(map(str, shape)))) from None
