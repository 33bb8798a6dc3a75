# libtilecopy, in two libraries:
#
#   libtilecopy         the core: layouts, tensors, planner, CPU executors.
#                       libc and libm only; links fully statically.
#                       libtilecopy.so.$(LIB_SOVERSION), libtilecopy.a, tilecopy.pc
#   libtilecopy-device  the engine backend (device.h): libdrm, libudev and
#                       the core. libtilecopy-device.so.$(LIB_SOVERSION),
#                       libtilecopy-device.a, tilecopy-device.pc. Not built
#                       when WITH_DEVICE=0 (the default of a CROSS build).
#
# Exports: the version scripts libuser/tilecopy.map.in and
# libuser/tilecopy-device.map list every exported symbol (one a line); the
# static archives are one relocatable object each (ld -r) whose hidden
# symbols are made local (objcopy --localize-hidden), so they expose the same
# names as the shared libraries.

# The version comes from the header's macros: one place to change it.
LIB_VERSION := $(shell sed -n 's/^\#define TILECOPY_VERSION_\(MAJOR\|MINOR\|PATCH\)[[:space:]]*\([0-9]*\)/\2/p' \
	include/tilecopy/tilecopy.h | paste -sd.)
# The SONAME changes with every ABI break (1: opaque handles, status getters).
LIB_SOVERSION := $(firstword $(subst ., ,$(LIB_VERSION)))
# The private interface between the two libraries (libuser/plan_internal.h).
LIB_PRIVATE_ABI := $(shell sed -n 's/^\#define TC_PRIVATE_ABI[[:space:]]*\([0-9]*\).*/\1/p' \
	libuser/plan_internal.h)

LIB_SO      := $(BUILD)/lib/libtilecopy.so
LIB_SONAME  := libtilecopy.so.$(LIB_SOVERSION)
LIB_A       := $(BUILD)/lib/libtilecopy.a
LIB_PC      := $(BUILD)/lib/pkgconfig/tilecopy.pc
LIB_MAP     := $(BUILD)/lib/tilecopy.map
DEV_SO      := $(BUILD)/lib/libtilecopy-device.so
DEV_SONAME  := libtilecopy-device.so.$(LIB_SOVERSION)
DEV_A       := $(BUILD)/lib/libtilecopy-device.a
DEV_PC      := $(BUILD)/lib/pkgconfig/tilecopy-device.pc

# CPU_SRCS (executors) and per-object flags come from cpu/cpu.mk.
CPU_SRCS :=
include libuser/cpu/cpu.mk

# The device backend (libdrm, libudev): its own library.
LIB_DEVICE_SRCS := libuser/device.c libuser/device_bo.c libuser/device_job.c \
		   libuser/convert.c
LIB_SRCS := $(filter-out $(LIB_DEVICE_SRCS),$(wildcard libuser/*.c)) $(CPU_SRCS)
LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
DEV_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_DEVICE_SRCS))
LIB_CFLAGS := -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden -DTILECOPY_BUILDING
DEV_SYSLIBS := $(shell pkg-config --libs libdrm libudev 2>/dev/null || echo -ldrm -ludev)

# What follows $(LIB_A) on a program's link line: the device library when
# it is built (it needs the core again after it), and the system libraries.
ifeq ($(WITH_DEVICE),1)
LIB_LDLIBS := $(DEV_A) $(LIB_A) $(DEV_SYSLIBS) -lm
else
LIB_LDLIBS := -lm
endif

ifneq ($(TC_GEN_INCLUDES),)
$(TC_GEN_INCLUDES):
	@mkdir -p $(BUILD)/include
	ln -sfn /usr/include/dlpack $(BUILD)/include/dlpack
endif

$(BUILD)/obj/libuser/%.o: libuser/%.c | $(TC_GEN_INCLUDES)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LIB_CFLAGS) $(OBJ_FLAGS_$(notdir $*)) -MMD -MP -c $< -o $@

-include $(LIB_OBJS:.o=.d) $(DEV_OBJS:.o=.d)

$(LIB_MAP): libuser/tilecopy.map.in include/tilecopy/tilecopy.h libuser/plan_internal.h
	@mkdir -p $(dir $@)
	sed -e 's|@VERSION@|$(LIB_VERSION)|' -e 's|@PRIVATE_ABI@|$(LIB_PRIVATE_ABI)|' $< > $@

$(LIB_SO): $(LIB_OBJS) $(LIB_MAP)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--version-script,$(LIB_MAP) \
		-Wl,--no-undefined -Wl,--as-needed $(LDFLAGS) -o $@.$(LIB_VERSION) $(LIB_OBJS) -lm
	ln -sf libtilecopy.so.$(LIB_VERSION) $(BUILD)/lib/$(LIB_SONAME)
	ln -sf libtilecopy.so.$(LIB_VERSION) $@

$(DEV_SO): $(DEV_OBJS) libuser/tilecopy-device.map $(LIB_SO)
	$(CC) -shared -Wl,-soname,$(DEV_SONAME) -Wl,--version-script,libuser/tilecopy-device.map \
		-Wl,--no-undefined -Wl,--as-needed $(LDFLAGS) -o $@.$(LIB_VERSION) $(DEV_OBJS) \
		-L$(BUILD)/lib -ltilecopy $(DEV_SYSLIBS)
	ln -sf libtilecopy-device.so.$(LIB_VERSION) $(BUILD)/lib/$(DEV_SONAME)
	ln -sf libtilecopy-device.so.$(LIB_VERSION) $@

# One object, hidden symbols local: only tilecopy_* stays global. A static
# link serves no program built against an older release: each versioned
# default (name@@TILECOPY_1.x) becomes the plain name, and the older
# versions kept for the shared library (abi_compat.c) are made local.
define tc_static_archive
	@mkdir -p $(dir $@)
	$(TC_LD) -r -o $@.o $(1)
	$(TC_OBJCOPY) $$($(TC_NM) $@.o | awk '$$3 ~ /@@/ { split($$3, v, "@@"); \
		printf " --redefine-sym %s=%s", $$3, v[1] }') $@.o
	$(TC_OBJCOPY) --localize-hidden --wildcard --localize-symbol='tc_symver_*' \
		--localize-symbol='*@TILECOPY_*' $@.o
	rm -f $@ && $(TC_AR) rcs $@ $@.o && rm -f $@.o
endef

$(LIB_A): $(LIB_OBJS)
	$(call tc_static_archive,$(LIB_OBJS))

$(DEV_A): $(DEV_OBJS)
	$(call tc_static_archive,$(DEV_OBJS))

# A program linking $(LIB_A) $(LIB_LDLIBS) relinks when either changes.
ifeq ($(WITH_DEVICE),1)
$(LIB_A): $(DEV_A)
endif

TC_PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(LIB_VERSION)|'

$(BUILD)/lib/pkgconfig/%.pc: libuser/%.pc.in
	@mkdir -p $(dir $@)
	$(TC_PC_SED) $< > $@

ALL_TARGETS += $(LIB_SO) $(LIB_A) $(LIB_PC)
ifeq ($(WITH_DEVICE),1)
ALL_TARGETS += $(DEV_SO) $(DEV_A) $(DEV_PC)
endif

# Under $(DESTDIR)$(PREFIX) only (LIBDIR, INCLUDEDIR default under PREFIX).
TC_HEADERS := include/tilecopy/tilecopy.h include/tilecopy/dlpack.h
.PHONY: install-lib
install-lib: $(filter $(BUILD)/lib/%,$(ALL_TARGETS))
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/tilecopy/uapi
	install -m 755 $(LIB_SO).$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libtilecopy.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf libtilecopy.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/libtilecopy.so
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	$(TC_PC_SED) libuser/tilecopy.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/tilecopy.pc
	install -m 644 $(TC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/tilecopy/
	install -m 644 include/uapi/drm/tilecopy_accel.h $(DESTDIR)$(INCLUDEDIR)/tilecopy/uapi/
ifeq ($(WITH_DEVICE),1)
	install -m 755 $(DEV_SO).$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libtilecopy-device.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/$(DEV_SONAME)
	ln -sf libtilecopy-device.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/libtilecopy-device.so
	install -m 644 $(DEV_A) $(DESTDIR)$(LIBDIR)/
	$(TC_PC_SED) libuser/tilecopy-device.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/tilecopy-device.pc
	install -m 644 include/tilecopy/device.h $(DESTDIR)$(INCLUDEDIR)/tilecopy/
endif
INSTALL_TARGETS += install-lib
