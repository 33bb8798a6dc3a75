/* SPDX-License-Identifier: MIT */
/*
 * onednn_exec.h - the oneDNN side of the comparison tests: one CPU engine
 * and stream per test program, and a reorder primitive run over caller
 * buffers. Shared by test_cvt_onednn.c and test_reorder_onednn.c.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TC_ONEDNN_EXEC_H
#define TC_ONEDNN_EXEC_H

#include <check.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>

static dnnl_engine_t eng;
static dnnl_stream_t strm;

/* The CPU engine and its stream; false (said on stderr) without them. */
static inline int onednn_open(void)
{
	if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success ||
	    dnnl_stream_create(&strm, eng, dnnl_stream_default_flags) != dnnl_success) {
		fprintf(stderr, "oneDNN: no CPU engine\n");
		return 0;
	}
	return 1;
}

/* Run the reorder @prim from @src (described by @smd) into @dst (@dmd). */
static inline void onednn_exec(dnnl_primitive_t prim, const dnnl_memory_desc_t *smd,
			       const dnnl_memory_desc_t *dmd, void *src, void *dst)
{
	dnnl_memory_t sm, dm;
	dnnl_exec_arg_t args[2];

	ck_assert_int_eq(dnnl_memory_create(&sm, smd, eng, src), dnnl_success);
	ck_assert_int_eq(dnnl_memory_create(&dm, dmd, eng, dst), dnnl_success);
	args[0] = (dnnl_exec_arg_t){ DNNL_ARG_FROM, sm };
	args[1] = (dnnl_exec_arg_t){ DNNL_ARG_TO, dm };
	ck_assert_int_eq(dnnl_primitive_execute(prim, strm, 2, args), dnnl_success);
	ck_assert_int_eq(dnnl_stream_wait(strm), dnnl_success);
	dnnl_memory_destroy(sm);
	dnnl_memory_destroy(dm);
}

#endif /* TC_ONEDNN_EXEC_H */
