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
	tilecopy_status_t st;
	char line[512];
	size_t n;

	if (cli_parse(argc, argv, &o))
		return cli_usage("plan", stderr, 2);
	if (o.help)
		return cli_usage("plan", stdout, 0);
	if (o.version)
		return cli_version();
	if (!o.from || !o.to || o.nargs)
		return cli_usage("plan", stderr, 2);
	if (cli_plan(&o, &plan))
		return 1;
	st = tilecopy_plan_descs(plan, &d, &n);
	for (size_t i = 0; !st && i < n; i++) {
		st = tilecopy_desc_format(&d[i], line, sizeof(line));
		if (!st)
			printf("%s\n", line);
	}
	if (!st)
		printf("descriptors: %zu\n", n);
	tilecopy_plan_destroy(plan);
	return st ? cli_error("plan", st) : 0;
}
