# libtilecopy: libtilecopy.so (SONAME libtilecopy.so.0), libtilecopy.a,
# tilecopy.pc. Only TILECOPY_API symbols are exported.

LIB_VERSION_MAJOR := 0
LIB_VERSION       := 0.1.0
LIB_SO     := $(BUILD)/lib/libtilecopy.so
LIB_SONAME := libtilecopy.so.$(LIB_VERSION_MAJOR)
LIB_A      := $(BUILD)/lib/libtilecopy.a
LIB_PC     := $(BUILD)/lib/pkgconfig/tilecopy.pc

# CPU_SRCS (executors) and per-object flags come from cpu/cpu.mk.
CPU_SRCS :=
include libuser/cpu/cpu.mk

LIB_SRCS := $(wildcard libuser/*.c) $(CPU_SRCS)
# The device backend (libdrm, libudev); a CPU-only cross build leaves it out.
LIB_DEVICE_SRCS := libuser/device.c libuser/device_bo.c libuser/device_job.c \
		   libuser/convert.c
LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
LIB_CFLAGS := -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden -DTILECOPY_BUILDING
LIB_LDLIBS := -lm -lpthread $(shell pkg-config --libs libdrm libudev 2>/dev/null || echo -ldrm -ludev)

$(BUILD)/obj/libuser/%.o: libuser/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LIB_CFLAGS) $(OBJ_FLAGS_$(notdir $*)) -MMD -MP -c $< -o $@

-include $(LIB_OBJS:.o=.d)

$(LIB_SO): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--no-undefined -o $@.$(LIB_VERSION) $^ $(LIB_LDLIBS)
	ln -sf libtilecopy.so.$(LIB_VERSION) $(BUILD)/lib/$(LIB_SONAME)
	ln -sf libtilecopy.so.$(LIB_VERSION) $@

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIB_PC): libuser/tilecopy.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIB_VERSION)|' $< > $@

ALL_TARGETS += $(LIB_SO) $(LIB_A) $(LIB_PC)

.PHONY: install-lib
install-lib: $(LIB_SO) $(LIB_A) $(LIB_PC)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/tilecopy \
		$(DESTDIR)$(PREFIX)/include/tilecopy/uapi
	install -m 755 $(LIB_SO).$(LIB_VERSION) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libtilecopy.so.$(LIB_VERSION) $(DESTDIR)$(PREFIX)/lib/$(LIB_SONAME)
	ln -sf libtilecopy.so.$(LIB_VERSION) $(DESTDIR)$(PREFIX)/lib/libtilecopy.so
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIB_VERSION)|' libuser/tilecopy.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/tilecopy.pc
	install -m 644 include/tilecopy/*.h $(DESTDIR)$(PREFIX)/include/tilecopy/
	install -m 644 include/uapi/drm/tilecopy_accel.h $(DESTDIR)$(PREFIX)/include/tilecopy/uapi/
INSTALL_TARGETS += install-lib
