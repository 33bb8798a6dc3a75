# SPDX-License-Identifier: MIT
"""Element types: what moves as bits (unsigned ints, bool, bfloat16), what
is refused (the same DtypeError by every path), numpy's names for dtype=,
and PyTorch's lazy negative and conjugate bits."""
import numpy as np
import pytest

import reference as ref
import tilecopy
from exporter import Exporter

SHAPE = (2, 20, 3, 5)


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64", "bool"])
def test_types_moved_as_bits(name):
    """A layout move copies bits: numpy's unsigned ints and bool move as the
    type of their size, and the result keeps the array's own type."""
    x = (ref.values(SHAPE, np.int64) * 7919 % 65521).astype(name)
    if name != "bool":
        x[0, 0, 0, 0] = np.iinfo(name).max          # the top bit set
    y = tilecopy.convert(x, src="NCHW", dst="nChw16c")
    assert y.dtype == np.dtype(name)
    np.testing.assert_array_equal(y, ref.expected("nChw16c", x))
    back = tilecopy.convert(y, dst="NCHW")
    np.testing.assert_array_equal(back.logical(), x)
    out = np.zeros(SHAPE, name)
    tilecopy.convert(y, out=out, dtype=name)
    np.testing.assert_array_equal(out, x)
    assert tilecopy.layout("nChw16c", SHAPE, name).dtype == name
    # the same bits in a signed type of the same size: another type, refused
    signed = np.zeros(y.size, {"bool": np.uint8}.get(name, name.replace("u", "")))
    with pytest.raises(tilecopy.DtypeError, match="out holds"):
        tilecopy.convert(x, src="NCHW", dst="nChw16c", out=signed)


def test_unsigned_through_dlpack():
    x = ref.values((4, 6), np.uint32) | np.uint32(1 << 31)
    y = tilecopy.convert(Exporter(x), src="RowMajor", dst="ColumnMajor")
    assert y.dtype == np.uint32
    np.testing.assert_array_equal(y, x.T.ravel())


def test_unsupported_type_is_the_same_error_every_way(torch):
    """complex64 from numpy or from PyTorch: one DtypeError, one wording."""
    errors = []
    for x in (np.zeros((2, 3), np.complex64), torch.zeros(2, 3, dtype=torch.complex64)):
        with pytest.raises(tilecopy.DtypeError, match="complex64 has no tilecopy element type") \
                as e:
            tilecopy.convert(x, src="RowMajor", dst="ColumnMajor")
        assert isinstance(e.value, TypeError)
        errors.append(e.value.message.split(" has ")[1])
    assert errors[0] == errors[1]

    def lanes(t):
        t.dtype.lanes = 4
    with pytest.raises(tilecopy.DtypeError, match="lanes"):
        tilecopy.convert(Exporter(np.zeros((2, 3), np.float32), lanes), dst="ColumnMajor")


def test_dtype_names_follow_numpy():
    """numpy's names mean what numpy says ("float" is float64); the
    library's short names (f16, i8, ...) are the CLI's (i8 is int8)."""
    for name, want in (("float", "float64"), ("double", "float64"), ("half", "float16"),
                       ("int", "int64"), ("f4", "float32"), (float, "float64"),
                       (np.float16, "float16"), (np.dtype("<i2"), "int16"), ("f16", "float16"),
                       ("i8", "int8"), ("u8", "uint8"), ("bf16", "bfloat16"),
                       ("bfloat16", "bfloat16"), (b"f32", "float32"), (bool, "bool"),
                       ("uint64", "uint64")):
        assert tilecopy.layout("NCHW", (1, 2, 3, 4), name).dtype == want, name
    x = np.zeros((1, 1, 1, 1), np.float32)
    with pytest.raises(tilecopy.DtypeError, match="holds float32, dtype='float' says float64"):
        tilecopy.convert(x, src="NCHW", dst="NHWC", dtype="float")
    assert tilecopy.convert(x, src="NCHW", dst="NHWC", dtype="f4").dtype == np.float32
    for bad in (None, "float128x", 3, "complex64", object):
        with pytest.raises(tilecopy.DtypeError):
            tilecopy.layout("NCHW", (1, 2, 3, 4), bad)


def test_bfloat16_result_is_int16_bits(torch):
    """numpy has no bfloat16: without out=, the result holds the bits as
    int16, which PyTorch views back as bfloat16 without a copy."""
    t = (torch.arange(2 * 20 * 3 * 5) % 97 - 40).to(torch.bfloat16).reshape(SHAPE)
    y = tilecopy.convert(t, src="NCHW", dst="nChw16c")
    assert y.dtype == np.int16 and y.format == "nChw16c"
    bits = t.view(torch.int16).numpy()
    np.testing.assert_array_equal(y, ref.expected("nChw16c", bits))
    flat = torch.from_dlpack(y).view(torch.bfloat16)
    assert flat.data_ptr() == y.ctypes.data
    back = torch.empty(SHAPE, dtype=torch.bfloat16)
    tilecopy.convert(y, dst="NCHW", out=back)           # int16 bits into bfloat16
    assert torch.equal(back, t)
    u = np.zeros(y.size, np.uint16)                     # uint16 bits hold bfloat16 too
    tilecopy.convert(t, src="NCHW", dst="nChw16c", out=u)
    np.testing.assert_array_equal(u.view(np.int16), y)
    with pytest.raises(tilecopy.DtypeError, match="out holds float16, the array bfloat16"):
        tilecopy.convert(t, src="NCHW", dst="nChw16c", out=np.zeros(y.size, np.float16))
    z = tilecopy.convert(y, dst="NCHW")                  # and back to bits
    assert torch.equal(torch.from_dlpack(z.logical()).view(torch.bfloat16), t)


def test_torch_lazy_bits_are_refused(torch):
    """PyTorch keeps .conj() and a conjugate's .imag as bits on the tensor,
    not in memory; DLPack cannot say them, so reading the memory would give
    the values unnegated. Refused as a source and as out=."""
    c = torch.complex(torch.arange(6.0), torch.arange(6.0) + 1).reshape(2, 3)
    neg = c.conj().imag
    assert neg.is_neg()
    with pytest.raises(tilecopy.UnsupportedError, match=r"neg bit.*resolve_neg"):
        tilecopy.convert(neg, src="RowMajor", dst="ColumnMajor")
    with pytest.raises(tilecopy.UnsupportedError, match=r"conj bit.*resolve_conj"):
        tilecopy.convert(c.conj(), src="RowMajor", dst="ColumnMajor")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(tilecopy.UnsupportedError, match="neg bit"):
        tilecopy.convert(x, src="RowMajor", out=torch.zeros(2, 3, dtype=torch.complex64)
                         .conj().imag)
    y = tilecopy.convert(neg.resolve_neg(), src="RowMajor", dst="ColumnMajor")
    np.testing.assert_array_equal(y, -(np.arange(6, dtype=np.float32) + 1).reshape(2, 3).T
                                  .ravel())
