# SPDX-License-Identifier: MIT
"""Element types: numpy, DLPack/PyTorch and tilecopy names to tilecopy_dtype_t.

Only what the library has: uint8, int8, float16, bfloat16, int16, float32,
int32, float64, int64. numpy has no bfloat16: a bfloat16 tensor comes in
through DLPack (PyTorch) and goes out into an out= tensor.
"""
from ._errors import DtypeError

# tilecopy_dtype_t, in the enum's order, with the numpy name of each.
NAMES = ["uint8", "int8", "float16", "bfloat16", "int16", "float32", "int32", "float64", "int64"]
SIZES = [1, 1, 2, 2, 2, 4, 4, 8, 8]
BF16 = 3

_ALIASES = {
    "u8": 0, "i8": 1, "f16": 2, "half": 2, "fp16": 2, "bf16": 3, "i16": 4,
    "f32": 5, "float": 5, "fp32": 5, "i32": 6, "f64": 7, "double": 7, "i64": 8,
}


def parse(dtype, what="dtype"):
    """A name ("float16", "f16"), a numpy dtype or type, or a torch dtype ->
    (tilecopy_dtype_t, canonical numpy-style name)."""
    name = None
    if isinstance(dtype, str):
        name = dtype
    elif type(dtype).__module__ == "torch":       # torch.float16 -> "float16"
        name = str(dtype).split(".")[-1]
    else:
        try:
            import numpy as np
            name = np.dtype(dtype).name
        except TypeError:
            raise DtypeError("%s: %r is not an element type" % (what, dtype)) from None
    if name in NAMES:
        dt = NAMES.index(name)
    elif name in _ALIASES:
        dt = _ALIASES[name]
    else:
        raise DtypeError("%s: %s has no tilecopy element type (%s)"
                         % (what, name, ", ".join(NAMES)))
    return dt, NAMES[dt]


def of_numpy(arr, what):
    """The tilecopy dtype of a numpy array (byte order must be native)."""
    d = arr.dtype
    if d.byteorder == ">" or (d.byteorder == "<" and not _little()):
        raise DtypeError("%s: %s is not in native byte order" % (what, d))
    if d.name not in NAMES or d.name == "bfloat16":
        raise DtypeError("%s: numpy %s has no tilecopy element type (%s; bfloat16 through DLPack)"
                         % (what, d.name, ", ".join(n for n in NAMES if n != "bfloat16")))
    return NAMES.index(d.name)


def numpy_dtype(dt, what):
    import numpy as np
    if dt == BF16:
        raise DtypeError("%s: numpy has no bfloat16: give out= a bfloat16 tensor "
                         "(torch.empty(tilecopy.layout(...).size, dtype=torch.bfloat16))" % what)
    return np.dtype(NAMES[dt])


def _little():
    import sys
    return sys.byteorder == "little"
