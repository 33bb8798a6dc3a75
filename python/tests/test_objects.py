# SPDX-License-Identifier: MIT
"""Layouts and Arrays as Python objects: copies, pickles, views, equality.

A Layout owns a C handle: a copy or a pickle must never give two owners of
one handle (a use after free and a double free, found by the review under
valgrind). An Array keeps its format only while it holds the very bytes it
was made with, in the same order."""
import copy
import gc
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import reference as ref
import tilecopy
from conftest import abs_pythonpath

ZN = dict(format="zN", shape=(8, 12), dtype="float16", block="4x4")


def zn():
    return tilecopy.layout(**ZN)


def churn():
    """Free and reuse C tensors: a stale handle would now be another's."""
    gc.collect()
    return [tilecopy.layout("NHWC", (2, 3, 4, 5), "f32") for _ in range(50)]


# ---- Layout: one owner per handle --------------------------------------------

@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_layout_copies_never_share_a_handle(how):
    l = zn()
    want = l.offsets()
    dup = {"copy": copy.copy, "deepcopy": copy.deepcopy,
           "pickle": lambda x: pickle.loads(pickle.dumps(x))}[how](l)
    assert dup == l and str(dup) == str(l)
    if how == "pickle":                 # made again: its own handle
        assert dup._t is not l._t and dup._t.h != l._t.h
    else:                               # immutable: the copy is the layout
        assert dup is l
    np.testing.assert_array_equal(dup.offsets(), want)
    del dup
    others = churn()
    assert l.modes == (((4, 4), (2, 16)), ((4, 1), (3, 32)))
    np.testing.assert_array_equal(l.offsets(), want)
    assert l.nbytes == 192 and len(others) == 50


def test_tensor_handle_cannot_be_copied_or_pickled():
    t = zn()._t
    for dup in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match="owns its C handle"):
            dup(t)


@pytest.mark.parametrize("proto", [2, pickle.HIGHEST_PROTOCOL])
def test_layout_pickles_across_processes(proto):
    """The pickle holds (format, shape, dtype, block): another process
    (multiprocessing's spawn) makes the layout again."""
    layouts = [zn(), tilecopy.layout("((4,2),(4,3)):((4,16),(1,32))", dtype="f16"),
               tilecopy.layout("nChw16c", np.array([2, 20, 3, 5]), np.float32)]
    code = ("import pickle, sys\n"
            "for l in pickle.loads(sys.stdin.buffer.read()):\n"
            "    print(l, l.dtype, l.offsets().sum())\n")
    r = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(layouts, proto),
                       capture_output=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=abs_pythonpath()))
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode().splitlines() == ["%s %s %d" % (l, l.dtype, l.offsets().sum())
                                              for l in layouts]


def test_layout_is_immutable_and_compares_as_a_layout():
    l = zn()
    for name, value in (("shape", (1,)), ("format", "NCHW"), ("new", 1)):
        with pytest.raises(AttributeError, match="immutable"):
            setattr(l, name, value)
    with pytest.raises(AttributeError):
        del l.cute
    assert l.shape == (8, 12)
    # the same layout however it is named; another shape, dtype or block differs
    assert tilecopy.layout("nhwc", (2, 3, 4, 5)) == tilecopy.layout("NHWC", (2, 3, 4, 5))
    assert tilecopy.layout("RowMajor", (3, 4)) == tilecopy.layout("strided:4,1", (3, 4))
    assert len({zn(), zn(), tilecopy.layout("zN", (8, 12), "f16", "4X4")}) == 1
    assert zn() != tilecopy.layout("zN", (8, 12), "f16", "8x4")
    assert zn() != tilecopy.layout("zN", (8, 12), "bf16", "4x4")
    assert tilecopy.layout("NCHW", (2, 3, 4, 5)) != tilecopy.layout("NCHW", (2, 3, 5, 4))
    assert zn() != "((4,2),(4,3)):((4,16),(1,32))"


# ---- Array: metadata only with the same bytes in the same order --------------

X = ref.values((2, 20, 3, 5), np.float32)


def nchw16c():
    return tilecopy.convert(X, src="NCHW", dst="nChw16c")


def test_array_views_keep_format_only_over_the_same_bytes():
    y = nchw16c()
    for same in (y[:], y[...], y.reshape(-1), y.view(np.int32), y.T):
        assert same.format == "nChw16c" and same.logical_shape == X.shape
    for other in (y[::-1], y[1:], y[:-1], y[::2], y.reshape(2, -1), y.view(np.int16),
                  np.roll(y, 5), y + 1, y * 1, y.astype(np.int32), y[::-1].copy(),
                  np.ascontiguousarray(y[::-1]), np.flip(y), y == y):
        assert getattr(other, "format", None) is None, other
        assert getattr(other, "logical_shape", None) is None, other
        if isinstance(other, tilecopy.Array):
            with pytest.raises(tilecopy.InvalidArgumentError, match="no tilecopy layout"):
                other.logical()
    # a reversed copy converts only as the bytes it is, never "successfully"
    with pytest.raises(tilecopy.ShapeError):
        tilecopy.convert(y[::-1].copy(), dst="NCHW")


def test_array_copies_and_pickles_keep_their_metadata():
    y = nchw16c()
    for z in (y.copy(), copy.copy(y), copy.deepcopy(y),
              *(pickle.loads(pickle.dumps(y, p)) for p in range(2, pickle.HIGHEST_PROTOCOL + 1))):
        assert type(z) is tilecopy.Array and z.ctypes.data != y.ctypes.data
        assert (z.format, z.logical_shape, z.block, z.executor) == \
            (y.format, y.logical_shape, y.block, y.executor)
        np.testing.assert_array_equal(z, y)
        np.testing.assert_array_equal(tilecopy.convert(z, dst="NCHW").logical(), X)
    b = tilecopy.convert(ref.values((16, 16), np.float16), src="RowMajor", dst="zN",
                         dst_block="4x4")
    assert pickle.loads(pickle.dumps(b)).block == "4x4"
    plain = pickle.loads(pickle.dumps(y[1:]))
    assert type(plain) is tilecopy.Array and plain.format is None


def test_array_reductions_are_numpy_scalars():
    y = nchw16c()
    for r in (y.sum(), np.sum(y), y.max(), y.min(), y.mean(), np.any(y)):
        assert not isinstance(r, np.ndarray) and np.ndim(r) == 0
    assert y.sum() == X.sum()
    assert y.sum(keepdims=True).shape == (1,)


def test_array_made_by_hand_is_checked():
    with pytest.raises(tilecopy.BufferSizeError, match="takes 1280 contiguous bytes"):
        tilecopy.Array(np.zeros(4, np.float32), "nChw16c", (1, 3, 4, 5)).physical()
    with pytest.raises(tilecopy.BufferSizeError):
        tilecopy.convert(tilecopy.Array(np.zeros(4, np.float32), "nChw16c", (1, 3, 4, 5)),
                         dst="NCHW")
    a = tilecopy.Array(np.arange(4, dtype=np.float32), b"RowMajor", (2, 2))
    assert a.format == "RowMajor"
    np.testing.assert_array_equal(a.logical(), [[0, 1], [2, 3]])
    # the metadata describes a 1-D buffer: an N-d one would let a
    # transposed or reversed view keep it
    with pytest.raises(tilecopy.ShapeError, match="1-D physical buffer"):
        tilecopy.Array(np.arange(6.0).reshape(2, 3), "RowMajor", (2, 3))
    assert a.reshape(2, 2).format is None and a.reshape(2, 2).T.format is None
    for shape in (None, 4, "2x2", (2.0, 2), (True, 2)):
        with pytest.raises(tilecopy.InvalidArgumentError, match="logical_shape"):
            tilecopy.Array(np.zeros(4, np.float32), "RowMajor", shape)


# ---- the module ---------------------------------------------------------------

def test_module_namespace():
    names = dir(tilecopy)
    assert len(names) == len(set(names))
    for n in ("Array", "convert", "layout", "Layout", "Error", "EngineResetError"):
        assert names.count(n) == 1
    assert str(tilecopy.Error()) == "error: " and tilecopy.ShapeError().status == 4
    e = pickle.loads(pickle.dumps(tilecopy.BlockError("b")))
    assert type(e) is tilecopy.BlockError and e.message == "b"


def test_missing_numpy_is_said():
    code = ("import sys; sys.modules['numpy'] = None\n"
            "import tilecopy\n"
            "print(tilecopy.version())\n"
            "try:\n"
            "    tilecopy.layout\n"
            "except ImportError as e:\n"
            "    print(type(e).__name__, e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, PYTHONPATH=abs_pythonpath()))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == tilecopy.version()
    assert "tilecopy.layout needs numpy" in r.stdout and "python3-numpy" in r.stdout


def test_wrong_libdir_is_said():
    """$TILECOPY_LIBDIR names the libraries' directory: one without them is
    an error naming it, not another copy found on the linker's path."""
    code = ("try:\n"
            "    import tilecopy\n"
            "except ImportError as e:\n"
            "    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, PYTHONPATH=abs_pythonpath(),
                                             TILECOPY_LIBDIR="/nonexistent/tc"))
    assert r.returncode == 0, r.stderr
    assert "$TILECOPY_LIBDIR=/nonexistent/tc has no libtilecopy.so" in r.stdout, r.stdout


def test_buffer_too_large_is_no_buffer_too_small():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    with pytest.raises(tilecopy.BufferSizeError) as e:
        tilecopy.convert(x, src="NCHW", dst="NHWC", out=np.zeros(121, np.float32))
    assert e.value.status_name == "buffer size mismatch", str(e.value)
    with pytest.raises(tilecopy.BufferSizeError) as e:
        tilecopy.convert(x, src="NCHW", dst="NHWC", out=np.zeros(119, np.float32))
    assert e.value.status_name == "buffer too small", str(e.value)
