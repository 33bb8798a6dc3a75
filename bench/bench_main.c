// SPDX-License-Identifier: MIT
/* bench_main.c - tilecopy-bench, the benchmark without the CLI around it. */
#include "bench.h"

int main(int argc, char **argv)
{
	return tc_bench_run(argc - 1, argv + 1);
}
