# Reliability and security (issue 8): fuzzing, valgrind, guest stress.
#
#   make check-fuzz         deterministic: the committed corpus, then a fixed
#                           number of runs of each target from a fixed seed
#                           (clang, ASan+UBSan; ~30 s each)
#   make fuzz               random, FUZZ_SECONDS each (default 600); add what
#                           it finds to tests/fuzz/corpus as regress-* files
#   make check-valgrind     unit + CLI tests under valgrind memcheck
#   make check-reliability  in-guest uAPI fuzzing, isolation, fault injection,
#                           load, kill -9, rmmod while open
#
# Included from the top-level Makefile; needs LIB_SRCS, LIB_DEVICE_SRCS,
# UNIT_BINS, CLI from the other fragments.

FUZZ_CC      ?= clang-14
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SECONDS ?= 600
# Runs per target in the gate, for ~30 s each at the measured speeds
# (layout ~30 k/s, tensor ~50 k/s, plan ~600/s under ASan+UBSan), and the
# seed. Same tree, same runs, same result.
FUZZ_CHECK_SEED        ?= 1
FUZZ_CHECK_RUNS_layout ?= 800000
FUZZ_CHECK_RUNS_tensor ?= 1200000
FUZZ_CHECK_RUNS_plan   ?= 15000
FUZZ_NAMES   := layout tensor plan
# (defined before any rule lists them: prerequisites expand when read)
REPLAY_BINS  := $(patsubst %,$(BUILD)/tests/replay_%,$(FUZZ_NAMES))
FUZZ_BINS    := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_NAMES))
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer
FUZZ_CFLAGS  := -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link
# The CPU part of the library: layouts, formats, planner, executors.
FUZZ_LIB_SRCS := $(filter-out $(LIB_DEVICE_SRCS),$(LIB_SRCS))
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_LIB_SRCS))
FUZZ_LIB      := $(FUZZ_DIR)/libtilecopy-fuzz.a

$(FUZZ_DIR)/obj/libuser/%.o: libuser/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) $(WARN) $(LIB_CFLAGS) $(OBJ_FLAGS_$(notdir $*)) \
		$(FUZZ_OBJ_FLAGS_$(notdir $*)) -MMD -MP -c $< -o $@
-include $(FUZZ_LIB_OBJS:.o=.d)

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_LIB)
	$(FUZZ_CC) $(CPPFLAGS) -I$(TOP)/tests/fuzz -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer \
		$(WARN) -std=c11 -D_GNU_SOURCE -o $@ $< $(FUZZ_LIB) -lm -lpthread

.PHONY: fuzz-build check-fuzz fuzz check-valgrind check-reliability reliability-tests
fuzz-build: $(FUZZ_BINS)

check-fuzz: $(FUZZ_BINS)
	@set -e; for t in $(FUZZ_NAMES); do \
		case $$t in layout) n=$(FUZZ_CHECK_RUNS_layout);; \
		tensor) n=$(FUZZ_CHECK_RUNS_tensor);; plan) n=$(FUZZ_CHECK_RUNS_plan);; esac; \
		FUZZ_DIR=$(FUZZ_DIR) bash tests/fuzz/run.sh --runs $$n:$(FUZZ_CHECK_SEED) $$t; done

fuzz: $(FUZZ_BINS)
	FUZZ_DIR=$(FUZZ_DIR) bash tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)

# valgrind.sh sets TC_TEST_QUICK: test_plan then runs one shape and two
# element sizes of its exhaustive pair test (~25 s under memcheck).
VALGRIND_UNIT_BINS := $(UNIT_BINS)

check-valgrind: $(UNIT_BINS) $(CLI) $(REPLAY_BINS)
	timeout 3600 bash tests/reliability/valgrind.sh $(BUILD) $(VALGRIND_UNIT_BINS)

# The fuzz targets as plain programs (gcc, the ordinary static library) that
# replay a corpus: for valgrind, and for machines without clang.

# (white-box like the unit tests: the core's objects, not its archive)
$(BUILD)/tests/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz_common.h $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(TOP)/tests/fuzz $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE \
		-o $@ $< tests/fuzz/replay.c $(LIB_OBJS) -lm

# Minimise the work corpora of the last fuzz runs into the committed ones.
.PHONY: fuzz-merge
fuzz-merge: $(FUZZ_BINS)
	@for t in $(FUZZ_NAMES); do mkdir -p $(FUZZ_DIR)/work/$$t; \
		$(FUZZ_DIR)/fuzz_$$t -merge=1 tests/fuzz/corpus/$$t $(FUZZ_DIR)/work/$$t 2>&1 | tail -1; done

# In-guest reliability tests (tests/reliability/guest.sh).
STRESS_BIN := $(BUILD)/tests/reliability/tc_stress

$(STRESS_BIN): tests/reliability/tc_stress.c include/uapi/drm/tilecopy_accel.h include/hw/tilecopy_hw.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE -o $@ $< \
		$(shell pkg-config --libs libdrm 2>/dev/null || echo -ldrm)

reliability-tests: $(STRESS_BIN)
ALL_TARGETS += $(STRESS_BIN)

check-reliability: qemu-build module firmware $(STRESS_BIN)
	BUILD=$(abspath $(BUILD)) QEMU_SYSTEM=$(abspath $(QEMU_SYSTEM)) timeout 2400 \
		bash tests/reliability/guest.sh

# All three pass reliably and fit the time budget (~8 min together).
CHECK_TARGETS += check-fuzz check-valgrind check-reliability
