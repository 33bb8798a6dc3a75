# SPDX-License-Identifier: MIT
"""tilecopy.convert(): one conversion, numpy or DLPack in, numpy out."""
import ctypes as C

import numpy as np

from . import _capi, _device, _dtypes
from ._array import Array
from ._capi import check, int_tuple, lib, text
from ._dlpack import DLTensor, Imported
from ._errors import (ArgumentTypeError, BlockError, BufferSizeError, DtypeError,
                      InvalidArgumentError, NoMemoryError, ShapeError, SizeOverflowError,
                      UnsupportedError)
from ._tensor import Tensor

ADDR_END = 1 << 64      # one past the last byte address


def convert(array, src=None, dst=None, *, shape=None, dtype=None, out=None,
            src_block=None, dst_block=None, device="auto"):
    """Convert ``array`` from format ``src`` to format ``dst``.

    array   a numpy array, anything with __dlpack__ (a PyTorch tensor), or
            a tilecopy.Array from an earlier convert(). Its element type is
            the conversion's.
    src     the array's format. None: the array's own strides describe it
            (any numpy or DLPack view whose strides are whole elements). A
            plain format (NCHW, NHWC, RowMajor, strided:...: no dim split
            into blocks) checks that the array, of the logical shape, has
            exactly those strides. A blocked format (nChw16c, zN, ...), or a
            shape= other than the array's, reads the array as the
            contiguous physical buffer of that format.
    dst     the result's format (default with out=: out's own layout).
    shape   the logical shape, when the array is a physical buffer.
    dtype   optional: an element type the array must have (else DtypeError).
    out     write here instead of a new array: a numpy array, a DLPack
            tensor or a writable buffer (bytearray, memoryview), N-d with
            its own strides, or a contiguous physical buffer of exactly the
            format's size (plain bytes, a bytearray or an mmap, hold the
            array's element type). Returned.
    src_block, dst_block   block overrides ("RxC" of a fractal, "C0").
    device  "auto" (an engine if one is usable, else the CPU), "cpu",
            "cpu:NAME" (scalar, sse2, avx2, avx512, neon) or a device path.

    Returns a tilecopy.Array (the 1-D physical buffer with its logical
    shape and format), or ``out``. An empty tensor (an extent 0) converts
    to an empty result without running anything. Errors are tilecopy.Error
    subclasses carrying the library's message; nothing is written when one
    is raised before the conversion runs. The GIL is released while it
    runs; Ctrl-C is seen when it returns.
    """
    want = _dtypes.parse(dtype) if dtype is not None else None
    shape = int_tuple(shape, "shape") if shape is not None else None
    _device.check_spec(device)
    src, dst, src_block, dst_block = (text(v) for v in (src, dst, src_block, dst_block))
    if out is None and dst is None:
        raise InvalidArgumentError("dst: a destination format is needed (or out=)")
    sm = dm = None
    try:
        sm = _Memory(array, "array", writable=False)
        if want is not None and not _dtypes.same(want[1], sm.name):
            raise DtypeError("dtype: the array holds %s, dtype=%r says %s (the element type "
                             "comes from the array)" % (sm.name, dtype, want[1]))
        src_t, lshape = _describe(sm, src, shape, src_block, "src")
        if out is not None:
            dm = _Memory(out, "out", writable=True, like=sm.name)
            if not _dtypes.same(sm.name, dm.name):
                raise DtypeError("dst: out holds %s, the array %s (a conversion moves elements "
                                 "and changes no type)" % (dm.name, sm.name))
            dst_t, _ = _describe(dm, dst, lshape, dst_block, "dst")
            result = out
        else:
            dst_t, buf = _new_buffer(sm, dst, lshape, dst_block)
            if dst_t is not None:
                dm = _Memory(buf, "dst", writable=True)
                dm.span(dm.addr, buf.nbytes)
            result = None
        ran = None
        if src_t is not None:           # else empty: nothing to move
            # bfloat16 with its int16 bits: the same elements (checked above)
            flags = _capi.PLAN_REINTERPRET if sm.dt != dm.dt else 0
            plan = C.c_void_p()
            check(lib.tilecopy_plan_create(C.byref(plan), src_t.h, dst_t.h, flags))
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


def _new_buffer(sm, dst, lshape, block):
    """The destination tensor (None when empty) and a new buffer for it."""
    if 0 in lshape:
        _probe(dst, lshape, sm.dt, block)
        return None, np.empty(0, _dtypes.result_dtype(sm.name))
    t = Tensor.of_format(dst, lshape, sm.dt, block)
    n = t.nbytes // _dtypes.SIZES[sm.dt]
    try:
        return t, np.empty(n, _dtypes.result_dtype(sm.name))
    except (MemoryError, ValueError):
        raise NoMemoryError("dst: %d bytes for the result (%s of shape %s) are not available"
                            % (t.nbytes, dst, _x(lshape))) from None


class _Memory:
    """An array-like's memory as tilecopy sees it: element type (dt, and
    name: the array's own), shape, strides, the address of element 0; ptr
    and size once described."""

    def __init__(self, obj, what, writable, like=None):
        self.what = what
        self.imported = None
        self.meta = None
        self.ptr = self.size = None
        if isinstance(obj, np.ndarray) or not hasattr(obj, "__dlpack__"):
            self._numpy(obj, what, writable, like)
        else:
            self._dlpack(obj, what)

    def _numpy(self, obj, what, writable, like):
        if isinstance(obj, np.ndarray):
            arr = obj
        elif writable:
            arr = _writable(obj, what, like)
        else:
            try:
                arr = np.asarray(obj)
            except Exception as e:
                raise InvalidArgumentError("%s: numpy cannot read a %s: %s"
                                           % (what, type(obj).__name__, e)) from e
        if writable and not arr.flags.writeable:
            raise InvalidArgumentError("%s: the array is read-only" % what)
        self.keep = arr
        self.dt, self.name = _dtypes.of_numpy(arr, what)
        self.itemsize = arr.dtype.itemsize
        self.shape = arr.shape or (1,)
        self.byte_strides = arr.strides or (self.itemsize,)
        self.addr = arr.ctypes.data
        self.contiguous = arr.flags.c_contiguous
        self.nbytes = arr.nbytes
        if isinstance(arr, Array) and arr.ndim == 1:
            self.meta = arr._tc

    def _dlpack(self, obj, what):
        self.imported = Imported(obj, what)
        self.keep = obj
        dl = C.cast(self.imported.dltensor, C.POINTER(DLTensor)).contents
        self.dt, self.name = _dtypes.of_dlpack(dl.dtype.code, dl.dtype.bits, dl.dtype.lanes, what)
        if not 0 <= dl.ndim <= 16:
            raise UnsupportedError("%s: DLPack ndim %d is outside 0..16" % (what, dl.ndim))
        self.shape = tuple(dl.shape[i] for i in range(dl.ndim)) or (1,)
        self.addr = (dl.data or 0) + dl.byte_offset
        if self.addr >= ADDR_END:
            raise SizeOverflowError("%s: DLPack data 0x%x + byte_offset %d passes the end of "
                                    "the address space" % (what, dl.data or 0, dl.byte_offset))
        # The library reads the tensor as the element type of its size
        # (uint16 as int16, bool as uint8); an empty one as extents 1, so
        # that device, strides and type are still checked.
        probe = DLTensor.from_buffer_copy(dl)
        probe.dtype.code, probe.dtype.bits = _dtypes.dlpack_code(self.dt)
        if 0 in self.shape:
            ones = (C.c_int64 * dl.ndim)(*([1] * dl.ndim))
            probe.shape = C.cast(ones, C.POINTER(C.c_int64))
        self._view = Tensor.of_dlpack(C.addressof(probe))     # checks device, strides
        self.itemsize = _dtypes.SIZES[self.dt]
        compact = _compact(self.shape)
        if dl.strides and dl.ndim:
            strides = tuple(dl.strides[i] for i in range(dl.ndim))
        else:
            strides = compact
        self.byte_strides = tuple(s * self.itemsize for s in strides)
        self.contiguous = all(s == c for s, c, n in zip(strides, compact, self.shape) if n > 1)
        self.nbytes = int(np.prod(self.shape)) * self.itemsize

    def span(self, ptr, size):
        """The bytes the library will touch: [ptr, ptr + size)."""
        if ptr + size > ADDR_END:
            raise SizeOverflowError("%s: %d bytes at 0x%x pass the end of the address space"
                                    % (self.what, size, ptr))
        self.ptr, self.size = ptr, size

    def view_tensor(self):
        """The array as a strided view, based at element 0."""
        if self.imported is None:
            t = Tensor.strided(self.shape, self.byte_strides, self.dt, 0, _capi.STRIDES_BYTES)
        else:
            t = Tensor.strided(self.shape, [s // self.itemsize for s in self.byte_strides],
                               self.dt, 0, 0)
        self.span(self.addr, t.nbytes)
        return t

    def close(self):
        if self.imported is not None:
            self.imported.close()


def _writable(obj, what, like=None):
    """out= that is neither a numpy array nor DLPack: the very memory of a
    writable buffer (bytearray, memoryview, array.array), never a copy, so
    that what is written is where the caller looks. Plain bytes (a
    bytearray, an mmap, a memoryview of format 'B') have no element type:
    contiguous, they are read as elements of ``like``, the array's type."""
    try:
        mv = memoryview(obj)
    except TypeError:
        raise ArgumentTypeError("%s: a %s is not memory tilecopy can write into (a numpy "
                                "array, a DLPack tensor or a writable buffer is)"
                                % (what, type(obj).__name__)) from None
    if mv.readonly:
        raise InvalidArgumentError("%s: the %s is read-only" % (what, type(obj).__name__))
    if like is not None and mv.format in ("B", "c") and mv.c_contiguous:
        dt = _dtypes.result_dtype(like)
        if mv.nbytes % dt.itemsize:
            raise BufferSizeError("%s: a %s of %d bytes is no whole number of %s elements"
                                  % (what, type(obj).__name__, mv.nbytes, like),
                                  status_name="buffer size mismatch")
        return np.frombuffer(mv.cast("B"), dt)
    try:
        return np.asarray(mv)
    except Exception as e:
        raise ArgumentTypeError("%s: numpy cannot view a %s: %s"
                                % (what, type(obj).__name__, e)) from e


def _compact(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))


def _probe(fmt, shape, dt, block):
    """The tensor of fmt at shape with every 0 extent made 1: the library
    checks the format, rank and block of an empty tensor on it."""
    return Tensor.of_format(fmt, [max(s, 1) for s in shape], dt, block)


def _same_layout(a, b):
    return a.cute() == b.cute() and a.nbytes == b.nbytes


def _describe(mem, fmt, shape, block, side):
    """(the tensor of one side, its logical shape), mem.ptr/size set to the
    memory it reads. The tensor is None for an empty one (an extent 0)."""
    name = mem.what
    if mem.meta is not None:                    # a tilecopy.Array: its own layout
        mfmt, mshape, mblock = mem.meta
        if shape is not None and shape != mshape:
            raise ShapeError("%s: %s holds shape %s, not %s" % (side, name, _x(mshape), _x(shape)))
        own = _probe(mfmt, mshape, mem.dt, mblock)
        if (fmt is not None and fmt != mfmt) or (block is not None and block != mblock):
            other = _probe(fmt if fmt is not None else mfmt, mshape, mem.dt,
                           block if block is not None else mblock)
            if not _same_layout(own, other):
                raise InvalidArgumentError(
                    "%s: %s holds %s%s, %s=%r%s is another layout (np.asarray() it to read "
                    "its bytes as another format)" % (
                        side, name, mfmt, _blk(mblock), side,
                        fmt if fmt is not None else mfmt, _blk(block)))
        if 0 in mshape:
            return _empty(mem, own, mshape, mfmt, side), mshape
        return _physical(mem, own, mfmt, side), mshape
    if fmt is None:
        if block is not None:
            raise BlockError("%s_block: %r needs %s= (a format); %s=None takes the array's "
                             "strides" % (side, block, side, side))
        if shape is not None and shape != mem.shape:
            raise ShapeError("%s: %s has shape %s; reading it as %s needs its format (%s=)"
                             % (side, name, _x(mem.shape), _x(shape), side))
        if 0 in mem.shape:
            return None, mem.shape
        return mem.view_tensor(), mem.shape
    lshape = shape if shape is not None else mem.shape
    if 0 in lshape:
        return _empty(mem, _probe(fmt, lshape, mem.dt, block), lshape, fmt, side), lshape
    ft = Tensor.of_format(fmt, lshape, mem.dt, block)
    if lshape == mem.shape and not ft.blocked:
        vt = mem.view_tensor()
        if not vt.is_contiguous_in(fmt):
            raise InvalidArgumentError(
                "%s: %s is not %s: shape %s has strides %s (elements), %s's are %s; %s" % (
                    side, name, fmt, _x(lshape), _strides_text(mem), fmt, tuple(ft.strides()),
                    _hint(mem, ft, side)))
        return vt, lshape
    return _physical(mem, ft, fmt, side), lshape


def _empty(mem, probe, lshape, fmt, side):
    """An empty tensor: nothing to read or write, but the memory must be
    empty too (an N-d array of that shape, or a buffer of 0 bytes)."""
    if mem.shape == lshape and not probe.blocked:
        return None
    if mem.nbytes:
        raise BufferSizeError("%s: %s has %d bytes; %s of shape %s (an extent 0) takes 0 bytes"
                              % (side, mem.what, mem.nbytes, fmt, _x(lshape)))
    return None


def _hint(mem, ft, side):
    """What to do when an array's strides are not its format's. The usual
    cause: an array kept in the format's memory order, (N, H, W, C) for
    NHWC, where tilecopy's shapes are logical (N, C, H, W)."""
    order = ft.physical_order()
    if mem.contiguous and order and list(order) != sorted(order):
        inv = [0] * len(order)
        for k, d in enumerate(order):
            inv[d] = k
        call = "permute" if mem.imported is not None else "transpose"
        return ("shapes are logical: an array whose dims are in memory order is "
                "x.%s%s (a view) in logical order; %s=None takes the array's own strides"
                % (call, tuple(inv), side))
    return "%s=None takes the array's own strides" % side


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
               mem.name, t.nbytes, t.nbytes // mem.itemsize), **_size_status(mem.nbytes, t.nbytes))
    mem.span(mem.addr, mem.nbytes)
    return t


def _size_status(have, need):
    """A physical buffer must be exactly its size: one too large is no
    "buffer too small" (the library's name for the status)."""
    return {"status_name": "buffer size mismatch"} if have > need else {}


def _strides_text(mem):
    return tuple(s // mem.itemsize if s % mem.itemsize == 0 else s / mem.itemsize
                 for s in mem.byte_strides)


def _blk(block):
    return "" if block is None else " (block %r)" % (block,)


def _x(shape):
    return "x".join(str(s) for s in shape)
