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

# `tilecopy bench` runs this program, found next to the CLI (which links no
# oneDNN itself): built and installed with it.
$(CLI): | $(BENCH_BIN)
install-cli: $(BENCH_BIN)

ALL_TARGETS += $(BENCH_BIN)

.PHONY: bench
bench: $(BENCH_BIN)
	$(BENCH_BIN) $(BENCH_ARGS)

include tests/simd/simd.mk
-include $(BUILD)/obj/bench/bench.d $(BUILD)/obj/bench/bench_main.d

# Smoke test of the benchmark itself (not a performance assertion): the
# small case runs, every contender's result matched the scalar reference
# (tilecopy-bench exits 1 otherwise), and --json has the documented fields.
.PHONY: check-bench
check-bench: $(BENCH_BIN)
	timeout 120 $(BENCH_BIN) --json --reps 2 --case small-4k-f32 > $(BUILD)/bench-smoke.json
	python3 -c 'import json,sys; \
	o = json.loads(open(sys.argv[1]).read()); \
	need = ["case","bytes","tilecopy_gbps","memcpy_gbps","onednn_gbps","naive_gbps","descriptors"]; \
	miss = [k for k in need if k not in o]; \
	assert not miss, "missing fields %s" % miss; \
	assert o["case"] == "small-4k-f32" and o["bytes"] == 4096 and o["descriptors"] >= 1, o; \
	assert all(o[k] is not None and o[k] > 0 for k in ("tilecopy_gbps","memcpy_gbps","naive_gbps")), o; \
	print("check-bench: ok:", o["case"], o["tilecopy_gbps"], "GB/s")' $(BUILD)/bench-smoke.json
CHECK_TARGETS += check-bench
