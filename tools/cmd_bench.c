// SPDX-License-Identifier: MIT
/* cmd_bench.c - `tilecopy bench`: the benchmark itself lives in bench/. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifdef TC_HAVE_BENCH
#include "bench.h"

int cmd_bench(int argc, char **argv)
{
	if (argc && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")))
		return cli_usage("bench", stdout, 0);
	if (argc && !strcmp(argv[0], "--version"))
		return cli_version();
	return tc_bench_run(argc, argv);
}
#else
int cmd_bench(int argc, char **argv)
{
	if (argc && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")))
		return cli_usage("bench", stdout, 0);
	if (argc && !strcmp(argv[0], "--version"))
		return cli_version();
	fprintf(stderr, "tilecopy: bench: this build has no benchmark (bench/ not built)\n");
	return 1;
}
#endif
