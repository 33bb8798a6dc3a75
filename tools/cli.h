/* SPDX-License-Identifier: MIT */
/* cli.h - shared option handling of the tilecopy command line. */
#ifndef TILECOPY_CLI_H
#define TILECOPY_CLI_H

#include <stdint.h>
#include "tilecopy/tilecopy.h"

struct cli_opts {
	const char *shape;
	const char *dtype;
	const char *from, *to;
	const char *block, *from_block, *to_block;
	const char *device;
	const char *cpu;
	int json;
	int nargs;
	const char *args[4];
};

/* Parse argv after the subcommand; unknown options are an error. */
int cli_parse(int argc, char **argv, struct cli_opts *o);
/* Build the tensor of a format from the common options. */
int cli_tensor(const struct cli_opts *o, const char *fmt, const char *block,
	       tilecopy_tensor_t *t);
/* The plan --from -> --to of the common options (--block, --from-block,
 * --to-block apply). Prints the error and returns -1 on failure. */
int cli_plan(const struct cli_opts *o, tilecopy_plan_t **plan);
/* Print "tilecopy: <what>: <status>: <message>" and return 1. */
int cli_error(const char *what, tilecopy_status_t st);

int cmd_layout(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_info(int argc, char **argv);

#endif
