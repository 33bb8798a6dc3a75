/* SPDX-License-Identifier: MIT */
/*
 * bench.h - the CPU benchmark: tilecopy's CPU path side by side with
 * memcpy, oneDNN's reorder and a naive loop (bench/bench.c).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TILECOPY_BENCH_H
#define TILECOPY_BENCH_H

/**
 * tc_bench_run - run the benchmark; @argv holds only the options (no
 * program name): [--json] [--threads N] [--reps N] [--case NAME]
 * [--cpu NAME] [--all-cpus] [--huge-pages] [--list], or a custom case with
 * --from FMT --to FMT --shape S [--dtype T] (oneDNN then by strided view).
 * @return 0, 1 on a failure (a wrong result included), 2 on a usage error.
 */
int tc_bench_run(int argc, char **argv);

#endif /* TILECOPY_BENCH_H */
