# SPDX-License-Identifier: MIT
"""DLPack 0.6 (dmlc/dlpack, Debian's libdlpack-dev): the structs, and the
consumer's side of the Python protocol (__dlpack__ capsules).

A consumer takes the capsule named "dltensor", renames it "used_dltensor"
(so the producer's capsule destructor leaves it alone) and calls the
DLManagedTensor's deleter when it no longer needs the memory. Here that is
as soon as the conversion has run: tilecopy never keeps a reference.
"""
import ctypes as C

from ._errors import ArgumentTypeError, InvalidArgumentError, UnsupportedError


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int), ("device_id", C.c_int)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int),
                ("dtype", DLDataType), ("shape", C.POINTER(C.c_int64)),
                ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


class DLManagedTensor(C.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", C.c_void_p),
                ("deleter", C.c_void_p)]


_get = C.pythonapi.PyCapsule_GetPointer
_get.restype, _get.argtypes = C.c_void_p, [C.py_object, C.c_char_p]
_set_name = C.pythonapi.PyCapsule_SetName
_set_name.restype, _set_name.argtypes = C.c_int, [C.py_object, C.c_char_p]
_is_valid = C.pythonapi.PyCapsule_IsValid
_is_valid.restype, _is_valid.argtypes = C.c_int, [C.py_object, C.c_char_p]

# The deleter is called with the GIL held (PYFUNCTYPE): numpy's drops a
# reference to the array, which needs it.
_DELETER = C.PYFUNCTYPE(None, C.c_void_p)


def call_deleter(managed_ptr):
    m = C.cast(managed_ptr, C.POINTER(DLManagedTensor)).contents
    if m.deleter:
        _DELETER(m.deleter)(managed_ptr)


class Imported:
    """The DLManagedTensor of obj.__dlpack__(), owned until close()."""

    def __init__(self, obj, what):
        self.ptr = None
        _refuse_lazy_bits(obj, what)
        try:
            dev = getattr(obj, "__dlpack_device__", None)
            cap = obj.__dlpack__()
            device = dev() if dev else None
        except Exception as e:          # PyTorch: requires grad, sparse, meta, ...
            raise InvalidArgumentError("%s: %s.__dlpack__() failed: %s"
                                       % (what, type(obj).__name__, e)) from e
        if not _is_valid(cap, b"dltensor"):
            raise ArgumentTypeError("%s: __dlpack__ returned %r, not a \"dltensor\" capsule (a "
                                    "capsule is consumed once)" % (what, cap))
        self.ptr = _get(cap, b"dltensor")
        _set_name(cap, b"used_dltensor")
        self.obj = obj                   # the producer's tensor, kept while we use it
        self.device = device

    @property
    def dltensor(self):
        """Address of the DLTensor (the first member of the managed tensor)."""
        return self.ptr

    @property
    def data(self):
        return C.cast(self.ptr, C.POINTER(DLTensor)).contents.data or 0

    def close(self):
        if self.ptr:
            p, self.ptr = self.ptr, None
            call_deleter(p)

    def __del__(self):
        self.close()


def _refuse_lazy_bits(obj, what):
    """PyTorch's negative and conjugate bits are not in its memory, and
    DLPack cannot say them: the memory holds the values unnegated (the
    imaginary part of a conjugate, .conj().imag). Refused, both ways."""
    for bit, fix in (("is_neg", "resolve_neg"), ("is_conj", "resolve_conj")):
        f = getattr(obj, bit, None)
        if callable(f) and f() is True:
            raise UnsupportedError(
                "%s: the tensor has PyTorch's %s bit set: its memory does not hold its values "
                "(.%s() first)" % (what, bit[3:], fix))
