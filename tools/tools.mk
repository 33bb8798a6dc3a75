# The tilecopy command line.
#
# Native builds link the shared core only (RUNPATH $ORIGIN/../lib, so the
# build tree's and an installed PREFIX/bin's find their lib/), and load the
# device library at run time when a command needs an engine
# (tools/cli_device.c): the installed tilecopy runs for a CPU-only user
# without libtilecopy-device, libdrm, libudev or oneDNN. `tilecopy bench`
# runs the separate tilecopy-bench (bench/bench.mk). A CROSS build links
# the core statically (it runs under qemu-user) and has no engine, unless
# it is built WITH_DEVICE=1 (the arm64 guest): then it is linked as natively.
CLI := $(BUILD)/bin/tilecopy
CLI_SRCS := $(wildcard tools/*.c)
CLI_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRCS))
# TC_HAVE_DEVICE: an engine backend exists (the ASan build links it);
# TC_DEVICE_DLOPEN: this CLI loads it at run time.
CLI_DEFS := $(if $(filter 1,$(WITH_DEVICE)),-DTC_HAVE_DEVICE)
ifeq ($(if $(CROSS),$(filter 1,$(WITH_DEVICE)),1),1)
CLI_DLOPEN := $(if $(filter 1,$(WITH_DEVICE)),-DTC_DEVICE_DLOPEN)
CLI_LINK   = -L$(BUILD)/lib -ltilecopy -Wl,-rpath,'$$ORIGIN/../lib' -ldl -lpthread
CLI_DEP    := $(LIB_SO)
else
CLI_DLOPEN :=
CLI_LINK   = -static $(LIB_A) -lm -lpthread
CLI_DEP    := $(LIB_A)
endif

$(BUILD)/obj/tools/%.o: tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE $(CLI_DEFS) $(CLI_DLOPEN) \
		-MMD -MP -c $< -o $@
-include $(CLI_OBJS:.o=.d)

$(CLI): $(CLI_OBJS) $(CLI_DEP)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(CLI_LINK)

# The library it loads at run time is built with it (order-only: not linked).
ifneq ($(CLI_DLOPEN),)
$(CLI): | $(DEV_SO)
endif

ALL_TARGETS += $(CLI)

# With the benchmark program when bench/bench.mk builds one (BENCH_BIN).
.PHONY: install-cli
install-cli: $(CLI)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(CLI) $(BENCH_BIN) $(DESTDIR)$(PREFIX)/bin/
INSTALL_TARGETS += install-cli
