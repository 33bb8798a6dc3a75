# tilecopy - top-level build.
#
#   make            library (build/lib), CLI (build/bin/tilecopy), firmware
#   make check      every test: unit, SIMD equivalence, NEON under qemu-user,
#                   the Python package (pytest),
#                   QEMU device tests, the kernel module in a booted guest
#   make demo       the main job, end to end
#   make bench      CPU benchmark against memcpy and oneDNN
#   make install    PREFIX=/usr/local DESTDIR= (under PREFIX only; the
#                   firmware: make install-firmware [FIRMWARE_DIR=/lib/firmware])
#   make CROSS=aarch64-linux-gnu-   the core library and the CLI for arm64
#                   (make CC=aarch64-linux-gnu-gcc is the same)
#                   (BUILD defaults to build/aarch64-linux-gnu; no device backend)
#   make clean
#
# Each part of the tree brings its own fragment (*.mk); this file only ties
# them together. Outputs go under build/.

PREFIX  ?= /usr/local
DESTDIR ?=
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
V       ?= 0

# CROSS=<triplet>- builds with that toolchain into its own BUILD, without
# the device backend (no libdrm/libudev for the target) unless WITH_DEVICE=1.
CROSS ?=
# CC=<triplet>-gcc for another architecture is taken as CROSS=<triplet>-:
# the host's libdrm, libudev and module build must not leak into it.
ifeq ($(CROSS),)
ifeq ($(origin CC),command line)
TC_CC_ARCH := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine 2>/dev/null)))
ifneq ($(TC_CC_ARCH),)
ifneq ($(TC_CC_ARCH),$(shell uname -m))
CROSS := $(if $(filter %-gcc,$(CC)),$(CC:%gcc=%),$(if $(filter %-cc,$(CC)),$(CC:%cc=%)))
ifeq ($(CROSS),)
$(error CC=$(CC) builds for $(TC_CC_ARCH), not $(shell uname -m): use make CROSS=<triplet>- (README))
endif
endif
endif
endif
endif
ifneq ($(CROSS),)
CC      := $(CROSS)gcc
BUILD   ?= build/$(patsubst %-,%,$(CROSS))
WITH_DEVICE ?= 0
else
BUILD   ?= build
CC      ?= cc
WITH_DEVICE ?= 1
endif
TC_LD      := $(CROSS)ld
TC_AR      := $(CROSS)ar
TC_OBJCOPY := $(CROSS)objcopy

TOP := $(abspath .)
export TOP

CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	    -Wno-unused-parameter -Werror=implicit-function-declaration
CPPFLAGS += -I$(TOP)/include -I$(TOP)/include/uapi/drm -I$(TOP)/libuser
ifneq ($(CROSS),)
# Arch-independent host headers the target toolchain does not search: drm.h
# (for the uAPI's descriptor struct) and DLPack's, through a build-local dir.
CPPFLAGS += -I/usr/include/libdrm -I$(abspath $(BUILD))/include
TC_GEN_INCLUDES := $(BUILD)/include/dlpack/dlpack.h
else
CPPFLAGS += $(shell pkg-config --cflags libdrm 2>/dev/null)
TC_GEN_INCLUDES :=
endif

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
ifeq ($(CROSS),)
include python/python.mk
-include firmware/firmware.mk
-include bench/bench.mk
include tests/cvt/cvt.mk
-include qemu/qemu.mk
-include driver/driver.mk
-include tests/qemu/guest.mk
include tests/sdk/sdk.mk
-include tests/reliability/reliability.mk
-include tests/arm64/arm64.mk
# last: its suites run after every other part (and it starts one thing first)
-include tests/qemu/debug.mk
endif

all: $(ALL_TARGETS)

# The whole suite; each fragment appends its part to CHECK_TARGETS.
# The parts run one after another so a failure names its part.
check: deps
	@set -e; start=$$(date +%s); for t in $(CHECK_TARGETS); do \
		t0=$$(date +%s); echo "=== make $$t"; $(MAKE) --no-print-directory $$t; \
		now=$$(date +%s); echo "=== make $$t: $$((now - t0)) s (check: $$((now - start)) s)"; done
	@echo "=== make check: all parts passed"

demo: deps
	bash scripts/demo.sh

install: $(INSTALL_TARGETS)

clean:
	rm -rf $(BUILD)
