# SPDX-License-Identifier: MIT
"""tilecopy.layout(): a format at a shape, as CuTe notation and offsets."""
import numpy as np

from . import _dtypes
from ._tensor import Tensor

GRID_MAX = 32   # the CLI's drawing shows at most 32 x 32


def layout(format, shape=None, dtype="float32", block=None):
    """The layout of ``format`` for a tensor of logical ``shape``.

    format  a format name ("NCHW", "nChw16c", "OIhw16i16o", "zN", any oneDNN
            tag, "strided:s0,s1,...") or a layout in CuTe notation
    shape   the logical shape (N,C,H,W; rows, cols; ...); None for a CuTe
            layout means its mode sizes
    dtype   element type: sizes fractals (C0 = 32 bytes / element size)
    block   a block override: "RxC" for zN/zZ/nZ/nN, "C0" for NC1HWC0

    print(l) shows the CuTe notation; l.offsets() (or np.asarray(l)) is the
    offset of every logical element, in elements.
    """
    return Layout(format, shape, dtype, block)


class Layout:
    """A format laid out for one shape and element type (immutable)."""

    def __init__(self, format, shape=None, dtype="float32", block=None, _tensor=None):
        dt, name = _dtypes.parse(dtype)
        if _tensor is None:
            if shape is None:
                _tensor = Tensor.of_cute(format, None, dt)
            else:
                _tensor = Tensor.of_format(format, shape, dt, block)
        self._t = _tensor
        self.format = format
        self.block = block
        self.dtype = name
        self.itemsize = _dtypes.SIZES[dt]
        self.shape = _tensor.shape
        self.cute = _tensor.cute()

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
        blocked into several leaves of different strides."""
        return self._t.strides()

    @property
    def blocked(self):
        """True when a dim is split into blocks (nChw16c's C, zN's rows and
        cols), even where one block covers it (C = 7 of NCHW8)."""
        return self._t.blocked

    @property
    def physical_order(self):
        """Logical dims from outermost to innermost in memory (NHWC: 0, 2, 3, 1)."""
        return self._t.physical_order()

    @property
    def modes(self):
        """Per logical dim, its leaves ((shape, stride), ...), innermost first."""
        return self._t.modes()

    # ---- offsets -----------------------------------------------------------

    def offsets(self):
        """The offset (in elements) of every logical element: an int64 array of
        the logical shape. Each dim's coordinate is split over its leaves
        colexicographically, as CuTe's crd2idx does."""
        total = np.zeros(self.shape, dtype=np.int64)
        for m, (extent, leaves) in enumerate(zip(self.shape, self.modes)):
            idx = np.arange(extent, dtype=np.int64)
            off = np.zeros(extent, dtype=np.int64)
            for k, (size, stride) in enumerate(leaves):
                last = k == len(leaves) - 1
                off += (idx if last else idx % size) * stride
                idx = idx // size
            sh = [1] * self.ndim
            sh[m] = extent
            total += off.reshape(sh)
        return total

    def __array__(self, dtype=None):
        o = self.offsets()
        return o if dtype is None else o.astype(dtype)

    def axes(self):
        """(row dim or None, column dim) of the drawing, as the CLI picks them:
        the first two blocked dims (O x I of OIhw16i16o, rows x cols of zN),
        else the first blocked one and the last dim (C x W of nChw16c), else
        dim 1 x the last (C x W of NCHW), or a matrix's rows x cols."""
        blocked = [m for m, lv in enumerate(self.modes) if len(lv) > 1][:2]
        rank = self.ndim
        col = blocked[1] if len(blocked) == 2 else rank - 1
        if blocked:
            row = None if blocked[0] == col else blocked[0]
        else:
            row = 1 if rank >= 3 else (rank - 2 if rank >= 2 else None)
        return row, col

    def grid(self, rows=None, cols=None):
        """A 2-D int64 array of offsets: dim ``rows`` down, dim ``cols`` across,
        every other coordinate 0 (default: the axes the CLI draws)."""
        if rows is None and cols is None:
            rows, cols = self.axes()
        elif cols is None:
            raise ValueError("grid: cols is needed with rows")
        o = self.offsets()
        index = [0] * self.ndim
        index[cols] = slice(None)
        if rows is None:
            return o[tuple(index)].reshape(1, -1)
        if rows == cols:
            raise ValueError("grid: rows and cols are both dim %d" % rows)
        index[rows] = slice(None)
        g = o[tuple(index)]
        return g if rows < cols else g.T

    def draw(self):
        """The text `tilecopy layout` prints: CuTe notation, the grid of
        offsets (at most 32 x 32 shown), the physical size."""
        row, col = self.axes()
        g = self.grid(row, col)
        ext_r, ext_c = g.shape
        g = g[:GRID_MAX, :GRID_MAX]
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
