# The engine: QEMU 7.2 (Debian's source package) with the tilecopy device
# (qemu/tilecopy.c), built into a cache outside the tree by
# scripts/build-qemu.sh, and its register-level tests and benchmark.
#
#   make qemu-build     build or reuse the cached QEMU; link it at $(QEMU_SYSTEM)
#   make check-device   device tests (qtest protocol, tests/device/)
#   make check-device-asan  the same tests, then a long descriptor fuzzing,
#                       against a QEMU built with --enable-sanitizers (ASan +
#                       UBSan); about a minute once that QEMU is built (its
#                       cold build takes about half an hour here, a change
#                       to qemu/ well under a minute), so part of `make check`
#   make check-transpose-host  the model's transposes built alone, with
#                       guard pages after every source row (no QEMU)
#   make bench-device   ~64 MB transposes on the engine vs host memcpy
#
# The cache: ${TILECOPY_CACHE:-$HOME/.cache/tilecopy}/qemu; a rebuild happens
# only when qemu/, the hardware headers or the script change.

QEMU_SYSTEM        := $(BUILD)/qemu/qemu-system-x86_64
# Under -accel tcg/qtest, x86 machines need SeaBIOS; -kernel boots need the
# option ROMs (linuxboot_dma.bin) of /usr/share/qemu.
QEMU_FIRMWARE_ARGS := -L /usr/share/seabios -L /usr/share/qemu

DEV_DIR       := $(BUILD)/tests/device
DEV_TEST      := $(DEV_DIR)/test_device
DEV_BENCH     := $(DEV_DIR)/bench_device
DEV_HDRS      := tests/device/qtest.h include/hw/tilecopy_hw.h include/uapi/drm/tilecopy_accel.h \
		 tests/desc_cases.h tests/typed_ref.h
DEV_CFLAGS    := $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -I$(TOP)/tests/device
DEV_CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
DEV_CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)
# Tests boot the project's own firmware images too, when firmware/ exists.
DEV_FW_DEPS   := $(if $(FW_IMAGE),$(FW_IMAGE) $(FW_TEST_STAMP))
DEV_ENV       := TC_QEMU=$(QEMU_SYSTEM) TC_QEMU_ARGS="$(QEMU_FIRMWARE_ARGS)" \
		 $(if $(FW_IMAGE),TC_FW_DIR=$(BUILD)/firmware/tilecopy)

.PHONY: qemu-build check-device bench-device qemu-build-asan check-device-asan

qemu-build:
	timeout 3600 bash scripts/build-qemu.sh $(QEMU_SYSTEM)

# The same QEMU configured with --enable-sanitizers: its own build directory
# and cache key (scripts/build-qemu.sh --sanitizers).
QEMU_SYSTEM_ASAN := $(BUILD)/qemu-asan/qemu-system-x86_64
qemu-build-asan:
	timeout 7200 bash scripts/build-qemu.sh --sanitizers $(QEMU_SYSTEM_ASAN)

# Linked with the library's objects (white-box: the archive hides tc_*): its
# CPU executors are the reference the engine must match bit for bit
# (/cross/*), its descriptor checker the other side of /desc/table.
$(DEV_TEST): tests/device/test_device.c tests/device/qtest.c $(DEV_HDRS) $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(DEV_CFLAGS) $(DEV_CHECK_CFLAGS) -o $@ \
		tests/device/test_device.c tests/device/qtest.c $(LIB_OBJS) \
		$(DEV_CHECK_LIBS) -lm -lpthread

$(DEV_BENCH): tests/device/bench_device.c tests/device/qtest.c $(DEV_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(DEV_CFLAGS) -o $@ tests/device/bench_device.c tests/device/qtest.c

# Each case runs its own QEMU; the whole suite takes well under a minute.
check-device: qemu-build $(DEV_TEST) $(DEV_FW_DEPS)
	@rc=0; $(DEV_ENV) CK_FORK=yes timeout 900 $(DEV_TEST) || rc=$$?; \
	if [ $$rc = 77 ]; then echo "check-device: skipped"; else exit $$rc; fi

# Every report halts QEMU (halt_on_error), so that the case fails where it
# happened; the harness also fails a case whose QEMU printed a report at
# any time, its exit (LeakSanitizer) included (qts_sanitizer_report()).
# The cases run under slower QEMU: Check's timeouts are stretched.
# TC_ASAN_FUZZ_ITERS: jobs of the fuzzing run (/desc/fuzz) after the suite.
TC_ASAN_FUZZ_ITERS ?= 20000
DEV_ASAN_ENV := TC_QEMU=$(QEMU_SYSTEM_ASAN) TC_QEMU_ARGS="$(QEMU_FIRMWARE_ARGS)" \
		$(if $(FW_IMAGE),TC_FW_DIR=$(BUILD)/firmware/tilecopy) \
		ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:print_summary=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:print_summary=1 \
		CK_FORK=yes
check-device-asan: qemu-build-asan $(DEV_TEST) $(DEV_FW_DEPS)
	@set -e; rc=0; \
	echo "check-device-asan: the suite"; \
	$(DEV_ASAN_ENV) CK_TIMEOUT_MULTIPLIER=4 timeout 3600 $(DEV_TEST) || rc=$$?; \
	if [ $$rc = 77 ]; then echo "check-device-asan: skipped"; exit 0; fi; \
	echo "check-device-asan: /desc/fuzz, $(TC_ASAN_FUZZ_ITERS) jobs"; \
	$(DEV_ASAN_ENV) CK_TIMEOUT_MULTIPLIER=30 CK_RUN_CASE=/desc/fuzz \
		TC_FUZZ_ITERS=$(TC_ASAN_FUZZ_ITERS) timeout 3600 $(DEV_TEST) || rc=$$?; \
	exit $$rc

bench-device: qemu-build $(DEV_BENCH)
	$(DEV_ENV) timeout 900 $(DEV_BENCH)

# The model's straight-to-destination transposes on their own (no QEMU):
# tilecopy-transpose.c against the stand-in headers of tests/device/host/,
# every source row ending at an unmapped page (over-reads fault there,
# unlike in guest RAM), with the host's SIMD features and with AVX-512 and
# AVX2 masked. A few seconds.
TRANSPOSE_HOST_TEST := $(DEV_DIR)/test_transpose_host
$(TRANSPOSE_HOST_TEST): tests/device/test_transpose_host.c qemu/tilecopy-transpose.c \
			qemu/tilecopy-transpose.h $(wildcard tests/device/host/qemu/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -I$(TOP)/tests/device/host \
		-I$(TOP)/qemu $(DEV_CHECK_CFLAGS) -o $@ tests/device/test_transpose_host.c \
		qemu/tilecopy-transpose.c $(DEV_CHECK_LIBS)

.PHONY: check-transpose-host
check-transpose-host: $(TRANSPOSE_HOST_TEST)
	CK_FORK=yes timeout 300 $(TRANSPOSE_HOST_TEST)
CHECK_TARGETS += check-transpose-host

# check-device-asan is not in make check: its cold sanitizer build (~15-33
# minutes here) would take a fresh machine's make check past its budget.
CHECK_TARGETS += check-device
