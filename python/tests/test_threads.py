# SPDX-License-Identifier: MIT
"""The GIL is released while a conversion runs, and threads share the
package safely."""
import ctypes
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import reference as ref
import tilecopy
from conftest import abs_pythonpath

HERE = os.path.dirname(os.path.abspath(__file__))


def test_gil_released_during_conversion():
    """gil_probe.py in a child: a conversion blocked on userfaultfd pages
    that only this Python thread can supply (see there)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, abs_pythonpath()]))
    try:
        r = subprocess.run([sys.executable, os.path.join(HERE, "gil_probe.py")], env=env,
                           capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired as e:
        pytest.fail("convert() kept the GIL: the thread serving its page faults never ran "
                    "(killed after %ss)\n%s" % (e.timeout, e.stderr or ""))
    if r.returncode == 77:
        pytest.skip(r.stdout.strip())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "served" in r.stdout


def test_conversions_are_ctypes_cdll_calls():
    """The second line of defence: the functions that run plans come from a
    ctypes.CDLL (which drops the GIL), not a PyDLL."""
    from tilecopy import _capi
    funcs = [_capi.lib.tilecopy_plan_execute_cpu]
    if _capi.device_lib() is not None:
        funcs.append(_capi.device_lib().tilecopy_convert)
    for f in funcs:
        assert not f._flags_ & ctypes._FUNCFLAG_PYTHONAPI, f


def test_threads_share_layouts_and_keep_their_own_messages():
    """Four threads converting at once, each also failing on purpose: every
    result right, every message its own (tilecopy_last_error is per thread)."""
    x = ref.values((2, 20, 3, 5), np.float32)
    want = ref.expected("nChw16c", x)
    lay = tilecopy.layout("nChw16c", shape=x.shape)
    errors = []
    barrier = threading.Barrier(4)

    def worker(k):
        try:
            barrier.wait()
            for i in range(50):
                y = tilecopy.convert(x, src="NCHW", dst="nChw16c")
                assert np.array_equal(y, want)
                assert np.array_equal(lay.offsets(), ref.offsets("nChw16c", x.shape, 4)[0])
                bad = (2, 20 + k, 3)
                try:
                    tilecopy.layout("NCHW", shape=bad)
                except tilecopy.ShapeError as e:
                    assert "got 3" in e.message, e.message
                else:
                    raise AssertionError("no error")
        except BaseException as e:      # noqa: B902 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
