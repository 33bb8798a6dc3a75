# SPDX-License-Identifier: MIT
"""tilecopy.convert(): one conversion, numpy or DLPack in, numpy out."""
import ctypes as C
import operator

import numpy as np

from . import _capi, _device, _dtypes
from ._array import Array
from ._capi import check, lib
from ._dlpack import DLTensor, Imported
from ._errors import BufferSizeError, DtypeError, InvalidArgumentError, ShapeError
from ._tensor import Tensor


def convert(array, src=None, dst=None, *, shape=None, dtype=None, out=None,
            src_block=None, dst_block=None, device="auto"):
    """Convert ``array`` from format ``src`` to format ``dst``.

    array   a numpy array, anything with __dlpack__ (a PyTorch tensor), or
            a tilecopy.Array from an earlier convert(). Its element type is
            the conversion's.
    src     the array's format. None: the array's own strides describe it
            (any numpy or DLPack view). A plain format (NCHW, NHWC,
            RowMajor, strided:...: no dim split into blocks) checks that the
            array, of the logical shape, has exactly those strides. A
            blocked format (nChw16c, zN, ...), or a shape= other than the
            array's, reads the array as the contiguous physical buffer of
            that format.
    dst     the result's format (default with out=: out's own layout).
    shape   the logical shape, when the array is a physical buffer.
    dtype   optional: an element type the array must have (else DtypeError).
    out     write here instead of a new array: a numpy array or a DLPack
            tensor, N-d with its own strides, or a contiguous physical
            buffer of exactly the format's size. Returned.
    src_block, dst_block   block overrides ("RxC" of a fractal, "C0").
    device  "auto" (an engine if one is usable, else the CPU), "cpu",
            "cpu:NAME" (scalar, sse2, avx2, avx512, neon) or a device path.

    Returns a tilecopy.Array (the 1-D physical buffer with its logical
    shape and format), or ``out``. Errors are tilecopy.Error subclasses
    carrying the library's message; nothing is written when one is raised
    before the conversion runs. The GIL is released while it runs.
    """
    want = _dtypes.parse(dtype) if dtype is not None else None
    shape = _shape(shape)
    if out is None and dst is None:
        raise InvalidArgumentError("dst: a destination format is needed (or out=)")
    sm = dm = None
    try:
        sm = _Memory(array, "array", writable=False)
        if want is not None and want[0] != sm.dt:
            raise DtypeError("dtype: the array holds %s, dtype=%r says %s (the element type "
                             "comes from the array)" % (_dtypes.NAMES[sm.dt], dtype, want[1]))
        src_t = _describe(sm, src, shape, src_block, "src")
        lshape = src_t.shape
        if out is not None:
            dm = _Memory(out, "out", writable=True)
            dst_t = _describe(dm, dst, lshape, dst_block, "dst")
            result = out
        else:
            dst_t = Tensor.of_format(dst, lshape, sm.dt, dst_block)
            buf = np.empty(dst_t.nbytes // _dtypes.SIZES[sm.dt], _dtypes.numpy_dtype(sm.dt, "dst"))
            dm = _Memory(buf, "dst", writable=True)
            dm.ptr, dm.size = buf.ctypes.data, buf.nbytes
            result = None
        plan = C.c_void_p()
        check(lib.tilecopy_plan_create(C.byref(plan), src_t.h, dst_t.h, 0))
        try:
            ran = _device.run(plan, sm.ptr, sm.size, dm.ptr, dm.size, device)
        finally:
            lib.tilecopy_plan_destroy(plan)
        if result is None:
            result = Array(buf, dst, lshape, dst_block, ran)
        return result
    finally:
        if sm is not None:
            sm.close()
        if dm is not None:
            dm.close()


def _shape(shape):
    if shape is None:
        return None
    try:
        return tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError("shape: expected a sequence of integers, got %r" % (shape,)) from None


class _Memory:
    """An array-like's memory as tilecopy sees it: element type, shape,
    strides, the address of element 0; ptr and size once described."""

    def __init__(self, obj, what, writable):
        self.what = what
        self.imported = None
        self.meta = None
        self.ptr = self.size = None
        if isinstance(obj, np.ndarray) or not hasattr(obj, "__dlpack__"):
            arr = obj if isinstance(obj, np.ndarray) else np.asarray(obj)
            if writable and not arr.flags.writeable:
                raise InvalidArgumentError("%s: the array is read-only" % what)
            self.keep = arr
            self.dt = _dtypes.of_numpy(arr, what)
            self.itemsize = arr.dtype.itemsize
            self.shape = arr.shape or (1,)
            self.byte_strides = arr.strides or (self.itemsize,)
            self.addr = arr.ctypes.data
            self.contiguous = arr.flags.c_contiguous
            self.nbytes = arr.nbytes
            if isinstance(arr, Array) and arr.ndim == 1:
                self.meta = arr._tc
        else:
            self.imported = Imported(obj, what)
            self.keep = obj
            self._view = Tensor.of_dlpack(self.imported.dltensor)  # checks device, dtype, strides
            dl = C.cast(self.imported.dltensor, C.POINTER(DLTensor)).contents
            self.dt = self._view.dtype
            self.itemsize = _dtypes.SIZES[self.dt]
            self.shape = tuple(dl.shape[i] for i in range(dl.ndim)) or (1,)
            self.addr = (dl.data or 0) + dl.byte_offset
            compact = _compact(self.shape)
            if dl.strides and dl.ndim:
                strides = tuple(dl.strides[i] for i in range(dl.ndim))
            else:
                strides = compact
            self.byte_strides = tuple(s * self.itemsize for s in strides)
            self.contiguous = all(s == c for s, c, n in zip(strides, compact, self.shape) if n > 1)
            self.nbytes = int(np.prod(self.shape)) * self.itemsize

    def view_tensor(self):
        """The array as a strided view, based at element 0."""
        if self.imported is None:
            t = Tensor.strided(self.shape, self.byte_strides, self.dt, 0, _capi.STRIDES_BYTES)
        else:
            t = Tensor.strided(self.shape, [s // self.itemsize for s in self.byte_strides],
                               self.dt, 0, 0)
        self.ptr, self.size = self.addr, t.nbytes
        return t

    def close(self):
        if self.imported is not None:
            self.imported.close()


def _compact(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))


def _describe(mem, fmt, shape, block, side):
    """The tensor of one side, and mem.ptr/size set to the memory it reads."""
    name = mem.what
    if mem.meta is not None:                    # a tilecopy.Array: its own layout
        mfmt, mshape, mblock = mem.meta
        if fmt is not None and fmt != mfmt:
            raise InvalidArgumentError(
                "%s: %s holds %s, %s=%r differs (np.asarray() it to read its bytes as another "
                "format)" % (side, name, mfmt, side, fmt))
        if shape is not None and shape != mshape:
            raise ShapeError("%s: %s holds shape %s, not %s" % (side, name, _x(mshape), _x(shape)))
        if block is not None and block != mblock:
            raise InvalidArgumentError("%s: %s has block %r, %s_block=%r differs"
                                       % (side, name, mblock, side, block))
        fmt, shape, block = mfmt, mshape, mblock
        return _physical(mem, Tensor.of_format(fmt, shape, mem.dt, block), fmt, side)
    if fmt is None:
        if shape is not None and shape != mem.shape:
            raise ShapeError("%s: %s has shape %s; reading it as %s needs its format (%s=)"
                             % (side, name, _x(mem.shape), _x(shape), side))
        return mem.view_tensor()
    lshape = shape if shape is not None else mem.shape
    ft = Tensor.of_format(fmt, lshape, mem.dt, block)
    if lshape == mem.shape and not ft.blocked:
        want = ft.strides()
        vt = mem.view_tensor()
        if not vt.is_contiguous_in(fmt):
            raise InvalidArgumentError(
                "%s: %s is not %s: shape %s has strides %s (elements), %s's are %s; %s=None "
                "takes the array's own strides" % (
                    side, name, fmt, _x(lshape), _strides_text(mem), fmt, tuple(want), side))
        return vt
    return _physical(mem, ft, fmt, side)


def _physical(mem, t, fmt, side):
    """The array as the contiguous buffer of tensor t, of exactly its size."""
    if not mem.contiguous:
        raise InvalidArgumentError(
            "%s: %s is not contiguous (strides %s in elements) and %s is read as a physical "
            "buffer, which has no strides: pass numpy.ascontiguousarray() of it"
            % (side, mem.what, _strides_text(mem), fmt))
    if mem.nbytes != t.nbytes:
        raise BufferSizeError(
            "%s: %s has %d bytes (%d elements); %s of shape %s %s takes %d bytes (%d elements)"
            % (side, mem.what, mem.nbytes, mem.nbytes // mem.itemsize, fmt, _x(t.shape),
               _dtypes.NAMES[mem.dt], t.nbytes, t.nbytes // mem.itemsize))
    mem.ptr, mem.size = mem.addr, mem.nbytes
    return t


def _strides_text(mem):
    return tuple(s // mem.itemsize if s % mem.itemsize == 0 else s / mem.itemsize
                 for s in mem.byte_strides)


def _x(shape):
    return "x".join(str(s) for s in shape)
