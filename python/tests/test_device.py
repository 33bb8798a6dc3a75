# SPDX-License-Identifier: MIT
"""device="auto" | "cpu" | "cpu:NAME" | a device. On a machine without an
engine: "auto" runs on the CPU, a named device is a clear error. With an
engine (the guest of make check-sdk, TILECOPY_DEVICE_THRESHOLD=0): the
engine runs the plan and matches the CPU bit for bit."""
import ctypes
import os

import numpy as np
import pytest

import reference as ref
import tilecopy
from tilecopy import _capi

X = ref.values((2, 20, 3, 5), np.float32)
CASES = [("NCHW", "NHWC", (4, 40, 17, 9), np.float32), ("NCHW", "nChw16c", (2, 20, 3, 5), np.float32),
         ("NHWC", "NC1HWC0", (2, 40, 5, 3), np.float16), ("RowMajor", "zN", (96, 130), np.float16),
         ("zN", "nZ", (64, 100), np.int8)]


def engines():
    d = _capi.device_lib()
    n = ctypes.c_int(0)
    if d is None or d.tilecopy_device_count(ctypes.byref(n)):
        return 0
    return n.value


def test_auto_without_an_engine_uses_the_cpu():
    if engines():
        pytest.skip("an engine is present: test_engine covers it")
    y = tilecopy.convert(X, src="NCHW", dst="nChw16c", device="auto")
    assert y.executor == "cpu:" + tilecopy.cpu_name()
    np.testing.assert_array_equal(y, ref.expected("nChw16c", X))


@pytest.mark.parametrize("spec,err,text", [
    ("/dev/accel/accel97", tilecopy.NoDeviceError, "/dev/accel/accel97 does not exist"),
    ("97", tilecopy.NoDeviceError, "device"),
    ("/dev/null", tilecopy.DeviceError, "not tilecopy"),
    ("cpu:bogus", tilecopy.InvalidArgumentError, "unknown executor 'bogus'"),
    ("cpu:", tilecopy.InvalidArgumentError, "unknown executor"),
])
def test_bad_devices_are_errors_and_write_nothing(spec, err, text):
    out = np.full(ref.offsets("nChw16c", X.shape, 4)[1], 77, np.float32)
    with pytest.raises(err, match=text):
        tilecopy.convert(X, src="NCHW", dst="nChw16c", out=out, device=spec)
    assert (out == 77).all()


def test_cpu_executors_agree():
    ran = []
    for name in ("scalar", "sse2", "avx2", "avx512", "neon"):
        for src, dst, shape, dt in CASES:
            x = ref.values(shape, dt)
            try:
                y = tilecopy.convert(ref.physical(src, x), src=src, dst=dst, shape=shape,
                                     device="cpu:" + name)
            except tilecopy.UnsupportedError as e:
                assert "not available on this CPU" in e.message
                break
            assert y.executor == "cpu:" + name
            np.testing.assert_array_equal(y, ref.expected(dst, x), err_msg=name)
        else:
            ran.append(name)
    assert "scalar" in ran, ran


def test_engine(monkeypatch):
    n = engines()
    if not n:
        if os.environ.get("TC_REQUIRE_DEVICE"):
            pytest.fail("TC_REQUIRE_DEVICE is set but no tile-copy engine was found")
        pytest.skip("no tile-copy engine on this machine (make check-sdk runs this in the guest)")
    monkeypatch.setenv("TILECOPY_DEVICE_THRESHOLD", "0")      # small plans on the engine too
    for spec in ("auto", "/dev/accel/accel0", "0"):
        for src, dst, shape, dt in CASES:
            x = ref.values(shape, dt)
            buf = ref.physical(src, x)
            y = tilecopy.convert(buf, src=src, dst=dst, shape=shape, device=spec)
            assert y.executor == "device:" + spec, (spec, src, dst, y.executor)
            cpu = tilecopy.convert(buf, src=src, dst=dst, shape=shape, device="cpu:scalar")
            np.testing.assert_array_equal(y, cpu)
            np.testing.assert_array_equal(y, ref.expected(dst, x))
    # in place through the engine's staging buffers
    buf = ref.physical("NCHW", X)
    tilecopy.convert(buf, src="NCHW", dst="NHWC", shape=X.shape, out=buf, device="auto")
    np.testing.assert_array_equal(buf, ref.expected("NHWC", X))
