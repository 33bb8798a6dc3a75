# tilecopy - top-level build.
#
#   make            library (build/lib), CLI (build/bin/tilecopy), firmware
#   make check      every test: unit, SIMD equivalence, NEON under qemu-user,
#                   QEMU device tests, the kernel module in a booted guest
#   make demo       the main job, end to end
#   make bench      CPU benchmark against memcpy and oneDNN
#   make install    PREFIX=/usr/local DESTDIR=
#   make clean
#
# Each part of the tree brings its own fragment (*.mk); this file only ties
# them together. Outputs go under build/.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
CC      ?= cc
V       ?= 0

TOP := $(abspath .)
export TOP

CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	    -Wno-unused-parameter -Werror=implicit-function-declaration
CPPFLAGS += -I$(TOP)/include -I$(TOP)/include/uapi/drm -I$(TOP)/libuser \
	    $(shell pkg-config --cflags libdrm 2>/dev/null)

# Targets the fragments add to.
CHECK_TARGETS :=
ALL_TARGETS   :=
INSTALL_TARGETS :=

.PHONY: all check demo bench install clean deps deps-base lint
all:

deps:
	bash scripts/deps.sh all
deps-base:
	bash scripts/deps.sh base

include libuser/libuser.mk
include tools/tools.mk
include tests/unit/unit.mk
-include firmware/firmware.mk
-include bench/bench.mk
-include qemu/qemu.mk
-include driver/driver.mk
-include tests/qemu/guest.mk
include tests/sdk/sdk.mk
-include tests/reliability/reliability.mk
# last: its suites run after every other part (and it starts one thing first)
-include tests/qemu/debug.mk

all: $(ALL_TARGETS)

# The whole suite; each fragment appends its part to CHECK_TARGETS.
# The parts run one after another so a failure names its part.
check: deps
	@set -e; for t in $(CHECK_TARGETS); do \
		echo "=== make $$t"; $(MAKE) --no-print-directory $$t; done
	@echo "=== make check: all parts passed"

demo: deps
	bash scripts/demo.sh

install: $(INSTALL_TARGETS)

clean:
	rm -rf $(BUILD)
