# SPDX-License-Identifier: MIT
"""tilecopy: tensors between memory layouts (NCHW, NHWC, nChw16c, zN, ...)
with libtilecopy, from numpy and DLPack (PyTorch).

    import tilecopy
    l = tilecopy.layout("zN", shape=(8, 12), dtype="float16", block="4x4")
    print(l)            # ((4,2),(4,3)):((4,16),(1,32))
    l.offsets()         # the offset of every element, an 8x12 int64 array
    y = tilecopy.convert(x, src="NCHW", dst="nChw16c")   # a tilecopy.Array

A thin layer over the C API (include/tilecopy/tilecopy.h, dlpack.h,
device.h) through ctypes; see docs/python.md. numpy is imported on first
use of layout() or convert(), so version() needs only the library.
"""
import sys as _sys

from ._capi import lib as _lib
from ._config import VERSION as __version__
from ._errors import (BlockError, BufferSizeError, DeviceError, DeviceTimeoutError,  # noqa: F401
                      DtypeError, EngineResetError, Error, FaultError, InvalidArgumentError,
                      IOFailedError, NoDeviceError, NoMemoryError, OverlapError, ParseError,
                      ShapeError, SizeOverflowError, UnknownFormatError, UnsupportedError)

__all__ = ["version", "layout", "convert", "Layout", "Array", "Error", "cpu_name"]


def version():
    """The version of the libtilecopy loaded, "1.0.0"."""
    return _lib.tilecopy_version_string().decode()


def cpu_name(cpu=None):
    """The CPU executor that cpu (None: the best, or $TILECOPY_CPU) resolves to."""
    import ctypes
    from ._capi import check, cstr
    name = ctypes.c_char_p()
    check(_lib.tilecopy_cpu_name(cstr(cpu, "cpu") if cpu is not None else None,
                                 ctypes.byref(name)))
    return name.value.decode()


_LAZY = {"layout": "_layout", "Layout": "_layout", "convert": "_convert", "Array": "_array"}


def __getattr__(name):          # numpy-backed parts, imported on first use
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError("module 'tilecopy' has no attribute %r" % name)
    import importlib
    try:
        value = getattr(importlib.import_module("." + mod, __name__), name)
    except ModuleNotFoundError as e:
        if e.name != "numpy":
            raise
        raise ImportError("tilecopy.%s needs numpy, which is not installed for %s (Debian: "
                          "python3-numpy; version() and cpu_name() need only the library)"
                          % (name, _sys.executable), name="numpy") from e
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
