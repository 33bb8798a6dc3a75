#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""numpy_views.py - strided and DLPack tensors against numpy, the outside
implementation: every view numpy makes (transposes, slices with steps,
broadcasts, offsets) goes through libtilecopy.so (ctypes) - as byte strides
and as numpy's own __dlpack__ capsule - into a compact array, which must
equal numpy.ascontiguousarray of the view. Usage: numpy_views.py LIBDIR"""
import ctypes as C
import sys

import numpy as np

lib = C.CDLL(sys.argv[1] + "/libtilecopy.so.1")
P = C.c_void_p
lib.tilecopy_last_error.restype = C.c_char_p
DT = {np.dtype("uint8"): 0, np.dtype("int8"): 1, np.dtype("float16"): 2, np.dtype("int16"): 4,
      np.dtype("float32"): 5, np.dtype("int32"): 6, np.dtype("float64"): 7, np.dtype("int64"): 8}
STRIDES_BYTES = 1 << 2


def ok(st, what):
    if st:
        raise SystemExit("FAIL %s: %d: %s" % (what, st, lib.tilecopy_last_error().decode()))


def convert(src_tensor, base, base_bytes, view):
    """Plan src_tensor -> compact row-major, run it on base, return the result."""
    shape = (C.c_int64 * view.ndim)(*view.shape)
    dst, plan = P(), P()
    ok(lib.tilecopy_tensor_create_strided(C.byref(dst), view.ndim, shape, None,
                                          DT[view.dtype], C.c_uint64(0), 0), "dst")
    ok(lib.tilecopy_plan_create(C.byref(plan), src_tensor, dst, 0), "plan")
    out = np.empty(view.shape, view.dtype)
    ok(lib.tilecopy_plan_execute_cpu(plan, C.c_void_p(base), C.c_size_t(base_bytes),
                                     out.ctypes.data_as(P), C.c_size_t(out.nbytes), None), "execute")
    lib.tilecopy_plan_destroy(plan)
    lib.tilecopy_tensor_destroy(dst)
    return out


def via_strides(base, view):
    off = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    shape = (C.c_int64 * view.ndim)(*view.shape)
    strides = (C.c_int64 * view.ndim)(*view.strides)
    t = P()
    ok(lib.tilecopy_tensor_create_strided(C.byref(t), view.ndim, shape, strides, DT[view.dtype],
                                          C.c_uint64(off), STRIDES_BYTES), "strided")
    out = convert(t, base.ctypes.data, base.nbytes, view)
    lib.tilecopy_tensor_destroy(t)
    return out


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int), ("device_id", C.c_int)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", P), ("device", DLDevice), ("ndim", C.c_int), ("dtype", DLDataType),
                ("shape", C.POINTER(C.c_int64)), ("strides", C.POINTER(C.c_int64)),
                ("byte_offset", C.c_uint64)]


def via_dlpack(base, view):
    """numpy's own DLPack export of the view (its capsule's DLManagedTensor)."""
    cap = view.__dlpack__()
    get = C.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = P, [C.py_object, C.c_char_p]
    dl = C.cast(get(cap, b"dltensor"), C.POINTER(DLTensor))  # dl_tensor is the first member
    t = P()
    ok(lib.tilecopy_tensor_from_dlpack(C.byref(t), dl, 0), "from_dlpack")
    start = dl.contents.data + dl.contents.byte_offset
    # the plan reads from data (byte_offset included): give it the whole base
    lo = base.__array_interface__["data"][0]
    assert dl.contents.data >= lo and start >= lo
    out = convert(t, dl.contents.data, base.nbytes - (dl.contents.data - lo), view)
    lib.tilecopy_tensor_destroy(t)
    return out


def main():
    rng = np.random.default_rng(7)
    base = rng.integers(0, 100, size=4 * 6 * 10 * 12, dtype=np.int64)
    views = []
    for dt in ("int8", "float16", "float32", "float64"):
        b = base.astype(dt)
        a = b.reshape(4, 6, 10, 12)
        views += [(b, a.transpose(0, 2, 3, 1)), (b, a[:, ::2, 1:9:3, ::-1][..., ::-1]),
                  (b, a[1:3, :, 2, 5:]), (b, a.T), (b, a[::3, 1::2].swapaxes(1, 3)),
                  (b, np.broadcast_to(a[:, :1], (4, 6, 10, 12)))]
    n = 0
    for b, v in views:
        want = np.ascontiguousarray(v)
        got = via_strides(b, v)
        if not np.array_equal(got, want):
            raise SystemExit("FAIL strides %s %s" % (v.shape, v.strides))
        n += 1
        if all(s >= 0 for s in v.strides) and v.flags.writeable:
            got = via_dlpack(b, v)
            if not np.array_equal(got, want):
                raise SystemExit("FAIL dlpack %s %s" % (v.shape, v.strides))
            n += 1
    # a negative stride is refused with a message naming it
    v = base.reshape(4, -1)[:, ::-1]
    t = P()
    st = lib.tilecopy_tensor_create_strided(C.byref(t), 2, (C.c_int64 * 2)(*v.shape),
                                            (C.c_int64 * 2)(*v.strides), 8, C.c_uint64(0),
                                            STRIDES_BYTES)
    assert st == 11 and b"strides[1]" in lib.tilecopy_last_error(), st
    print("numpy_views: %d views equal to numpy.ascontiguousarray" % n)


main()
