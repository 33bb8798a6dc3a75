/* SPDX-License-Identifier: MIT */
/*
 * exec_isa.h - the SIMD executors dispatch.c chooses from (internal).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TILECOPY_CPU_EXEC_ISA_H
#define TILECOPY_CPU_EXEC_ISA_H

#include "cpu/cpu_exec.h"

#if defined(__x86_64__)
extern const struct tc_cpu_backend tc_backend_sse2;
extern const struct tc_cpu_backend tc_backend_avx2;
extern const struct tc_cpu_backend tc_backend_avx512;
#endif
#if defined(__aarch64__)
extern const struct tc_cpu_backend tc_backend_neon;
#endif

#endif /* TILECOPY_CPU_EXEC_ISA_H */
