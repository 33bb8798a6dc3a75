// SPDX-License-Identifier: MIT
/*
 * replay.c - run a fuzz target's inputs without libFuzzer: every file named
 * on the command line, or every file in a named directory, once. Built with
 * the ordinary compiler against the ordinary library, so the corpora can be
 * replayed under valgrind (make check-valgrind) and on any machine.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static long replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f) {
		perror(path);
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(2);
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 1;
}

int main(int argc, char **argv)
{
	long runs = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			runs += replay_file(argv[i]);
			continue;
		}
		struct dirent **names;
		int n = scandir(argv[i], &names, NULL, alphasort);

		for (int k = 0; k < n; k++) {
			char path[4096];

			if (names[k]->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
				runs += replay_file(path);
			}
			free(names[k]);
		}
		free(names);
	}
	printf("replay: %ld inputs, no failed check\n", runs);
	return 0;
}
