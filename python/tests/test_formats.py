# SPDX-License-Identifier: MIT
"""Every named format against the reference (reference.py: index arithmetic,
not the library): layouts, and every pair of formats of one family
converted, for a few shapes and element types."""
import subprocess

import numpy as np
import pytest

import reference as ref
import tilecopy
from conftest import EXPECT_ENGINE

PAIRS = [(fam, s, d) for fam, (fmts, _) in ref.FAMILIES.items() for s in fmts for d in fmts]
FORMATS = [(fam, f) for fam, (fmts, _) in ref.FAMILIES.items() for f in fmts]
PLAIN = {"NCHW", "NHWC", "CHWN", "HWCN", "nhwc", "NCDHW", "NDHWC", "NCW", "NWC",
         "RowMajor", "ND", "ColumnMajor"}


def _id(p):
    return "%s-%s-%s" % p if len(p) == 3 else "%s-%s" % p


@pytest.mark.parametrize("fam,fmt", FORMATS, ids=map(_id, FORMATS))
def test_layout_offsets(fam, fmt):
    for shape in ref.FAMILIES[fam][1]:
        for dt in ref.DTYPES:
            it = np.dtype(dt).itemsize
            want, size = ref.offsets(fmt, shape, it)
            lay = tilecopy.layout(fmt, shape=shape, dtype=dt)
            assert lay.shape == shape
            np.testing.assert_array_equal(lay.offsets(), want, err_msg="%s %s %s" % (fmt, shape, dt))
            np.testing.assert_array_equal(np.asarray(lay), want)
            assert lay.size == size and lay.nbytes == size * it
            assert lay.padded == (size > int(np.prod(shape)))
            assert lay.blocked == (fmt not in PLAIN)
            if lay.strides is not None:     # one stride per dim: the offsets follow it
                idx = np.indices(shape)
                np.testing.assert_array_equal(
                    sum(i * s for i, s in zip(idx, lay.strides)), want)
            else:
                assert lay.blocked


@pytest.mark.parametrize("fam,src,dst", PAIRS, ids=map(_id, PAIRS))
def test_convert_pair(fam, src, dst):
    """src buffer (sentinels in its padding) -> a new array and an out= buffer
    full of other sentinels: both exactly the reference, padding zeroed."""
    for shape in ref.FAMILIES[fam][1]:
        for dt in ref.DTYPES:
            what = "%s -> %s %s %s" % (src, dst, shape, np.dtype(dt).name)
            x = ref.values(shape, dt)
            buf = ref.physical(src, x)
            want = ref.expected(dst, x)
            y = tilecopy.convert(buf, src=src, dst=dst, shape=shape)
            assert isinstance(y, tilecopy.Array) and y.dtype == dt, what
            assert (y.format, y.logical_shape) == (dst, shape), what
            if EXPECT_ENGINE:
                assert y.executor == "device:auto", what
            np.testing.assert_array_equal(y, want, err_msg=what)
            out = np.full(want.size, 99, dtype=dt)
            assert tilecopy.convert(buf, src=src, dst=dst, shape=shape, out=out) is out
            np.testing.assert_array_equal(out, want, err_msg=what + " (out=)")


@pytest.mark.parametrize("fam,fmt", [p for p in FORMATS if p[1] in PLAIN],
                         ids=map(_id, [p for p in FORMATS if p[1] in PLAIN]))
def test_strided_views_of_plain_formats(fam, fmt):
    """A plain format's buffer viewed with its strides (logical shape) is read
    through the strides, with src= checking them or src=None taking them."""
    for shape in ref.FAMILIES[fam][1]:
        x = ref.values(shape, np.float32)
        off, size = ref.offsets(fmt, shape, 4)
        buf = ref.physical(fmt, x)
        strides = tuple(_stride(off, d) * 4 for d in range(len(shape)))
        view = np.lib.stride_tricks.as_strided(buf, shape, strides)
        np.testing.assert_array_equal(view, x)
        for src in (fmt, None):
            y = tilecopy.convert(view, src=src, dst="RowMajor" if fam == "matrix" else
                                 ref.LOGICAL[len(shape)])
            np.testing.assert_array_equal(y, x.ravel())


def _stride(off, d):
    """Offset step of dim d (1 for an extent-1 dim)."""
    if off.shape[d] == 1:
        return 1
    i = [0] * off.ndim
    j = list(i)
    j[d] = 1
    return int(off[tuple(j)] - off[tuple(i)])


def test_round_trips_through_arrays():
    """convert() of a tilecopy.Array reads its own format and shape."""
    x = ref.values((2, 20, 3, 5), np.float32)
    y = tilecopy.convert(x, src="NCHW", dst="nChw16c")
    for fmt in ("NC1HWC0", "CHWN4", "NHWC", "OIhw16i16o"):
        y = tilecopy.convert(y, dst=fmt)
        assert y.format == fmt and y.logical_shape == x.shape
    back = tilecopy.convert(y, dst="NCHW")
    np.testing.assert_array_equal(back.logical(), x)


def test_block_overrides():
    x = ref.values((8, 12), np.float16)
    y = tilecopy.convert(x, src="RowMajor", dst="zN", dst_block="4x4")
    np.testing.assert_array_equal(y, ref.expected("zN", x, "4x4"))
    assert y.block == "4x4" and str(y.layout) == "((4,2),(4,3)):((4,16),(1,32))"
    z = tilecopy.convert(y, dst="nZ", dst_block="8x4")
    np.testing.assert_array_equal(z, ref.expected("nZ", x, "8x4"))
    x4 = ref.values((2, 20, 3, 5), np.float32)
    c = tilecopy.convert(x4, src="NCHW", dst="NC1HWC0", dst_block="4")
    np.testing.assert_array_equal(c, ref.expected("NC1HWC0", x4, "4"))


def test_offsets_agree_with_crd2idx():
    """Layout.offsets() (numpy over the leaves) against the library's own
    crd2idx, element by element."""
    for fmt, shape in (("OIhw16i16o", (20, 35, 3, 2)), ("zN", (3, 17, 20)),
                       ("CHWN4", (3, 6, 2, 2)), ("nN", (33, 9))):
        lay = tilecopy.layout(fmt, shape=shape, dtype="float16")
        off = lay.offsets()
        for crd in np.ndindex(*shape):
            assert lay._t.crd2idx(crd) == off[crd], (fmt, crd)


def test_cute_layouts():
    lay = tilecopy.layout("((4,2),(4,3)):((4,16),(1,32))", dtype="float16")
    assert lay.shape == (8, 12) and str(lay) == "((4,2),(4,3)):((4,16),(1,32))"
    np.testing.assert_array_equal(lay.offsets(), ref.offsets("zN", (8, 12), 2, "4x4")[0])
    x = ref.values((8, 12), np.float16)
    y = tilecopy.convert(x, src="RowMajor", dst="((4,2),(4,3)):((4,16),(1,32))")
    np.testing.assert_array_equal(y, ref.expected("zN", x, "4x4"))


@pytest.mark.parametrize("fmt,shape,dtype,block", [
    ("zN", (8, 12), "float16", "4x4"), ("zN", (5, 6), "float16", "4x4"),
    ("nN", (40, 40), "int8", None), ("nChw8c", (1, 12, 2, 3), "float32", None),
    ("CHWN4", (2, 6, 1, 2), "int8", None), ("OIhw4i4o", (6, 5, 1, 2), "float32", None),
    ("NHWC", (2, 3, 4, 5), "float64", None), ("zZ", (2, 33, 70), "float32", None)])
def test_draw_is_the_cli_picture(cli, fmt, shape, dtype, block):
    """Layout.draw() prints what `tilecopy layout` prints."""
    short = {"float16": "f16", "int8": "i8", "float32": "f32", "float64": "f64"}[dtype]
    cmd = [cli, "layout", fmt, "--shape", "x".join(map(str, shape)), "--dtype", short]
    if block:
        cmd += ["--block", block]
    text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    assert tilecopy.layout(fmt, shape=shape, dtype=dtype, block=block).draw() == text


def test_grid_axes():
    lay = tilecopy.layout("nChw16c", shape=(2, 20, 3, 5))
    g = lay.grid()
    assert g.shape == (20, 5)
    np.testing.assert_array_equal(g, lay.offsets()[0, :, 0, :])
    np.testing.assert_array_equal(lay.grid(rows=3, cols=1), lay.offsets()[0, :, 0, :].T)


def test_draw_computes_only_the_window(cli):
    """draw() of a layout whose offsets() would take terabytes: only the
    32 x 32 window is computed (the whole tensor's offsets cannot even be
    allocated), and the picture is still the CLI's."""
    for fmt, shape, dtype in (("zN", (128256, 4096), "float16"),
                              ("NCHW", (1 << 20, 1 << 20, 4, 4), "uint8")):
        lay = tilecopy.layout(fmt, shape=shape, dtype=dtype)
        short = {"float16": "f16", "uint8": "u8"}[dtype]
        text = subprocess.run([cli, "layout", fmt, "--shape", "x".join(map(str, shape)),
                               "--dtype", short], check=True, capture_output=True,
                              text=True).stdout
        assert lay.draw() == text
    huge = tilecopy.layout("NCHW", (1 << 20, 1 << 20, 4, 4), "u8")
    g = huge.grid(0, 3)                 # a 2-D slice: 2^20 x 4 offsets, not 2^42
    assert g.shape == (1 << 20, 4) and g[-1, -1] == ((1 << 20) - 1) * (1 << 24) + 3


def test_grid_dims_are_checked():
    lay = tilecopy.layout("zN", shape=(8, 12), dtype="f16", block="4x4")
    np.testing.assert_array_equal(lay.grid(-1, 0), lay.offsets().T)
    for rows, cols in ((5, 1), (0, 0), (0, 2), (0, "1")):
        with pytest.raises(tilecopy.InvalidArgumentError):
            lay.grid(rows, cols)


# Each plain format's memory order: logical dims outermost first.
MEMORY_ORDER = {"NHWC": (0, 2, 3, 1), "NCHW": (0, 1, 2, 3), "NDHWC": (0, 2, 3, 4, 1),
                "ColumnMajor": (1, 0), "RowMajor": (0, 1)}


@pytest.mark.parametrize("fmt,logical", [("NHWC", (1, 9, 5, 4)), ("NHWC", (2, 1, 5, 1)),
                                         ("NCHW", (1, 1, 1, 1)), ("NDHWC", (1, 3, 1, 4, 2)),
                                         ("ColumnMajor", (1, 7)), ("RowMajor", (5, 1))])
def test_extent1_strides_are_numpy_s(fmt, logical):
    """A dim of extent 1 has the stride numpy gives a contiguous array in
    the format's memory order (not 0): NHWC 1x9x5x4 is (180, 1, 36, 9)."""
    order = MEMORY_ORDER[fmt]
    mem = np.empty([logical[d] for d in order], np.float32)
    want = tuple(s // 4 for s in mem.transpose([order.index(d) for d in range(len(order))])
                 .strides)
    assert tilecopy.layout(fmt, logical, "float32").strides == want
    y = tilecopy.convert(np.zeros(logical, np.float32), src=None, dst=fmt)
    assert tuple(s // 4 for s in y.logical().strides) == want


def test_extent1_strides_are_torch_s(torch):
    for shape in ((1, 9, 5, 4), (3, 1, 2, 1), (1, 1, 1, 1)):
        want = torch.empty(shape, memory_format=torch.channels_last).stride()
        assert tilecopy.layout("NHWC", shape).strides == want
        y = tilecopy.convert(torch.zeros(shape), src="NCHW", dst="NHWC")
        assert y.logical().strides == tuple(4 * s for s in want)
