/* SPDX-License-Identifier: MIT */
/*
 * fwimage.h - build and check tilecopy engine firmware images.
 *
 * The image format is struct tc_fw_header (include/hw/tilecopy_hw.h)
 * followed by payload records; docs/firmware.md describes it. Everything is
 * serialised byte by byte in little endian, so the image is the same on any
 * host and the same on every build.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TILECOPY_FWIMAGE_H
#define TILECOPY_FWIMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "hw/tilecopy_hw.h"

/* The firmware this tree builds: 1.0.0. */
#define TC_FW_BUILD_VERSION	0x010000u
#define TC_FW_BUILD_NAME	"tilecopy-engine 1.0.0"
/* Smallest tile buffer the firmware works with; the engine has >= this. */
#define TC_FW_BUILD_TILEBUF	4096u
#define TC_FW_BUILD_TILE_ROWS	16u
#define TC_FW_BUILD_TILE_COLS	16u

/**
 * enum tc_fw_variant - the good image and the broken ones used by tests.
 * Every broken variant breaks exactly one thing; the rest stays valid (CRCs
 * are recomputed after the change unless the CRC is what is broken).
 */
enum tc_fw_variant {
	TC_FW_GOOD = 0,
	TC_FW_BAD_MAGIC,	/* magic "XCFW" */
	TC_FW_BAD_FORMAT,	/* format_version 2 */
	TC_FW_BAD_PAYLOAD_CRC,	/* payload_crc32 off by one bit */
	TC_FW_BAD_HEADER_CRC,	/* header_crc32 off by one bit */
	TC_FW_BAD_IFACE,	/* speaks interface 2.0 only, the driver 1.x */
	TC_FW_BAD_HW,		/* built for engine major 2 */
	TC_FW_TRUNCATED,	/* last half of the payload cut off */
	TC_FW_TRUNCATED_HEADER,	/* 32 bytes: not even a header */
	TC_FW_NO_QUEUES,	/* payload without a QUEUES record */
	TC_FW_NUM_VARIANTS
};

/** tc_fw_variant_name - file stem of a variant ("good", "bad_magic", ...). */
const char *tc_fw_variant_name(enum tc_fw_variant v);

/**
 * tc_fw_crc32 - CRC-32 as zlib's crc32(): IEEE 802.3 polynomial, reflected,
 * initial value and final xor 0xffffffff. @crc is the running value (0 to
 * start), so tc_fw_crc32(tc_fw_crc32(0, a, n), b, m) is the CRC of a||b.
 */
uint32_t tc_fw_crc32(uint32_t crc, const void *buf, size_t len);

/**
 * tc_fw_build - serialise an image of @variant into @out (capacity @cap).
 * @post returns the image size in bytes, or 0 if @cap is too small.
 * TC_FW_MAX_IMAGE bytes are always enough.
 */
size_t tc_fw_build(uint8_t *out, size_t cap, enum tc_fw_variant variant);
#define TC_FW_MAX_IMAGE		1024

/**
 * tc_fw_check - validate an image as the engine does at boot, in the same
 * order: size (larger than the boot window: BAD_FORMAT; smaller than the
 * header: TRUNCATED), magic, format, header CRC, hw major, payload size,
 * payload CRC, records. The engine also refuses a tilebuf_size larger than
 * its tile buffer (BAD_HW), which this function cannot know.
 * @iface: the driver's TC_FW_IFACE_VERSION, checked last against the
 *	image's range and reported as TC_FW_STATUS_BAD_FORMAT; 0 to skip (the
 *	engine itself does not check it).
 */
enum tc_fw_status tc_fw_check(const uint8_t *img, size_t len, uint32_t iface);

#endif /* TILECOPY_FWIMAGE_H */
