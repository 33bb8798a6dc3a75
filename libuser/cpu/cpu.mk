# CPU executors. Per-object flags: OBJ_FLAGS_<basename> (e.g. exec_avx2).
CPU_SRCS += libuser/cpu/exec_scalar.c libuser/cpu/desc_check.c libuser/cpu/dispatch.c
