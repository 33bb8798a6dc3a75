# Benchmark: bench/bench.c, called by `tilecopy bench` (tools/cmd_bench.c)
# and built standalone as $(BUILD)/bin/tilecopy-bench. Links oneDNN
# (Debian's libdnnl-dev has no pkg-config file) and libgomp (its OpenMP
# runtime: oneDNN's threads, and the limit and memcpy contenders').
#
#   make bench                       the table, one thread
#   make bench BENCH_ARGS="--json --threads 1,2"
#   make bench-docs                  the tables of docs/performance.md: every
#                                    case at 1 and 2 threads, one run

BENCH_LIB_OBJS := $(BUILD)/obj/bench/bench.o
BENCH_LDLIBS   := -ldnnl -lgomp -lpthread
BENCH_BIN      := $(BUILD)/bin/tilecopy-bench
BENCH_ARGS     ?=

$(BUILD)/obj/bench/%.o: bench/%.c bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE -fopenmp -MMD -MP -c $< -o $@

$(BENCH_BIN): $(BUILD)/obj/bench/bench_main.o $(BENCH_LIB_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIB_LDLIBS) $(BENCH_LDLIBS)

# `tilecopy bench` runs this program, found next to the CLI (which links no
# oneDNN itself): built and installed with it.
$(CLI): | $(BENCH_BIN)
install-cli: $(BENCH_BIN)

ALL_TARGETS += $(BENCH_BIN)

.PHONY: bench bench-docs
bench: $(BENCH_BIN)
	$(BENCH_BIN) $(BENCH_ARGS)

# OpenMP's threads pinned like tilecopy's workers: unpinned, a woken
# libgomp worker is queued behind its master on these VMs.
bench-docs: $(BENCH_BIN)
	OMP_PROC_BIND=spread OMP_PLACES=cores $(BENCH_BIN) --markdown --threads 1,2 --reps 10 $(BENCH_ARGS)

include tests/simd/simd.mk
-include $(BUILD)/obj/bench/bench.d $(BUILD)/obj/bench/bench_main.d

# Smoke test of the benchmark itself (not a performance assertion): the
# small cases run at 1 and 2 threads, every contender's result matched the
# scalar reference (tilecopy-bench exits 1 otherwise), --json has the
# documented fields for each thread count, and --markdown prints its tables.
.PHONY: check-bench
check-bench: $(BENCH_BIN)
	timeout 120 $(BENCH_BIN) --json --reps 2 --threads 1,2 --case small-4k-f32 > $(BUILD)/bench-smoke.json
	timeout 120 $(BENCH_BIN) --markdown --reps 1 --threads 1,2 --case image-c3-f32 > $(BUILD)/bench-smoke.md 2>/dev/null
	python3 -c 'import json,sys; \
	objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]; \
	need = ["case","bytes","threads","tilecopy_gbps","limit_gbps","memcpy_gbps","onednn_gbps","naive_gbps","descriptors"]; \
	assert [o["threads"] for o in objs] == [1, 2], objs; \
	miss = [k for o in objs for k in need if k not in o]; \
	assert not miss, "missing fields %s" % miss; \
	assert all(o["case"] == "small-4k-f32" and o["bytes"] == 4096 and o["descriptors"] >= 1 for o in objs), objs; \
	assert all(o[k] is not None and o[k] > 0 for o in objs for k in ("tilecopy_gbps","limit_gbps","memcpy_gbps","naive_gbps")), objs; \
	md = open(sys.argv[2]).read(); \
	assert "#### 1 thread" in md and "#### 2 threads" in md and "| image-c3-f32 |" in md, md; \
	print("check-bench: ok:", ", ".join("%d thread(s) %.2f GB/s (limit %.2f)" % (o["threads"], o["tilecopy_gbps"], o["limit_gbps"]) for o in objs))' \
		$(BUILD)/bench-smoke.json $(BUILD)/bench-smoke.md
	@# refused arguments: exit 2, a message naming the argument, nothing run
	@for a in '--threads 0' '--threads 1,65' '--threads 1,2,1,2,1' '--reps 0' '--reps 5x' \
		  '--reps 201' '--reps' '--case' '--bogus' '--json --markdown' '--case nosuch' \
		  '--cpu bogus'; do \
		set -- $$a; rc=0; $(BENCH_BIN) $$a > $(BUILD)/bench-bad.out 2> $(BUILD)/bench-bad.err || rc=$$?; \
		test $$rc = 2 && test ! -s $(BUILD)/bench-bad.out && \
		grep -q "^bench: $$1" $(BUILD)/bench-bad.err || \
		{ echo "check-bench: '$$a': exit $$rc, stderr: $$(head -1 $(BUILD)/bench-bad.err)"; exit 1; }; \
	done; $(BENCH_BIN) --json --help | grep -q '^usage: tilecopy bench' || \
		{ echo "check-bench: --help: no usage on stdout"; exit 1; }; \
	echo "check-bench: 12 refused arguments named, --help on stdout"
CHECK_TARGETS += check-bench
