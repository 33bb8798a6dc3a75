// SPDX-License-Identifier: MIT
/*
 * test_mkfw - unit test of the firmware builder.
 *
 * Usage: test_mkfw MKFW ENGINE_BIN TEST_DIR
 *
 * Reads the images that `make` produced and checks them field by field with
 * its own little-endian reader and its own bitwise CRC-32 (not the builder's
 * table), so a bug in the builder's serialisation or CRC cannot hide itself.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fwimage.h"
#include "tilecopy_accel.h"

static const char *mkfw, *engine_bin, *test_dir;

/* ---- independent helpers ------------------------------------------------ */

static uint32_t crc32_bitwise(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

struct blob {
	uint8_t d[8192];
	size_t n;
};

static void read_blob(const char *path, struct blob *b)
{
	FILE *f = fopen(path, "rb");

	ck_assert_msg(f, "cannot open %s", path);
	b->n = fread(b->d, 1, sizeof(b->d), f);
	ck_assert(feof(f));
	fclose(f);
}

static void read_variant(const char *name, struct blob *b)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s.bin", test_dir, name);
	read_blob(path, b);
}

/* Header CRC: CRC-32 of the 64 header bytes with header_crc32 zeroed. */
static uint32_t header_crc(const uint8_t *img)
{
	uint8_t h[64];

	memcpy(h, img, 64);
	memset(h + 44, 0, 4);
	return crc32_bitwise(h, 64);
}

static int run_mkfw(const char *arg1, const char *arg2, const char *arg3)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execl(mkfw, mkfw, arg1, arg2, arg3, (char *)NULL);
		_exit(127);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- CRC ----------------------------------------------------------------- */

START_TEST(test_crc_vectors)
{
	/* zlib crc32() check values */
	ck_assert_uint_eq(tc_fw_crc32(0, "", 0), 0);
	ck_assert_uint_eq(tc_fw_crc32(0, "123456789", 9), 0xcbf43926u);
	ck_assert_uint_eq(tc_fw_crc32(0, "a", 1), 0xe8b7be43u);
	ck_assert_uint_eq(tc_fw_crc32(0, "The quick brown fox jumps over the lazy dog", 43),
			  0x414fa339u);
}
END_TEST

START_TEST(test_crc_matches_bitwise)
{
	uint8_t buf[1000];
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = x >> 16;
	}
	for (size_t n = 0; n <= sizeof(buf); n += 37)
		ck_assert_uint_eq(tc_fw_crc32(0, buf, n), crc32_bitwise(buf, n));
	/* running CRC over two pieces == CRC of the whole */
	ck_assert_uint_eq(tc_fw_crc32(tc_fw_crc32(0, buf, 333), buf + 333, 667),
			  crc32_bitwise(buf, 1000));
}
END_TEST

/* ---- the good image ----------------------------------------------------- */

START_TEST(test_header_fields)
{
	struct blob b;
	const uint8_t *h = b.d;

	read_blob(engine_bin, &b);
	ck_assert_uint_ge(b.n, 64);
	ck_assert_uint_eq(le32(h + 0), TC_FW_MAGIC);
	ck_assert_mem_eq(h, "TCFW", 4);
	ck_assert_uint_eq(le16(h + 4), TC_FW_FORMAT_VERSION);
	ck_assert_uint_eq(le16(h + 6), 64);
	ck_assert_uint_eq(le32(h + 8), TC_FW_BUILD_VERSION);
	ck_assert_uint_le(le32(h + 12), TC_FW_IFACE_VERSION);
	ck_assert_uint_ge(le32(h + 16), TC_FW_IFACE_VERSION);
	ck_assert_uint_eq(le32(h + 20), TC_HW_VERSION);
	ck_assert_uint_eq(le32(h + 24),
			  TC_FW_FEAT_COPY | TC_FW_FEAT_FILL | TC_FW_FEAT_WRITE64);
	ck_assert_uint_ge(le32(h + 28), 1);
	ck_assert_uint_le(le32(h + 28), TC_MAX_QUEUES);
	ck_assert_uint_gt(le32(h + 32), 0);
	ck_assert_uint_eq(le32(h + 36), b.n - 64);
	ck_assert_uint_eq(le32(h + 36) % 4, 0);
	for (int i = 48; i < 64; i++)
		ck_assert_uint_eq(h[i], 0);
}
END_TEST

START_TEST(test_header_crcs)
{
	struct blob b;

	read_blob(engine_bin, &b);
	ck_assert_uint_eq(le32(b.d + 44), header_crc(b.d));
	ck_assert_uint_eq(le32(b.d + 40), crc32_bitwise(b.d + 64, b.n - 64));
}
END_TEST

START_TEST(test_payload_records)
{
	struct blob b;
	size_t off = 64;
	int seen[5] = { 0 };

	read_blob(engine_bin, &b);
	for (;;) {
		uint16_t type, len;
		size_t next;

		ck_assert_uint_le(off + 4, b.n);
		type = le16(b.d + off);
		len = le16(b.d + off + 2);
		next = off + 4 + ((len + 3u) & ~3u);
		ck_assert_uint_le(next, b.n);
		for (size_t i = off + 4 + len; i < next; i++)
			ck_assert_uint_eq(b.d[i], 0);	/* padding is zero */
		ck_assert_uint_lt(type, 5);
		ck_assert_int_eq(seen[type], 0);	/* each record once */
		seen[type] = 1;
		switch (type) {
		case TC_FW_REC_QUEUES:
			ck_assert_uint_eq(len, 4);
			ck_assert_uint_ge(le32(b.d + off + 4), 1);
			ck_assert_uint_le(le32(b.d + off + 4), TC_MAX_QUEUES);
			break;
		case TC_FW_REC_OPS:
			ck_assert_uint_eq(len, 4);
			ck_assert_uint_eq(le32(b.d + off + 4),
					  1u << DRM_TILECOPY_OP_COPY | 1u << DRM_TILECOPY_OP_FILL |
					  1u << DRM_TILECOPY_OP_WRITE64);
			break;
		case TC_FW_REC_TILE:
			ck_assert_uint_eq(len, 8);
			ck_assert_uint_eq(le32(b.d + off + 4), TC_FW_BUILD_TILE_ROWS);
			ck_assert_uint_eq(le32(b.d + off + 8), TC_FW_BUILD_TILE_COLS);
			break;
		case TC_FW_REC_NAME:
			ck_assert_uint_eq(len, strlen(TC_FW_BUILD_NAME));
			ck_assert_mem_eq(b.d + off + 4, TC_FW_BUILD_NAME, len);
			break;
		case TC_FW_REC_END:
			ck_assert_uint_eq(len, 0);
			break;
		}
		off = next;
		if (type == TC_FW_REC_END)
			break;
	}
	ck_assert_uint_eq(off, b.n);	/* END is the last thing in the image */
	ck_assert(seen[TC_FW_REC_QUEUES] && seen[TC_FW_REC_OPS] && seen[TC_FW_REC_TILE] &&
		  seen[TC_FW_REC_NAME]);
	ck_assert_int_eq(tc_fw_check(b.d, b.n, TC_FW_IFACE_VERSION), TC_FW_STATUS_OK);
}
END_TEST

START_TEST(test_reproducible)
{
	struct blob a, b, c;
	uint8_t mem[TC_FW_MAX_IMAGE];
	size_t n;
	char dir[] = "/tmp/test_mkfw.XXXXXX", p1[256], p2[256];

	ck_assert(mkdtemp(dir));
	snprintf(p1, sizeof(p1), "%s/one.bin", dir);
	snprintf(p2, sizeof(p2), "%s/two.bin", dir);
	ck_assert_int_eq(run_mkfw("-o", p1, NULL), 0);
	sleep(1);	/* a time stamp in the image would now differ */
	ck_assert_int_eq(run_mkfw("-o", p2, NULL), 0);
	read_blob(p1, &a);
	read_blob(p2, &b);
	read_blob(engine_bin, &c);
	ck_assert_uint_eq(a.n, b.n);
	ck_assert_mem_eq(a.d, b.d, a.n);
	ck_assert_uint_eq(a.n, c.n);
	ck_assert_mem_eq(a.d, c.d, a.n);
	n = tc_fw_build(mem, sizeof(mem), TC_FW_GOOD);
	ck_assert_uint_eq(n, c.n);
	ck_assert_mem_eq(mem, c.d, n);
	unlink(p1);
	unlink(p2);
	rmdir(dir);
}
END_TEST

START_TEST(test_cli_errors)
{
	ck_assert_int_eq(run_mkfw("-v", "no_such_variant", "-o"), 2);
	ck_assert_int_eq(run_mkfw("-o", "/nonexistent-dir/x.bin", NULL), 1);
	ck_assert_int_eq(run_mkfw("-c", engine_bin, NULL), 0);
}
END_TEST

/* ---- broken variants ---------------------------------------------------- */

/*
 * Each variant breaks one thing. @diff_lo..@diff_hi is the only byte range
 * allowed to differ from the good image in the header (besides the CRC
 * fields, which are recomputed unless @keep_crc), @status what the engine
 * reports, @iface_status with the driver's interface check.
 */
static const struct variant_case {
	const char *name;
	int status, iface_status;
	int diff_lo, diff_hi;		/* header bytes [lo, hi) may differ */
	int header_crc_ok, payload_crc_ok;
	int truncated_to;		/* > 0: a prefix of the good image */
} variant_cases[] = {
	{ "bad_magic", TC_FW_STATUS_BAD_MAGIC, TC_FW_STATUS_BAD_MAGIC, 0, 4, 1, 1, 0 },
	{ "bad_format", TC_FW_STATUS_BAD_FORMAT, TC_FW_STATUS_BAD_FORMAT, 4, 6, 1, 1, 0 },
	{ "bad_payload_crc", TC_FW_STATUS_BAD_CRC, TC_FW_STATUS_BAD_CRC, 40, 44, 1, 0, 0 },
	{ "bad_header_crc", TC_FW_STATUS_BAD_CRC, TC_FW_STATUS_BAD_CRC, 44, 48, 0, 1, 0 },
	{ "bad_iface", TC_FW_STATUS_OK, TC_FW_STATUS_BAD_FORMAT, 12, 20, 1, 1, 0 },
	{ "bad_hw", TC_FW_STATUS_BAD_HW, TC_FW_STATUS_BAD_HW, 20, 24, 1, 1, 0 },
	{ "truncated", TC_FW_STATUS_TRUNCATED, TC_FW_STATUS_TRUNCATED, 0, 0, 1, 0, -1 },
	{ "truncated_header", TC_FW_STATUS_TRUNCATED, TC_FW_STATUS_TRUNCATED, 0, 0, 0, 0, 32 },
	{ "no_queues", TC_FW_STATUS_BAD_PAYLOAD, TC_FW_STATUS_BAD_PAYLOAD, 36, 44, 1, 1, 0 },
};

START_TEST(test_variant)
{
	const struct variant_case *vc = &variant_cases[_i];
	struct blob good, b;

	read_blob(engine_bin, &good);
	read_variant(vc->name, &b);

	ck_assert_int_eq(tc_fw_check(b.d, b.n, 0), vc->status);
	ck_assert_int_eq(tc_fw_check(b.d, b.n, TC_FW_IFACE_VERSION), vc->iface_status);

	if (vc->truncated_to) {
		size_t want = vc->truncated_to > 0 ? (size_t)vc->truncated_to :
			      64 + (good.n - 64) / 2;

		ck_assert_uint_eq(b.n, want);
		ck_assert_mem_eq(b.d, good.d, b.n);
		if (vc->header_crc_ok)
			ck_assert_uint_eq(le32(b.d + 44), header_crc(b.d));
		return;
	}
	ck_assert_uint_ge(b.n, 64);
	for (int i = 0; i < 64; i++) {
		if (i >= 40 && i < 48)
			continue;	/* CRCs, checked below */
		if (i >= vc->diff_lo && i < vc->diff_hi)
			continue;
		ck_assert_msg(b.d[i] == good.d[i], "%s: header byte %d changed", vc->name, i);
	}
	if (vc->diff_hi > vc->diff_lo && !(vc->diff_lo >= 40 && vc->diff_hi <= 48))
		ck_assert_msg(memcmp(b.d + vc->diff_lo, good.d + vc->diff_lo,
				     vc->diff_hi - vc->diff_lo),
			      "%s: the field it should break is intact", vc->name);
	ck_assert_int_eq(le32(b.d + 44) == header_crc(b.d), vc->header_crc_ok);
	ck_assert_uint_eq(le32(b.d + 36), b.n - 64);
	ck_assert_int_eq(le32(b.d + 40) == crc32_bitwise(b.d + 64, b.n - 64),
			 vc->payload_crc_ok);
	/* a broken CRC is off by exactly one bit from the right one */
	if (!vc->header_crc_ok)
		ck_assert_int_eq(__builtin_popcount(le32(b.d + 44) ^ header_crc(b.d)), 1);
	if (!vc->payload_crc_ok)
		ck_assert_int_eq(__builtin_popcount(le32(b.d + 40) ^
						    crc32_bitwise(b.d + 64, b.n - 64)), 1);
	if (strcmp(vc->name, "no_queues"))
		ck_assert_mem_eq(b.d + 64, good.d + 64, good.n - 64);	/* same payload */
	else
		ck_assert_uint_eq(b.n, good.n - 8);	/* the 8-byte QUEUES record gone */
}
END_TEST

/* Rewrite both CRCs of an image in place (after a deliberate change). */
static void fix_crcs(uint8_t *img, size_t n)
{
	uint32_t c = crc32_bitwise(img + 64, n - 64);

	for (int i = 0; i < 4; i++)
		img[40 + i] = c >> (8 * i);
	c = header_crc(img);
	for (int i = 0; i < 4; i++)
		img[44 + i] = c >> (8 * i);
}

START_TEST(test_checker_mutations)
{
	/* the checker mirrors the engine's boot rules on hand-made images */
	struct blob good;
	static uint8_t big[TC_BOOT_WINDOW_SIZE + 1];
	uint8_t img[512];
	size_t n;

	read_blob(engine_bin, &good);
	n = good.n;
	ck_assert_int_eq(tc_fw_check(good.d, 3, 0), TC_FW_STATUS_TRUNCATED);
	ck_assert_int_eq(tc_fw_check(good.d, 63, 0), TC_FW_STATUS_TRUNCATED);
	memcpy(big, good.d, n);
	ck_assert_int_eq(tc_fw_check(big, sizeof(big), 0), TC_FW_STATUS_BAD_FORMAT);
	/* trailing bytes after the payload are ignored */
	ck_assert_int_eq(tc_fw_check(big, n + 100, 0), TC_FW_STATUS_OK);

	/* header_size 128 */
	memcpy(img, good.d, n);
	img[6] = 128;
	fix_crcs(img, n);
	ck_assert_int_eq(tc_fw_check(img, n, 0), TC_FW_STATUS_BAD_FORMAT);
	/* minor hw version differs: still fine */
	memcpy(img, good.d, n);
	img[20] = 7;
	fix_crcs(img, n);
	ck_assert_int_eq(tc_fw_check(img, n, 0), TC_FW_STATUS_OK);
	/* OPS with an unknown op bit (op 4) */
	memcpy(img, good.d, n);
	ck_assert_uint_eq(le16(img + 72), TC_FW_REC_OPS);
	img[76] |= 1u << 4;
	fix_crcs(img, n);
	ck_assert_int_eq(tc_fw_check(img, n, 0), TC_FW_STATUS_BAD_PAYLOAD);
	/* QUEUES 0 */
	memcpy(img, good.d, n);
	ck_assert_uint_eq(le16(img + 64), TC_FW_REC_QUEUES);
	img[68] = 0;
	fix_crcs(img, n);
	ck_assert_int_eq(tc_fw_check(img, n, 0), TC_FW_STATUS_BAD_PAYLOAD);
	/* TILE rows 0 */
	memcpy(img, good.d, n);
	ck_assert_uint_eq(le16(img + 80), TC_FW_REC_TILE);
	img[84] = 0;
	fix_crcs(img, n);
	ck_assert_int_eq(tc_fw_check(img, n, 0), TC_FW_STATUS_BAD_PAYLOAD);
	/* a record longer than the payload */
	memcpy(img, good.d, n);
	img[82] = 0xff;
	fix_crcs(img, n);
	ck_assert_int_eq(tc_fw_check(img, n, 0), TC_FW_STATUS_BAD_PAYLOAD);
	/* no END: payload_size cut before it */
	memcpy(img, good.d, n);
	img[36] = (uint8_t)(n - 64 - 4);
	fix_crcs(img, n - 4);
	ck_assert_int_eq(tc_fw_check(img, n - 4, 0), TC_FW_STATUS_BAD_PAYLOAD);
	/* an interface range that excludes the driver's, either side */
	ck_assert_int_eq(tc_fw_check(good.d, n, TC_FW_IFACE_VERSION + 1), TC_FW_STATUS_BAD_FORMAT);
	ck_assert_int_eq(tc_fw_check(good.d, n, TC_FW_IFACE_VERSION - 1), TC_FW_STATUS_BAD_FORMAT);
	ck_assert_int_eq(tc_fw_check(good.d, n, TC_FW_IFACE_VERSION), TC_FW_STATUS_OK);
	/* the uAPI's version is not the firmware's: it grows without it */
	ck_assert_uint_ne(DRM_TILECOPY_ABI_VERSION, TC_FW_IFACE_VERSION);
}
END_TEST

START_TEST(test_variant_files_complete)
{
	/* mkfw -l lists exactly good + the variants tested above */
	int n = 0;

	for (int v = 0; v < TC_FW_NUM_VARIANTS; v++) {
		const char *name = tc_fw_variant_name(v);
		int found = v == TC_FW_GOOD;

		ck_assert_ptr_nonnull(name);
		for (size_t i = 0; i < sizeof(variant_cases) / sizeof(variant_cases[0]); i++)
			found |= !strcmp(variant_cases[i].name, name);
		ck_assert_msg(found, "variant %s has no test case", name);
		n++;
	}
	ck_assert_int_eq(n, 1 + (int)(sizeof(variant_cases) / sizeof(variant_cases[0])));
	ck_assert_ptr_null(tc_fw_variant_name(TC_FW_NUM_VARIANTS));
}
END_TEST

static Suite *fw_suite(void)
{
	Suite *s = suite_create("firmware");
	TCase *tc = tcase_create("builder");

	tcase_add_test(tc, test_crc_vectors);
	tcase_add_test(tc, test_crc_matches_bitwise);
	tcase_add_test(tc, test_header_fields);
	tcase_add_test(tc, test_header_crcs);
	tcase_add_test(tc, test_payload_records);
	tcase_add_test(tc, test_reproducible);
	tcase_add_test(tc, test_cli_errors);
	tcase_add_loop_test(tc, test_variant, 0,
			    sizeof(variant_cases) / sizeof(variant_cases[0]));
	tcase_add_test(tc, test_variant_files_complete);
	tcase_add_test(tc, test_checker_mutations);
	tcase_set_timeout(tc, 20);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	if (argc != 4) {
		fprintf(stderr, "usage: test_mkfw MKFW ENGINE_BIN TEST_DIR\n");
		return 2;
	}
	mkfw = argv[1];
	engine_bin = argv[2];
	test_dir = argv[3];
	sr = srunner_create(fw_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
