# Check unit tests of the library and the CLI (host, no device). They are
# white-box (tc_test.h includes libuser/internal.h), so they link the
# core's objects, whose internal symbols the archive hides.
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
ifneq ($(WITH_DEVICE),1)
UNIT_SRCS := $(filter-out tests/unit/test_device_api.c tests/unit/test_device_split.c,$(UNIT_SRCS))
endif
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
# test_device_api also takes the device library's objects; test_device_split
# includes device_job.c (its static splitter) and takes the others
UNIT_LINK_test_device_api := $(DEV_OBJS) $(DEV_SYSLIBS)
UNIT_LINK_test_device_split := $(filter-out %/device_job.o,$(DEV_OBJS)) $(DEV_SYSLIBS)
OBJ_FLAGS_test_device_split := -I$(TOP)/libuser -ffp-contract=off
ifeq ($(CROSS),)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)
UNIT_STATIC  :=
else
# The target's static libcheck (check:arm64), host headers through links.
CROSS_LIBDIR ?= /usr/lib/$(patsubst %-,%,$(CROSS))
CHECK_CFLAGS := -I$(abspath $(BUILD))/include/check
CHECK_LIBS   := $(CROSS_LIBDIR)/libcheck.a $(CROSS_LIBDIR)/libsubunit.a -lm -lpthread -lrt
UNIT_STATIC  := -static
$(UNIT_BINS): $(BUILD)/include/check/check.h
$(BUILD)/include/check/check.h:
	@test -f $(CROSS_LIBDIR)/libcheck.a || { echo "$(CROSS_LIBDIR)/libcheck.a missing (check:arm64; scripts/deps.sh)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	ln -sf /usr/include/check.h /usr/include/check_stdint.h $(dir $@)
endif

$(BUILD)/tests/test_device_api: $(DEV_OBJS)
$(BUILD)/tests/test_device_split: $(DEV_OBJS) libuser/device_job.c tests/typed_ref.h
$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) tests/unit/tc_test.h tests/desc_cases.h
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_STATIC) $(CPPFLAGS) -I$(TOP)/tests/unit $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE \
		$(CHECK_CFLAGS) $(OBJ_FLAGS_$*) $(LDFLAGS) -o $@ $< $(UNIT_LINK_$*) $(LIB_OBJS) \
		$(CHECK_LIBS) -lm

.PHONY: check-unit check-cli
check-unit: $(UNIT_BINS) $(CLI) $(LIB_SO)
	@set -e; for t in $(UNIT_BINS); do echo "--- $$t"; CK_FORK=yes $$t; done
	/usr/bin/python3 tests/unit/numpy_views.py $(BUILD)/lib

check-cli: $(CLI)
	bash tests/cli/run.sh $(CLI)

CHECK_TARGETS += check-unit check-cli

# The core, the CLI and the unit tests built for arm64 (make CROSS=...), run
# under qemu-user: the unit tests, then the CLI tests through the emulator.
# (check-arm64 is the emulated arm64 board: tests/arm64/arm64.mk.)
CROSS_TRIPLET := aarch64-linux-gnu-
CROSS_BUILD := $(BUILD)/aarch64-linux-gnu
CROSS_QEMU_USER  ?= qemu-aarch64-static
.PHONY: check-cross
check-cross:
	$(MAKE) --no-print-directory CROSS=$(CROSS_TRIPLET) BUILD=$(CROSS_BUILD) arm64-unit-bins
	@set -e; for t in $(patsubst $(BUILD)/%,$(CROSS_BUILD)/%,$(filter-out %/test_device_api %/test_device_split,$(UNIT_BINS))); do \
		echo "--- $(CROSS_QEMU_USER) $$t"; TC_TEST_QUICK=1 CK_FORK=yes timeout 900 $(CROSS_QEMU_USER) $$t; done
	file $(CROSS_BUILD)/bin/tilecopy | grep -q aarch64
	TC_CLI_WRAP=$(CROSS_QEMU_USER) bash tests/cli/run.sh $(CROSS_BUILD)/bin/tilecopy
.PHONY: arm64-unit-bins
arm64-unit-bins: $(UNIT_BINS) $(CLI) $(LIB_A) $(LIB_SO)
CHECK_TARGETS += check-cross

.PHONY: check-install
check-install: all
	bash tests/install/run.sh
CHECK_TARGETS += check-install

# The unit and CLI tests again, with the library built under ASan + UBSan.
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_DIR   := $(BUILD)/asan
ASAN_OBJS  := $(patsubst %.c,$(ASAN_DIR)/obj/%.o,$(LIB_SRCS))
ASAN_DEV_OBJS := $(patsubst %.c,$(ASAN_DIR)/obj/%.o,$(LIB_DEVICE_SRCS))
ASAN_LIB   := $(ASAN_DIR)/libtilecopy.a
ASAN_BINS  := $(patsubst tests/unit/%.c,$(ASAN_DIR)/tests/%,$(UNIT_SRCS))
ASAN_CLI   := $(ASAN_DIR)/bin/tilecopy

# (the CLI is built without the benchmark here: it is not under test)
$(ASAN_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -O1 -g $(WARN) $(LIB_CFLAGS) $(CLI_DEFS) $(OBJ_FLAGS_$(notdir $*)) $(ASAN_FLAGS) \
		-MMD -MP -c $< -o $@
# the CLI's objects too: a header it shares (tools/cli.h) changing left them
# stale, a struct smaller than cli.o's (a stack overflow ASan caught)
-include $(ASAN_OBJS:.o=.d) $(ASAN_DEV_OBJS:.o=.d) $(patsubst %.c,$(ASAN_DIR)/obj/%.d,$(CLI_SRCS))

$(ASAN_LIB): $(ASAN_OBJS) $(ASAN_DEV_OBJS)
	rm -f $@ && ar rcs $@ $^

$(ASAN_DIR)/tests/%: tests/unit/%.c $(ASAN_LIB) tests/unit/tc_test.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(TOP)/tests/unit -O1 -g $(WARN) -std=c11 -D_GNU_SOURCE $(ASAN_FLAGS) \
		$(CHECK_CFLAGS) -o $@ $< $(ASAN_LIB) $(CHECK_LIBS) $(DEV_SYSLIBS) -lm

$(ASAN_CLI): $(patsubst %.c,$(ASAN_DIR)/obj/%.o,$(CLI_SRCS)) $(ASAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_FLAGS) -o $@ $(filter %.o,$^) $(ASAN_LIB) $(DEV_SYSLIBS) -lm -lpthread

.PHONY: check-asan
check-asan: $(ASAN_BINS) $(ASAN_CLI)
	@set -e; for t in $(ASAN_BINS); do echo "--- $$t"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		CK_FORK=yes $$t; done
	ASAN_OPTIONS=detect_leaks=1 bash tests/cli/run.sh $(ASAN_CLI)
CHECK_TARGETS += check-asan

# Every format tag of the installed oneDNN against tilecopy's grammar
# (tests/unit/onednn_tags.c): positions of every element, physical sizes,
# zero-filled padding, and the planner + CPU executors against oneDNN's
# reorder. The tags come from libdnnl at run time; its aliases (nchw,
# OIhw16i16o, ...) from its header, extracted here (Debian's libdnnl-dev has
# no pkg-config file: plain -ldnnl, as bench.mk).
ONEDNN_TEST    := $(BUILD)/tests/onednn_tags
ONEDNN_ALIASES := $(BUILD)/tests/onednn/onednn_aliases.h

$(ONEDNN_ALIASES): tests/unit/unit.mk
	@mkdir -p $(dir $@)
	echo '#include <oneapi/dnnl/dnnl_types.h>' | $(CC) -E -P -x c - | \
		awk '/dnnl_format_tag_last,/ { on = 1; next } \
		on && /}[ \t]*dnnl_format_tag_t;/ { exit } \
		on && match($$0, /dnnl_[A-Za-z0-9_]+ = /) { \
			n = substr($$0, RSTART + 5, RLENGTH - 8); \
			printf "\t{ \"%s\", dnnl_%s },\n", n, n }' > $@.tmp
	test -s $@.tmp && mv $@.tmp $@

$(ONEDNN_TEST): tests/unit/onednn_tags.c $(ONEDNN_ALIASES) $(LIB_A) tests/unit/tc_test.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(TOP)/tests/unit -I$(dir $(ONEDNN_ALIASES)) $(CFLAGS) $(WARN) \
		-std=c11 -D_GNU_SOURCE $(CHECK_CFLAGS) -o $@ $< $(LIB_A) $(CHECK_LIBS) \
		$(LIB_LDLIBS) -ldnnl

# One OpenMP thread: oneDNN is the reference here, not a contender.
.PHONY: check-onednn
check-onednn: $(ONEDNN_TEST)
	OMP_NUM_THREADS=1 CK_FORK=yes $(ONEDNN_TEST)

CHECK_TARGETS += check-onednn
