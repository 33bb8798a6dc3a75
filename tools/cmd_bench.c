// SPDX-License-Identifier: MIT
/*
 * cmd_bench.c - `tilecopy bench`: runs tilecopy-bench (bench/), found next
 * to this program, else on $PATH. The benchmark measures against oneDNN and
 * links it (with libgomp and libstdc++); keeping it a program of its own
 * keeps tilecopy itself free of them, so a CPU-only user without oneDNN
 * runs every other command.
 */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#define BENCH_NAME "tilecopy-bench"

extern char **environ;

/* The directory this program was run from: argv[0]'s, else /proc/self/exe's. */
static void bench_path(char *out, size_t size)
{
	char self[PATH_MAX];
	const char *dir = NULL;
	ssize_t n;

	if (strchr(cli_progname, '/')) {
		snprintf(self, sizeof(self), "%s", cli_progname);
		dir = self;
	} else if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		dir = self;
	}
	if (dir && strrchr(self, '/')) {
		*strrchr(self, '/') = '\0';
		snprintf(out, size, "%s/%s", self, BENCH_NAME);
		if (!access(out, X_OK))
			return;
	}
	snprintf(out, size, "%s", BENCH_NAME);	/* $PATH */
}

int cmd_bench(int argc, char **argv)
{
	char path[PATH_MAX + 32];
	char **args;
	pid_t pid;
	int status, err;

	if (argc && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")))
		return cli_usage("bench", stdout, 0);
	if (argc && !strcmp(argv[0], "--version"))
		return cli_version();
	bench_path(path, sizeof(path));
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args) {
		fprintf(stderr, "tilecopy: bench: out of memory\n");
		return 1;
	}
	args[0] = path;
	memcpy(args + 1, argv, sizeof(*args) * (size_t)argc);
	fflush(stdout);
	err = strchr(path, '/') ? posix_spawn(&pid, path, NULL, NULL, args, environ) :
		posix_spawnp(&pid, path, NULL, NULL, args, environ);
	free(args);
	if (err) {
		fprintf(stderr, "tilecopy: bench: cannot run %s: %s (the benchmark is a program of its own, built with oneDNN: make bench, or install it next to tilecopy)\n",
			path, strerror(err));
		return 1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		fprintf(stderr, "tilecopy: bench: %s did not start; it needs oneDNN (libdnnl) and its OpenMP runtime at run time\n",
			path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
