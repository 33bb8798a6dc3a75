# The debug-kernel lane (issue 12): the guest suites on a 6.12 kernel with
# KASAN, lockdep, DEBUG_ATOMIC_SLEEP, DMA-API debugging, debugobjects,
# kmemleak, UBSAN and fault injection (tests/qemu/debug.config), built from
# Debian's linux-source by scripts/build-debug-kernel.sh and cached by hash.
# Any report of those options, or a kmemleak leak in tilecopy/DRM code,
# fails a run (tests/qemu/kernel-debug.sh).
#
#   make debug-kernel           build (or find) the debug kernel (~15 min cold)
#   make module-debug           tilecopy.ko against it: $(BUILD)/driver-debug/
#   make check-debug            the gate's part (in make check): uAPI suite,
#                               recovery, userptr, the fault-injection sweep
#                               (but the probe's), INTx, the tdr case, wedge
#                               and unplug, in four boots
#                               (tests/qemu/check-debug.sh)
#   make check-debug-kernel     every guest suite on the debug kernel
#   make check-debug-smoke | check-debug-uapi | check-debug-recovery |
#        check-debug-faultinject | check-debug-guest | check-debug-sdk |
#        check-debug-reliability          one suite each
#   make check-debug-faultinject FI_OPS="submit wait"   some operations only
#
# make check starts the kernel build in the background first
# (debug-kernel-start: the other parts leave the second core mostly idle)
# and joins it before check-debug. Any guest suite runs on the debug kernel
# by hand too: TC_KERNEL=debug (or run-guest.sh --kernel debug).

DEBUG_KDIR_FILE := $(BUILD)/driver-debug/kernel-dir
DEBUG_KB        := $(BUILD)/driver-debug/kbuild
DEBUG_KO        := $(BUILD)/driver-debug/tilecopy.ko
DEBUG_LOG       := $(BUILD)/debug-kernel.log
FI_BIN          := $(BUILD)/tests/faultinject/tc_faultinject
FI_OPS          ?=

DEBUG_ENV := TC_KERNEL=debug TC_DEBUG_MODULE=$(abspath $(DEBUG_KO)) \
	QEMU_SYSTEM=$(abspath $(QEMU_SYSTEM)) QEMU_FIRMWARE_ARGS="$(QEMU_FIRMWARE_ARGS)" \
	BUILD=$(abspath $(BUILD))
DEBUG_RUN := $(DEBUG_ENV) TC_REQUIRE_DEVICE=1 timeout 1800 bash tests/qemu/run-guest.sh
# What every debug-lane suite needs.
DEBUG_DEPS := qemu-build module-debug firmware

.PHONY: debug-kernel debug-kernel-start module-debug check-debug check-debug-kernel \
	check-debug-smoke check-debug-uapi check-debug-recovery check-debug-faultinject \
	check-debug-guest check-debug-sdk check-debug-reliability faultinject-tests

# The kernel directory, rewritten only when it changes (a new hash), so the
# module is rebuilt exactly then.
debug-kernel:
	@mkdir -p $(dir $(DEBUG_KDIR_FILE))
	@d=$$(timeout 7200 bash scripts/build-debug-kernel.sh) || exit 1; \
		[ "$$(cat $(DEBUG_KDIR_FILE) 2>/dev/null)" = "$$d" ] || echo "$$d" >$(DEBUG_KDIR_FILE); \
		echo "debug kernel: $$d ($$(cat $$d/build/include/config/kernel.release))"

debug-kernel-start:
	@bash scripts/build-debug-kernel.sh --background $(DEBUG_LOG)

$(DEBUG_KDIR_FILE): debug-kernel
	@:

# Out of tree against the debug kernel's O= tree, with debug info (so
# scripts/faddr2line can name the source line of a report's frame).
$(DEBUG_KO): $(DRV_SRCS) $(DRV_HDRS) $(TOP)/Kbuild $(DEBUG_KDIR_FILE)
	@mkdir -p $(DEBUG_KB)/driver $(DEBUG_KB)/include/uapi/drm $(DEBUG_KB)/include/hw
	@cp -pu $(TOP)/Kbuild $(DEBUG_KB)/
	@cp -pu $(DRV_SRCS) $(DEBUG_KB)/driver/
	@cp -pu $(TOP)/include/uapi/drm/tilecopy_accel.h $(DEBUG_KB)/include/uapi/drm/
	@cp -pu $(TOP)/include/hw/tilecopy_hw.h $(DEBUG_KB)/include/hw/
	+@timeout 900 $(MAKE) --no-print-directory -C $$(cat $(DEBUG_KDIR_FILE))/build \
		M=$(abspath $(DEBUG_KB)) W=1 KCFLAGS=-g modules >$(BUILD)/driver-debug/build.log 2>&1; \
		rc=$$?; cat $(BUILD)/driver-debug/build.log; exit $$rc
	@cp $(DEBUG_KB)/driver/tilecopy.ko $@
	@echo "  KO      $@ ($$(modinfo -F vermagic $@ | cut -d' ' -f1))"

module-debug: $(DEBUG_KO)

$(FI_BIN): tests/faultinject/tc_faultinject.c include/uapi/drm/tilecopy_accel.h include/hw/tilecopy_hw.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE -o $@ $< \
		$(shell pkg-config --libs libdrm 2>/dev/null || echo -ldrm) -pthread

faultinject-tests: $(FI_BIN)
ALL_TARGETS += $(FI_BIN)

G := $(abspath $(BUILD))/tests/guest

# driver/tests/tc_drv_smoke, as check-driver-guest
check-debug-smoke: $(DEBUG_DEPS) $(DRV_SMOKE)
	$(DEBUG_RUN) --devices 2 --device-props delay-ns-per-kb=20000 --timeout 900 \
		-- $(abspath $(DRV_SMOKE))

# the uAPI suite: every ioctl valid and invalid, jobs, waits, syncobjs,
# processes, two engines (check-guest's first boot, without the layouts)
check-debug-uapi: $(DEBUG_DEPS) guest-tests
	$(DEBUG_RUN) --devices 2 --device-props delay-ns-per-kb=50000 --timeout 1200 \
		-- $(G)/test_ioctl

# recovery: forced reset with jobs in flight and a reset storm; a DMA error;
# a hung job (timeout, engine reset)
check-debug-recovery: $(DEBUG_DEPS) guest-tests
	$(DEBUG_RUN) --devices 2 --device-props delay-ns-per-kb=50000 --timeout 900 \
		-- $(G)/test_recovery
	$(DEBUG_RUN) --device-props dma-error-on-job=3 --timeout 600 -- $(G)/test_recovery
	$(DEBUG_RUN) --device-props hang-on-job=2 --timeout 600 -- $(G)/test_recovery

# allocation-failure sweep over open/close, BO_CREATE, BO_INFO, PRIME, SUBMIT
# (and its user copies), WAIT, GEM_CLOSE, BO_USERPTR and the probe (bind:
# over 400 points, 30 min or more; not in check-debug)
# (tests/faultinject/tc_faultinject.c)
check-debug-faultinject: $(DEBUG_DEPS) $(FI_BIN)
	$(DEBUG_ENV) TC_REQUIRE_DEVICE=1 timeout 7200 bash tests/qemu/run-guest.sh --devices 2 --timeout 7000 \
		-- $(abspath $(FI_BIN)) $(TOP)/tests/qemu/debug-reports.ere $(FI_OPS)

# whole suites, every boot on the debug kernel
check-debug-guest: $(DEBUG_DEPS) guest-tests
	$(DEBUG_ENV) timeout 3600 bash tests/qemu/check-guest.sh

check-debug-sdk: $(DEBUG_DEPS) $(SDK_BINS) $(CLI)
	$(DEBUG_ENV) timeout 3600 bash tests/sdk/run.sh check

check-debug-reliability: $(DEBUG_DEPS) $(STRESS_BIN)
	$(DEBUG_ENV) timeout 3600 bash tests/reliability/guest.sh

# The part of make check (see docs/reliability.md for the budget): the
# suites above, but the probe's sweep, in four boots.
check-debug: $(DEBUG_DEPS) guest-tests $(FI_BIN)
	$(DEBUG_ENV) FI_OPS="$(FI_OPS)" timeout 3600 bash tests/qemu/check-debug.sh

check-debug-kernel: check-debug-smoke check-debug-uapi check-debug-recovery \
	check-debug-faultinject check-debug-guest check-debug-sdk check-debug-reliability

CHECK_TARGETS := debug-kernel-start $(CHECK_TARGETS) check-debug
