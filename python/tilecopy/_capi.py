# SPDX-License-Identifier: MIT
"""The C API through ctypes: libtilecopy.so.1 (the core, always) and
libtilecopy-device.so.1 (the engine, loaded on first use).

Both are ctypes.CDLL libraries, so every call releases the GIL while the C
code runs: a conversion on one thread never stops the others. Functions of
the Python C API (capsules) go through ctypes.pythonapi, which keeps it.

Where the libraries are: $TILECOPY_LIBDIR if set (and nowhere else: a
directory without them is an error naming it, never another copy found on
the linker's path), else the directory the package was built or installed
for (_config.LIBDIR), else the dynamic linker's search path.
"""
import ctypes as C
import os
import threading

try:
    from . import _config
except ImportError:
    raise ImportError("tilecopy: %s is the source tree, without _config.py: import the "
                      "package make builds (PYTHONPATH=build/python) or installs"
                      % os.path.dirname(__file__)) from None
from ._errors import ArgumentTypeError, InvalidArgumentError, SizeOverflowError, from_status

P = C.c_void_p
I64 = C.c_int64
U64 = C.c_uint64
U32 = C.c_uint32
I64P = C.POINTER(C.c_int64)
STATUS = C.c_int

# Flags of tilecopy.h and dlpack.h.
TENSOR_SHAPE_PHYSICAL = 1 << 0
TENSOR_VIEW = 1 << 1
STRIDES_BYTES = 1 << 2
PLAN_REINTERPRET = 1 << 0
DLPACK_PHYSICAL = 1 << 0

MAJOR = 1  # the SONAME this package is written against


def libdir():
    return os.environ.get("TILECOPY_LIBDIR") or _config.LIBDIR


def _open(soname):
    env = os.environ.get("TILECOPY_LIBDIR")
    d = env or _config.LIBDIR
    path = os.path.join(d, soname) if d else soname
    if env and not os.path.exists(path):
        raise ImportError("tilecopy: $TILECOPY_LIBDIR=%s has no %s" % (env, soname))
    if d and not os.path.exists(path):
        path = soname  # installed elsewhere: the dynamic linker's path
    try:
        return C.CDLL(path)
    except OSError as e:
        raise ImportError("tilecopy: cannot load %s (%s; set $TILECOPY_LIBDIR to the directory "
                          "of libtilecopy.so.1)" % (path, e)) from e


# name: (restype, argtypes) - one line per function used, as in the headers.
_CORE = {
    "tilecopy_version": (U32, []),
    "tilecopy_version_string": (C.c_char_p, []),
    "tilecopy_status_str": (C.c_char_p, [STATUS]),
    "tilecopy_last_error": (C.c_char_p, []),
    "tilecopy_dtype_size": (STATUS, [C.c_int, C.POINTER(C.c_size_t)]),
    "tilecopy_dtype_name": (STATUS, [C.c_int, C.POINTER(C.c_char_p)]),
    "tilecopy_dtype_parse": (STATUS, [C.POINTER(C.c_int), C.c_char_p]),
    "tilecopy_layout_parse": (STATUS, [C.POINTER(P), C.c_char_p]),
    "tilecopy_layout_destroy": (None, [P]),
    "tilecopy_layout_print": (STATUS, [P, C.c_char_p, C.c_size_t]),
    "tilecopy_layout_rank": (STATUS, [P, C.POINTER(C.c_int)]),
    "tilecopy_layout_cosize": (STATUS, [P, I64P]),
    "tilecopy_layout_mode_size": (STATUS, [P, C.c_int, I64P]),
    "tilecopy_layout_mode_leaves": (STATUS, [P, C.c_int, C.POINTER(C.c_int), C.POINTER(C.c_int)]),
    "tilecopy_layout_leaf": (STATUS, [P, C.c_int, I64P, I64P]),
    "tilecopy_layout_crd2idx": (STATUS, [P, I64P, C.c_int, I64P]),
    "tilecopy_tensor_create": (STATUS, [C.POINTER(P), C.c_char_p, I64P, C.c_int, C.c_int,
                                        C.c_char_p, U32]),
    "tilecopy_tensor_create_strided": (STATUS, [C.POINTER(P), C.c_int, I64P, I64P, C.c_int,
                                                U64, U32]),
    "tilecopy_tensor_create_layout": (STATUS, [C.POINTER(P), P, I64P, C.c_int, U32]),
    "tilecopy_tensor_destroy": (None, [P]),
    "tilecopy_tensor_rank": (STATUS, [P, C.POINTER(C.c_int)]),
    "tilecopy_tensor_shape": (STATUS, [P, I64P, C.c_int]),
    "tilecopy_tensor_dtype": (STATUS, [P, C.POINTER(C.c_int)]),
    "tilecopy_tensor_layout": (STATUS, [P, C.POINTER(P)]),
    "tilecopy_tensor_format": (STATUS, [P, C.POINTER(C.c_char_p)]),
    "tilecopy_tensor_strides": (STATUS, [P, I64P, C.c_int]),
    "tilecopy_tensor_physical_order": (STATUS, [P, C.POINTER(C.c_int), C.c_int]),
    "tilecopy_tensor_bytes": (STATUS, [P, C.POINTER(U64)]),
    "tilecopy_tensor_is_contiguous_in": (STATUS, [P, C.c_char_p, C.POINTER(C.c_int)]),
    "tilecopy_tensor_has_padding": (STATUS, [P, C.POINTER(C.c_int)]),
    "tilecopy_tensor_from_dlpack": (STATUS, [C.POINTER(P), P, U32]),
    "tilecopy_tensor_to_dlpack": (STATUS, [C.POINTER(P), P, P, U32]),
    "tilecopy_plan_create": (STATUS, [C.POINTER(P), P, P, U32]),
    "tilecopy_plan_destroy": (None, [P]),
    "tilecopy_plan_src_bytes": (STATUS, [P, C.POINTER(U64)]),
    "tilecopy_plan_dst_bytes": (STATUS, [P, C.POINTER(U64)]),
    "tilecopy_plan_execute_cpu": (STATUS, [P, P, C.c_size_t, P, C.c_size_t, C.c_char_p]),
    "tilecopy_cpu_name": (STATUS, [C.c_char_p, C.POINTER(C.c_char_p)]),
}

_DEVICE = {
    "tilecopy_device_count": (STATUS, [C.POINTER(C.c_int)]),
    "tilecopy_device_open": (STATUS, [C.POINTER(P), C.c_char_p]),
    "tilecopy_device_close": (None, [P]),
    "tilecopy_convert": (STATUS, [P, P, P, C.c_size_t, P, C.c_size_t, C.POINTER(C.c_int)]),
}


def _bind(lib, table):
    for name, (res, args) in table.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args


lib = _open("libtilecopy.so.%d" % MAJOR)
_bind(lib, _CORE)
if lib.tilecopy_version() >> 16 != MAJOR:
    raise ImportError("tilecopy: %s is version %s, this package needs %d.x"
                      % (lib._name, lib.tilecopy_version_string().decode(), MAJOR))

_dev_lock = threading.Lock()
_dev_lib = None
_dev_err = None


def device_lib():
    """libtilecopy-device, or None (then device_lib_error() says why)."""
    global _dev_lib, _dev_err
    with _dev_lock:
        if _dev_lib is None and _dev_err is None:
            try:
                d = _open("libtilecopy-device.so.%d" % MAJOR)
                _bind(d, _DEVICE)
                _dev_lib = d
            except (ImportError, OSError, AttributeError) as e:
                _dev_err = str(e)
        return _dev_lib


def device_lib_error():
    return _dev_err


def last_error():
    return (lib.tilecopy_last_error() or b"").decode("utf-8", "replace")


def check(status):
    """Raise the exception of a failed call; read right after the call, on
    the same thread (tilecopy_last_error is per thread)."""
    if status:
        msg = last_error()
        name = (lib.tilecopy_status_str(status) or b"error").decode()
        raise from_status(status, msg, name)


def cstr(text, what):
    """A str as the bytes of a C string: a NUL inside would cut it short."""
    if isinstance(text, bytes):
        b = text
    elif isinstance(text, str):
        b = text.encode("utf-8")
    else:
        raise ArgumentTypeError("%s: expected a str, got %s" % (what, type(text).__name__))
    if b"\0" in b:
        raise InvalidArgumentError("%s: %r contains a NUL character" % (what, text))
    return b


def text(value):
    """A name as str (bytes decoded), as an Array keeps its format."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def index(v, what):
    """An int (or numpy integer) as a Python int; no bool, float or str."""
    import operator
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        raise ArgumentTypeError("%s: expected integers, got the bool %r" % (what, v))
    try:
        return operator.index(v)
    except TypeError:
        raise ArgumentTypeError("%s: expected a sequence of integers, got %r"
                                % (what, v)) from None


def int_tuple(values, what):
    """A sequence of ints as a tuple of Python ints (see index())."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ArgumentTypeError("%s: expected a sequence of integers, got %r" % (what, values))
    return tuple(index(v, what) for v in values)


def int64_array(values, what):
    """A sequence of ints as an int64_t array (ints, numpy ints; no floats)."""
    vals = int_tuple(values, what)
    for v in vals:
        if not -(1 << 63) <= v < (1 << 63):
            raise SizeOverflowError("%s: %d does not fit in 64 bits" % (what, v))
    return (I64 * max(len(vals), 1))(*vals), len(vals)
