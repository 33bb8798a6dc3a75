# The tilecopy command line, linked against the static libraries: the core,
# and the device backend when it is built (WITH_DEVICE=1, TC_HAVE_DEVICE).
# A CROSS build links it fully statically (it runs under qemu-user), unless
# it carries the device backend (WITH_DEVICE=1: there is no libudev.a).
CLI := $(BUILD)/bin/tilecopy
CLI_SRCS := $(wildcard tools/*.c)
CLI_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRCS))
CLI_LDLIBS := $(LIB_LDLIBS) -lpthread
CLI_DEFS := $(if $(filter 1,$(WITH_DEVICE)),-DTC_HAVE_DEVICE)
CLI_STATIC := $(if $(CROSS),$(if $(filter 1,$(WITH_DEVICE)),,-static))
# bench/bench.mk (included after this file) sets BENCH_LIB_OBJS and
# BENCH_LDLIBS; `tilecopy bench` links them when they exist.
CLI_BENCH_FLAGS = $(if $(BENCH_LIB_OBJS),-DTC_HAVE_BENCH -I$(TOP)/bench)

$(BUILD)/obj/tools/%.o: tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE $(CLI_DEFS) $(CLI_BENCH_FLAGS) \
		-MMD -MP -c $< -o $@
-include $(CLI_OBJS:.o=.d)

$(CLI): $(CLI_OBJS) $(LIB_A) $(BENCH_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CLI_STATIC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(BENCH_LIB_OBJS) $(LIB_A) $(CLI_LDLIBS) \
		$(BENCH_LDLIBS)

ALL_TARGETS += $(CLI)

.PHONY: install-cli
install-cli: $(CLI)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/
INSTALL_TARGETS += install-cli
