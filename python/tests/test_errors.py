# SPDX-License-Identifier: MIT
"""Bad input: a clear exception (the library's message, naming the field) and
nothing written."""
import os
import subprocess
import sys

import numpy as np
import pytest

import reference as ref
import tilecopy
from conftest import BUILD, abs_pythonpath
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
    with pytest.raises(tilecopy.DtypeError, match="out holds int32, the array float32"):
        tilecopy.convert(X, src="NCHW", dst="nChw16c", out=out.view(np.int32))
    for bad in (X.astype(np.complex64), X.astype(np.complex128), X.astype(np.longdouble),
                X.astype(">f4"), X.astype("datetime64[s]")):
        with pytest.raises(tilecopy.DtypeError):
            tilecopy.convert(bad, src="NCHW", dst="nChw16c")
    with pytest.raises(tilecopy.DtypeError, match="not an element type|no tilecopy"):
        tilecopy.layout("NCHW", shape=(1, 2, 3, 4), dtype="float128x")
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
    assert y[1:].format is None and y[::-1].format is None
    with pytest.raises(tilecopy.InvalidArgumentError):
        y[1:].logical()
    with pytest.raises(tilecopy.InvalidArgumentError, match="not contiguous"):
        tilecopy.convert(y[::-1], src="nChw16c", shape=X.shape, dst="NCHW")
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


# ---- from the review of the package: every error a tilecopy.Error ------------

def test_every_refusal_is_a_tilecopy_error():
    """Errors Python finds, and those of the things it calls (numpy's
    allocation, a producer's __dlpack__), are tilecopy.Error subclasses
    that are also the built-in exception a caller expects."""
    out = untouched()
    cases = [
        (tilecopy.InvalidArgumentError, ValueError,
         lambda: tilecopy.convert(X, src="NCHW\0x", dst="NHWC")),
        (tilecopy.InvalidArgumentError, ValueError,
         lambda: tilecopy.layout("zN", (8, 12), block="4x4\0")),
        (tilecopy.InvalidArgumentError, ValueError,
         lambda: tilecopy.convert(X, src="NCHW", dst="NHWC", device="cpu\0")),
        (tilecopy.SizeOverflowError, OverflowError,
         lambda: tilecopy.layout("NCHW", (1 << 63, 1, 1, 1))),
        (tilecopy.InvalidArgumentError, TypeError,
         lambda: tilecopy.convert(X, src="NCHW", dst=5)),
        (tilecopy.InvalidArgumentError, TypeError,
         lambda: tilecopy.layout("zN", (8, 12), block=4)),
        (tilecopy.InvalidArgumentError, TypeError,
         lambda: tilecopy.convert(X, src="NCHW", dst="NHWC", shape=(2, 20, 3, 5.0))),
        (tilecopy.InvalidArgumentError, TypeError,
         lambda: tilecopy.convert(X, src="NCHW", dst="NHWC", shape=(True,) * 4)),
        (tilecopy.InvalidArgumentError, TypeError,
         lambda: tilecopy.layout("NHWC", (True, 2, 3, 4))),
        (tilecopy.InvalidArgumentError, TypeError,
         lambda: tilecopy.convert(X, src="NCHW", dst="nChw16c", out=out.tolist())),
        (tilecopy.InvalidArgumentError, ValueError,
         lambda: tilecopy.layout("zN", (8, 12)).grid(5, 1)),
        # a broadcast source of 2^40 elements: its result cannot be allocated
        (tilecopy.NoMemoryError, MemoryError,
         lambda: tilecopy.convert(np.broadcast_to(np.float32(1), (1 << 20, 1 << 20, 1, 1)),
                                  dst="NHWC")),
    ]
    for cls, builtin, call in cases:
        with pytest.raises(cls) as e:
            call()
        assert isinstance(e.value, tilecopy.Error) and isinstance(e.value, builtin), e.value
    np.testing.assert_array_equal(out, untouched())


def test_offsets_too_large_for_memory_are_a_tilecopy_error():
    """numpy's MemoryError or "array is too big" ValueError for a layout's
    offsets: NoMemoryError (a tilecopy.Error and a MemoryError), before the
    grid's other checks are skipped."""
    big = tilecopy.layout("RowMajor", (1 << 40, 1 << 20), "u8")
    for call in (big.offsets, lambda: np.asarray(big), lambda: big.grid(0, 1)):
        with pytest.raises(tilecopy.NoMemoryError, match="int64 offsets") as e:
            call()
        assert isinstance(e.value, MemoryError)
    with pytest.raises(tilecopy.InvalidArgumentError, match="both dim 0"):
        big.grid(0, 0)
    assert big.grid(cols=1).shape == (1, 1 << 20)
    assert big.draw().count("\n") > 3                  # the window only


def test_status_names_are_the_library_s():
    import ctypes
    lib = ctypes.CDLL(os.path.join(BUILD, "lib", "libtilecopy.so.1"))
    lib.tilecopy_status_str.restype = ctypes.c_char_p
    classes = [c for c in vars(tilecopy).values()
               if isinstance(c, type) and issubclass(c, tilecopy.Error) and c.status]
    assert len({c.status for c in classes}) == 17
    for c in classes:
        assert c.status_name == lib.tilecopy_status_str(c.status).decode(), c
    # raised in Python or by the library: one class, one name
    with pytest.raises(tilecopy.BlockError) as py:
        tilecopy.layout("((4,2)):((1,4))", block="4x4")
    with pytest.raises(tilecopy.BlockError) as c_lib:
        tilecopy.layout("NCHW", (1, 2, 3, 4), block="4")
    assert py.value.status_name == c_lib.value.status_name == "block does not fit"


def test_out_must_be_memory_written_in_place():
    """A list or tuple out= would be copied by numpy.asarray and the result
    lost: refused. A writable buffer is written where it is."""
    x = np.arange(16, dtype=np.uint8).reshape(4, 4)
    for bad in ([[0] * 4] * 4, ((0,) * 4,) * 4, 5, "0" * 16):
        with pytest.raises(tilecopy.InvalidArgumentError, match="not memory tilecopy can write"):
            tilecopy.convert(x, src="RowMajor", out=bad)
    with pytest.raises(tilecopy.InvalidArgumentError, match="read-only"):
        tilecopy.convert(x, src="RowMajor", dst="ColumnMajor", out=memoryview(b"z" * 16))
    buf = bytearray(16)
    assert tilecopy.convert(x, src="RowMajor", dst="ColumnMajor", out=buf) is buf
    assert bytes(buf) == x.T.tobytes()
    import array
    a = array.array("f", [0.0] * X.size)
    tilecopy.convert(X, src="NCHW", dst="NHWC", out=a)
    np.testing.assert_array_equal(np.frombuffer(a, np.float32), ref.expected("NHWC", X))


def test_out_plain_bytes_take_the_array_s_type():
    """A bytearray, an mmap or a memoryview of bytes has no element type:
    contiguous, it is the destination's bytes, read as the array's type.
    Typed memory keeps its type, and a strided byte view is not raw bytes."""
    import mmap
    want = np.ascontiguousarray(X.transpose(0, 2, 3, 1)).tobytes()   # numpy's NHWC
    buf = bytearray(X.nbytes)
    assert tilecopy.convert(X, src="NCHW", dst="NHWC", out=buf) is buf
    assert bytes(buf) == want
    m = mmap.mmap(-1, X.nbytes)
    tilecopy.convert(X, src="NCHW", dst="NHWC", out=memoryview(m))
    assert m[:] == want
    skew = bytearray(X.nbytes + 1)                  # not aligned to a float32
    tilecopy.convert(X, src="NCHW", dst="NHWC", out=memoryview(skew)[1:])
    assert bytes(skew[1:]) == want and skew[0] == 0
    odd = bytearray(X.nbytes + 1)
    with pytest.raises(tilecopy.BufferSizeError, match="no whole number of float32"):
        tilecopy.convert(X, src="NCHW", dst="NHWC", out=odd)
    assert odd == bytearray(X.nbytes + 1)
    with pytest.raises(tilecopy.BufferSizeError, match="takes 2400 bytes"):
        tilecopy.convert(X, src="NCHW", dst="NHWC", out=bytearray(X.nbytes + 4))
    with pytest.raises(tilecopy.DtypeError, match="out holds uint8"):
        tilecopy.convert(X, src="NCHW", dst="NHWC", out=memoryview(bytearray(2 * X.nbytes))[::2])
    with pytest.raises(tilecopy.DtypeError, match="out holds uint8"):
        tilecopy.convert(X, src="NCHW", dst="NHWC", out=np.zeros(X.nbytes, np.uint8))


def test_dlpack_address_past_2_64_is_refused():
    """data + byte_offset (+ the bytes read) past 2^64: ctypes would wrap the
    address and the library read elsewhere. Refused before anything runs."""
    x = np.arange(120, dtype=np.float32)

    def offset(value, data=None):
        def edit(t):
            t.byte_offset = value
            if data is not None:
                t.data = data
        return edit
    with pytest.raises(tilecopy.SizeOverflowError, match="address space"):
        tilecopy.convert(Exporter(x, offset((1 << 64) - 8)), src="RowMajor", shape=(10, 12),
                         dst="ColumnMajor")
    with pytest.raises(tilecopy.SizeOverflowError):     # element 0 fits, the rest does not
        tilecopy.convert(Exporter(x, offset((1 << 64) - 64, data=0)), src="RowMajor",
                         shape=(10, 12), dst="ColumnMajor")
    out = np.full(120, 7, np.float32)
    with pytest.raises(tilecopy.SizeOverflowError):
        tilecopy.convert(x.reshape(10, 12), src="RowMajor", dst="ColumnMajor",
                         out=Exporter(out, offset((1 << 64) - 8)))
    assert (out == 7).all()


def test_hints_name_the_fix():
    # an (N, H, W, C) array said to be NHWC: the logical view is a transpose
    nhwc = np.ascontiguousarray(X.transpose(0, 2, 3, 1))
    with pytest.raises(tilecopy.InvalidArgumentError,
                       match=r"x\.transpose\(0, 3, 1, 2\) \(a view\) in logical order"):
        tilecopy.convert(nhwc, src="NHWC", dst="NCHW")
    y = tilecopy.convert(nhwc.transpose(0, 3, 1, 2), src="NHWC", dst="NCHW")
    np.testing.assert_array_equal(y.logical(), X)
    # a named format needs a shape; a CuTe layout has its own and no block
    with pytest.raises(tilecopy.InvalidArgumentError, match="format 'NCHW' needs a shape"):
        tilecopy.layout("NCHW")
    with pytest.raises(tilecopy.BlockError, match="CuTe layout takes no block"):
        tilecopy.layout("((4,2),(4,3)):((4,16),(1,32))", dtype="f16", block="8x8")
    with pytest.raises(tilecopy.BlockError, match="src_block.*needs src="):
        tilecopy.convert(X, src_block="4x4", dst="NHWC")
    # device: nothing, or a NUL, is refused before any work
    for dev in ("", "auto\0"):
        with pytest.raises(tilecopy.InvalidArgumentError, match="device"):
            tilecopy.convert(X, src="NCHW", dst="NHWC", device=dev)


def test_array_format_compared_as_a_layout():
    """An Array made with dst="nhwc" is NHWC; bytes names are str."""
    y = tilecopy.convert(X, src="NCHW", dst="nhwc")
    back = tilecopy.convert(y, src="NHWC", dst=b"NCHW")
    assert back.format == "NCHW"
    np.testing.assert_array_equal(back.logical(), X)
    out = tilecopy.convert(X * 0, src="NCHW", dst="NHWC")
    tilecopy.convert(X, src="NCHW", dst="nhwc", out=out)
    np.testing.assert_array_equal(out, y)
    z = tilecopy.convert(ref.values((8, 12), np.float16), src="RowMajor", dst="zN",
                         dst_block="4x4")
    tilecopy.convert(z, src="zN", src_block="4X4", dst="RowMajor")      # same blocks
    with pytest.raises(tilecopy.InvalidArgumentError, match="block '4x4'.*another layout"):
        tilecopy.convert(z, src_block="8x4", dst="RowMajor")


def test_cpu_environment_named_in_the_message():
    """A bad $TILECOPY_CPU is the environment's fault: the message names it."""
    code = ("import numpy as np, tilecopy\n"
            "try:\n"
            "    tilecopy.convert(np.zeros((2, 3), np.float32), src='RowMajor', "
            "dst='ColumnMajor', device='cpu')\n"
            "except tilecopy.InvalidArgumentError as e:\n"
            "    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, PYTHONPATH=abs_pythonpath(),
                                             TILECOPY_CPU="garbage"))
    assert r.returncode == 0, r.stderr
    assert "$TILECOPY_CPU: unknown executor 'garbage'" in r.stdout


def test_byte_strides_must_be_whole_elements():
    """src=None takes any view whose strides are whole elements; a field of
    a packed structured array is not (5-byte steps of float32): refused,
    naming the stride."""
    rec = np.zeros(10, dtype=[("a", "u1"), ("b", "<f4")])
    with pytest.raises(tilecopy.InvalidArgumentError, match="5 bytes is not a multiple of"):
        tilecopy.convert(rec["b"], dst="strided:1")
    y = tilecopy.convert(np.ascontiguousarray(rec["b"]), dst="strided:1")
    assert y.shape == (10,)
