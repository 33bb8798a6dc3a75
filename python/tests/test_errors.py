# SPDX-License-Identifier: MIT
"""Bad input: a clear exception (the library's message, naming the field) and
nothing written."""
import numpy as np
import pytest

import reference as ref
import tilecopy
from exporter import Exporter

X = ref.values((2, 20, 3, 5), np.float32)
NCHW16 = ref.physical("nChw16c", X)          # 960 elements with padding


def untouched(size=NCHW16.size, dtype=np.float32):
    return np.full(size, 77, dtype)


def test_errors_are_exceptions_with_the_library_message():
    with pytest.raises(tilecopy.ShapeError) as e:
        tilecopy.layout("NCHW", shape=(2, 3, 4))
    assert isinstance(e.value, ValueError) and isinstance(e.value, tilecopy.Error)
    assert e.value.status == 4 and e.value.status_name == "shape mismatch"
    assert "needs rank 4, got 3" in e.value.message and "needs rank 4" in str(e.value)
    with pytest.raises(tilecopy.UnknownFormatError, match="NCHWQ"):
        tilecopy.layout("NCHWQ", shape=(1, 2, 3, 4))
    with pytest.raises(tilecopy.ParseError):
        tilecopy.layout("((4,2):(1)", dtype="f16")
    with pytest.raises(tilecopy.BlockError):
        tilecopy.layout("zN", shape=(8, 12), block="0x4")


def test_wrong_dtype():
    out = untouched()
    with pytest.raises(tilecopy.DtypeError, match="holds float32, dtype='float16'"):
        tilecopy.convert(X, src="NCHW", dst="nChw16c", dtype="float16", out=out)
    with pytest.raises(TypeError):      # DtypeError is a TypeError too
        tilecopy.convert(X, src="NCHW", dst="nChw16c", dtype=np.int32, out=out)
    with pytest.raises(tilecopy.DtypeError, match="dtype"):   # the library's check
        tilecopy.convert(X, src="NCHW", dst="nChw16c", out=out.view(np.int32))
    for bad in (X.astype(np.uint16), X.astype(np.complex64), X > 3, X.astype(">f4")):
        with pytest.raises(tilecopy.DtypeError):
            tilecopy.convert(bad, src="NCHW", dst="nChw16c")
    with pytest.raises(tilecopy.DtypeError, match="not an element type|no tilecopy"):
        tilecopy.layout("NCHW", shape=(1, 2, 3, 4), dtype="float128x")

    def bf16(t):
        t.dtype.code = 4                # kDLBfloat: the same bits, read as bfloat16
    with pytest.raises(tilecopy.DtypeError, match="numpy has no bfloat16.*out="):
        tilecopy.convert(Exporter(X.astype(np.float16), bf16), src="NCHW", dst="NHWC")
    np.testing.assert_array_equal(out, untouched())
    # the right dtype, stated, is fine
    tilecopy.convert(X, src="NCHW", dst="nChw16c", dtype="f32", out=out)
    np.testing.assert_array_equal(out, ref.expected("nChw16c", X))


def test_wrong_size():
    out = untouched()
    with pytest.raises(tilecopy.BufferSizeError, match="959 elements.*960 elements"):
        tilecopy.convert(NCHW16[:-1], src="nChw16c", dst="NCHW", shape=X.shape)
    with pytest.raises(tilecopy.BufferSizeError, match="961 elements"):
        tilecopy.convert(np.append(NCHW16, 1), src="nChw16c", dst="NCHW", shape=X.shape)
    for bad in (out[:-1], np.full(out.size + 16, 77, np.float32)):
        with pytest.raises(tilecopy.BufferSizeError, match="out has"):
            tilecopy.convert(X, src="NCHW", dst="nChw16c", out=bad)
        assert (bad == 77).all()
    with pytest.raises(tilecopy.ShapeError, match="has shape 2x20x3x5"):
        tilecopy.convert(X, src=None, dst="NHWC", shape=(2, 20, 5, 3))
    with pytest.raises(tilecopy.ShapeError):           # out's logical shape differs
        tilecopy.convert(X, src="NCHW", out=np.zeros((2, 20, 5, 3), np.float32))
    with pytest.raises(tilecopy.SizeOverflowError):
        tilecopy.layout("NCHW", shape=(1 << 40, 1 << 40, 1, 1))
    with pytest.raises(OverflowError):
        tilecopy.layout("NCHW", shape=(1 << 63, 1, 1, 1))
    with pytest.raises(tilecopy.Error):
        tilecopy.layout("NCHW", shape=(2, -3, 4, 5))
    with pytest.raises(tilecopy.Error):
        tilecopy.layout("NCHW", shape=(2, 0, 4, 5))
    with pytest.raises(TypeError, match="integers"):
        tilecopy.convert(NCHW16, src="nChw16c", dst="NCHW", shape=(2, 20, 3.0, 5))
    with pytest.raises(TypeError, match="integers"):
        tilecopy.layout("NCHW", shape="2x3x4x5")
    np.testing.assert_array_equal(out, untouched())


def test_non_contiguous_input_without_strides():
    """A blocked format has no strides to describe a strided array: refused,
    and the array is not copied behind the caller's back."""
    out = untouched(X.size)
    spaced = np.zeros(NCHW16.size * 2, np.float32)[::2]
    spaced[:] = NCHW16
    with pytest.raises(tilecopy.InvalidArgumentError, match="not contiguous.*ascontiguousarray"):
        tilecopy.convert(spaced, src="nChw16c", dst="NCHW", shape=X.shape, out=out)
    with pytest.raises(tilecopy.InvalidArgumentError, match="not contiguous"):
        tilecopy.convert(X.transpose(0, 2, 3, 1), src="NCHW", shape=X.shape, dst="NHWC", out=out)
    np.testing.assert_array_equal(out, untouched(X.size))
    # a non-contiguous destination of a blocked format: refused too
    dst = np.full(NCHW16.size * 2, 77, np.float32)
    with pytest.raises(tilecopy.InvalidArgumentError, match="out is not contiguous"):
        tilecopy.convert(X, src="NCHW", dst="nChw16c", out=dst[::2])
    assert (dst == 77).all()


def test_strides_not_what_src_says():
    with pytest.raises(tilecopy.InvalidArgumentError,
                       match=r"is not NHWC: shape 2x20x3x5 has strides \(300, 15, 5, 1\).*src=None"):
        tilecopy.convert(X, src="NHWC", dst="NCHW")
    out = np.full((2, 20, 3, 5), 77, np.float32)
    with pytest.raises(tilecopy.InvalidArgumentError, match="out is not NHWC"):
        tilecopy.convert(X, src="NCHW", dst="NHWC", out=out)
    assert (out == 77).all()
    with pytest.raises(tilecopy.UnsupportedError, match="negative"):
        tilecopy.convert(X[:, ::-1], dst="NCHW")


def test_read_only_and_bad_arguments():
    ro = untouched()
    ro.flags.writeable = False
    with pytest.raises(tilecopy.InvalidArgumentError, match="read-only"):
        tilecopy.convert(X, src="NCHW", dst="nChw16c", out=ro)
    src_ro = X.copy()
    src_ro.flags.writeable = False          # a read-only source is fine
    tilecopy.convert(src_ro, src="NCHW", dst="nChw16c")
    with pytest.raises(tilecopy.InvalidArgumentError, match="dst"):
        tilecopy.convert(X, src="NCHW")
    with pytest.raises(ValueError, match="NUL"):
        tilecopy.convert(X, src="NCHW\0garbage", dst="NHWC")
    with pytest.raises(TypeError, match="format"):
        tilecopy.convert(X, src="NCHW", dst=16)
    with pytest.raises(TypeError, match="device"):
        tilecopy.convert(X, src="NCHW", dst="NHWC", device=0)


def test_array_metadata_is_authoritative():
    y = tilecopy.convert(X, src="NCHW", dst="nChw16c")
    with pytest.raises(tilecopy.InvalidArgumentError, match="holds nChw16c, src='NCHW'"):
        tilecopy.convert(y, src="NCHW", dst="NHWC")
    with pytest.raises(tilecopy.ShapeError, match="holds shape 2x20x3x5"):
        tilecopy.convert(y, dst="NHWC", shape=(2, 20, 5, 3))
    out = tilecopy.convert(X, src="NCHW", dst="NHWC")
    keep = out.copy()
    with pytest.raises(tilecopy.InvalidArgumentError, match="out holds NHWC"):
        tilecopy.convert(X, src="NCHW", dst="NCHW", out=out)
    np.testing.assert_array_equal(out, keep)
    # a slice drops the metadata: then it is a plain buffer
    assert y[1:].format is None and y[::-1].format == "nChw16c"
    with pytest.raises(tilecopy.InvalidArgumentError):
        y[1:].logical()
    with pytest.raises(tilecopy.InvalidArgumentError, match="not contiguous"):
        tilecopy.convert(y[::-1], dst="NCHW")
    np.testing.assert_array_equal(tilecopy.convert(np.asarray(y), src="nChw16c", shape=X.shape,
                                                   dst="NCHW").logical(), X)


def test_blocked_logical_view_says_why():
    y = tilecopy.convert(X, src="NCHW", dst="nChw16c")
    with pytest.raises(tilecopy.UnsupportedError, match="dim 1 is blocked.*PHYSICAL"):
        y.logical()


def test_in_place_and_overlapping():
    """out= the very buffer of the source, or overlapping it: the result of
    disjoint buffers (the library copies the source aside)."""
    buf = ref.physical("NCHW", X)
    want = ref.expected("NHWC", X)
    tilecopy.convert(buf, src="NCHW", dst="NHWC", shape=X.shape, out=buf)
    np.testing.assert_array_equal(buf, want)
    big = np.zeros(X.size + 7, np.float32)
    big[:X.size] = X.ravel()
    tilecopy.convert(big[:X.size], src="NCHW", dst="NHWC", shape=X.shape, out=big[7:])
    np.testing.assert_array_equal(big[7:], want)
    # a destination mapping two elements to one address is refused
    with pytest.raises(tilecopy.OverlapError):
        tilecopy.convert(X, src="NCHW", dst="strided:0,1,1,1")


def test_odd_memory():
    """Unaligned arrays work (as numpy allows them); a writable broadcast
    out= (two elements at one address) is refused, untouched; a list is
    an array; a str is not."""
    raw = bytearray(1 + X.nbytes)
    u = np.frombuffer(raw, np.float32, offset=1)
    u[:] = X.ravel()
    assert not u.flags.aligned
    for dev in ("cpu:scalar", "cpu"):
        y = tilecopy.convert(u, src="NCHW", dst="nChw16c", shape=X.shape, device=dev)
        np.testing.assert_array_equal(y, ref.expected("nChw16c", X))
        out = np.frombuffer(bytearray(1 + X.nbytes), np.float32, offset=1)
        tilecopy.convert(y, dst="NCHW", out=out, device=dev)
        np.testing.assert_array_equal(out, X.ravel())
    buf = np.zeros(5, np.float32)
    bcast = np.lib.stride_tricks.as_strided(buf, (4, 5), (0, 4))
    with pytest.raises(tilecopy.OverlapError, match="two elements to one address"):
        tilecopy.convert(np.ones((4, 5), np.float32), src="RowMajor", out=bcast)
    assert not buf.any()
    np.testing.assert_array_equal(tilecopy.convert([[1, 2], [3, 4]], src="RowMajor",
                                                   dst="ColumnMajor"), [1, 3, 2, 4])
    with pytest.raises(tilecopy.DtypeError, match="str"):
        tilecopy.convert("abc", dst="NCHW")
