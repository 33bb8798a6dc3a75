# SPDX-License-Identifier: MIT
"""Where a plan runs: device="auto" | "cpu" | "cpu:NAME" | a device.

"cpu"        tilecopy_plan_execute_cpu with the best executor ($TILECOPY_CPU)
"cpu:NAME"   that executor: scalar, sse2, avx2, avx512, neon
"auto"       the first tile-copy engine when one is usable, else the CPU
             (looked up once per process)
anything else  tilecopy_device_open(spec): "/dev/accel/accel0", an index
             ("0"); no such device is a NoDeviceError, never a fallback

On an engine, tilecopy_convert() works on the arrays' own pages, pinned
for the call (userptr BOs), or stages them through buffer objects where
they cannot be pinned, and still runs plans below its threshold (4 MiB
moved pinned, 64 MiB staged, $TILECOPY_DEVICE_THRESHOLD) on the CPU.
Devices opened here stay open until the process exits.
"""
import atexit
import ctypes as C
import threading
import warnings

from . import _capi
from ._capi import check, cstr
from ._errors import ArgumentTypeError, DeviceError, InvalidArgumentError, NoDeviceError

_lock = threading.Lock()
_open = {}          # spec -> tilecopy_device_t* (None: "auto" found none)


def _open_device(spec):
    with _lock:
        if spec in _open:
            return _open[spec]
        dlib = _capi.device_lib()
        if dlib is None:
            if spec == "auto":
                _open[spec] = None
                return None
            raise NoDeviceError("device: %r: the device backend libtilecopy-device.so.1 "
                                "did not load (%s)" % (spec, _capi.device_lib_error()))
        h = C.c_void_p()
        st = dlib.tilecopy_device_open(C.byref(h), cstr(spec, "device"))
        if st and spec == "auto" and st in (NoDeviceError.status, DeviceError.status):
            if st == DeviceError.status:
                warnings.warn("tilecopy: device=\"auto\": an engine is present but unusable, "
                              "using the CPU: " + _capi.last_error(), RuntimeWarning, 2)
            _open[spec] = None
            return None
        check(st)
        _open[spec] = h.value
        return h.value


@atexit.register
def _close_all():
    dlib = _capi.device_lib() if _open else None
    with _lock:
        for h in _open.values():
            if h:
                dlib.tilecopy_device_close(h)
        _open.clear()


def check_spec(device):
    """Refuse a device argument that names nothing, before any work."""
    if not isinstance(device, str):
        raise ArgumentTypeError("device: expected \"auto\", \"cpu\", \"cpu:NAME\" or a device, "
                                "got %r" % (device,))
    if not device:
        raise InvalidArgumentError("device: empty; \"auto\", \"cpu\", \"cpu:NAME\", a device "
                                   "path or an index (\"0\")")
    cstr(device, "device")


def run(plan, src, src_size, dst, dst_size, device):
    """Run the plan; returns what ran it ("cpu:avx512", "device:auto")."""
    check_spec(device)
    lib = _capi.lib
    if device == "cpu" or device.startswith("cpu:"):
        cpu = cstr(device[4:], "device") if device.startswith("cpu:") else None
        check(lib.tilecopy_plan_execute_cpu(plan, src, src_size, dst, dst_size, cpu))
        return "cpu:" + _cpu_name(cpu)
    dev = _open_device(device)
    if dev is None:                     # "auto" without an engine
        check(lib.tilecopy_plan_execute_cpu(plan, src, src_size, dst, dst_size, None))
        return "cpu:" + _cpu_name(None)
    used = C.c_int(0)
    st = _capi.device_lib().tilecopy_convert(dev, plan, src, src_size, dst, dst_size,
                                             C.byref(used))
    check(st)
    return "device:" + device if used.value else "cpu:" + _cpu_name(None)


def _cpu_name(cpu):
    name = C.c_char_p()
    if _capi.lib.tilecopy_cpu_name(cpu, C.byref(name)):
        return "?"
    return name.value.decode()
