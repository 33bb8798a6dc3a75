// SPDX-License-Identifier: MIT
/*
 * tilecopy.c - the command line: dispatch to the subcommands, usage.
 * The interface is stable: tests outside the project use it.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The options that make a plan, of plan and convert alike. */
#define PLAN_OPTIONS \
	"    --block B          block of the one side whose format takes B (zN: RxC, NC1HWC0: C0)\n" \
	"    --from-block B, --to-block B   the block of one side\n" \
	"    --from-dtype T, --to-dtype T   dtypes of each side (default --dtype, f32);\n" \
	"                       different dtypes convert the values (docs/dtype-conversion.md)\n" \
	"    --scale S          multiply by S (after --src-zero-point, before --zero-point)\n" \
	"    --scales FILE --scale-dim D   one scale per index of logical dim D, a text\n" \
	"                       file of numbers separated by spaces, newlines or commas\n" \
	"    --zero-point Z     add Z before the result is rounded (the destination's)\n" \
	"    --src-zero-point Z subtract Z from the source values\n" \
	"    --reinterpret      dtypes of the same size that differ: bits are copied, not converted\n" \
	"    --physical-shape   --shape is in --from's physical order (NHWC: N,H,W,C)\n"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
} cmds[] = {
	{ "layout", cmd_layout,
	  "layout FORMAT --shape S [--dtype T] [--block B] [--physical-shape]\n"
	  "    the layout in CuTe notation, a grid of offsets, the physical size\n" },
	{ "plan", cmd_plan,
	  "plan --shape S --dtype T --from FMT --to FMT [options]\n"
	  "    the engine descriptors of a conversion, one a line\n"
	  PLAN_OPTIONS },
	{ "convert", cmd_convert,
	  "convert --shape S --dtype T --from FMT --to FMT [options] IN OUT\n"
	  "    convert raw little-endian data; IN or OUT '-' is standard input/output\n"
	  PLAN_OPTIONS
	  "    --allow-larger-input  IN may be longer than the source; its first bytes are used\n"
	  "                       (a stream is read no further than the source's size)\n"
	  "    --allow-growth     allow OUT more than 64x IN (and over 64 MiB)\n"
	  "    --device cpu|auto|PATH|INDEX  engine(s) or the CPU (default $TILECOPY_DEVICE, cpu);\n"
	  "                       auto without an engine converts on the CPU (-v says so)\n"
	  "    --cpu NAME         CPU executor: scalar sse2 avx2 avx512 neon\n"
	  "    -v                 executor or engine, descriptors, time and GB/s on stderr\n"
	  "    a progress line goes to stderr when it is a terminal and the conversion\n"
	  "    takes over 2 s ($TILECOPY_PROGRESS_MS)\n"
	  "    OUT is written as by '>': it must be writable; a regular file is replaced whole\n"
	  "    (a new file of the same mode, owner and group), else written in place; a symlink,\n"
	  "    device, FIFO or hard-linked file is written through, never replaced; a symlink to\n"
	  "    nothing is refused; OUT naming this process's stdout or stderr is that descriptor;\n"
	  "    a new file gets 0666 & ~umask. Options end at '--'.\n" },
	{ "info", cmd_info, "info\n    engines found, or that the CPU path is used\n" },
	{ "bench", cmd_bench,
	  "bench [--json] [--reps N] [--threads N] [--case NAME]\n"
	  "    CPU path against memcpy and oneDNN\n" },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static const char tail[] =
	"shapes are logical: N,C,H,W (N,C,D,H,W; N,C,W) or batch...,rows,cols,\n"
	"         whatever the format (NHWC too), unless --physical-shape\n"
	"formats: NCHW NHWC CHWN HWCN ... NCDHW NDHWC, NCHW4..64 / nChw8c nChw16c, NC1HWC0, CHWN4,\n"
	"         RowMajor (ND) ColumnMajor zN zZ nZ nN, strided:s0,s1,..., CuTe \"(..):(..)\"\n"
	"dtypes:  u8 i8 f16 bf16 i16 f32 i32 f64 i64 i4 u4 (two a byte, low nibble first)\n";

int cli_usage(const char *cmd, FILE *f, int status)
{
	for (size_t i = 0; i < NCMDS; i++) {
		if (!strcmp(cmd, cmds[i].name)) {
			fprintf(f, "usage: tilecopy %s%s", cmds[i].usage, tail);
			return status;
		}
	}
	return status;
}

int cli_version(void)
{
	printf("tilecopy %d.%d.%d (libtilecopy %s)\n", TILECOPY_VERSION_MAJOR,
	       TILECOPY_VERSION_MINOR, TILECOPY_VERSION_PATCH, tilecopy_version_string());
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tilecopy COMMAND [options]     (COMMAND --help: its options; --version)\n");
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(f, "  %s", cmds[i].usage);
	fprintf(f, "  --version\n%s", tail);
}

const char *cli_progname = "tilecopy";

int main(int argc, char **argv)
{
	if (argc > 0 && argv[0])
		cli_progname = argv[0];
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))
		return cli_version();
	for (size_t i = 0; i < NCMDS; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 2, argv + 2);
	fprintf(stderr, "tilecopy: unknown command '%s' (layout, plan, convert, info, bench; see --help)\n",
		argv[1]);
	return 2;
}
