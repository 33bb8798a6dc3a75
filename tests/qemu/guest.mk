# The driver in a booted guest: tests/qemu/ (harness) and tests/guest/
# (in-guest Check tests and scripts).
#
#   make guest-tests   build the in-guest test binaries
#   make check-guest   boot the guest several times (tests/qemu/check-guest.sh)
#   make guest-shell-test CMD="..."  run one command in a guest (debugging)
#
# Needs qemu-build (qemu/qemu.mk), module (driver/driver.mk) and the
# firmware images (firmware/firmware.mk).

GUEST_TEST_SRCS := $(wildcard tests/guest/test_*.c)
GUEST_TEST_BINS := $(patsubst tests/guest/%.c,$(BUILD)/tests/guest/%,$(GUEST_TEST_SRCS))
GUEST_CFLAGS    := $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE -pthread -I$(TOP)/tests/guest \
		   $(shell pkg-config --cflags check libdrm 2>/dev/null)
GUEST_LIBS      := $(shell pkg-config --libs check libdrm 2>/dev/null)

$(BUILD)/tests/guest/%: tests/guest/%.c tests/guest/tc_guest.c tests/guest/tc_guest.h tests/desc_cases.h \
		include/uapi/drm/tilecopy_accel.h include/hw/tilecopy_hw.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(GUEST_CFLAGS) -o $@ $< tests/guest/tc_guest.c $(GUEST_LIBS)

# test_convert compares with the library's conversion reference, built as
# the library builds it (no FMA contraction).
# Its SDK case goes through libtilecopy's device backend too.
$(BUILD)/tests/guest/test_convert: tests/guest/test_convert.c tests/guest/tc_guest.c \
		tests/guest/tc_guest.h tests/typed_ref.h libuser/cpu/cvt_scalar.c \
		libuser/cpu/cvt_desc.c libuser/cpu/cvt.h libuser/cpu/cvt_desc.h \
		include/uapi/drm/tilecopy_accel.h libuser/plan_internal.h $(LIB_A) $(DEV_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(GUEST_CFLAGS) -ffp-contract=off -o $@ $< tests/guest/tc_guest.c \
		libuser/cpu/cvt_scalar.c libuser/cpu/cvt_desc.c $(LIB_A) $(GUEST_LIBS) \
		$(LIB_LDLIBS)

# test_layouts goes through libtilecopy's device backend.
$(BUILD)/tests/guest/test_layouts: tests/guest/test_layouts.c tests/guest/tc_guest.c \
		tests/guest/tc_guest.h $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(GUEST_CFLAGS) -o $@ $< tests/guest/tc_guest.c $(LIB_A) \
		$(GUEST_LIBS) $(LIB_LDLIBS)

.PHONY: guest-tests check-guest guest-shell-test
guest-tests: $(GUEST_TEST_BINS)

ALL_TARGETS += $(GUEST_TEST_BINS)

GUEST_ENV := QEMU_SYSTEM=$(abspath $(QEMU_SYSTEM)) QEMU_FIRMWARE_ARGS="$(QEMU_FIRMWARE_ARGS)" \
	BUILD=$(abspath $(BUILD)) TC_MODULE=$(abspath $(DRV_KO))

check-guest: qemu-build module firmware guest-tests
	$(GUEST_ENV) timeout 1800 bash tests/qemu/check-guest.sh

# About 3-5 minutes on a 2-core machine (7 guest boots).
CHECK_TARGETS += check-guest

guest-shell-test: qemu-build module firmware guest-tests
	$(GUEST_ENV) timeout 900 bash tests/qemu/run-guest.sh --timeout 300 -- bash -c '$(CMD)'
