// SPDX-License-Identifier: MIT
/*
 * convert.c - NCHW -> nChw16c on the CPU, every return value checked; the
 * plan's descriptors printed without the uAPI header (no libdrm needed).
 * Build: cc convert.c $(pkg-config --cflags --libs tilecopy)
 */
#include <stdio.h>
#include <stdlib.h>
#include <tilecopy/tilecopy.h>

#define CHECK(call) do {						\
	tilecopy_status_t st_ = (call);					\
	if (st_ != TILECOPY_SUCCESS) {					\
		fprintf(stderr, "%s: %s: %s\n", #call,			\
			tilecopy_status_str(st_), tilecopy_last_error());	\
		goto out;						\
	}								\
} while (0)

int main(void)
{
	const int64_t shape[4] = { 2, 20, 3, 5 };	/* N,C,H,W: logical, always */
	tilecopy_tensor_t *src = NULL, *dst = NULL;
	tilecopy_plan_t *plan = NULL;
	const struct drm_tilecopy_desc *descs;
	size_t ndescs;
	uint64_t src_bytes, dst_bytes;
	float *in = NULL, *out = NULL;
	int ret = 1;

	if (tilecopy_version() >> 16 != TILECOPY_VERSION_MAJOR) {
		fprintf(stderr, "libtilecopy %s is not major %d\n", tilecopy_version_string(),
			TILECOPY_VERSION_MAJOR);
		return 1;
	}
	CHECK(tilecopy_tensor_create(&src, "NCHW", shape, 4, TILECOPY_DT_F32, NULL, 0));
	CHECK(tilecopy_tensor_create(&dst, "nChw16c", shape, 4, TILECOPY_DT_F32, NULL, 0));
	CHECK(tilecopy_plan_create(&plan, src, dst, 0));
	CHECK(tilecopy_plan_src_bytes(plan, &src_bytes));
	CHECK(tilecopy_plan_dst_bytes(plan, &dst_bytes));
	CHECK(tilecopy_plan_descs(plan, &descs, &ndescs));	/* the count */
	for (size_t i = 0; i < ndescs; i++) {
		char line[512];

		CHECK(tilecopy_plan_desc_format(plan, i, line, sizeof(line)));
		printf("descriptor %zu: %s\n", i, line);
	}
	in = malloc(src_bytes);
	out = malloc(dst_bytes);
	if (!in || !out)
		goto out;
	for (uint64_t i = 0; i < src_bytes / sizeof(float); i++)
		in[i] = (float)i;
	CHECK(tilecopy_plan_execute_cpu(plan, in, src_bytes, out, dst_bytes, NULL));
	/* element (n=1, c=17, h=2, w=4): block 1, lane 1 of nChw16c */
	{
		float want = in[((1 * 20 + 17) * 3 + 2) * 5 + 4];
		float got = out[(((1 * 2 + 1) * 3 + 2) * 5 + 4) * 16 + 1];

		printf("%llu -> %llu bytes, element (1,17,2,4) = %g\n",
		       (unsigned long long)src_bytes, (unsigned long long)dst_bytes, got);
		ret = got == want ? 0 : 1;
	}
out:
	free(in);
	free(out);
	tilecopy_plan_destroy(plan);
	tilecopy_tensor_destroy(src);
	tilecopy_tensor_destroy(dst);
	return ret;
}
