# Element conversion (libuser/cpu/cvt*.c, docs/dtype-conversion.md).
#
#   check-cvt         all of the below
#   check-cvt-host    every kernel set against the reference, the reference
#                     against _Float16 and oneDNN 2.6's reorder (libdnnl),
#                     and converting plans (layout and dtype together)
#                     against oneDNN's reorder on blocked formats
#   check-cvt-asan    the first test again, library and test under ASan+UBSan
#   check-cvt-neon    the aarch64 build under qemu-user, on its default
#                     (max) CPU (neon, neonbf16) and on a Cortex-A72 (neon
#                     only: no FEAT_BF16)
#
#   make check-cvt-host TC_CVT_EXHAUSTIVE=1   all 2^32 f32 -> f16 and bf16
#                                             inputs (about a minute a set)

CVT_TEST        := $(BUILD)/tests/cvt/test_cvt
CVT_ONEDNN_TEST := $(BUILD)/tests/cvt/test_cvt_onednn
CVT_REORDER_TEST := $(BUILD)/tests/cvt/test_reorder_onednn
CVT_ASAN_TEST   := $(BUILD)/asan/tests/cvt/test_cvt
CVT_TEST_HDRS   := tests/cvt/cvt_test.h tests/cvt/onednn_exec.h tests/cvt/onednn_model.h libuser/cpu/cvt.h
CVT_TEST_FLAGS  := $(CPPFLAGS) -I$(TOP)/tests/cvt -std=c11 -D_GNU_SOURCE -ffp-contract=off \
		   $(shell pkg-config --cflags check 2>/dev/null)
CVT_CK_LIBS     := $(shell pkg-config --libs check 2>/dev/null)

# White-box tests: they link the core's objects (the archive hides tc_*).
$(CVT_TEST): tests/cvt/test_cvt.c $(CVT_TEST_HDRS) $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CVT_TEST_FLAGS) $(CFLAGS) $(WARN) -o $@ $< $(LIB_OBJS) $(CVT_CK_LIBS) -lm -lpthread

# Debian's libdnnl-dev has no pkg-config file (as in bench/bench.mk).
$(CVT_ONEDNN_TEST): tests/cvt/test_cvt_onednn.c $(CVT_TEST_HDRS) $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CVT_TEST_FLAGS) $(CFLAGS) $(WARN) -o $@ $< $(LIB_OBJS) $(CVT_CK_LIBS) \
		-lm -lpthread -ldnnl

# Through the public API, white-box only for crd2idx (internal.h).
$(CVT_REORDER_TEST): tests/cvt/test_reorder_onednn.c $(CVT_TEST_HDRS) $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CVT_TEST_FLAGS) $(CFLAGS) $(WARN) -o $@ $< $(LIB_OBJS) $(CVT_CK_LIBS) \
		-lm -lpthread -ldnnl

$(CVT_ASAN_TEST): tests/cvt/test_cvt.c $(CVT_TEST_HDRS) $(ASAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CVT_TEST_FLAGS) -O1 -g $(WARN) $(ASAN_FLAGS) -o $@ $< $(ASAN_LIB) \
		$(CVT_CK_LIBS) $(DEV_SYSLIBS) -lm -lpthread

.PHONY: check-cvt check-cvt-host check-cvt-asan check-cvt-neon
check-cvt-host: $(CVT_TEST) $(CVT_ONEDNN_TEST) $(CVT_REORDER_TEST)
	CK_FORK=yes timeout 900 $(CVT_TEST)
	CK_FORK=yes timeout 600 $(CVT_ONEDNN_TEST)
	OMP_NUM_THREADS=1 CK_FORK=yes timeout 600 $(CVT_REORDER_TEST)

check-cvt-asan: $(CVT_ASAN_TEST)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		TC_TEST_QUICK=1 CK_FORK=yes timeout 600 $(CVT_ASAN_TEST)

# The conversion files alone, cross-compiled static; the same tools as
# check-neon (tests/simd/simd.mk), defaults repeated in case it is absent.
NEON_CC     ?= aarch64-linux-gnu-gcc
NEON_QEMU   ?= qemu-aarch64-static
NEON_LIBDIR ?= /usr/lib/aarch64-linux-gnu
CVT_NEON_DIR  := $(BUILD)/neon-cvt
CVT_NEON_TEST := $(CVT_NEON_DIR)/test_cvt
CVT_NEON_SRCS := libuser/cpu/cvt.c libuser/cpu/cvt_scalar.c libuser/cpu/cvt_neon.c \
		 libuser/cpu/cvt_neon_bf16.c

$(CVT_NEON_TEST): tests/cvt/test_cvt.c $(CVT_TEST_HDRS) $(CVT_NEON_SRCS) libuser/cpu/cvt_neon_tr.h
	@mkdir -p $(CVT_NEON_DIR)/include
	@test -f $(NEON_LIBDIR)/libcheck.a || { echo "check-cvt-neon: $(NEON_LIBDIR)/libcheck.a missing (check:arm64; run scripts/deps.sh)" >&2; exit 1; }
	ln -sf /usr/include/check.h /usr/include/check_stdint.h $(CVT_NEON_DIR)/include/
	$(NEON_CC) -static -O2 -g $(WARN) -std=c11 -D_GNU_SOURCE -ffp-contract=off \
		-I$(TOP)/libuser -I$(TOP)/tests/cvt -I$(CVT_NEON_DIR)/include -o $@ \
		tests/cvt/test_cvt.c $(CVT_NEON_SRCS) \
		$(NEON_LIBDIR)/libcheck.a $(NEON_LIBDIR)/libsubunit.a -lm -lpthread -lrt

check-cvt-neon: $(CVT_NEON_TEST)
	TC_TEST_QUICK=1 CK_FORK=yes timeout 900 $(NEON_QEMU) $(CVT_NEON_TEST)
	TC_TEST_QUICK=1 CK_FORK=yes timeout 900 $(NEON_QEMU) -cpu cortex-a72 $(CVT_NEON_TEST)

check-cvt: check-cvt-host check-cvt-asan check-cvt-neon

CHECK_TARGETS += check-cvt
