# Benchmark: bench/bench.c, called by `tilecopy bench` (tools/cmd_bench.c)
# and built standalone as $(BUILD)/bin/tilecopy-bench. Links oneDNN
# (Debian's libdnnl-dev has no pkg-config file) and libgomp (its OpenMP
# runtime, whose thread count --threads sets).
#
#   make bench                       the table, one thread
#   make bench BENCH_ARGS="--json --threads 2"

BENCH_LIB_OBJS := $(BUILD)/obj/bench/bench.o
BENCH_LDLIBS   := -ldnnl -lgomp -lpthread
BENCH_BIN      := $(BUILD)/bin/tilecopy-bench
BENCH_ARGS     ?=

$(BUILD)/obj/bench/%.o: bench/%.c bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE -MMD -MP -c $< -o $@

$(BENCH_BIN): $(BUILD)/obj/bench/bench_main.o $(BENCH_LIB_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LIB_LDLIBS) $(BENCH_LDLIBS)

# tools.mk links these into the CLI; its rule was read before this file.
$(CLI): $(BENCH_LIB_OBJS)

ALL_TARGETS += $(BENCH_BIN)

.PHONY: bench
bench: $(BENCH_BIN)
	$(BENCH_BIN) $(BENCH_ARGS)

include tests/simd/simd.mk
-include $(BUILD)/obj/bench/bench.d $(BUILD)/obj/bench/bench_main.d
