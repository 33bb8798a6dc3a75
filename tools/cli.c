// SPDX-License-Identifier: MIT
/* cli.c - option parsing shared by the subcommands. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_error(const char *what, tilecopy_status_t st)
{
	fprintf(stderr, "tilecopy: %s: %s: %s\n", what, tilecopy_status_str(st),
		tilecopy_last_error());
	return 1;
}

static const char **cli_slot(struct cli_opts *o, const char *name)
{
	static const struct {
		const char *name;
		size_t off;
	} map[] = {
		{ "--shape", offsetof(struct cli_opts, shape) },
		{ "--dtype", offsetof(struct cli_opts, dtype) },
		{ "--from-dtype", offsetof(struct cli_opts, from_dtype) },
		{ "--to-dtype", offsetof(struct cli_opts, to_dtype) },
		{ "--from", offsetof(struct cli_opts, from) },
		{ "--to", offsetof(struct cli_opts, to) },
		{ "--block", offsetof(struct cli_opts, block) },
		{ "--from-block", offsetof(struct cli_opts, from_block) },
		{ "--to-block", offsetof(struct cli_opts, to_block) },
		{ "--device", offsetof(struct cli_opts, device) },
		{ "--cpu", offsetof(struct cli_opts, cpu) },
		{ "--scale", offsetof(struct cli_opts, scale) },
		{ "--scales", offsetof(struct cli_opts, scales) },
		{ "--scale-dim", offsetof(struct cli_opts, scale_dim) },
		{ "--zero-point", offsetof(struct cli_opts, zero_point) },
		{ "--src-zero-point", offsetof(struct cli_opts, src_zero_point) },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(name, map[i].name))
			return (const char **)((char *)o + map[i].off);
	return NULL;
}

static int *cli_flag(struct cli_opts *o, const char *a)
{
	static const struct {
		const char *name;
		size_t off;
	} map[] = {
		{ "--json", offsetof(struct cli_opts, json) },
		{ "-v", offsetof(struct cli_opts, verbose) },
		{ "--verbose", offsetof(struct cli_opts, verbose) },
		{ "-h", offsetof(struct cli_opts, help) },
		{ "--help", offsetof(struct cli_opts, help) },
		{ "--reinterpret", offsetof(struct cli_opts, reinterpret) },
		{ "--allow-larger-input", offsetof(struct cli_opts, allow_larger) },
		{ "--allow-growth", offsetof(struct cli_opts, allow_growth) },
		{ "--physical-shape", offsetof(struct cli_opts, physical) },
		{ "--version", offsetof(struct cli_opts, version) },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(a, map[i].name))
			return (int *)((char *)o + map[i].off);
	return NULL;
}

/*
 * Options anywhere; "--" ends them (a file named "-v" after it is a file).
 * An option given twice is refused rather than the last one quietly
 * winning (--to-block 4x4 ... --to-block 16x16).
 */
int cli_parse(int argc, char **argv, struct cli_opts *o)
{
	int opts = 1;

	memset(o, 0, sizeof(*o));
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char **slot;
		const char *eq;
		int *flag = opts ? cli_flag(o, a) : NULL;

		if (opts && !strcmp(a, "--")) {
			opts = 0;
			continue;
		}
		if (flag) {
			*flag = 1;
			continue;
		}
		if (opts && a[0] == '-' && a[1]) {	/* "-" alone is stdin/stdout */
			char name[32];

			eq = strchr(a, '=');
			snprintf(name, sizeof(name), "%.*s",
				 eq ? (int)(eq - a) : (int)strlen(a), a);
			slot = cli_slot(o, name);
			if (!slot) {
				fprintf(stderr, "tilecopy: unknown option '%s' (see --help)\n", name);
				return -1;
			}
			if (*slot) {
				fprintf(stderr, "tilecopy: option %s given twice\n", name);
				return -1;
			}
			if (eq) {
				*slot = eq + 1;
			} else if (i + 1 < argc) {
				*slot = argv[++i];
			} else {
				fprintf(stderr, "tilecopy: option %s needs a value\n", name);
				return -1;
			}
			continue;
		}
		if (o->nargs >= 4) {
			fprintf(stderr, "tilecopy: too many arguments at '%s'\n", a);
			return -1;
		}
		o->args[o->nargs++] = a;
	}
	return 0;
}

tilecopy_tensor_t *cli_tensor(const struct cli_opts *o, const char *fmt,
			      const char *dtype, const char *block)
{
	int64_t shape[TILECOPY_MAX_RANK];
	tilecopy_tensor_t *t;
	tilecopy_dtype_t dt;
	tilecopy_status_t st;
	int rank;

	if (!o->shape) {
		fprintf(stderr, "tilecopy: --shape is required (e.g. --shape 8x12)\n");
		return NULL;
	}
	st = tilecopy_shape_parse(shape, &rank, TILECOPY_MAX_RANK, o->shape);
	if (st)
		return cli_error("--shape", st), NULL;
	st = tilecopy_dtype_parse(&dt, dtype ? dtype : o->dtype ? o->dtype : "f32");
	if (st)
		return cli_error("--dtype", st), NULL;
	st = tilecopy_tensor_create(&t, fmt, shape, rank, dt, block,
				    o->physical ? TILECOPY_TENSOR_SHAPE_PHYSICAL : 0);
	if (st)
		return cli_error(fmt, st), NULL;
	return t;
}

/* The format (of that shape and dtype) takes @block as its block override. */
static int cli_takes_block(const struct cli_opts *o, const char *fmt, const char *dtype,
			   const char *block)
{
	int64_t shape[TILECOPY_MAX_RANK];
	tilecopy_tensor_t *t;
	tilecopy_dtype_t dt;
	int rank;

	if (tilecopy_shape_parse(shape, &rank, TILECOPY_MAX_RANK, o->shape) ||
	    tilecopy_dtype_parse(&dt, dtype ? dtype : o->dtype ? o->dtype : "f32") ||
	    tilecopy_tensor_create(&t, fmt, shape, rank, dt, block,
				   o->physical ? TILECOPY_TENSOR_SHAPE_PHYSICAL : 0))
		return 0;
	tilecopy_tensor_destroy(t);
	return 1;
}

/*
 * --block goes to the one side whose format takes that block (NC1HWC0 ->
 * zN --block 4: NC1HWC0's C0); a block both take (zN -> nZ) is ambiguous,
 * one neither takes an error. --from-block/--to-block name the side.
 */
static int cli_block_side(const struct cli_opts *o, const char **fb, const char **tb)
{
	int s, d;

	if (!o->block)
		return 0;
	s = !*fb && cli_takes_block(o, o->from, o->from_dtype, o->block);
	d = !*tb && cli_takes_block(o, o->to, o->to_dtype, o->block);
	if (s && d) {
		fprintf(stderr, "tilecopy: --block %s: both %s and %s take it; say which with --from-block or --to-block\n",
			o->block, o->from, o->to);
		return -1;
	}
	if (!s && !d) {
		fprintf(stderr, "tilecopy: --block %s: neither %s nor %s takes it (fractal formats take RxC, NC1HWC0 takes C0)\n",
			o->block, o->from, o->to);
		return -1;
	}
	if (s)
		*fb = o->block;
	else
		*tb = o->block;
	return 0;
}

/* ---- conversions ------------------------------------------------------------ */

/* A whole int32 ("-3", "128"); else a message naming @opt. */
static int cli_int32(const char *opt, const char *text, int32_t *v)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(text, &end, 10);
	if (!*text || *end || errno || x < INT32_MIN || x > INT32_MAX) {
		fprintf(stderr, "tilecopy: %s: '%s' is not an integer in -2^31..2^31-1\n", opt, text);
		return -1;
	}
	*v = (int32_t)x;
	return 0;
}

/* One number of a scale; NaN and infinities pass, the library names them. */
static int cli_float(const char *opt, const char *text, const char **end, float *v)
{
	char *e;

	errno = 0;
	*v = strtof(text, &e);
	if (e == text || (errno == ERANGE && *v != 0.0f)) {
		fprintf(stderr, "tilecopy: %s: '%.32s' is not a number%s\n", opt, text,
			errno == ERANGE ? " a binary32 holds" : "");
		return -1;
	}
	*end = e;
	return 0;
}

/* The whole of @f, NUL-terminated, on the heap; NULL on an error (said). */
static char *cli_slurp(FILE *f, const char *path, size_t *len)
{
	size_t cap = 8192;
	char *text = malloc(cap), *nt;

	*len = 0;
	while (text) {
		*len += fread(text + *len, 1, cap - *len - 1, f);
		if (ferror(f)) {
			fprintf(stderr, "tilecopy: --scales: reading '%s': %s\n", path,
				strerror(errno));
			break;
		}
		if (feof(f)) {
			text[*len] = '\0';
			return text;
		}
		nt = realloc(text, cap *= 2);
		if (!nt)
			break;
		text = nt;
	}
	if (!ferror(f))
		fprintf(stderr, "tilecopy: --scales: '%s': out of memory\n", path);
	free(text);
	return NULL;
}

/*
 * --scales FILE: numbers separated by white space or commas (a text file,
 * as a person writes one or a script prints one), into a heap array.
 */
static int cli_read_scales(const char *path, float **out, size_t *n)
{
	static const char sep[] = " \t\r\n,";
	FILE *f = fopen(path, "r");
	char *text;
	const char *p;
	float *v = NULL;
	size_t len, got = 0;
	int ret = -1;

	if (!f) {
		fprintf(stderr, "tilecopy: --scales: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	text = cli_slurp(f, path, &len);
	fclose(f);
	/* a number takes a character and a separator */
	if (!text || !(v = malloc((len / 2 + 1) * sizeof(float))))
		goto out;
	for (p = text + strspn(text, sep); *p; p += strspn(p, sep)) {
		const char *start = p;
		char *end;

		v[got] = strtof(p, &end);
		p = end;
		if (p == start || (*p && !strchr(sep, *p))) {
			fprintf(stderr, "tilecopy: --scales: '%s': scale %zu, '%.*s', is not a number (numbers separated by spaces, newlines or commas)\n",
				path, got, (int)strcspn(start, sep), start);
			goto out;
		}
		got++;
	}
	if (!got) {
		fprintf(stderr, "tilecopy: --scales: '%s' holds no number\n", path);
		goto out;
	}
	*out = v;
	*n = got;
	v = NULL;
	ret = 0;
out:
	free(v);
	free(text);
	return ret;
}

static int cli_converts(const struct cli_opts *o)
{
	return o->scale || o->scales || o->scale_dim || o->zero_point || o->src_zero_point;
}

/*
 * The conversion's parameters: --scale S | --scales FILE --scale-dim D,
 * --zero-point Z (the destination's), --src-zero-point Z. *@scales gets the
 * heap array of --scales, for the caller to free.
 */
static int cli_params(const struct cli_opts *o, tilecopy_convert_params_t *pr, float **scales,
		      float *one)
{
	int32_t dim;

	tilecopy_convert_params_init(pr);
	*scales = NULL;
	if (o->scale && o->scales) {
		fprintf(stderr, "tilecopy: --scale and --scales: one scale per tensor, or a file of one per index of --scale-dim\n");
		return -1;
	}
	if (o->scales && !o->scale_dim) {
		fprintf(stderr, "tilecopy: --scales needs --scale-dim D (the logical dim the scales run along)\n");
		return -1;
	}
	if (o->scale_dim && !o->scales) {
		fprintf(stderr, "tilecopy: --scale-dim needs --scales FILE\n");
		return -1;
	}
	if (o->scale) {
		const char *end;

		if (cli_float("--scale", o->scale, &end, one))
			return -1;
		if (*end) {
			fprintf(stderr, "tilecopy: --scale: '%s' is not a number\n", o->scale);
			return -1;
		}
		pr->scales = one;
		pr->nscales = 1;
	}
	if (o->scales) {
		if (cli_int32("--scale-dim", o->scale_dim, &dim) ||
		    cli_read_scales(o->scales, scales, &pr->nscales))
			return -1;
		pr->scales = *scales;
		pr->scale_dim = dim;
	}
	if (o->zero_point && cli_int32("--zero-point", o->zero_point, &pr->dst_zero_point))
		return -1;
	if (o->src_zero_point &&
	    cli_int32("--src-zero-point", o->src_zero_point, &pr->src_zero_point))
		return -1;
	return 0;
}

/*
 * Different dtypes convert values, as does any conversion option; with
 * --reinterpret (same sizes only) the bits are copied instead. Says what
 * went wrong; returns 0 or -1.
 */
static int cli_plan_create(const struct cli_opts *o, tilecopy_plan_t **plan,
			   const tilecopy_tensor_t *src, const tilecopy_tensor_t *dst)
{
	tilecopy_convert_params_t pr;
	tilecopy_dtype_t sd = TILECOPY_DT_F32, dd = TILECOPY_DT_F32;
	float *scales = NULL, one = 1.0f;
	tilecopy_status_t st;

	if (o->reinterpret && cli_converts(o)) {
		fprintf(stderr, "tilecopy: --reinterpret copies bits; --scale, --scales, --zero-point and --src-zero-point convert values: one or the other\n");
		return -1;
	}
	tilecopy_tensor_dtype(src, &sd);
	tilecopy_tensor_dtype(dst, &dd);
	if (o->reinterpret || (sd == dd && !cli_converts(o)))
		st = tilecopy_plan_create(plan, src, dst,
					  o->reinterpret ? TILECOPY_PLAN_REINTERPRET : 0);
	else if (cli_params(o, &pr, &scales, &one))
		return -1;
	else
		st = tilecopy_plan_create_v2(plan, src, dst, &pr, 0);
	free(scales);
	return st ? cli_error("plan", st), -1 : 0;
}

int cli_plan(const struct cli_opts *o, tilecopy_plan_t **plan)
{
	const char *fb = o->from_block, *tb = o->to_block;
	tilecopy_tensor_t *src = NULL, *dst = NULL;
	int ret = -1;

	if (!o->shape) {
		fprintf(stderr, "tilecopy: --shape is required (e.g. --shape 8x12)\n");
		return -1;
	}
	if (cli_block_side(o, &fb, &tb))
		return -1;
	src = cli_tensor(o, o->from, o->from_dtype, fb);
	if (src && o->physical) {
		/* the shape is in --from's order: --to gets the logical one */
		struct cli_opts lo = *o;
		int64_t shape[TILECOPY_MAX_RANK];
		char text[TILECOPY_MAX_RANK * 21];
		size_t n = 0;
		int rank = 0;

		tilecopy_tensor_rank(src, &rank);
		tilecopy_tensor_shape(src, shape, TILECOPY_MAX_RANK);
		for (int k = 0; k < rank; k++)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%lld", k ? "x" : "",
					      (long long)shape[k]);
		lo.shape = text;
		lo.physical = 0;
		dst = cli_tensor(&lo, o->to, o->to_dtype, tb);
	} else if (src) {
		dst = cli_tensor(o, o->to, o->to_dtype, tb);
	}
	if (!src || !dst)
		goto out;
	ret = cli_plan_create(o, plan, src, dst);
out:
	tilecopy_tensor_destroy(src);
	tilecopy_tensor_destroy(dst);
	return ret;
}
