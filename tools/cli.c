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

int cli_parse(int argc, char **argv, struct cli_opts *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char **slot;
		const char *eq;

		if (!strcmp(a, "--json")) {
			o->json = 1;
			continue;
		}
		if (a[0] == '-' && a[1] == '-') {
			char name[32];

			eq = strchr(a, '=');
			snprintf(name, sizeof(name), "%.*s",
				 eq ? (int)(eq - a) : (int)strlen(a), a);
			slot = cli_slot(o, name);
			if (!slot) {
				fprintf(stderr, "tilecopy: unknown option '%s'\n", name);
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

int cli_tensor(const struct cli_opts *o, const char *fmt, const char *block,
	       tilecopy_tensor_t *t)
{
	int64_t shape[TILECOPY_MAX_RANK];
	tilecopy_dtype_t dt;
	tilecopy_status_t st;
	int rank;

	if (!o->shape) {
		fprintf(stderr, "tilecopy: --shape is required (e.g. --shape 8x12)\n");
		return -1;
	}
	st = tilecopy_shape_parse(shape, &rank, TILECOPY_MAX_RANK, o->shape);
	if (st)
		return cli_error("--shape", st), -1;
	st = tilecopy_dtype_parse(&dt, o->dtype ? o->dtype : "f32");
	if (st)
		return cli_error("--dtype", st), -1;
	st = tilecopy_tensor_make(t, fmt, shape, rank, dt, block);
	if (st)
		return cli_error(fmt, st), -1;
	return 0;
}

int cli_plan(const struct cli_opts *o, tilecopy_plan_t **plan)
{
	tilecopy_tensor_t src, dst;
	tilecopy_status_t st;

	if (cli_tensor(o, o->from, o->from_block ? o->from_block : o->block, &src) ||
	    cli_tensor(o, o->to, o->to_block ? o->to_block : o->block, &dst))
		return -1;
	st = tilecopy_plan_create(plan, &src, &dst);
	if (st)
		return cli_error("plan", st), -1;
	return 0;
}
