/* SPDX-License-Identifier: MIT */
/* cli.h - shared option handling of the tilecopy command line. */
#ifndef TILECOPY_CLI_H
#define TILECOPY_CLI_H

#include <stdint.h>
#include <stdio.h>
#include "tilecopy/tilecopy.h"
#include "tilecopy/device.h"

struct cli_opts {
	const char *shape;
	const char *dtype, *from_dtype, *to_dtype;
	const char *from, *to;
	const char *block, *from_block, *to_block;
	const char *device;
	const char *cpu;
	/* a conversion of values (tilecopy_plan_create_v2) */
	const char *scale, *scales, *scale_dim, *zero_point, *src_zero_point;
	int json;
	int verbose;
	int help;
	int version;			/* --version: print it, exit 0 */
	int reinterpret;		/* --reinterpret */
	int allow_larger;		/* --allow-larger-input */
	int allow_growth;		/* --allow-growth */
	int physical;			/* --physical-shape */
	int nargs;
	const char *args[4];
};

/* Parse argv after the subcommand; unknown options are an error. */
int cli_parse(int argc, char **argv, struct cli_opts *o);
/* Build the tensor of a format from the common options (NULL on error). */
tilecopy_tensor_t *cli_tensor(const struct cli_opts *o, const char *fmt,
			      const char *dtype, const char *block);
/*
 * The plan --from -> --to of the common options. --block goes to the side
 * whose format takes a block; --from-block/--to-block name the side.
 * Prints the error and returns -1 on failure.
 */
int cli_plan(const struct cli_opts *o, tilecopy_plan_t **plan);
/* Print "tilecopy: <what>: <status>: <message>" and return 1. */
int cli_error(const char *what, tilecopy_status_t st);
/* "tilecopy 1.0.0 (libtilecopy 1.0.0)" on stdout; returns 0. */
int cli_version(void);
/* Usage of a command to @f; the exit status for "usage error" (2) or 0. */
int cli_usage(const char *cmd, FILE *f, int status);
void cli_draw(const tilecopy_tensor_t *t, FILE *out);

/* cmd_convert's output, careful with what OUT already is (cli_out.c). */
int cli_write_output(const char *path, const void *buf, size_t size);

/* The device library's calls the command line uses (cli_device.c). */
struct cli_device {
	tilecopy_status_t (*device_count)(int *count);
	tilecopy_status_t (*device_info_get)(int index, struct tilecopy_device_info *info);
	tilecopy_status_t (*device_open)(tilecopy_device_t **dev, const char *spec);
	void (*device_close)(tilecopy_device_t *dev);
	tilecopy_status_t (*device_query)(const tilecopy_device_t *dev,
					  struct tilecopy_device_info *info);
	tilecopy_status_t (*convert)(tilecopy_device_t *dev, const tilecopy_plan_t *plan,
				     const void *src, size_t src_size, void *dst,
				     size_t dst_size, int *used_device);
	tilecopy_status_t (*convert_multi)(tilecopy_device_t *const *devs, int ndev,
					   const tilecopy_plan_t *plan, const void *src,
					   size_t src_size, void *dst, size_t dst_size,
					   int *used_devices);
	tilecopy_status_t (*device_threshold)(uint64_t *bytes);
};

/*
 * The device library, loaded on first use; NULL when there is none, with
 * *why saying why (not installed, no device backend in this build).
 */
const struct cli_device *cli_device(const char **why);

/* argv[0] of the command line (tilecopy.c), for finding tilecopy-bench. */
extern const char *cli_progname;

int cmd_layout(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_info(int argc, char **argv);

#endif
