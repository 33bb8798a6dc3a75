# The tilecopy command line, linked against the static library.
CLI := $(BUILD)/bin/tilecopy
CLI_SRCS := $(wildcard tools/*.c)
CLI_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRCS))
CLI_LDLIBS := $(LIB_LDLIBS) $(shell pkg-config --libs libdrm libudev 2>/dev/null)
# bench/bench.mk (included after this file) sets BENCH_LIB_OBJS and
# BENCH_LDLIBS; `tilecopy bench` links them when they exist.
CLI_BENCH_FLAGS = $(if $(BENCH_LIB_OBJS),-DTC_HAVE_BENCH -I$(TOP)/bench)

$(BUILD)/obj/tools/%.o: tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE $(CLI_BENCH_FLAGS) -MMD -MP -c $< -o $@
-include $(CLI_OBJS:.o=.d)

$(CLI): $(CLI_OBJS) $(LIB_A) $(BENCH_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(CLI_OBJS) $(BENCH_LIB_OBJS) $(LIB_A) $(CLI_LDLIBS) $(BENCH_LDLIBS)

ALL_TARGETS += $(CLI)

.PHONY: install-cli
install-cli: $(CLI)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/
INSTALL_TARGETS += install-cli
