// SPDX-License-Identifier: MIT
/*
 * mkfw - write the tilecopy engine firmware image (or a broken variant).
 *
 *   mkfw -o FILE                  the good image
 *   mkfw -v VARIANT -o FILE       a broken one (bad_magic, bad_payload_crc, ...)
 *   mkfw -T DIR                   every broken variant as DIR/VARIANT.bin
 *   mkfw -c FILE                  check an image; prints its status
 *   mkfw -l                       list variants
 *
 * The output depends on nothing but this source: no time stamps, no host
 * names, so every build gives the same bytes.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fwimage.h"

static const char *const status_names[] = {
	"none", "ok", "bad_magic", "bad_format", "truncated", "bad_crc",
	"bad_hw", "bad_payload",
};

static int write_file(const char *path, const uint8_t *buf, size_t len)
{
	char tmp[4096];
	FILE *f;

	/* Write then rename, so a reader never sees half an image. */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "wb");
	if (!f)
		return -errno;
	if (fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path) != 0)
		return -errno;
	return 0;
}

static int build_one(enum tc_fw_variant v, const char *path)
{
	uint8_t img[TC_FW_MAX_IMAGE];
	size_t len = tc_fw_build(img, sizeof(img), v);
	int ret;

	if (!len) {
		fprintf(stderr, "mkfw: image too large\n");
		return 1;
	}
	ret = write_file(path, img, len);
	if (ret) {
		fprintf(stderr, "mkfw: %s: %s\n", path, strerror(-ret));
		return 1;
	}
	return 0;
}

static int check_file(const char *path)
{
	uint8_t img[65536];
	size_t len;
	enum tc_fw_status st;
	FILE *f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "mkfw: %s: %s\n", path, strerror(errno));
		return 2;
	}
	len = fread(img, 1, sizeof(img), f);
	fclose(f);
	st = tc_fw_check(img, len, 0x00010000u);
	printf("%s: %s\n", path, status_names[st]);
	return st == TC_FW_STATUS_OK ? 0 : 1;
}

static int parse_variant(const char *name)
{
	for (int v = 0; v < TC_FW_NUM_VARIANTS; v++)
		if (!strcmp(name, tc_fw_variant_name(v)))
			return v;
	return -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: mkfw [-v VARIANT] -o FILE | -T DIR | -c FILE | -l\n");
}

int main(int argc, char **argv)
{
	const char *out = NULL, *testdir = NULL;
	int variant = TC_FW_GOOD, opt;

	while ((opt = getopt(argc, argv, "o:v:T:c:lh")) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'v':
			variant = parse_variant(optarg);
			if (variant < 0) {
				fprintf(stderr, "mkfw: unknown variant '%s' (-l lists them)\n", optarg);
				return 2;
			}
			break;
		case 'T':
			testdir = optarg;
			break;
		case 'c':
			return check_file(optarg);
		case 'l':
			for (int v = 0; v < TC_FW_NUM_VARIANTS; v++)
				puts(tc_fw_variant_name(v));
			return 0;
		default:
			usage();
			return 2;
		}
	}
	if (testdir) {
		for (int v = TC_FW_GOOD + 1; v < TC_FW_NUM_VARIANTS; v++) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s.bin", testdir, tc_fw_variant_name(v));
			if (build_one(v, path))
				return 1;
		}
		return 0;
	}
	if (!out) {
		usage();
		return 2;
	}
	return build_one(variant, out);
}
