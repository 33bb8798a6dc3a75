# Engine firmware: the image builder, the image, its broken test variants,
# their unit test and install rule. docs/firmware.md describes the format.
FW_DIR       := $(BUILD)/firmware
MKFW         := $(FW_DIR)/mkfw
FW_IMAGE     := $(FW_DIR)/tilecopy/engine.bin
FW_TEST_DIR  := $(FW_DIR)/tilecopy/test
FW_TEST_STAMP := $(FW_TEST_DIR)/.stamp
FW_TEST_BIN  := $(FW_DIR)/test_mkfw
FW_CFLAGS    := $(CFLAGS) $(WARN) -std=c11 -D_GNU_SOURCE -I$(TOP)/firmware

$(MKFW): firmware/mkfw.c firmware/fwimage.c firmware/fwimage.h include/hw/tilecopy_hw.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(FW_CFLAGS) -o $@ firmware/mkfw.c firmware/fwimage.c

$(FW_IMAGE): $(MKFW)
	@mkdir -p $(dir $@)
	$(MKFW) -o $@

# Every broken variant as tilecopy/test/<variant>.bin, for the in-guest
# firmware failure tests (insmod tilecopy.ko firmware=tilecopy/test/X.bin).
$(FW_TEST_STAMP): $(MKFW)
	@mkdir -p $(dir $@)
	$(MKFW) -T $(FW_TEST_DIR)
	@touch $@

$(FW_TEST_BIN): firmware/tests/test_mkfw.c firmware/fwimage.c firmware/fwimage.h \
		include/hw/tilecopy_hw.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(FW_CFLAGS) $(shell pkg-config --cflags check) -o $@ \
		firmware/tests/test_mkfw.c firmware/fwimage.c $(shell pkg-config --libs check)

.PHONY: firmware check-firmware install-firmware
firmware: $(FW_IMAGE) $(FW_TEST_STAMP)

check-firmware: $(FW_TEST_BIN) $(FW_IMAGE) $(FW_TEST_STAMP)
	CK_FORK=yes $(FW_TEST_BIN) $(MKFW) $(FW_IMAGE) $(FW_TEST_DIR)

# Outside PREFIX, so not part of `make install` (a user PREFIX install must
# not need root): `make install-firmware [FIRMWARE_DIR=...]`.
FIRMWARE_DIR ?= /lib/firmware
install-firmware: $(FW_IMAGE)
	install -D -m 0644 $(FW_IMAGE) $(DESTDIR)$(FIRMWARE_DIR)/tilecopy/engine.bin

ALL_TARGETS     += $(FW_IMAGE) $(FW_TEST_STAMP)
CHECK_TARGETS   += check-firmware
