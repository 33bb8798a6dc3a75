# SPDX-License-Identifier: MIT
"""The reference the tests compare tilecopy with: where every logical element
of each named format lives, written here with index arithmetic from the
formats' definitions (oneDNN's tags, MegEngine's NCHWx and CHWN4, CANN's
NC1HWC0, CATLASS's fractals) - never with the library.

offsets(fmt, shape, itemsize) -> (int64 array of the logical shape holding
each element's offset in elements, physical size in elements).
"""
import os

import numpy as np

LOGICAL = {3: "NCW", 4: "NCHW", 5: "NCDHW"}


def _cdiv(a, b):
    return -(-a // b)


def _grid(shape):
    """Index arrays of every coordinate, broadcast against each other."""
    return np.ix_(*[np.arange(n, dtype=np.int64) for n in shape])


def _plain(order, shape):
    """A permutation of the logical dims, outermost first ("NHWC")."""
    names = LOGICAL[len(shape)]
    ext = dict(zip(names, shape))
    stride, strides = 1, {}
    for d in reversed(order):
        strides[d] = stride
        stride *= ext[d]
    idx = _grid(shape)
    off = sum(idx[k] * strides[d] for k, d in enumerate(names))
    return np.broadcast_to(off, shape).copy(), stride


def _channel_blocked(x, shape):
    """N, C/x, spatial..., x (nChw16c, NCHW4, NC1HWC0): C padded to x."""
    n, c, sp = shape[0], shape[1], shape[2:]
    c1 = _cdiv(c, x)
    spn = int(np.prod(sp)) if sp else 1
    idx = _grid(shape)
    s_lin = 0
    for k, e in enumerate(sp):              # row-major spatial index
        s_lin = s_lin * e + idx[2 + k]
    off = ((idx[0] * c1 + idx[1] // x) * spn + s_lin) * x + idx[1] % x
    return np.broadcast_to(off, shape).copy(), n * c1 * spn * x


def _chwn4(shape):
    """C/4, H, W, N, 4 (MegEngine CHWN4): C padded to 4."""
    n, c, h, w = shape
    N, C, H, W = _grid(shape)
    off = (((C // 4) * h + H) * w + W) * n * 4 + N * 4 + C % 4
    return np.broadcast_to(off, shape).copy(), _cdiv(c, 4) * h * w * n * 4


def _oihw_io(b, shape):
    """OIhw{b}i{b}o: O/b, I/b, H, W, b of I, b of O (oneDNN): O, I padded."""
    o, i, h, w = shape
    O, I, H, W = _grid(shape)
    o1, i1 = _cdiv(o, b), _cdiv(i, b)
    off = ((((O // b) * i1 + I // b) * h + H) * w + W) * b * b + (I % b) * b + O % b
    return np.broadcast_to(off, shape).copy(), o1 * i1 * h * w * b * b


def _matrix(fmt, shape, itemsize, block):
    """batch..., rows, cols. Each matrix whole (padding included), one after
    another. Fractals are R x C: zN/zZ 16 x C0, nZ/nN C0 x 16 with C0 = 32
    bytes / element size; the first letter is the order inside a fractal,
    the second between fractals (z/Z row-major, n/N column-major)."""
    *batch, rows, cols = shape
    c0 = 32 // itemsize
    if block:
        r, c = (int(v) for v in block.split("x"))
    elif fmt in ("zN", "zZ"):
        r, c = 16, c0
    else:
        r, c = c0, 16
    idx = _grid(shape)
    R, Cc = idx[-2], idx[-1]
    if fmt in ("RowMajor", "ND"):
        mat, per = R * cols + Cc, rows * cols
    elif fmt == "ColumnMajor":
        mat, per = Cc * rows + R, rows * cols
    else:
        rb, cb = _cdiv(rows, r), _cdiv(cols, c)
        inner = (R % r) * c + Cc % c if fmt[0] == "z" else (Cc % c) * r + R % r
        frac = (R // r) * cb + Cc // c if fmt[1] == "Z" else (Cc // c) * rb + R // r
        mat, per = frac * r * c + inner, rb * cb * r * c
    b_lin = 0
    for k, e in enumerate(batch):
        b_lin = b_lin * e + idx[k]
    off = b_lin * per + mat
    nb = int(np.prod(batch)) if batch else 1
    return np.broadcast_to(off, shape).copy(), nb * per


def offsets(fmt, shape, itemsize, block=None):
    shape = tuple(shape)
    if fmt in ("RowMajor", "ND", "ColumnMajor", "zN", "zZ", "nZ", "nN"):
        return _matrix(fmt, shape, itemsize, block)
    if fmt in ("NCW", "NWC", "NCHW", "NHWC", "CHWN", "HWCN", "NCDHW", "NDHWC"):
        return _plain(fmt, shape)
    if fmt == "nhwc":                       # a oneDNN tag in lower case
        return _plain("NHWC", shape)
    if fmt == "CHWN4":
        return _chwn4(shape)
    if fmt == "NC1HWC0":
        return _channel_blocked(int(block) if block else 32 // itemsize, shape)
    for prefix in ("NCW", "NCHW", "NCDHW"):  # MegEngine NCHWx
        if fmt.startswith(prefix) and fmt[len(prefix):].isdigit():
            return _channel_blocked(int(fmt[len(prefix):]), shape)
    if fmt in ("nCw16c", "nChw8c", "nChw16c", "nCdhw16c"):
        return _channel_blocked(int("".join(ch for ch in fmt if ch.isdigit())), shape)
    if fmt in ("OIhw4i4o", "OIhw16i16o"):
        return _oihw_io(int(fmt[4:fmt.index("i")]), shape)
    raise KeyError("reference: no definition of %s" % fmt)


# The named formats, by family: each family's formats take the same shapes.
FAMILIES = {
    "4d": (["NCHW", "NHWC", "CHWN", "HWCN", "nhwc", "NCHW4", "NCHW8", "NCHW16", "NCHW32",
            "NCHW64", "nChw8c", "nChw16c", "NC1HWC0", "CHWN4", "OIhw4i4o", "OIhw16i16o"],
           [(2, 20, 3, 5), (1, 64, 2, 2), (3, 7, 1, 4)]),
    "5d": (["NCDHW", "NDHWC", "NCDHW16", "nCdhw16c"],
           [(2, 20, 2, 3, 2), (1, 16, 1, 1, 3)]),
    "3d": (["NCW", "NWC", "NCW4", "NCW16", "nCw16c"],
           [(2, 20, 7), (1, 3, 5)]),
    "matrix": (["RowMajor", "ND", "ColumnMajor", "zN", "zZ", "nZ", "nN"],
               [(8, 12), (37, 45), (16, 32), (3, 17, 20)]),
}

DTYPES = [np.float32, np.float16, np.int8]

# TC_TEST_QUICK (the run on the emulated engine in make check-sdk, where
# Python and a job are slow): one element type, two shapes per family.
if os.environ.get("TC_TEST_QUICK"):
    DTYPES = [np.float16]
    FAMILIES = {k: (f, s[:2]) for k, (f, s) in FAMILIES.items()}


def values(shape, dtype):
    """Distinct-looking values for every logical element, exact in dtype."""
    n = int(np.prod(shape))
    v = np.arange(n, dtype=np.int64)
    if np.dtype(dtype).itemsize == 1:
        v = (v * 7 + 3) % 251 - 120
    elif np.dtype(dtype) == np.float16:
        v = v % 2039
    return v.astype(dtype).reshape(shape)


def sentinel(dtype):
    return np.array(-7 if np.dtype(dtype).kind in "if" else 0xA5).astype(dtype)


def physical(fmt, logical, block=None):
    """The buffer of fmt holding logical, with sentinel values in the padding
    (a source's padding must never be read)."""
    off, size = offsets(fmt, logical.shape, logical.dtype.itemsize, block)
    buf = np.full(size, sentinel(logical.dtype), dtype=logical.dtype)
    buf[off.ravel()] = logical.ravel()
    return buf


def expected(fmt, logical, block=None):
    """What a conversion must write: the elements, zeros in the padding."""
    off, size = offsets(fmt, logical.shape, logical.dtype.itemsize, block)
    buf = np.zeros(size, dtype=logical.dtype)
    buf[off.ravel()] = logical.ravel()
    return buf
