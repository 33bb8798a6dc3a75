# SPDX-License-Identifier: MIT
"""Exceptions: one class per tilecopy_status_t, carrying the library's message.

Every class derives from tilecopy.Error and, where one fits, from the
built-in exception a Python caller would expect (a dtype mismatch is also a
TypeError, a bad shape also a ValueError), so ``except ValueError`` works
as it does with numpy. Errors found in Python (before a C call) use the
same classes and the same status names as the library's (status_name is
tilecopy_status_str(): "block does not fit", "size overflow", ...).
"""


class Error(Exception):
    """A failed tilecopy call.

    status       the tilecopy_status_t value (int)
    status_name  its short name ("shape mismatch")
    message      the library's message, naming the field
    """

    status = None
    status_name = "error"

    def __init__(self, message="", status=None, status_name=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if status_name is not None:
            self.status_name = status_name

    def __str__(self):
        return "%s: %s" % (self.status_name, self.message)


class InvalidArgumentError(Error, ValueError):
    status, status_name = 1, "invalid argument"


class ParseError(Error, ValueError):
    status, status_name = 2, "parse error"


class UnknownFormatError(Error, ValueError):
    status, status_name = 3, "unknown format"


class ShapeError(Error, ValueError):
    status, status_name = 4, "shape mismatch"


class DtypeError(Error, TypeError):
    status, status_name = 5, "dtype mismatch"


class BlockError(Error, ValueError):
    status, status_name = 6, "block does not fit"


class OverlapError(Error, ValueError):
    status, status_name = 7, "overlapping memory"


class BufferSizeError(Error, ValueError):
    status, status_name = 8, "buffer too small"


class SizeOverflowError(Error, OverflowError):
    status, status_name = 9, "size overflow"


class NoMemoryError(Error, MemoryError):
    status, status_name = 10, "out of memory"


class UnsupportedError(Error, ValueError):
    status, status_name = 11, "unsupported"


class NoDeviceError(Error, OSError):
    status, status_name = 12, "no device"


class DeviceError(Error, OSError):
    status, status_name = 13, "device error"


class DeviceTimeoutError(Error, TimeoutError):
    status, status_name = 14, "timeout"


class FaultError(Error, OSError):
    status, status_name = 15, "engine fault"


class IOFailedError(Error, OSError):
    status, status_name = 16, "I/O error"


class EngineResetError(Error, OSError):
    status, status_name = 17, "engine reset"


class ArgumentTypeError(InvalidArgumentError, TypeError):
    """An argument of the wrong Python type (a number for a format name, a
    list for out=): status invalid argument, and a TypeError too."""


BY_STATUS = {c.status: c for c in (
    InvalidArgumentError, ParseError, UnknownFormatError, ShapeError, DtypeError, BlockError,
    OverlapError, BufferSizeError, SizeOverflowError, NoMemoryError, UnsupportedError,
    NoDeviceError, DeviceError, DeviceTimeoutError, FaultError, IOFailedError,
    EngineResetError)}


def from_status(status, message, status_name=None):
    """The exception for a library status (Error itself for an unknown one)."""
    cls = BY_STATUS.get(status, Error)
    return cls(message, status=status, status_name=status_name)
