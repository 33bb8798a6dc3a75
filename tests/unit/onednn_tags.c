// SPDX-License-Identifier: MIT
/*
 * onednn_tags.c - every format tag of the installed oneDNN against
 * tilecopy's format grammar (make check-onednn).
 *
 * No tag is listed here: the tags are the values of dnnl_format_tag_t below
 * dnnl_format_tag_last, named by dnnl_fmt_tag2str(); a tag's rank is the one
 * oneDNN creates a memory desc of it for, and its block per dim is oneDNN's
 * padded dim of a tensor of ones. The shapes come from those blocks: a
 * partial second block, less than one block, two whole blocks (plain dims
 * take small sizes).
 *
 * /onednn/tags/positions  oneDNN reorders a plain s32 tensor whose values
 *	are their own row-major index + 1 into the tag, in a buffer of 0xa5
 *	bytes. Every value must sit where tilecopy's layout puts that element,
 *	every other word (padding) must be 0 (oneDNN zero-fills it), and the
 *	physical sizes must agree.
 * /onednn/tags/convert  tilecopy's planner and each CPU executor present
 *	convert plain -> tag (into 0xa5 bytes) and tag -> plain (from oneDNN's
 *	bytes with the padding poisoned: a source's padding is never read) for
 *	s32, bf16 and s8; the bytes must equal oneDNN's reorder.
 * /onednn/aliases  oneDNN's alias names (nchw, OIhw16i16o, ...), taken from
 *	its header at build time (onednn_aliases.h), give in tilecopy the
 *	layout of the tag they stand for.
 *
 * A tag tilecopy refuses is a failure unless tc_refused says why.
 */
#include <stdio.h>
#include <time.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include "tc_test.h"

#define NSHAPES	3
#define POISON	0x5a
#define FRESH	0xa5

/* Values of dnnl_format_tag_t that are not layouts. */
static const struct {
	const char *name;
	const char *why;
} tc_refused[] = {
	{ "undef", "dnnl_format_tag_undef: no format at all" },
	{ "any", "dnnl_format_tag_any: lets a primitive choose, not a layout" },
};

/* oneDNN aliases whose tag does not say what their name says. */
static const struct {
	const char *name;
	const char *why;
} tc_alias_known[] = {
	{ "gIOhw2i8o16i2o", "oneDNN 2.6 makes it aBCde2c8b16c2b, the layout of "
	  "gOIhw2i8o16i2o; its name (g, I, O) is aCBde2c8b16c2b, as for every "
	  "other gIO alias" },
	{ "gIOdhw2i8o16i2o", "oneDNN 2.6 makes it aBCdef2c8b16c2b, the layout of "
	  "gOIdhw2i8o16i2o; its name is aCBdef2c8b16c2b" },
	{ "OhwI32o", "not a tag: I is upper case (blocked) without a block; "
	  "oneDNN makes it Acdb32a, its Ohwi32o" },
	{ "gOhwI32o", "not a tag: I is upper case without a block; oneDNN makes "
	  "it aBdec32b, its gOhwi32o" },
};

static const struct {
	const char *name;
	dnnl_format_tag_t tag;
} tc_aliases[] = {
#include "onednn_aliases.h"
};

/* Sizes of plain dims, per shape. */
static const int64_t tc_small[NSHAPES][DNNL_MAX_NDIMS] = {
	{ 3, 5, 3, 2, 3, 2, 2, 1, 2, 1, 2, 1 },
	{ 2, 1, 3, 3, 1, 2, 1, 2, 1, 1, 2, 1 },
	{ 1, 2, 2, 1, 2, 3, 1, 1, 2, 2, 1, 2 },
};

/*
 * Check records the place of every passing ck_assert in a file: in the
 * loops here that is most of the run time, so they check with MUST, which
 * costs nothing until it fails.
 */
#define MUST(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)
#define MUST_OK(call) do { \
	tilecopy_status_t st_ = (call); \
	MUST(st_ == TILECOPY_SUCCESS, "%s: %s", #call, tilecopy_last_error()); \
} while (0)
#define MUST_DNNL(call) MUST((call) == dnnl_success, "%s failed", #call)

static const char *const tc_cpus[] = { "scalar", "sse2", "avx2", "avx512", "neon" };

struct tc_tag {
	dnnl_format_tag_t tag;
	const char *name;
	int rank;
	int64_t blk[DNNL_MAX_NDIMS];
};

/* Seconds, for the summary lines (information, never a verdict). */
static double tc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static dnnl_engine_t tc_eng;
static dnnl_stream_t tc_strm;

static void tc_dnnl_setup(void)
{
	ck_assert(dnnl_engine_create(&tc_eng, dnnl_cpu, 0) == dnnl_success);
	ck_assert(dnnl_stream_create(&tc_strm, tc_eng, dnnl_stream_default_flags) ==
		  dnnl_success);
}

static void tc_dnnl_teardown(void)
{
	dnnl_stream_destroy(tc_strm);
	dnnl_engine_destroy(tc_eng);
}

/* Rank and blocks of @tag as oneDNN sees them; 0 if no rank accepts it. */
static int tc_tag_info(dnnl_format_tag_t tag, struct tc_tag *ti)
{
	dnnl_dims_t ones;
	dnnl_memory_desc_t md;

	for (int d = 0; d < DNNL_MAX_NDIMS; d++)
		ones[d] = 1;
	ti->tag = tag;
	ti->name = dnnl_fmt_tag2str(tag);
	for (int nd = 1; nd <= DNNL_MAX_NDIMS; nd++) {
		if (dnnl_memory_desc_init_by_tag(&md, nd, ones, dnnl_s32, tag) != dnnl_success)
			continue;
		if (md.format_kind != dnnl_blocked)
			return 0;
		ti->rank = nd;
		for (int d = 0; d < nd; d++)
			ti->blk[d] = md.padded_dims[d];
		return 1;
	}
	return 0;
}

/* Shape @k of a tag: from its blocks, small sizes for plain dims. */
static int64_t tc_shape(const struct tc_tag *ti, int k, int64_t *shape)
{
	int64_t n = 1;

	for (int d = 0; d < ti->rank; d++) {
		int64_t b = ti->blk[d];

		if (b == 1)
			shape[d] = tc_small[k][d];
		else if (k == 0)
			shape[d] = b + (b > 3 ? 3 : 1);
		else if (k == 1)
			shape[d] = b - 1;
		else
			shape[d] = 2 * b;
		n *= shape[d];
	}
	return n;
}

static const char *tc_shape_text(const int64_t *s, int rank, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int d = 0; d < rank && n < size; d++)
		n += (size_t)snprintf(buf + n, size - n, "%s%lld", d ? "x" : "",
				      (long long)s[d]);
	return buf;
}

static void tc_md_plain(dnnl_memory_desc_t *md, const int64_t *shape, int rank,
			dnnl_data_type_t dt)
{
	dnnl_dims_t dims, strides;
	int64_t s = 1;

	for (int d = rank - 1; d >= 0; d--) {
		dims[d] = shape[d];
		strides[d] = s;
		s *= shape[d];
	}
	MUST_DNNL(dnnl_memory_desc_init_by_strides(md, rank, dims, dt, strides));
}

static void tc_md_tag(dnnl_memory_desc_t *md, const struct tc_tag *ti,
		      const int64_t *shape, dnnl_data_type_t dt)
{
	dnnl_dims_t dims;

	for (int d = 0; d < ti->rank; d++)
		dims[d] = shape[d];
	MUST_DNNL(dnnl_memory_desc_init_by_tag(md, ti->rank, dims, dt, ti->tag));
}

/* oneDNN's reorder of @src (desc @smd) into @dst (desc @dmd). */
static void tc_dnnl_reorder(const dnnl_memory_desc_t *smd, void *src,
			    const dnnl_memory_desc_t *dmd, void *dst)
{
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t r;
	dnnl_memory_t ms, md;
	dnnl_exec_arg_t args[2];

	MUST_DNNL(dnnl_reorder_primitive_desc_create(&pd, smd, tc_eng, dmd, tc_eng,
						     NULL));
	MUST_DNNL(dnnl_primitive_create(&r, pd));
	MUST_DNNL(dnnl_memory_create(&ms, smd, tc_eng, src));
	MUST_DNNL(dnnl_memory_create(&md, dmd, tc_eng, dst));
	args[0].arg = DNNL_ARG_FROM;
	args[0].memory = ms;
	args[1].arg = DNNL_ARG_TO;
	args[1].memory = md;
	MUST_DNNL(dnnl_primitive_execute(r, tc_strm, 2, args));
	MUST_DNNL(dnnl_stream_wait(tc_strm));
	dnnl_memory_destroy(md);
	dnnl_memory_destroy(ms);
	dnnl_primitive_destroy(r);
	dnnl_primitive_desc_destroy(pd);
}

/* Odometer over a row-major shape (last dim fastest). */
static void tc_next(int64_t *crd, const int64_t *shape, int rank)
{
	for (int d = rank - 1; d >= 0; d--) {
		if (++crd[d] < shape[d])
			return;
		crd[d] = 0;
	}
}

static int tc_is_refused_ok(const char *name)
{
	for (size_t i = 0; i < sizeof(tc_refused) / sizeof(tc_refused[0]); i++)
		if (!strcmp(name, tc_refused[i].name))
			return 1;
	return 0;
}

/*
 * tilecopy's word of every logical element: map[word] = row-major index + 1,
 * 0 for padding. Returns a message, or NULL.
 */
static const char *tc_positions(const tilecopy_layout_t *l, const int64_t *shape,
				int rank, int64_t n, int32_t *map, int64_t words,
				char *why, size_t size)
{
	int64_t crd[DNNL_MAX_NDIMS] = { 0 }, off;

	for (int64_t i = 0; i < n; i++, tc_next(crd, shape, rank)) {
		if (tilecopy_layout_crd2idx(l, crd, rank, &off) || off < 0 ||
		    off >= words || map[off]) {
			snprintf(why, size, "element %lld: tilecopy offset %lld outside %lld words or taken",
				 (long long)i, (long long)off, (long long)words);
			return why;
		}
		map[off] = (int32_t)(i + 1);
	}
	return NULL;
}

/* 1 if tilecopy puts every element where oneDNN does; @why says where not. */
static int tc_compare_positions(const struct tc_tag *ti, const int64_t *shape,
				int64_t n, char *why, size_t size)
{
	dnnl_memory_desc_t pmd, tmd;
	tilecopy_tensor_t *t;
	const tilecopy_layout_t *l;
	uint64_t bytes;
	int32_t *src, *dst, *map;
	int64_t words;
	int ok = 1;

	MUST_OK(tilecopy_tensor_create(&t, ti->name, shape, ti->rank, TILECOPY_DT_I32, NULL, 0));
	MUST_OK(tilecopy_tensor_layout(t, &l));
	tc_md_plain(&pmd, shape, ti->rank, dnnl_s32);
	tc_md_tag(&tmd, ti, shape, dnnl_s32);
	MUST_OK(tilecopy_tensor_bytes(t, &bytes));
	if (bytes != dnnl_memory_desc_get_size(&tmd)) {
		snprintf(why, size, "physical size: oneDNN %zu bytes, tilecopy %llu",
			 dnnl_memory_desc_get_size(&tmd), (unsigned long long)bytes);
		tilecopy_tensor_destroy(t);
		return 0;
	}
	words = (int64_t)bytes / 4;
	src = malloc((size_t)n * 4);
	dst = malloc((size_t)bytes);
	map = calloc((size_t)words, 4);
	MUST(src && dst && map, "out of memory");
	for (int64_t i = 0; i < n; i++)
		src[i] = (int32_t)(i + 1);
	memset(dst, FRESH, (size_t)bytes);
	tc_dnnl_reorder(&pmd, src, &tmd, dst);
	if (tc_positions(l, shape, ti->rank, n, map, words, why, size))
		ok = 0;
	for (int64_t w = 0; ok && w < words; w++) {
		if (dst[w] == map[w])
			continue;
		if (!map[w])
			snprintf(why, size, "padding word %lld: oneDNN wrote 0x%x, not 0",
				 (long long)w, (unsigned)dst[w]);
		else
			snprintf(why, size, "word %lld: oneDNN holds element %d, tilecopy element %d",
				 (long long)w, dst[w] - 1, map[w] - 1);
		ok = 0;
	}
	free(map);
	free(dst);
	free(src);
	tilecopy_tensor_destroy(t);
	return ok;
}

static void tc_fill(void *buf, int64_t n, dnnl_data_type_t dt)
{
	for (int64_t i = 0; i < n; i++) {
		if (dt == dnnl_s32) {
			((int32_t *)buf)[i] = (int32_t)(i + 1);
		} else if (dt == dnnl_s8) {
			((int8_t *)buf)[i] = (int8_t)(i % 127 + 1);
		} else {	/* bf16: small integers, exact */
			float f = (float)(i % 255 + 1);
			uint32_t u;

			memcpy(&u, &f, 4);
			((uint16_t *)buf)[i] = (uint16_t)(u >> 16);
		}
	}
}

static tilecopy_dtype_t tc_dtype(dnnl_data_type_t dt)
{
	return dt == dnnl_s32 ? TILECOPY_DT_I32 : dt == dnnl_s8 ? TILECOPY_DT_I8 :
	       TILECOPY_DT_BF16;
}

/* Run @plan on every CPU executor present; count conversions and mismatches. */
static void tc_run_cpus(const tilecopy_plan_t *plan, const void *src, size_t sbytes,
			const void *want, size_t dbytes, const char *what,
			int *runs, int *bad)
{
	unsigned char *out = malloc(dbytes);

	MUST(out, "out of memory");
	for (size_t c = 0; c < sizeof(tc_cpus) / sizeof(tc_cpus[0]); c++) {
		const char *name;

		if (tilecopy_cpu_name(tc_cpus[c], &name))
			continue;
		memset(out, FRESH, dbytes);
		MUST_OK(tilecopy_plan_execute_cpu(plan, src, sbytes, out, dbytes, tc_cpus[c]));
		(*runs)++;
		if (memcmp(out, want, dbytes)) {
			if (++*bad <= 20)
				printf("  convert %s (%s): bytes differ from oneDNN\n", what,
				       tc_cpus[c]);
		}
	}
	free(out);
}

/* plain -> tag -> plain through tilecopy and oneDNN, dtype @dt. */
static void tc_compare_convert(const struct tc_tag *ti, const int64_t *shape,
			       int64_t n, dnnl_data_type_t dt, int *runs, int *bad)
{
	static const char abc[] = "abcdefghijkl";
	char plain[DNNL_MAX_NDIMS + 1], what[160], sh[64];
	dnnl_memory_desc_t pmd, tmd;
	tilecopy_tensor_t *tp, *tt;
	const tilecopy_layout_t *tl;
	tilecopy_plan_t *to, *back;
	size_t es = dnnl_data_type_size(dt), pbytes = (size_t)n * es, tbytes;
	unsigned char *src, *blk, *ret;
	int32_t *map;
	int64_t crd[DNNL_MAX_NDIMS] = { 0 }, off;

	snprintf(plain, sizeof(plain), "%.*s", ti->rank, abc);
	snprintf(what, sizeof(what), "%s %s %s", ti->name,
		 tc_shape_text(shape, ti->rank, sh, sizeof(sh)), dnnl_dt2str(dt));
	MUST_OK(tilecopy_tensor_create(&tp, plain, shape, ti->rank, tc_dtype(dt), NULL, 0));
	MUST_OK(tilecopy_tensor_create(&tt, ti->name, shape, ti->rank, tc_dtype(dt), NULL, 0));
	MUST_OK(tilecopy_tensor_layout(tt, &tl));
	tc_md_plain(&pmd, shape, ti->rank, dt);
	tc_md_tag(&tmd, ti, shape, dt);
	tbytes = dnnl_memory_desc_get_size(&tmd);
	src = malloc(pbytes);
	blk = malloc(tbytes);
	ret = malloc(pbytes);
	map = calloc(tbytes / es, sizeof(*map));
	MUST(src && blk && ret && map, "out of memory");
	tc_fill(src, n, dt);
	memset(blk, FRESH, tbytes);
	tc_dnnl_reorder(&pmd, src, &tmd, blk);

	MUST_OK(tilecopy_plan_create(&to, tp, tt, 0));
	tc_run_cpus(to, src, pbytes, blk, tbytes, what, runs, bad);
	tilecopy_plan_destroy(to);

	/* Poison the padding of oneDNN's result: tilecopy must not read it. */
	for (int64_t i = 0; i < n; i++, tc_next(crd, shape, ti->rank)) {
		MUST_OK(tilecopy_layout_crd2idx(tl, crd, ti->rank, &off));
		map[off] = 1;
	}
	for (size_t w = 0; w < tbytes / es; w++)
		if (!map[w])
			memset(blk + w * es, POISON, es);
	memset(ret, FRESH, pbytes);
	tc_dnnl_reorder(&tmd, blk, &pmd, ret);
	if (memcmp(ret, src, pbytes) && ++*bad <= 20)
		printf("  convert %s: oneDNN's reorder back is not the source\n", what);
	MUST_OK(tilecopy_plan_create(&back, tt, tp, 0));
	tc_run_cpus(back, blk, tbytes, ret, pbytes, what, runs, bad);
	tilecopy_plan_destroy(back);
	tilecopy_tensor_destroy(tt);
	tilecopy_tensor_destroy(tp);
	free(map);
	free(ret);
	free(blk);
	free(src);
}

/* Per-tag outcome, for the summary. */
struct tc_count {
	int tags, rank36, shapes, differ, refused_ok, refused_bad, no_desc;
};

/* The tags to compare; refusals counted and printed. */
static int tc_next_tag(int *t, struct tc_tag *ti, struct tc_count *cnt, int quiet)
{
	while (++*t < dnnl_format_tag_last) {
		int64_t shape[DNNL_MAX_NDIMS];
		tilecopy_tensor_t *tt;
		const char *name = dnnl_fmt_tag2str((dnnl_format_tag_t)*t);

		if (tc_is_refused_ok(name)) {
			cnt->refused_ok++;
			continue;
		}
		if (!tc_tag_info((dnnl_format_tag_t)*t, ti)) {
			cnt->no_desc++;
			if (!quiet)
				printf("  skipped %s: oneDNN creates no blocked memory desc of it for any rank\n",
				       name);
			continue;
		}
		tc_shape(ti, 0, shape);
		if (tilecopy_tensor_create(&tt, ti->name, shape, ti->rank, TILECOPY_DT_I32,
					   NULL, 0)) {
			cnt->refused_bad++;
			printf("  REFUSED %s (rank %d): %s\n", ti->name, ti->rank,
			       tilecopy_last_error());
			continue;
		}
		tilecopy_tensor_destroy(tt);
		cnt->tags++;
		cnt->rank36 += ti->rank >= 3 && ti->rank <= 6;
		return 1;
	}
	return 0;
}

START_TEST(test_tag_positions)
{
	struct tc_count cnt = { 0 };
	struct tc_tag ti;
	double t0 = tc_now();
	int t = -1;

	for (size_t i = 0; i < sizeof(tc_refused) / sizeof(tc_refused[0]); i++)
		printf("  not compared: %s (%s)\n", tc_refused[i].name, tc_refused[i].why);
	printf("  not compared: format_tag_last (%d), the end marker\n", dnnl_format_tag_last);
	while (tc_next_tag(&t, &ti, &cnt, 0)) {
		int same = 1;

		for (int k = 0; k < NSHAPES; k++) {
			int64_t shape[DNNL_MAX_NDIMS], n = tc_shape(&ti, k, shape);
			char why[256], sh[64];

			cnt.shapes++;
			if (tc_compare_positions(&ti, shape, n, why, sizeof(why)))
				continue;
			if (same)
				printf("  DIFFERS %s %s: %s\n", ti.name,
				       tc_shape_text(shape, ti.rank, sh, sizeof(sh)), why);
			same = 0;
		}
		cnt.differ += !same;
	}
	printf("onednn positions: %d tags compared (%d of rank 3-6) on %d shapes, %d differ; "
	       "%d refused by tilecopy, %d not layouts, %d without a oneDNN desc (%.1f s)\n",
	       cnt.tags, cnt.rank36, cnt.shapes, cnt.differ, cnt.refused_bad,
	       cnt.refused_ok, cnt.no_desc, tc_now() - t0);
	fflush(stdout);		/* a failing check ends the child at once */
	ck_assert_int_eq(cnt.refused_bad, 0);
	ck_assert_int_eq(cnt.differ, 0);
	ck_assert_int_gt(cnt.tags, 390);
}
END_TEST

START_TEST(test_tag_convert)
{
	static const dnnl_data_type_t dts[] = { dnnl_s32, dnnl_bf16, dnnl_s8 };
	struct tc_count cnt = { 0 };
	struct tc_tag ti;
	int t = -1, runs = 0, bad = 0, shapes = 0;
	double t0 = tc_now();

	while (tc_next_tag(&t, &ti, &cnt, 1)) {
		for (int k = 0; k < NSHAPES; k++) {
			int64_t shape[DNNL_MAX_NDIMS], n = tc_shape(&ti, k, shape);

			for (size_t d = 0; d < sizeof(dts) / sizeof(dts[0]); d++)
				tc_compare_convert(&ti, shape, n, dts[d], &runs, &bad);
			shapes++;
		}
	}
	printf("onednn convert: %d tags, %d shapes x 3 dtypes, %d executor runs "
	       "(plain->tag and tag->plain), %d differ from oneDNN (%.1f s)\n",
	       cnt.tags, shapes, runs, bad, tc_now() - t0);
	fflush(stdout);
	ck_assert_int_eq(cnt.refused_bad, 0);
	ck_assert_int_eq(bad, 0);
	ck_assert_int_gt(runs, 0);
}
END_TEST

static const char *tc_alias_known_why(const char *name)
{
	for (size_t i = 0; i < sizeof(tc_alias_known) / sizeof(tc_alias_known[0]); i++)
		if (!strcmp(name, tc_alias_known[i].name))
			return tc_alias_known[i].why;
	return NULL;
}

/* The CuTe text of format @name on @shape (f32) into @buf; 0 on success. */
static int tc_layout_text(const char *name, const int64_t *shape, int rank,
			  char *buf, size_t size)
{
	const tilecopy_layout_t *l;
	tilecopy_tensor_t *t;
	int st;

	if (tilecopy_tensor_create(&t, name, shape, rank, TILECOPY_DT_F32, NULL, 0))
		return -1;
	st = tilecopy_tensor_layout(t, &l) || tilecopy_layout_print(l, buf, size);
	tilecopy_tensor_destroy(t);
	return st;
}

START_TEST(test_aliases)
{
	int same = 0, differ = 0, known = 0, n = 0;

	for (size_t i = 0; i < sizeof(tc_aliases) / sizeof(tc_aliases[0]); i++) {
		const char *name = tc_aliases[i].name, *why = tc_alias_known_why(name);
		int64_t shape[DNNL_MAX_NDIMS];
		char la[512], lc[512];
		struct tc_tag ti;
		int ok;

		if (!tc_tag_info(tc_aliases[i].tag, &ti))
			continue;
		n++;
		tc_shape(&ti, 0, shape);
		MUST(!tc_layout_text(ti.name, shape, ti.rank, lc, sizeof(lc)),
		     "tag %s refused", ti.name);
		la[0] = '\0';
		ok = !tc_layout_text(name, shape, ti.rank, la, sizeof(la)) && !strcmp(la, lc);
		if (ok && why)
			printf("  note: alias %s listed as inconsistent agrees with %s now\n",
			       name, ti.name);
		if (!ok && why) {
			printf("  known: %s = %s in oneDNN: %s\n", name, ti.name, why);
			known++;
			continue;
		}
		if (!ok) {
			printf("  DIFFERS alias %s = %s: tilecopy %s\n", name, ti.name,
			       tilecopy_last_error()[0] ? tilecopy_last_error() : la);
			differ++;
			continue;
		}
		same++;
	}
	printf("onednn aliases: %d compared, %d agree, %d differ, %d known oneDNN inconsistencies\n",
	       n, same, differ, known);
	fflush(stdout);
	ck_assert_int_eq(differ, 0);
	ck_assert_int_gt(same, 400);
}
END_TEST

static Suite *onednn_suite(void)
{
	Suite *s = suite_create("onednn");
	TCase *tc = tcase_create("tags");

	/* A hang guard for a loaded machine, not a performance bound. */
	tcase_set_timeout(tc, 1800);
	tcase_add_checked_fixture(tc, tc_dnnl_setup, tc_dnnl_teardown);
	tcase_add_test(tc, test_tag_positions);
	tcase_add_test(tc, test_tag_convert);
	tcase_add_test(tc, test_aliases);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tc_run_suite(onednn_suite());
}
