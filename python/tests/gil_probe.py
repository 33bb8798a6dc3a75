#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""gil_probe.py - run by test_threads.py in a child process: does
tilecopy.convert() release the GIL while the library runs?

The source is memory registered with userfaultfd, so the conversion's first
read of each page stops its thread in the kernel until the main thread
supplies the page - which needs the GIL. If convert() held it, the two
would wait for each other forever: the parent kills this process after its
timeout and fails. No timing decides a pass.

Exit 0 and "served N of N pages" when the GIL was released; 77 and the
reason when userfaultfd is unavailable; anything else is a failure.
"""
import ctypes
import errno
import mmap
import os
import platform
import select
import struct
import sys
import threading

import numpy as np

import reference as ref
import tilecopy


class Skip(Exception):
    pass


NR_USERFAULTFD = {"x86_64": 323, "aarch64": 282}
UFFD_USER_MODE_ONLY = 1
UFFD_API = 0xAA
UFFDIO_API = 0xC018AA3F             # _IOWR(0xAA, 0x3F, struct uffdio_api)
UFFDIO_REGISTER = 0xC020AA00        # _IOWR(0xAA, 0x00, struct uffdio_register)
UFFDIO_COPY = 0xC028AA03            # _IOWR(0xAA, 0x03, struct uffdio_copy)
UFFDIO_REGISTER_MODE_MISSING = 1
UFFD_EVENT_PAGEFAULT = 0x12
PAGE = mmap.PAGESIZE

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]


def _userfaultfd():
    nr = NR_USERFAULTFD.get(platform.machine())
    if nr is None:
        raise Skip("userfaultfd: no syscall number known for %s" % platform.machine())
    fd = libc.syscall(nr, os.O_CLOEXEC | os.O_NONBLOCK | UFFD_USER_MODE_ONLY)
    if fd < 0:
        e = ctypes.get_errno()
        raise Skip("userfaultfd unavailable here (%s): the GIL test needs it"
                    % errno.errorcode.get(e, e))
    api = (ctypes.c_uint64 * 3)(UFFD_API, 0, 0)
    if libc.ioctl(fd, UFFDIO_API, api) < 0:
        os.close(fd)
        raise Skip("userfaultfd: UFFDIO_API refused")
    return fd


def probe():
    x = ref.values((4, 32, 16, 16), np.float32)          # 32 pages at 4 KiB
    data = ref.physical("NCHW", x)
    size = data.nbytes
    assert size % PAGE == 0
    fd = _userfaultfd()
    addr = libc.mmap(None, size, mmap.PROT_READ | mmap.PROT_WRITE,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    assert addr not in (None, ctypes.c_void_p(-1).value)
    t = None
    try:
        reg = (ctypes.c_uint64 * 4)(addr, size, UFFDIO_REGISTER_MODE_MISSING, 0)
        if libc.ioctl(fd, UFFDIO_REGISTER, reg) < 0:
            raise Skip("userfaultfd: UFFDIO_REGISTER refused (errno %d)" % ctypes.get_errno())
        # a numpy array over the registered pages: nothing touches them yet
        src = np.frombuffer((ctypes.c_char * size).from_address(addr), np.float32)
        result = {}

        def worker():
            try:
                result["y"] = tilecopy.convert(src, src="NCHW", dst="nChw16c", shape=x.shape,
                                               device="cpu")
            except BaseException as e:       # noqa: B902 - reported below
                result["error"] = e

        t = threading.Thread(target=worker)
        t.start()
        served = 0
        p = select.poll()
        p.register(fd, select.POLLIN)
        while t.is_alive() or p.poll(0):
            if not p.poll(100):
                continue
            msg = os.read(fd, 32)
            event, = struct.unpack_from("B", msg, 0)
            assert event == UFFD_EVENT_PAGEFAULT
            fault, = struct.unpack_from("Q", msg, 16)
            page = (fault - addr) // PAGE * PAGE
            chunk = ctypes.create_string_buffer(data.tobytes()[page:page + PAGE], PAGE)
            # struct uffdio_copy: dst, src, len, mode, copy (out)
            cp = (ctypes.c_uint64 * 5)(addr + page, ctypes.addressof(chunk), PAGE, 0, 0)
            if libc.ioctl(fd, UFFDIO_COPY, cp) < 0 and ctypes.get_errno() != errno.EEXIST:
                raise OSError(ctypes.get_errno(), "UFFDIO_COPY")
            served += 1
        t.join()
        if "error" in result:
            raise result["error"]
        np.testing.assert_array_equal(result["y"], ref.expected("nChw16c", x))
        # this thread ran Python while convert() was inside the library
        print("served %d of %d pages" % (served, size // PAGE))
        return 0 if served == size // PAGE else 1
    finally:
        # Closing the userfaultfd lets a worker still waiting on a page go
        # on (with zero pages); the memory is unmapped only after it ends.
        os.close(fd)
        if t is not None:
            t.join()
        libc.munmap(addr, size)




if __name__ == "__main__":
    try:
        sys.exit(probe())
    except Skip as e:
        print(e)
        sys.exit(77)
