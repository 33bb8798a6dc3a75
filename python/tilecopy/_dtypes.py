# SPDX-License-Identifier: MIT
"""Element types: numpy, DLPack/PyTorch and tilecopy names to tilecopy_dtype_t.

The library has uint8, int8, float16, bfloat16, int16, float32, int32,
float64, int64. A layout move copies bits and converts no value, so the
numpy types it lacks move as the type of their size: uint16, uint32 and
uint64 as int16, int32, int64, bool as uint8; the result keeps the array's
own type. numpy has no bfloat16: a bfloat16 tensor comes in through DLPack
(PyTorch) and its result is an int16 array of the same bits, which
torch.from_dlpack(y).view(torch.bfloat16) reads back (PyTorch 1.13 takes no
uint16 through DLPack).

Every unsupported type is a DtypeError, whichever way it came in.
"""
from ._errors import DtypeError

# tilecopy_dtype_t, in the enum's order, with the numpy name of each.
NAMES = ["uint8", "int8", "float16", "bfloat16", "int16", "float32", "int32", "float64", "int64"]
SIZES = [1, 1, 2, 2, 2, 4, 4, 8, 8]
BF16 = 3

# The library's own short names (tilecopy_dtype_parse, the CLI's --dtype).
# They win over numpy's typecodes: "i8" is int8 here, as in the CLI, where
# numpy.dtype("i8") is int64.
_SHORT = {"u8": 0, "i8": 1, "f16": 2, "bf16": 3, "i16": 4, "f32": 5, "i32": 6, "f64": 7,
          "i64": 8}

# Types moved as another of their size (the bits are what moves).
_AS_BITS = {"uint16": 4, "uint32": 6, "uint64": 8, "bool": 0}

# DLPack (code, bits) of each name; the codes of dlpack.h's DLDataTypeCode.
_DL = {(0, 8): "int8", (0, 16): "int16", (0, 32): "int32", (0, 64): "int64",
       (1, 8): "uint8", (1, 16): "uint16", (1, 32): "uint32", (1, 64): "uint64",
       (2, 16): "float16", (2, 32): "float32", (2, 64): "float64",
       (4, 16): "bfloat16", (6, 8): "bool"}
_DL_CODE = {v: k for k, v in _DL.items()}
_DL_KIND = {0: "int", 1: "uint", 2: "float", 3: "opaque", 4: "bfloat", 5: "complex", 6: "bool"}

SUPPORTED = ", ".join(NAMES[:3] + NAMES[4:] + list(_AS_BITS)) + "; bfloat16 through DLPack"


def _dt(name, what, shown=None):
    """(tilecopy_dtype_t, name) of a numpy-style name, or a DtypeError."""
    if name in NAMES:
        return NAMES.index(name), name
    if name in _AS_BITS:
        return _AS_BITS[name], name
    raise DtypeError("%s: %s has no tilecopy element type (%s)"
                     % (what, shown or name, SUPPORTED))


def parse(dtype, what="dtype"):
    """A name ("float16", "f16", numpy's "float" = float64), a numpy dtype or
    type, or a torch dtype -> (tilecopy_dtype_t, numpy-style name)."""
    import numpy as np
    if dtype is None:                   # numpy.dtype(None) would be float64
        raise DtypeError("%s: None is not an element type" % what)
    if isinstance(dtype, bytes):
        dtype = dtype.decode("utf-8", "replace")
    if isinstance(dtype, str) and dtype in _SHORT:
        dt = _SHORT[dtype]
        return dt, NAMES[dt]
    if isinstance(dtype, str) and dtype in NAMES:
        return NAMES.index(dtype), dtype
    if type(dtype).__module__ == "torch":       # torch.float16 -> "float16"
        return _dt(str(dtype).split(".")[-1], what)
    try:
        name = np.dtype(dtype).name
    except (TypeError, ValueError):
        raise DtypeError("%s: %r is not an element type" % (what, dtype)) from None
    return _dt(name, what)


def of_numpy(arr, what):
    """(tilecopy_dtype_t, name) of a numpy array (byte order must be native)."""
    d = arr.dtype
    if d.byteorder == ">" or (d.byteorder == "<" and not _little()):
        raise DtypeError("%s: %s is not in native byte order" % (what, d))
    return _dt(d.name, what, "numpy " + d.name)


def of_dlpack(code, bits, lanes, what):
    """(tilecopy_dtype_t, name) of a DLPack element type."""
    name = _DL.get((code, bits)) if lanes == 1 else None
    if name is None:
        shown = "DLPack %s%d%s" % (_DL_KIND.get(code, "code %d " % code), bits,
                                   " x%d lanes" % lanes if lanes != 1 else "")
        raise DtypeError("%s: %s has no tilecopy element type (%s)" % (what, shown, SUPPORTED))
    return _dt(name, what)


def dlpack_code(dt):
    """The DLPack (code, bits) the library takes for tilecopy_dtype_t dt."""
    return _DL_CODE[NAMES[dt]]


def result_dtype(name):
    """The numpy dtype of a result holding elements of name."""
    import numpy as np
    return np.dtype("int16" if name == "bfloat16" else name)


def same(a, b):
    """Do names a and b hold the same elements? A 16-bit integer array is
    numpy's stand-in for bfloat16, so either takes the other."""
    return a == b or ({a, b} <= {"bfloat16", "int16", "uint16"} and "bfloat16" in (a, b))


def _little():
    import sys
    return sys.byteorder == "little"
