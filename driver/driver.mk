# driver/driver.mk - the kernel module (tilecopy.ko) and its static checks.
#
#   make module        build $(BUILD)/driver/tilecopy.ko against KDIR
#   make module-clean  remove the module build
#   make sparse        sparse on every driver file (make C=2), no warning allowed
#   make checkpatch    scripts/checkpatch.sh (checkpatch.pl --no-tree --strict -f)
#   make kernel-doc    the kernel's scripts/kernel-doc -Wall on every driver file
#   make check-module  module (no compiler warning allowed) + sparse +
#                      kernel-doc + checkpatch
#   make check-driver-guest  driver/tests/tc_drv_smoke in a guest with two
#                      engines (contexts, PRIME within and across devices,
#                      read-only BOs, isolation, sysfs), clean dmesg required
#
# KDIR defaults to the running kernel's build tree if it is a 6.12 kernel,
# else to Debian's linux-headers-6.12.*+deb12-amd64 (scripts/deps.sh
# installs it). The build runs in a copy under $(BUILD)/driver/kbuild, so the
# source tree never gets kbuild's object and .cmd files.

DRV_KDIR_AUTO := $(shell r=$$(uname -r); d=/lib/modules/$$r/build; \
	case $$r in (6.12.*) [ -f $$d/Makefile ] && { echo $$d; exit; } ;; esac; \
	ls -d /usr/src/linux-headers-6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -1)
KDIR ?= $(DRV_KDIR_AUTO)

DRV_KB   := $(BUILD)/driver/kbuild
DRV_KO   := $(BUILD)/driver/tilecopy.ko
DRV_SRCS := $(wildcard $(TOP)/driver/*.c $(TOP)/driver/*.h) $(TOP)/driver/Kbuild
DRV_HDRS := $(TOP)/include/uapi/drm/tilecopy_accel.h $(TOP)/include/hw/tilecopy_hw.h
DRV_KMAKE = timeout 900 $(MAKE) --no-print-directory -C $(KDIR) M=$(abspath $(DRV_KB))

.PHONY: check-driver-guest module module-install module-clean sparse checkpatch kernel-doc check-module drv-kdir drv-copy

ALL_TARGETS += $(if $(KDIR),module)
CHECK_TARGETS += check-module check-driver-guest

drv-kdir:
	@if [ -z "$(KDIR)" ] || [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "module: no Linux 6.12 build tree (KDIR='$(KDIR)'); run 'make deps'" >&2; \
		exit 1; fi

drv-copy: drv-kdir
	@mkdir -p $(DRV_KB)/driver $(DRV_KB)/include/uapi/drm $(DRV_KB)/include/hw
	@cp -pu $(TOP)/Kbuild $(DRV_KB)/
	@cp -pu $(DRV_SRCS) $(DRV_KB)/driver/
	@cp -pu $(TOP)/include/uapi/drm/tilecopy_accel.h $(DRV_KB)/include/uapi/drm/
	@cp -pu $(TOP)/include/hw/tilecopy_hw.h $(DRV_KB)/include/hw/

# The log is kept: check-module fails on any warning in it.
$(DRV_KO): $(DRV_SRCS) $(DRV_HDRS) $(TOP)/Kbuild
	@$(MAKE) --no-print-directory drv-copy
	+@$(DRV_KMAKE) W=1 modules >$(BUILD)/driver/build.log 2>&1; rc=$$?; \
		cat $(BUILD)/driver/build.log; exit $$rc
	@cp $(DRV_KB)/driver/tilecopy.ko $@
	@echo "  KO      $@"

module: $(DRV_KO)

# Not part of `make install`: it writes outside PREFIX (kernel tree, udev).
module-install: module
	@kver=$$($(MAKE) --no-print-directory -s -C $(KDIR) kernelrelease) && \
	install -D -m 0644 $(DRV_KO) $(DESTDIR)/lib/modules/$$kver/updates/tilecopy.ko && \
	install -D -m 0644 $(TOP)/driver/99-tilecopy.rules \
		$(DESTDIR)/etc/udev/rules.d/99-tilecopy.rules && \
	if [ -z "$(DESTDIR)" ]; then depmod $$kver; fi && \
	echo "  INSTALL $(DESTDIR)/lib/modules/$$kver/updates/tilecopy.ko"

module-clean:
	rm -rf $(BUILD)/driver

sparse: drv-copy
	+@$(DRV_KMAKE) C=2 modules >$(BUILD)/driver/sparse.log 2>&1; rc=$$?; \
		cat $(BUILD)/driver/sparse.log; exit $$rc
	@if grep -E '(warning|error):' $(BUILD)/driver/sparse.log; then \
		echo "sparse: the warnings above are defects" >&2; exit 1; fi
	@echo "sparse: clean"

checkpatch:
	bash $(TOP)/scripts/checkpatch.sh

kernel-doc: drv-kdir
	@perl $(KDIR)/scripts/kernel-doc -none -Wall $(TOP)/driver/*.c $(TOP)/driver/*.h \
		2>$(BUILD)/driver/kernel-doc.log; rc=$$?; cat $(BUILD)/driver/kernel-doc.log; \
		if [ $$rc != 0 ] || [ -s $(BUILD)/driver/kernel-doc.log ]; then \
		echo "kernel-doc: the warnings above are defects" >&2; exit 1; fi
	@echo "kernel-doc: clean"

check-module: module
	@if grep -E '(warning|error):' $(BUILD)/driver/build.log; then \
		echo "check-module: compiler warnings above" >&2; exit 1; fi
	@$(MAKE) --no-print-directory sparse
	@$(MAKE) --no-print-directory kernel-doc
	@$(MAKE) --no-print-directory checkpatch
	@modinfo $(DRV_KO) | grep -E '^(vermagic|alias|firmware|parm):'
	@echo "check-module: module builds without warnings; sparse, kernel-doc, checkpatch clean"

DRV_SMOKE := $(BUILD)/driver/tc_drv_smoke
ALL_TARGETS += $(DRV_SMOKE)

$(DRV_SMOKE): $(TOP)/driver/tests/tc_drv_smoke.c $(TOP)/include/uapi/drm/tilecopy_accel.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $< $(shell pkg-config --libs libdrm)

# The harness (tests/qemu/run-guest.sh) fails on WARNING/BUG/oops in dmesg.
check-driver-guest: qemu-build module firmware $(DRV_SMOKE)
	QEMU_SYSTEM=$(abspath $(QEMU_SYSTEM)) BUILD=$(abspath $(BUILD)) \
		timeout 900 bash $(TOP)/tests/qemu/run-guest.sh --devices 2 --timeout 600 \
		--device-props delay-ns-per-kb=20000 \
		-- $(abspath $(DRV_SMOKE))
