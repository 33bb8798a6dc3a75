# The arm64 board (issue 16): tilecopy.ko cross-built for Debian's arm64
# 6.12 kernel, qemu-system-aarch64 with the engine, and the driver's and the
# SDK's in-guest tests cross-built and run in an arm64 guest (tests/arm64/).
#
#   make module-arm64        build/arm64/driver/tilecopy.ko (W=1, no warning)
#   make check-module-arm64  + sparse on arm64 + checkpatch (+ the module for
#                            16 KiB pages, build/arm64-16k/driver/tilecopy.ko)
#   make arm64-tests         the in-guest programs, cross-built (arm64
#                            libdrm, libudev and check from multiarch)
#   make qemu-build-arm64    build/qemu/qemu-system-aarch64 (scripts/build-qemu.sh)
#   make check-arm64         all of the above, then the guest boots of
#                            tests/arm64/check.sh (part of make check)
#   make demo-arm64          the end-to-end story on the arm64 board
#   make arm64-shell-test CMD="..."  one command in the arm64 guest
#
# Included from the top-level Makefile after the other fragments (it uses
# LIB_SRCS, LIB_DEVICE_SRCS, LIB_CFLAGS and WARN). The in-guest programs are
# built here from the same sources with aarch64-linux-gnu-gcc; this does not
# depend on any cross-build support of the library's own makefile.

ARM64_DIR    := $(BUILD)/arm64
ARM64_KO     := $(ARM64_DIR)/driver/tilecopy.ko
ARM64_16K_KO := $(BUILD)/arm64-16k/driver/tilecopy.ko
ARM64_QEMU   := $(BUILD)/qemu/qemu-system-aarch64
ARM64_CC     ?= aarch64-linux-gnu-gcc
# Debian's multiarch arm64 packages: headers in /usr/include (the cross
# compiler searches it), libraries in /usr/lib/aarch64-linux-gnu.
ARM64_PKG    := PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
		pkg-config
ARM64_CFLAGS := -O2 -g $(WARN) -std=c11 -D_GNU_SOURCE
ARM64_CPPFLAGS := -I$(TOP)/include -I$(TOP)/include/uapi/drm -I$(TOP)/libuser \
		  $(shell $(ARM64_PKG) --cflags libdrm 2>/dev/null)
ARM64_DRM_LIBS   := $(shell $(ARM64_PKG) --libs libdrm 2>/dev/null)
ARM64_CHECK_LIBS := $(shell $(ARM64_PKG) --libs check 2>/dev/null)
ARM64_LIB_LIBS   := $(shell $(ARM64_PKG) --libs libdrm libudev 2>/dev/null) -lm -lpthread

ARM64_DRV_DEPS := $(wildcard driver/*.c driver/*.h) driver/Kbuild Kbuild \
		  include/uapi/drm/tilecopy_accel.h include/hw/tilecopy_hw.h \
		  scripts/kbuild-arm64.sh tests/arm64/module.sh

# ---- the module -----------------------------------------------------------

$(ARM64_KO): $(ARM64_DRV_DEPS)
	@mkdir -p $(dir $@)
	bash tests/arm64/module.sh arm64 $(ARM64_DIR)/driver

$(ARM64_16K_KO): $(ARM64_DRV_DEPS)
	@mkdir -p $(dir $@)
	bash tests/arm64/module.sh arm64-16k $(BUILD)/arm64-16k/driver

.PHONY: module-arm64 module-arm64-16k check-module-arm64 arm64-tests qemu-build-arm64 \
	check-arm64 demo-arm64 arm64-shell-test
module-arm64: $(ARM64_KO)
module-arm64-16k: $(ARM64_16K_KO)

# checkpatch reads sources only: the same verdict as on x86, run again so
# the arm64 target stands alone.
check-module-arm64: $(ARM64_KO) $(ARM64_16K_KO)
	bash tests/arm64/module.sh --sparse arm64 $(ARM64_DIR)/driver
	bash tests/arm64/module.sh --sparse arm64-16k $(BUILD)/arm64-16k/driver
	bash $(TOP)/scripts/checkpatch.sh
	@modinfo $(ARM64_KO) | grep -E '^(vermagic|depends):'
	@echo "check-module-arm64: arm64 (4K and 16K pages) builds without warnings; sparse, checkpatch clean"

# ---- the in-guest programs --------------------------------------------------

# The SDK as the arm64 guest runs it: the project's own cross build (make
# CROSS=aarch64-linux-gnu-, the NEON executor) with the device backend,
# against Debian's multiarch arm64 libdrm and libudev. The sub-make keeps it
# incremental; FORCE lets it decide.
ARM64_SDK       := $(ARM64_DIR)
ARM64_LIB_A     := $(ARM64_SDK)/lib/libtilecopy.a
ARM64_DEV_A     := $(ARM64_SDK)/lib/libtilecopy-device.a
ARM64_CLI       := $(ARM64_SDK)/bin/tilecopy
ARM64_SDK_LIBS  := $(ARM64_DEV_A) $(ARM64_LIB_A) $(ARM64_LIB_LIBS)

.PHONY: arm64-sdk
arm64-sdk:
	PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
		$(MAKE) --no-print-directory CROSS=aarch64-linux-gnu- WITH_DEVICE=1 \
		BUILD=$(abspath $(ARM64_SDK)) $(abspath $(ARM64_LIB_A)) $(abspath $(ARM64_DEV_A)) \
		$(abspath $(ARM64_CLI)) $(abspath $(ARM64_SDK))/lib/libtilecopy-device.so
$(ARM64_LIB_A) $(ARM64_DEV_A) $(ARM64_CLI): arm64-sdk

ARM64_GUEST_HDRS := tests/guest/tc_guest.c tests/guest/tc_guest.h \
		    include/uapi/drm/tilecopy_accel.h include/hw/tilecopy_hw.h
ARM64_GUEST := $(ARM64_DIR)/tests/guest

$(ARM64_GUEST)/test_ioctl $(ARM64_GUEST)/test_recovery: $(ARM64_GUEST)/%: tests/guest/%.c \
		$(ARM64_GUEST_HDRS)
	@mkdir -p $(dir $@)
	$(ARM64_CC) $(ARM64_CPPFLAGS) $(ARM64_CFLAGS) -I$(TOP)/tests/guest -o $@ $< \
		tests/guest/tc_guest.c $(ARM64_CHECK_LIBS) $(ARM64_DRM_LIBS)

$(ARM64_GUEST)/test_layouts: tests/guest/test_layouts.c $(ARM64_GUEST_HDRS) $(ARM64_LIB_A)
	@mkdir -p $(dir $@)
	$(ARM64_CC) $(ARM64_CPPFLAGS) $(ARM64_CFLAGS) -I$(TOP)/tests/guest -o $@ $< \
		tests/guest/tc_guest.c $(ARM64_CHECK_LIBS) $(ARM64_SDK_LIBS)

$(ARM64_DIR)/driver/tc_drv_smoke: driver/tests/tc_drv_smoke.c include/uapi/drm/tilecopy_accel.h
	@mkdir -p $(dir $@)
	$(ARM64_CC) $(ARM64_CPPFLAGS) $(ARM64_CFLAGS) -o $@ $< $(ARM64_DRM_LIBS)

$(ARM64_DIR)/tests/sdk/%: tests/sdk/%.c $(ARM64_LIB_A) tests/unit/tc_test.h
	@mkdir -p $(dir $@)
	$(ARM64_CC) $(ARM64_CPPFLAGS) $(ARM64_CFLAGS) -o $@ $< \
		$(ARM64_CHECK_LIBS) $(ARM64_SDK_LIBS)

ARM64_BINS := $(ARM64_GUEST)/test_ioctl $(ARM64_GUEST)/test_recovery \
	      $(ARM64_GUEST)/test_layouts $(ARM64_DIR)/driver/tc_drv_smoke \
	      $(ARM64_DIR)/tests/sdk/test_device $(ARM64_DIR)/tests/sdk/bench_device $(ARM64_CLI)

arm64-tests: $(ARM64_BINS)
	@test -f /usr/lib/aarch64-linux-gnu/libdrm.so -a -f /usr/lib/aarch64-linux-gnu/libudev.so || \
		{ echo "arm64-tests: libdrm-dev:arm64 / libudev-dev:arm64 missing (make deps)" >&2; exit 1; }

# ---- QEMU, the lane, the demo ---------------------------------------------

qemu-build-arm64:
	timeout 3600 bash scripts/build-qemu.sh $(ARM64_QEMU)

ARM64_ENV := QEMU_SYSTEM=$(abspath $(ARM64_QEMU)) BUILD=$(abspath $(BUILD))

# Warm: 2.5 minutes on 2 quiet cores, 4-6 under load (four guest boots of
# 15-50 s each, see check.sh, plus the arm64 static checks).
check-arm64: check-module-arm64 qemu-build-arm64 firmware arm64-tests
	$(ARM64_ENV) timeout 2400 bash tests/arm64/check.sh

CHECK_TARGETS += check-arm64

demo-arm64: deps
	@$(MAKE) --no-print-directory module-arm64 qemu-build-arm64 firmware arm64-tests
	$(ARM64_ENV) bash scripts/demo-arm64.sh

arm64-shell-test: module-arm64 qemu-build-arm64 firmware arm64-tests
	$(ARM64_ENV) timeout 900 bash tests/qemu/run-guest.sh --arch arm64 --timeout 300 -- \
		sh -c '$(CMD)'
