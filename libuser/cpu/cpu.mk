# CPU executors. Per-object flags: OBJ_FLAGS_<basename> (e.g. exec_avx2).
# The scalar reference and dispatch build everywhere; the SIMD executors
# only for their architecture (CC's target decides).
CPU_ARCH := $(shell $(CC) -dumpmachine 2>/dev/null | cut -d- -f1)

CPU_SRCS += libuser/cpu/exec_scalar.c libuser/cpu/desc_check.c libuser/cpu/dispatch.c \
	    libuser/cpu/pattern.c libuser/cpu/pool.c libuser/cpu/exec_typed.c \
	    libuser/cpu/pattern_typed.c
ifeq ($(CPU_ARCH),x86_64)
CPU_SRCS += libuser/cpu/exec_sse2.c libuser/cpu/exec_avx2.c libuser/cpu/exec_avx512.c
endif
ifeq ($(CPU_ARCH),aarch64)
CPU_SRCS += libuser/cpu/exec_neon.c
endif

OBJ_FLAGS_exec_sse2   := -msse2
OBJ_FLAGS_exec_avx2   := -mavx2
OBJ_FLAGS_exec_avx512 := -mavx512f -mavx512bw -mavx512vl

# Element conversion (cvt*.c, docs/dtype-conversion.md). Every file builds on
# every architecture (the ISA ones are empty elsewhere), so the aarch64 build
# of tests/simd/simd.mk, which takes this source list, needs no change.
# No FMA contraction anywhere: each step must round as the reference's does.
CPU_SRCS += libuser/cpu/cvt.c libuser/cpu/cvt_scalar.c libuser/cpu/cvt_desc.c libuser/cpu/cvt_avx2.c \
	    libuser/cpu/cvt_avx512.c libuser/cpu/cvt_neon.c libuser/cpu/cvt_neon_bf16.c
OBJ_FLAGS_cvt            := -ffp-contract=off
OBJ_FLAGS_cvt_scalar     := -ffp-contract=off
OBJ_FLAGS_cvt_desc       := -ffp-contract=off
OBJ_FLAGS_cvt_neon       := -ffp-contract=off
OBJ_FLAGS_cvt_neon_bf16  := -ffp-contract=off
ifeq ($(CPU_ARCH),x86_64)
OBJ_FLAGS_cvt_avx2   := -mavx2 -mf16c -ffp-contract=off
OBJ_FLAGS_cvt_avx512 := -mavx512f -mavx512bw -mavx512vl -mf16c -ffp-contract=off
endif
