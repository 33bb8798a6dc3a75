# SPDX-License-Identifier: MIT
"""An object with __dlpack__ that is not a numpy array, for the DLPack path."""
import ctypes

from tilecopy._dlpack import DLTensor


class Exporter:
    """Any object with __dlpack__: here numpy's capsule behind another type,
    so the DLPack path (not the numpy one) reads it."""

    def __init__(self, arr, patch=None):
        self.arr, self.patch = arr, patch

    def __dlpack__(self, stream=None):
        cap = self.arr.__dlpack__()
        if self.patch:
            get = ctypes.pythonapi.PyCapsule_GetPointer
            get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
            self.patch(ctypes.cast(get(cap, b"dltensor"), ctypes.POINTER(DLTensor)).contents)
        return cap

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()
