// SPDX-License-Identifier: MIT
/* cmd_plan.c - `tilecopy plan`: the descriptors of a conversion, one a line. */
#include <stdio.h>

#include "cli.h"
#include "tilecopy_accel.h"

int cmd_plan(int argc, char **argv)
{
	struct cli_opts o;
	tilecopy_tensor_t src, dst;
	tilecopy_plan_t *plan;
	const struct drm_tilecopy_desc *d;
	tilecopy_status_t st;
	char line[512];
	size_t n;

	if (cli_parse(argc, argv, &o))
		return 2;
	if (!o.from || !o.to || o.nargs) {
		fprintf(stderr, "usage: tilecopy plan --shape S --dtype T --from FMT --to FMT\n");
		return 2;
	}
	if (cli_tensor(&o, o.from, o.from_block ? o.from_block : o.block, &src) ||
	    cli_tensor(&o, o.to, o.to_block ? o.to_block : o.block, &dst))
		return 1;
	st = tilecopy_plan_create(&plan, &src, &dst);
	if (st)
		return cli_error("plan", st);
	d = tilecopy_plan_descs(plan, &n);
	for (size_t i = 0; i < n; i++) {
		tilecopy_desc_format(&d[i], line, sizeof(line));
		printf("%s\n", line);
	}
	printf("descriptors: %zu\n", n);
	tilecopy_plan_destroy(plan);
	return 0;
}
