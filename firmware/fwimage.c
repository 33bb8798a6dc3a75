// SPDX-License-Identifier: MIT
/*
 * fwimage.c - build and check tilecopy engine firmware images.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <string.h>

#include "fwimage.h"

static const char *const tc_fw_names[TC_FW_NUM_VARIANTS] = {
	[TC_FW_GOOD] = "good",
	[TC_FW_BAD_MAGIC] = "bad_magic",
	[TC_FW_BAD_FORMAT] = "bad_format",
	[TC_FW_BAD_PAYLOAD_CRC] = "bad_payload_crc",
	[TC_FW_BAD_HEADER_CRC] = "bad_header_crc",
	[TC_FW_BAD_IFACE] = "bad_iface",
	[TC_FW_BAD_HW] = "bad_hw",
	[TC_FW_TRUNCATED] = "truncated",
	[TC_FW_TRUNCATED_HEADER] = "truncated_header",
	[TC_FW_NO_QUEUES] = "no_queues",
};

const char *tc_fw_variant_name(enum tc_fw_variant v)
{
	return (unsigned int)v < TC_FW_NUM_VARIANTS ? tc_fw_names[v] : NULL;
}

/* Table-driven, built on first use; the unit test checks it bit by bit. */
static uint32_t tc_fw_crc_table[256];

static void tc_fw_crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
		tc_fw_crc_table[i] = c;
	}
}

uint32_t tc_fw_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!tc_fw_crc_table[1])
		tc_fw_crc_init();
	crc = ~crc;
	while (len--)
		crc = tc_fw_crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (v >> (8 * i)) & 0xff;
}

static uint16_t get16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Byte offsets of the header fields (struct tc_fw_header, little endian). */
enum {
	OFF_MAGIC = 0, OFF_FORMAT = 4, OFF_HDR_SIZE = 6, OFF_FW_VERSION = 8,
	OFF_IFACE_MIN = 12, OFF_IFACE_MAX = 16, OFF_HW_VERSION = 20,
	OFF_FEATURES = 24, OFF_MAX_QUEUES = 28, OFF_TILEBUF = 32,
	OFF_PAYLOAD_SIZE = 36, OFF_PAYLOAD_CRC = 40, OFF_HEADER_CRC = 44,
	OFF_RESERVED = 48, HDR_SIZE = 64,
};
_Static_assert(sizeof(struct tc_fw_header) == HDR_SIZE, "header is 64 bytes");
_Static_assert(__builtin_offsetof(struct tc_fw_header, header_crc32) == OFF_HEADER_CRC,
	       "header layout");

/* Append one record; returns the new length. Records are padded to 4. */
static size_t tc_fw_put_rec(uint8_t *p, size_t n, uint16_t type,
			    const void *data, uint16_t len)
{
	put16(p + n, type);
	put16(p + n + 2, len);
	memcpy(p + n + 4, data, len);
	n += 4 + len;
	while (n % 4)
		p[n++] = 0;
	return n;
}

static size_t tc_fw_payload(uint8_t *p, enum tc_fw_variant variant)
{
	uint8_t v[8];
	size_t n = 0;
	const uint32_t ops = 1u << 1 | 1u << 2 | 1u << 3;	/* COPY FILL WRITE64 */

	if (variant != TC_FW_NO_QUEUES) {
		put32(v, TC_MAX_QUEUES);
		n = tc_fw_put_rec(p, n, TC_FW_REC_QUEUES, v, 4);
	}
	put32(v, ops);
	n = tc_fw_put_rec(p, n, TC_FW_REC_OPS, v, 4);
	put32(v, TC_FW_BUILD_TILE_ROWS);
	put32(v + 4, TC_FW_BUILD_TILE_COLS);
	n = tc_fw_put_rec(p, n, TC_FW_REC_TILE, v, 8);
	n = tc_fw_put_rec(p, n, TC_FW_REC_NAME, TC_FW_BUILD_NAME,
			  sizeof(TC_FW_BUILD_NAME) - 1);
	return tc_fw_put_rec(p, n, TC_FW_REC_END, NULL, 0);
}

size_t tc_fw_build(uint8_t *out, size_t cap, enum tc_fw_variant variant)
{
	uint8_t img[TC_FW_MAX_IMAGE];
	uint32_t iface = TC_FW_IFACE_VERSION;
	size_t plen, len;

	memset(img, 0, sizeof(img));
	plen = tc_fw_payload(img + HDR_SIZE, variant);

	put32(img + OFF_MAGIC, variant == TC_FW_BAD_MAGIC ? 0x57464358u : TC_FW_MAGIC);
	put16(img + OFF_FORMAT, variant == TC_FW_BAD_FORMAT ? 2 : TC_FW_FORMAT_VERSION);
	put16(img + OFF_HDR_SIZE, HDR_SIZE);
	put32(img + OFF_FW_VERSION, TC_FW_BUILD_VERSION);
	if (variant == TC_FW_BAD_IFACE)
		iface = 0x00020000u;
	put32(img + OFF_IFACE_MIN, iface);
	put32(img + OFF_IFACE_MAX, iface);
	put32(img + OFF_HW_VERSION,
	      variant == TC_FW_BAD_HW ? 0x00020000u : TC_HW_VERSION);
	put32(img + OFF_FEATURES, TC_FW_FEAT_COPY | TC_FW_FEAT_FILL | TC_FW_FEAT_WRITE64);
	put32(img + OFF_MAX_QUEUES, TC_MAX_QUEUES);
	put32(img + OFF_TILEBUF, TC_FW_BUILD_TILEBUF);
	put32(img + OFF_PAYLOAD_SIZE, (uint32_t)plen);
	put32(img + OFF_PAYLOAD_CRC, tc_fw_crc32(0, img + HDR_SIZE, plen) ^
	      (variant == TC_FW_BAD_PAYLOAD_CRC ? 1u : 0u));
	put32(img + OFF_HEADER_CRC, 0);
	put32(img + OFF_HEADER_CRC, tc_fw_crc32(0, img, HDR_SIZE) ^
	      (variant == TC_FW_BAD_HEADER_CRC ? 1u : 0u));

	len = HDR_SIZE + plen;
	if (variant == TC_FW_TRUNCATED)
		len = HDR_SIZE + plen / 2;
	else if (variant == TC_FW_TRUNCATED_HEADER)
		len = HDR_SIZE / 2;
	if (len > cap)
		return 0;
	memcpy(out, img, len);
	return len;
}

static enum tc_fw_status tc_fw_check_records(const uint8_t *p, size_t n)
{
	size_t off = 0;
	int have_queues = 0, have_ops = 0;

	while (off + 4 <= n) {
		uint16_t type = get16(p + off), len = get16(p + off + 2);

		if (off + 4 + len > n)
			return TC_FW_STATUS_BAD_PAYLOAD;
		if (type == TC_FW_REC_END)
			return have_queues && have_ops ? TC_FW_STATUS_OK :
			       TC_FW_STATUS_BAD_PAYLOAD;
		if (type == TC_FW_REC_QUEUES) {
			if (len != 4 || get32(p + off + 4) == 0)
				return TC_FW_STATUS_BAD_PAYLOAD;
			have_queues = 1;
		} else if (type == TC_FW_REC_OPS) {
			/* only the ops of enum drm_tilecopy_op: bits 1..3 */
			if (len != 4 || (get32(p + off + 4) & ~0xeu))
				return TC_FW_STATUS_BAD_PAYLOAD;
			have_ops = 1;
		} else if (type == TC_FW_REC_TILE) {
			if (len != 8 || !get32(p + off + 4) || !get32(p + off + 8))
				return TC_FW_STATUS_BAD_PAYLOAD;
		}
		off += (4 + (size_t)len + 3) & ~(size_t)3;
	}
	return TC_FW_STATUS_BAD_PAYLOAD;	/* no END record */
}

enum tc_fw_status tc_fw_check(const uint8_t *img, size_t len, uint32_t iface)
{
	uint8_t hdr[HDR_SIZE];
	uint32_t plen;

	/* Same order as the engine's boot check (qemu/tilecopy.c). */
	if (len > TC_BOOT_WINDOW_SIZE)
		return TC_FW_STATUS_BAD_FORMAT;
	if (len < HDR_SIZE)
		return TC_FW_STATUS_TRUNCATED;
	if (get32(img + OFF_MAGIC) != TC_FW_MAGIC)
		return TC_FW_STATUS_BAD_MAGIC;
	if (get16(img + OFF_FORMAT) != TC_FW_FORMAT_VERSION ||
	    get16(img + OFF_HDR_SIZE) != HDR_SIZE)
		return TC_FW_STATUS_BAD_FORMAT;
	memcpy(hdr, img, HDR_SIZE);
	put32(hdr + OFF_HEADER_CRC, 0);
	if (tc_fw_crc32(0, hdr, HDR_SIZE) != get32(img + OFF_HEADER_CRC))
		return TC_FW_STATUS_BAD_CRC;
	if ((get32(img + OFF_HW_VERSION) >> 16) != (TC_HW_VERSION >> 16))
		return TC_FW_STATUS_BAD_HW;
	plen = get32(img + OFF_PAYLOAD_SIZE);
	if (len - HDR_SIZE < plen)
		return TC_FW_STATUS_TRUNCATED;
	if (tc_fw_crc32(0, img + HDR_SIZE, plen) != get32(img + OFF_PAYLOAD_CRC))
		return TC_FW_STATUS_BAD_CRC;
	if (tc_fw_check_records(img + HDR_SIZE, plen) != TC_FW_STATUS_OK)
		return TC_FW_STATUS_BAD_PAYLOAD;
	if (iface && (iface < get32(img + OFF_IFACE_MIN) ||
		      iface > get32(img + OFF_IFACE_MAX)))
		return TC_FW_STATUS_BAD_FORMAT;
	return TC_FW_STATUS_OK;
}
