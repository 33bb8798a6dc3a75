# The SDK's device backend in booted guests (tests/sdk/run.sh):
#   make check-sdk      the device tests (normal, injected fault, no module)
#   make bench-guest    engine vs CPU path in the guest (docs/performance.md)
SDK_BINS := $(BUILD)/tests/sdk/test_device $(BUILD)/tests/sdk/bench_device

$(BUILD)/tests/sdk/%: tests/sdk/%.c $(LIB_A) tests/unit/tc_test.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE $(CHECK_CFLAGS) \
		-o $@ $< $(LIB_A) $(CHECK_LIBS) $(LIB_LDLIBS)

ALL_TARGETS += $(SDK_BINS)

.PHONY: check-sdk bench-guest
check-sdk: qemu-build module firmware $(SDK_BINS) $(CLI) $(PY_PKG)
	BUILD=$(abspath $(BUILD)) timeout 1500 bash tests/sdk/run.sh check

bench-guest: qemu-build module firmware $(SDK_BINS)
	BUILD=$(abspath $(BUILD)) timeout 900 bash tests/sdk/run.sh bench
CHECK_TARGETS += check-sdk
