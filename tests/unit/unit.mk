# Check unit tests of the library and the CLI (host, no device).
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

$(BUILD)/tests/%: tests/unit/%.c $(LIB_A) tests/unit/tc_test.h tests/desc_cases.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(TOP)/tests/unit $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE \
		$(CHECK_CFLAGS) $(OBJ_FLAGS_$*) -o $@ $< $(LIB_A) $(CHECK_LIBS) $(LIB_LDLIBS)

.PHONY: check-unit check-cli
check-unit: $(UNIT_BINS) $(CLI)
	@set -e; for t in $(UNIT_BINS); do echo "--- $$t"; CK_FORK=yes $$t; done

check-cli: $(CLI)
	bash tests/cli/run.sh $(CLI)

CHECK_TARGETS += check-unit check-cli

.PHONY: check-install
check-install: all
	bash tests/install/run.sh
CHECK_TARGETS += check-install

# The unit and CLI tests again, with the library built under ASan + UBSan.
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_DIR   := $(BUILD)/asan
ASAN_OBJS  := $(patsubst %.c,$(ASAN_DIR)/obj/%.o,$(LIB_SRCS))
ASAN_LIB   := $(ASAN_DIR)/libtilecopy.a
ASAN_BINS  := $(patsubst tests/unit/%.c,$(ASAN_DIR)/tests/%,$(UNIT_SRCS))
ASAN_CLI   := $(ASAN_DIR)/bin/tilecopy

# (the CLI is built without the benchmark here: it is not under test)
$(ASAN_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -O1 -g $(WARN) $(LIB_CFLAGS) $(OBJ_FLAGS_$(notdir $*)) $(ASAN_FLAGS) \
		-MMD -MP -c $< -o $@
-include $(ASAN_OBJS:.o=.d)

$(ASAN_LIB): $(ASAN_OBJS)
	rm -f $@ && ar rcs $@ $^

$(ASAN_DIR)/tests/%: tests/unit/%.c $(ASAN_LIB) tests/unit/tc_test.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(TOP)/tests/unit -O1 -g $(WARN) -std=c11 -D_GNU_SOURCE $(ASAN_FLAGS) \
		$(CHECK_CFLAGS) -o $@ $< $(ASAN_LIB) $(CHECK_LIBS) $(LIB_LDLIBS)

$(ASAN_CLI): $(patsubst %.c,$(ASAN_DIR)/obj/%.o,$(CLI_SRCS)) $(ASAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_FLAGS) -o $@ $(filter %.o,$^) $(ASAN_LIB) $(CLI_LDLIBS)

.PHONY: check-asan
check-asan: $(ASAN_BINS) $(ASAN_CLI)
	@set -e; for t in $(ASAN_BINS); do echo "--- $$t"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		CK_FORK=yes $$t; done
	ASAN_OPTIONS=detect_leaks=1 bash tests/cli/run.sh $(ASAN_CLI)
CHECK_TARGETS += check-asan
