# SPDX-License-Identifier: MIT
"""Tensor: an owned tilecopy_tensor_t handle and the getters Python uses."""
import ctypes as C

from . import _capi
from ._capi import check, cstr, int64_array, lib


class Tensor:
    """A tilecopy_tensor_t, destroyed with this object. No data pointer: a
    tensor only describes where elements are.

    The one owner of its handle: copying or pickling it would make two
    objects that both destroy it (a use after free), so both are refused;
    Layout pickles as the arguments that make it again."""

    __slots__ = ("h", "__weakref__")

    def __init__(self, handle):
        self.h = handle

    def _refuse(self, *args):
        raise TypeError("tilecopy: a Tensor owns its C handle and cannot be copied or pickled "
                        "(a Layout can)")

    __copy__ = __deepcopy__ = __reduce__ = __reduce_ex__ = __getstate__ = _refuse

    def __del__(self):
        h, self.h = getattr(self, "h", None), None
        if h and _capi is not None and lib is not None:
            lib.tilecopy_tensor_destroy(h)

    @classmethod
    def of_format(cls, fmt, shape, dt, block=None, flags=0):
        s, n = int64_array(shape, "shape")
        h = C.c_void_p()
        check(lib.tilecopy_tensor_create(C.byref(h), cstr(fmt, "format"), s, n, dt,
                                         cstr(block, "block") if block is not None else None,
                                         flags))
        return cls(h.value)

    @classmethod
    def strided(cls, shape, strides, dt, byte_offset=0, flags=0):
        s, n = int64_array(shape, "shape")
        st = int64_array(strides, "strides")[0] if strides is not None else None
        h = C.c_void_p()
        check(lib.tilecopy_tensor_create_strided(C.byref(h), n, s, st, dt, byte_offset, flags))
        return cls(h.value)

    @classmethod
    def of_cute(cls, text, extent, dt):
        lay = C.c_void_p()
        check(lib.tilecopy_layout_parse(C.byref(lay), cstr(text, "format")))
        try:
            e = int64_array(extent, "shape")[0] if extent is not None else None
            h = C.c_void_p()
            check(lib.tilecopy_tensor_create_layout(C.byref(h), lay, e, dt, 0))
        finally:
            lib.tilecopy_layout_destroy(lay)
        return cls(h.value)

    @classmethod
    def of_dlpack(cls, dltensor_ptr):
        h = C.c_void_p()
        check(lib.tilecopy_tensor_from_dlpack(C.byref(h), dltensor_ptr, 0))
        return cls(h.value)

    # ---- getters -----------------------------------------------------------

    def _get(self, fn, ctype):
        """One output of fn(handle, &out)."""
        v = ctype()
        check(fn(self.h, C.byref(v)))
        return v.value

    def _get_array(self, fn, ctype):
        """rank outputs of fn(handle, out, rank), or None when fn says a
        blocked dim makes them meaningless (TILECOPY_ERR_UNSUPPORTED)."""
        n = self.rank
        v = (ctype * n)()
        st = fn(self.h, v, n)
        if st == 11:
            return None
        check(st)
        return tuple(v)

    @property
    def rank(self):
        return self._get(lib.tilecopy_tensor_rank, C.c_int)

    @property
    def shape(self):
        return self._get_array(lib.tilecopy_tensor_shape, C.c_int64)

    @property
    def dtype(self):
        return self._get(lib.tilecopy_tensor_dtype, C.c_int)

    @property
    def format(self):
        return self._get(lib.tilecopy_tensor_format, C.c_char_p).decode()

    @property
    def nbytes(self):
        """Bytes a buffer needs: byte offset + physical size."""
        return self._get(lib.tilecopy_tensor_bytes, C.c_uint64)

    @property
    def has_padding(self):
        return bool(self._get(lib.tilecopy_tensor_has_padding, C.c_int))

    def strides(self):
        """Per-dim strides in elements, or None for a blocked dim."""
        return self._get_array(lib.tilecopy_tensor_strides, C.c_int64)

    def physical_order(self):
        return self._get_array(lib.tilecopy_tensor_physical_order, C.c_int)

    def is_contiguous_in(self, fmt):
        y = C.c_int()
        check(lib.tilecopy_tensor_is_contiguous_in(self.h, cstr(fmt, "format"), C.byref(y)))
        return bool(y.value)

    def layout_handle(self):
        """The tensor's layout, borrowed (valid while this tensor lives)."""
        return self._get(lib.tilecopy_tensor_layout, C.c_void_p)

    def cute(self):
        lay = self.layout_handle()
        size = 256
        while True:
            buf = C.create_string_buffer(size)
            st = lib.tilecopy_layout_print(lay, buf, size)
            if st != 8:     # TILECOPY_ERR_BUFFER_TOO_SMALL: grow and retry
                check(st)
                return buf.value.decode()
            size *= 4

    def modes(self):
        """Per top-level mode, its leaves as ((shape, stride), ...), colexicographic."""
        lay = self.layout_handle()
        first, count = C.c_int(), C.c_int()
        sh, sd = C.c_int64(), C.c_int64()
        out = []
        for m in range(self.rank):
            check(lib.tilecopy_layout_mode_leaves(lay, m, C.byref(first), C.byref(count)))
            leaves = []
            for i in range(first.value, first.value + count.value):
                check(lib.tilecopy_layout_leaf(lay, i, C.byref(sh), C.byref(sd)))
                leaves.append((sh.value, sd.value))
            out.append(tuple(leaves))
        return tuple(out)

    @property
    def blocked(self):
        """A dim of more than one leaf: the format is blocked, whatever the
        shape (nChw8c with C <= 8 still has C's two leaves)."""
        return any(len(leaves) > 1 for leaves in self.modes())

    def crd2idx(self, coord):
        c, n = int64_array(coord, "coord")
        idx = C.c_int64()
        check(lib.tilecopy_layout_crd2idx(self.layout_handle(), c, n, C.byref(idx)))
        return idx.value

    def dlpack_view(self, physical):
        """(shape, strides in elements, byte_offset) of the DLPack export:
        the logical view (UnsupportedError for a blocked dim) or the
        physical one (a dim per leaf, outermost first)."""
        from ._dlpack import DLManagedTensor, call_deleter
        m = C.c_void_p()
        dummy = C.c_char()
        check(lib.tilecopy_tensor_to_dlpack(C.byref(m), self.h, C.addressof(dummy),
                                            _capi.DLPACK_PHYSICAL if physical else 0))
        try:
            t = C.cast(m, C.POINTER(DLManagedTensor)).contents.dl_tensor
            shape = tuple(t.shape[i] for i in range(t.ndim))
            strides = tuple(t.strides[i] for i in range(t.ndim))
            return shape, strides, t.byte_offset
        finally:
            call_deleter(m.value)
