# SIMD executors against the scalar reference (included by bench/bench.mk).
#
#   check-simd   host executors (sse2, avx2, avx512 as this CPU allows)
#   check-neon   the aarch64 build (scalar + NEON + the whole library and the
#                same test), cross-compiled static and run under qemu-user
#
# check-neon needs gcc-aarch64-linux-gnu, qemu-user-static and check:arm64
# (scripts/deps.sh installs them).

SIMD_TEST      := $(BUILD)/tests/simd/test_simd
SIMD_CK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
SIMD_CK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

# white-box (tc_cpu_backend_get): the core's objects, not its archive;
# /simd/paths counts the kernels a plan reaches through the executors'
# two entries into them.
SIMD_WRAP := -Wl,--wrap=tc_exec_kernels,--wrap=tc_direct_run
$(SIMD_TEST): tests/simd/test_simd.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE $(SIMD_CK_CFLAGS) \
		-o $@ $< $(LIB_OBJS) $(SIMD_CK_LIBS) -lm $(SIMD_WRAP)

.PHONY: check-simd check-neon
check-simd: $(SIMD_TEST)
	CK_FORK=yes timeout 600 $(SIMD_TEST)

NEON_CC     ?= aarch64-linux-gnu-gcc
NEON_QEMU   ?= qemu-aarch64-static
NEON_LIBDIR ?= /usr/lib/aarch64-linux-gnu
NEON_DIR    := $(BUILD)/neon
NEON_TEST   := $(NEON_DIR)/test_simd
# The library as built for aarch64: the host's sources minus x86 kernels.
NEON_SRCS   := $(filter-out libuser/cpu/exec_sse2.c libuser/cpu/exec_avx2.c \
		libuser/cpu/exec_avx512.c libuser/cpu/exec_neon.c $(LIB_DEVICE_SRCS),$(LIB_SRCS)) \
		libuser/cpu/exec_neon.c
NEON_CPPFLAGS := -I$(TOP)/include -I$(TOP)/include/uapi/drm -I$(TOP)/libuser \
		 -I$(NEON_DIR)/include -I/usr/include/libdrm -I$(abspath $(NEON_DIR))/include

$(NEON_TEST): tests/simd/test_simd.c $(NEON_SRCS) $(wildcard libuser/*.h libuser/cpu/*.h)
	@mkdir -p $(NEON_DIR)/include
	@test -f $(NEON_LIBDIR)/libcheck.a || { echo "check-neon: $(NEON_LIBDIR)/libcheck.a missing (check:arm64; run scripts/deps.sh)" >&2; exit 1; }
	ln -sf /usr/include/check.h /usr/include/check_stdint.h $(NEON_DIR)/include/
	ln -sfn /usr/include/dlpack $(NEON_DIR)/include/dlpack
	$(NEON_CC) -static -O2 -g $(WARN) -std=c11 -D_GNU_SOURCE -DTILECOPY_BUILDING \
		$(NEON_CPPFLAGS) -o $@ tests/simd/test_simd.c $(NEON_SRCS) \
		$(NEON_LIBDIR)/libcheck.a $(NEON_LIBDIR)/libsubunit.a -lm -lpthread -lrt $(SIMD_WRAP)

check-neon: $(NEON_TEST)
	TC_TEST_QUICK=1 CK_FORK=yes timeout 900 $(NEON_QEMU) $(NEON_TEST)

CHECK_TARGETS += check-simd check-neon
