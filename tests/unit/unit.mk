# Check unit tests of the library and the CLI (host, no device).
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

$(BUILD)/tests/%: tests/unit/%.c $(LIB_A) tests/unit/tc_test.h
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
