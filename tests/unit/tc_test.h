/* SPDX-License-Identifier: MIT */
/* tc_test.h - helpers shared by the Check unit tests. */
#ifndef TC_TEST_H
#define TC_TEST_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tilecopy/tilecopy.h"
#include "tilecopy_accel.h"
/* White-box: the value-level API under the handles (libuser/internal.h). */
#include "internal.h"
#include "plan_internal.h"

/* Assert a call succeeded, printing the library's message if not. */
#define TC_OK(call) do { \
	tilecopy_status_t st_ = (call); \
	ck_assert_msg(st_ == TILECOPY_SUCCESS, "%s -> %s: %s", #call, \
		      tilecopy_status_str(st_), tilecopy_last_error()); \
} while (0)

/* Assert a call failed with @want and its message contains @needle. */
#define TC_FAILS(call, want, needle) do { \
	tilecopy_status_t st_ = (call); \
	ck_assert_msg(st_ == (want), "%s -> %s (want %s): %s", #call, \
		      tilecopy_status_str(st_), tilecopy_status_str(want), \
		      tilecopy_last_error()); \
	ck_assert_msg(strstr(tilecopy_last_error(), (needle)) != NULL, \
		      "message '%s' lacks '%s'", tilecopy_last_error(), (needle)); \
} while (0)

static inline uint64_t tc_rand(uint64_t *s)
{
	/* xorshift64*: reproducible across runs and machines. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Run a suite; exit status for make. */
/*
 * Random iterations of a test: @full, or a tenth of them under
 * TC_TEST_QUICK (check-valgrind runs every unit test under memcheck, where
 * a tenth finds the same invalid accesses at a tenth of the time).
 */
static inline int tc_iters(int full)
{
	return getenv("TC_TEST_QUICK") && full >= 10 ? full / 10 : full;
}

static inline int tc_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
