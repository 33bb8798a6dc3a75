// SPDX-License-Identifier: MIT
/*
 * tilecopy.c - the command line: dispatch to the subcommands.
 * The interface is stable: tests outside the project use it.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tilecopy COMMAND [options]\n"
		"  layout FORMAT --shape S [--dtype T] [--block B]   layout in CuTe notation, offsets, size\n"
		"  plan --shape S --dtype T --from FMT --to FMT      the engine descriptors of a conversion\n"
		"  convert --shape S --dtype T --from FMT --to FMT [--device cpu|auto|PATH] [--cpu NAME] IN OUT\n"
		"  info                                              engines found, or that the CPU path is used\n"
		"  bench [--json] [--reps N] [--threads N] [--case NAME]   CPU path vs memcpy and oneDNN\n"
		"formats: NCHW NHWC CHWN HWCN ... NCDHW NDHWC, NCHW4..64 / nChw8c nChw16c, NC1HWC0, CHWN4,\n"
		"         RowMajor (ND) ColumnMajor zN zZ nZ nN, strided:s0,s1,..., CuTe \"(..):(..)\"\n"
		"dtypes:  u8 i8 f16 bf16 i16 f32 i32 f64 i64\n");
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "layout", cmd_layout },
		{ "plan", cmd_plan },
		{ "convert", cmd_convert },
		{ "bench", cmd_bench },
		{ "info", cmd_info },
	};

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 2, argv + 2);
	fprintf(stderr, "tilecopy: unknown command '%s' (layout, plan, convert, info, bench; see --help)\n",
		argv[1]);
	return 2;
}
