// SPDX-License-Identifier: MIT
/* cmd_plan.c - `tilecopy plan`: the descriptors of a conversion, one a line. */
#include <stdio.h>

#include "cli.h"
#include "tilecopy_accel.h"

int cmd_plan(int argc, char **argv)
{
	struct cli_opts o;
	tilecopy_plan_t *plan;
	const struct drm_tilecopy_desc *d;
	char line[512];
	size_t n;

	if (cli_parse(argc, argv, &o))
		return 2;
	if (!o.from || !o.to || o.nargs) {
		fprintf(stderr, "usage: tilecopy plan --shape S --dtype T --from FMT --to FMT\n");
		return 2;
	}
	if (cli_plan(&o, &plan))
		return 1;
	d = tilecopy_plan_descs(plan, &n);
	for (size_t i = 0; i < n; i++) {
		tilecopy_desc_format(&d[i], line, sizeof(line));
		printf("%s\n", line);
	}
	printf("descriptors: %zu\n", n);
	tilecopy_plan_destroy(plan);
	return 0;
}
