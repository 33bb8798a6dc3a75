// SPDX-License-Identifier: MIT
/* cli.c - option parsing shared by the subcommands. */
#include <stddef.h>
#include <stdio.h>
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

int cli_plan(const struct cli_opts *o, tilecopy_plan_t **plan)
{
	const char *fb = o->from_block, *tb = o->to_block;
	tilecopy_tensor_t *src = NULL, *dst = NULL;
	tilecopy_status_t st;
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
	st = tilecopy_plan_create(plan, src, dst, o->reinterpret ? TILECOPY_PLAN_REINTERPRET : 0);
	if (st == TILECOPY_ERR_DTYPE_MISMATCH && strstr(tilecopy_last_error(), "REINTERPRET"))
		fprintf(stderr, "tilecopy: plan: the dtypes differ; tilecopy moves bits and converts no values: --reinterpret copies them as they are\n");
	if (st)
		cli_error("plan", st);
	else
		ret = 0;
out:
	tilecopy_tensor_destroy(src);
	tilecopy_tensor_destroy(dst);
	return ret;
}
