// SPDX-License-Identifier: MIT
/*
 * test_device.c - the SDK's device backend, in a guest with tilecopy engines
 * (tests/sdk/run.sh boots it). TC_SDK_MODE selects the run:
 *   normal  every layout pair on the engine bit-exact with the CPU path,
 *           pipelined jobs, splitting across queues, PRIME, bad arguments;
 *           tilecopy_convert on the caller's pages (userptr BOs) and its
 *           fallbacks to staging (pin refused, RLIMIT_MEMLOCK, in place)
 *   fault   the engine injects a DMA error: the SDK reports it with the
 *           plan's descriptor and the address, every later wait says the
 *           same (sticky), and the device keeps working
 *   reset   every job of queue 0 hangs (hang-queue-mask=0x1): a wait with a
 *           short deadline says TIMEOUT (not final), then RESET, for good
 *   nodev   no module loaded: discovery finds nothing, the CPU path is used
 * Exits 77 (skip) when the mode needs an engine and there is none, unless
 * TC_REQUIRE_DEVICE is set.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <xf86drm.h>

#include "tilecopy/device.h"
#include "../unit/tc_test.h"

static const char *mode(void)
{
	const char *m = getenv("TC_SDK_MODE");

	return m ? m : "normal";
}

/*
 * The first engine's node: an accel node, or a render node on a kernel
 * without the accel core (Debian's arm64 6.12). The guests have no other
 * DRM device.
 */
static const char *first_node(void)
{
	return access("/dev/accel", F_OK) ? "/dev/dri/renderD128" : "/dev/accel/accel0";
}

static tilecopy_device_t *open_dev(void)
{
	tilecopy_device_t *dev;

	TC_OK(tilecopy_device_open(&dev, "auto"));
	return dev;
}

static void make(tilecopy_tensor_t **t, const char *fmt, const char *shape,
		 tilecopy_dtype_t dt)
{
	int64_t s[TILECOPY_MAX_RANK];
	int rank;

	TC_OK(tilecopy_shape_parse(s, &rank, TILECOPY_MAX_RANK, shape));
	TC_OK(tilecopy_tensor_create(t, fmt, s, rank, dt, NULL, 0));
}

/* A counter of the device's sysfs directory (driver/tilecopy_sysfs.c). */
static uint64_t dev_counter(tilecopy_device_t *dev, const char *name)
{
	struct tilecopy_device_info info = { .struct_size = sizeof(info) };
	char path[160];
	unsigned long long v = 0;
	FILE *f;

	TC_OK(tilecopy_device_query(dev, &info));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", info.pci_slot, name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: %m", path);
	ck_assert_int_eq(fscanf(f, "%llu", &v), 1);
	fclose(f);
	return v;
}

/* The 1.0 getters return a status. */
static uint64_t plan_src(const tilecopy_plan_t *plan)
{
	uint64_t b = 0;

	TC_OK(tilecopy_plan_src_bytes(plan, &b));
	return b;
}

static uint64_t plan_dst(const tilecopy_plan_t *plan)
{
	uint64_t b = 0;

	TC_OK(tilecopy_plan_dst_bytes(plan, &b));
	return b;
}

static void fill_random(unsigned char *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)tc_rand(&seed);
}

START_TEST(test_info)
{
	struct tilecopy_device_info info = { .struct_size = sizeof(info) };
	tilecopy_device_t *dev;
	int n;

	TC_OK(tilecopy_device_count(&n));
	ck_assert_int_ge(n, 1);
	dev = open_dev();
	TC_OK(tilecopy_device_query(dev, &info));
	ck_assert_str_eq(info.path, first_node());
	ck_assert_int_ne(info.pci_slot[0], 0);
	ck_assert_uint_ge(info.num_queues, 1);
	ck_assert_uint_eq(info.max_dims, DRM_TILECOPY_MAX_DIMS);
	ck_assert_uint_eq(info.max_descs, 16384);
	ck_assert_uint_ne(info.fw_version, 0);
	ck_assert_uint_eq(info.abi_version >> 16, DRM_TILECOPY_ABI_VERSION >> 16);
	tilecopy_device_close(dev);
}
END_TEST

static const char *const fmt4[] = { "NCHW", "NHWC", "CHWN", "nChw16c", "NCHW4",
				     "NC1HWC0", "CHWN4", NULL };
static const char *const fmtm[] = { "RowMajor", "ColumnMajor", "zN", "zZ", "nZ",
				    "nN", NULL };

/* Convert on the engine and on the CPU (scalar); compare every byte. */
static void check_pair(tilecopy_device_t *dev, const tilecopy_tensor_t *s,
		       const tilecopy_tensor_t *d)
{
	tilecopy_plan_t *plan;
	unsigned char *in, *dv, *cpu;
	uint64_t sb, db;
	int used = 0;

	TC_OK(tilecopy_plan_create(&plan, s, d, 0));
	sb = plan_src(plan);
	db = plan_dst(plan);
	in = malloc(sb);
	dv = malloc(db);
	cpu = malloc(db);
	fill_random(in, sb, sb * 31 + db);
	memset(dv, 0xa5, db);
	TC_OK(tilecopy_convert(dev, plan, in, sb, dv, db, &used));
	ck_assert_int_eq(used, 1);
	TC_OK(tilecopy_plan_execute_cpu(plan, in, sb, cpu, db, "scalar"));
	ck_assert_msg(!memcmp(dv, cpu, db), "%s -> %s: engine differs from CPU",
		      s->format, d->format);
	free(in);
	free(dv);
	free(cpu);
	tilecopy_plan_destroy(plan);
}

START_TEST(test_all_pairs)
{
	static const tilecopy_dtype_t dts[] = { TILECOPY_DT_I8, TILECOPY_DT_F16,
						TILECOPY_DT_F32, TILECOPY_DT_F64 };
	tilecopy_device_t *dev = open_dev();
	int pairs = 0;

	setenv("TILECOPY_DEVICE_THRESHOLD", "0", 1);	/* always the engine */
	for (size_t t = 0; t < 4; t++) {
		for (const char *const *a = fmt4; *a; a++)
			for (const char *const *b = fmt4; *b; b++) {
				tilecopy_tensor_t *s, *d;

				make(&s, *a, "2x19x5x7", dts[t]);
				make(&d, *b, "2x19x5x7", dts[t]);
				check_pair(dev, s, d);
				pairs++;
			}
		for (const char *const *a = fmtm; *a; a++)
			for (const char *const *b = fmtm; *b; b++) {
				tilecopy_tensor_t *s, *d;

				make(&s, *a, "2x33x40", dts[t]);
				make(&d, *b, "2x33x40", dts[t]);
				check_pair(dev, s, d);
				pairs++;
			}
	}
	ck_assert_int_eq(pairs, 4 * (7 * 7 + 6 * 6));
	tilecopy_device_close(dev);
}
END_TEST

START_TEST(test_strided_views)
{
	tilecopy_device_t *dev = open_dev();
	tilecopy_tensor_t *s, *d;

	setenv("TILECOPY_DEVICE_THRESHOLD", "0", 1);
	make(&s, "strided:0,1", "17x9", TILECOPY_DT_F32);	/* broadcast */
	make(&d, "strided:16,1", "17x9", TILECOPY_DT_F32);	/* padded rows */
	check_pair(dev, s, d);
	make(&s, "((2,3),4):((1,2),6)", "6x4", TILECOPY_DT_I8);
	make(&d, "((3,2),4):((4,1),6)", "6x4", TILECOPY_DT_I8);
	check_pair(dev, s, d);
	tilecopy_device_close(dev);
}
END_TEST

/*
 * Rows longer than the driver takes in one descriptor (E2BIG past
 * DRM_TILECOPY_MAX_ROW_ELEMS elements, or DRM_TILECOPY_MAX_ROW_BYTES when
 * contiguous on both sides), submitted to one queue so no split over the
 * queues shortens them: the library cuts them; the result is the CPU's.
 */
START_TEST(test_long_rows)
{
	static const char *const pairs[][3] = {
		{ "strided:2", "strided:1", "3145728" },	/* a gather, 3 Mi elements */
		{ "strided:0", "strided:1", "3145728" },	/* a broadcast */
		{ "RowMajor", "RowMajor", "16896x4096" },	/* 66 MiB contiguous */
	};
	tilecopy_device_t *dev = open_dev();

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct tilecopy_buffer_ref sr = { 0 }, dr = { 0 };
		tilecopy_tensor_t *s, *d;
		tilecopy_plan_t *plan;
		unsigned char *cpu;
		tilecopy_job_t *job;
		void *sp, *dp;
		uint64_t sb, db;

		make(&s, pairs[i][0], pairs[i][2], TILECOPY_DT_U8);
		make(&d, pairs[i][1], pairs[i][2], TILECOPY_DT_U8);
		TC_OK(tilecopy_plan_create(&plan, s, d, 0));
		sb = plan_src(plan);
		db = plan_dst(plan);
		TC_OK(tilecopy_bo_create(&sr.bo, dev, sb, TILECOPY_BO_READ_ONLY));
		TC_OK(tilecopy_bo_create(&dr.bo, dev, db, 0));
		TC_OK(tilecopy_bo_map(sr.bo, &sp));
		TC_OK(tilecopy_bo_map(dr.bo, &dp));
		fill_random(sp, sb, sb + i);
		TC_OK(tilecopy_job_submit(&job, dev, plan, &sr, &dr, TILECOPY_SUBMIT_ONE_QUEUE));
		TC_OK(tilecopy_job_wait(job, 60LL * 1000000000));
		cpu = malloc(db);
		TC_OK(tilecopy_plan_execute_cpu(plan, sp, sb, cpu, db, "scalar"));
		ck_assert_msg(!memcmp(dp, cpu, db), "%s -> %s %s: engine differs from CPU",
			      pairs[i][0], pairs[i][1], pairs[i][2]);
		free(cpu);
		tilecopy_job_destroy(job);
		tilecopy_bo_free(sr.bo);
		tilecopy_bo_free(dr.bo);
		tilecopy_plan_destroy(plan);
		tilecopy_tensor_destroy(s);
		tilecopy_tensor_destroy(d);
	}
	tilecopy_device_close(dev);
}
END_TEST

/*
 * The first engine's live BOs (sysfs bos): staging BOs stay between calls;
 * a userptr BO goes when its job is freed, just after the job finished.
 */
static long long live_bos_now(void)
{
	const char *node = strrchr(first_node(), '/') + 1;
	char path[128];
	long long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/%s/%s/device/bos",
		 strncmp(node, "accel", 5) ? "drm" : "accel", node);
	f = fopen(path, "r");
	ck_assert_msg(f, "no %s", path);
	ck_assert_int_eq(fscanf(f, "%lld", &n), 1);
	fclose(f);
	return n;
}

/* live_bos_now() once it is @want, or after 10 s. */
static long long live_bos(long long want)
{
	long long n;

	for (int i = 0; (n = live_bos_now()) != want && i < 1000; i++)
		usleep(10000);
	return n;
}

/* tilecopy_convert of @plan from @in to @out on @dev, checked against the CPU. */
static void convert_checked(tilecopy_device_t *dev, const tilecopy_plan_t *plan,
			    const unsigned char *in, unsigned char *out, const char *what)
{
	uint64_t sb = plan_src(plan), db = plan_dst(plan);
	unsigned char *ref = malloc(db);
	int used = 0;

	TC_OK(tilecopy_plan_execute_cpu(plan, in, sb, ref, db, "scalar"));
	memset(out, 0xa5, db);
	TC_OK(tilecopy_convert(dev, plan, in, sb, out, db, &used));
	ck_assert_int_eq(used, 1);
	ck_assert_msg(!memcmp(out, ref, db), "%s: engine differs from CPU", what);
	free(ref);
}

/*
 * tilecopy_convert pins the caller's buffers (userptr BOs, FEATURES bit 4)
 * and converts in place: bit-exact at odd offsets over many pages, and no
 * staging BO appears. TILECOPY_USERPTR=0 stages; another value is refused.
 * Where a pin is refused for a reason staging avoids (the source is a BO's
 * own mmap: EFAULT), or the buffers overlap, the call stages and is as
 * exact.
 */
START_TEST(test_userptr_convert)
{
	struct drm_tilecopy_get_param gp = { .param = DRM_TILECOPY_PARAM_FEATURES };
	tilecopy_device_t *dev = open_dev();
	tilecopy_tensor_t *s, *d;
	tilecopy_plan_t *plan;
	unsigned char *in, *out;
	tilecopy_bo_t *bo;
	long long base;
	uint64_t sb, db;
	void *bp;

	ck_assert_int_eq(drmIoctl(tilecopy_device_fd(dev), DRM_IOCTL_TILECOPY_GET_PARAM, &gp), 0);
	ck_assert(gp.value & DRM_TILECOPY_FEATURE_USERPTR);
	setenv("TILECOPY_DEVICE_THRESHOLD", "0", 1);
	base = live_bos_now();
	make(&s, "NCHW", "3x19x33x65", TILECOPY_DT_F32);	/* 478 KiB, 118 pages */
	make(&d, "nChw16c", "3x19x33x65", TILECOPY_DT_F32);	/* C padded: zeroes */
	TC_OK(tilecopy_plan_create(&plan, s, d, 0));
	sb = plan_src(plan);
	db = plan_dst(plan);
	in = malloc(sb + 4096 + 7);
	out = malloc(db + 4096 + 5);
	for (size_t so = 0; so <= 4099; so += 4099) {
		fill_random(in + so, sb, so + 1);
		convert_checked(dev, plan, in + so, out + (so ? 4101 : 0), "userptr");
	}
	ck_assert_int_eq(live_bos(base), base);	/* pinned, not staged */
	setenv("TILECOPY_USERPTR", "yes", 1);
	TC_FAILS(tilecopy_convert(dev, plan, in, sb, out, db, NULL), TILECOPY_ERR_INVALID_ARG,
		 "TILECOPY_USERPTR");
	setenv("TILECOPY_USERPTR", "0", 1);
	convert_checked(dev, plan, in, out, "TILECOPY_USERPTR=0");
	ck_assert_int_eq(live_bos(base + 2), base + 2);	/* staged */
	unsetenv("TILECOPY_USERPTR");

	/* the source in a BO's mmap cannot be pinned (EFAULT): staged */
	TC_OK(tilecopy_bo_create(&bo, dev, sb, 0));
	TC_OK(tilecopy_bo_map(bo, &bp));
	fill_random(bp, sb, 9);
	convert_checked(dev, plan, bp, out, "source in a BO's mmap");
	ck_assert_int_eq(live_bos(base + 3), base + 3);	/* that BO and the staging BOs */
	tilecopy_bo_free(bo);
	tilecopy_plan_destroy(plan);

	/* in place: a transpose of a square matrix onto itself, staged */
	make(&s, "RowMajor", "256x256", TILECOPY_DT_F32);
	make(&d, "ColumnMajor", "256x256", TILECOPY_DT_F32);
	TC_OK(tilecopy_plan_create(&plan, s, d, 0));
	{
		size_t n = plan_src(plan);
		unsigned char *buf = malloc(n), *ref = malloc(n);

		fill_random(buf, n, 11);
		TC_OK(tilecopy_plan_execute_cpu(plan, buf, n, ref, n, "scalar"));
		TC_OK(tilecopy_convert(dev, plan, buf, n, buf, n, NULL));
		ck_assert(!memcmp(buf, ref, n));
		free(buf);
		free(ref);
	}
	tilecopy_plan_destroy(plan);
	free(in);
	free(out);
	tilecopy_device_close(dev);
}
END_TEST

/*
 * Without CAP_IPC_LOCK and with RLIMIT_MEMLOCK below the buffers, the pin
 * is refused (ENOMEM): tilecopy_convert stages, as exactly; with a limit
 * that allows them it pins again.
 */
START_TEST(test_userptr_rlimit)
{
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
		struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3];
		struct rlimit rl = { 64 * 1024, 64 * 1024 };
		tilecopy_device_t *dev;
		tilecopy_tensor_t *s, *d;
		tilecopy_plan_t *plan;
		unsigned char *in, *out;
		long long base;

		if (syscall(SYS_capget, &h, c))
			_exit(2);
		c[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
		if (syscall(SYS_capset, &h, c) || setrlimit(RLIMIT_MEMLOCK, &rl))
			_exit(3);
		setenv("TILECOPY_DEVICE_THRESHOLD", "0", 1);
		dev = open_dev();
		base = live_bos_now();
		make(&s, "NCHW", "1x32x64x64", TILECOPY_DT_F32);	/* 512 KiB each way */
		make(&d, "NHWC", "1x32x64x64", TILECOPY_DT_F32);
		TC_OK(tilecopy_plan_create(&plan, s, d, 0));
		in = malloc(plan_src(plan));
		out = malloc(plan_dst(plan));
		fill_random(in, plan_src(plan), 13);
		convert_checked(dev, plan, in, out, "over RLIMIT_MEMLOCK");
		if (live_bos(base + 2) != base + 2)	/* staged */
			_exit(4);
		tilecopy_device_close(dev);
		tilecopy_plan_destroy(plan);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && !WEXITSTATUS(st), "child status 0x%x", st);
}
END_TEST

/* Many jobs in flight before the first wait; then all verified. */
START_TEST(test_pipelined)
{
	enum { NJOBS = 24 };
	tilecopy_device_t *dev = open_dev();
	tilecopy_bo_t *sb[NJOBS], *db[NJOBS];
	tilecopy_job_t *job[NJOBS];
	tilecopy_tensor_t *s, *d;
	tilecopy_plan_t *plan;
	unsigned char *ref;
	uint64_t ss, ds;

	make(&s, "NCHW", "1x32x16x16", TILECOPY_DT_F16);
	make(&d, "NHWC", "1x32x16x16", TILECOPY_DT_F16);
	TC_OK(tilecopy_plan_create(&plan, s, d, 0));
	ss = plan_src(plan);
	ds = plan_dst(plan);
	ref = malloc(ds);
	for (int i = 0; i < NJOBS; i++) {
		struct tilecopy_buffer_ref sr, dr;
		void *p;

		TC_OK(tilecopy_bo_create(&sb[i], dev, ss, TILECOPY_BO_READ_ONLY));
		TC_OK(tilecopy_bo_create(&db[i], dev, ds, 0));
		TC_OK(tilecopy_bo_map(sb[i], &p));
		fill_random(p, ss, (uint64_t)i + 1);
		sr.bo = sb[i], sr.offset = 0;
		dr.bo = db[i], dr.offset = 0;
		TC_OK(tilecopy_job_submit(&job[i], dev, plan, &sr, &dr, 0));
	}
	for (int i = 0; i < NJOBS; i++) {
		void *sp, *dp;

		TC_OK(tilecopy_job_wait(job[i], 30LL * 1000000000));
		TC_OK(tilecopy_bo_map(sb[i], &sp));
		TC_OK(tilecopy_bo_map(db[i], &dp));
		TC_OK(tilecopy_plan_execute_cpu(plan, sp, ss, ref, ds, "scalar"));
		ck_assert_msg(!memcmp(dp, ref, ds), "job %d differs", i);
		tilecopy_job_destroy(job[i]);
		tilecopy_bo_free(sb[i]);
		tilecopy_bo_free(db[i]);
	}
	free(ref);
	tilecopy_plan_destroy(plan);
	tilecopy_device_close(dev);
}
END_TEST

/* A plan above the split size goes to every queue; offsets inside BOs. */
START_TEST(test_split_and_offsets)
{
	tilecopy_device_t *dev = open_dev();
	struct tilecopy_buffer_ref sr, dr;
	tilecopy_tensor_t *s, *d;
	tilecopy_plan_t *plan;
	tilecopy_bo_t *sbo, *dbo;
	tilecopy_job_t *job;
	unsigned char *sp, *dp, *ref;
	uint64_t ss, ds;

	make(&s, "NCHW", "2x64x32x32", TILECOPY_DT_F32);	/* 1 MiB: split */
	make(&d, "nChw16c", "2x64x32x32", TILECOPY_DT_F32);
	TC_OK(tilecopy_plan_create(&plan, s, d, 0));
	ss = plan_src(plan);
	ds = plan_dst(plan);
	TC_OK(tilecopy_bo_create(&sbo, dev, ss + 4096 + 3, 0));
	TC_OK(tilecopy_bo_create(&dbo, dev, ds + 100, 0));
	TC_OK(tilecopy_bo_map(sbo, (void **)&sp));
	TC_OK(tilecopy_bo_map(dbo, (void **)&dp));
	fill_random(sp, ss + 4099, 5);
	memset(dp, 0x11, ds + 100);
	sr.bo = sbo, sr.offset = 4099;		/* unaligned on purpose */
	dr.bo = dbo, dr.offset = 100;
	TC_OK(tilecopy_job_submit(&job, dev, plan, &sr, &dr, 0));
	TC_OK(tilecopy_job_wait(job, 60LL * 1000000000));
	ref = malloc(ds);
	TC_OK(tilecopy_plan_execute_cpu(plan, sp + 4099, ss, ref, ds, "scalar"));
	ck_assert(!memcmp(dp + 100, ref, ds));
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(dp[i], 0x11);	/* before the offset: untouched */
	tilecopy_job_destroy(job);
	/* a destination too small for the plan is refused before submitting */
	dr.offset = 101;
	TC_FAILS(tilecopy_job_submit(&job, dev, plan, &sr, &dr, 0),
		 TILECOPY_ERR_BUFFER_TOO_SMALL, "dst: offset 101");
	free(ref);
	tilecopy_bo_free(sbo);
	tilecopy_bo_free(dbo);
	tilecopy_plan_destroy(plan);
	tilecopy_device_close(dev);
}
END_TEST

/* A BO exported as dma-buf and imported on a second open file. */
START_TEST(test_prime)
{
	tilecopy_device_t *a = open_dev(), *b = open_dev();
	struct tilecopy_buffer_ref sr, dr;
	tilecopy_bo_t *sbo, *imp, *dbo;
	tilecopy_tensor_t *s, *d;
	tilecopy_plan_t *plan;
	tilecopy_job_t *job;
	unsigned char *sp, *dp, *ref;
	int fd;

	make(&s, "RowMajor", "40x24", TILECOPY_DT_F16);
	make(&d, "zN", "40x24", TILECOPY_DT_F16);
	TC_OK(tilecopy_plan_create(&plan, s, d, 0));
	TC_OK(tilecopy_bo_create(&sbo, a, plan_src(plan), 0));
	TC_OK(tilecopy_bo_map(sbo, (void **)&sp));
	fill_random(sp, plan_src(plan), 9);
	TC_OK(tilecopy_bo_export(sbo, &fd));
	TC_OK(tilecopy_bo_import(&imp, b, fd));
	close(fd);
	{
		size_t isz = 0;

		TC_OK(tilecopy_bo_size(imp, &isz));
		ck_assert_uint_ge(isz, plan_src(plan));
	}
	TC_OK(tilecopy_bo_create(&dbo, b, plan_dst(plan), 0));
	sr.bo = imp, sr.offset = 0;
	dr.bo = dbo, dr.offset = 0;
	TC_OK(tilecopy_job_submit(&job, b, plan, &sr, &dr, 0));
	TC_OK(tilecopy_job_wait(job, 30LL * 1000000000));
	TC_OK(tilecopy_bo_map(dbo, (void **)&dp));
	ref = malloc(plan_dst(plan));
	TC_OK(tilecopy_plan_execute_cpu(plan, sp, plan_src(plan), ref,
					plan_dst(plan), "scalar"));
	ck_assert(!memcmp(dp, ref, plan_dst(plan)));
	/* a BO of one device cannot be used with another open file */
	sr.bo = sbo;
	TC_FAILS(tilecopy_job_submit(&job, b, plan, &sr, &dr, 0),
		 TILECOPY_ERR_INVALID_ARG, "another device");
	free(ref);
	tilecopy_bo_free(dbo);
	tilecopy_bo_free(imp);
	tilecopy_bo_free(sbo);
	tilecopy_plan_destroy(plan);
	tilecopy_device_close(b);
	tilecopy_device_close(a);
}
END_TEST

static uint64_t jobs_done(tilecopy_device_t *dev)
{
	struct tilecopy_device_info info = { .struct_size = sizeof(info) };
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	TC_OK(tilecopy_device_query(dev, &info));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/jobs_done", info.pci_slot);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s missing", path);
	ck_assert_int_eq(fscanf(f, "%llu", &v), 1);
	fclose(f);
	return v;
}

/* Two engines share one conversion through dma-buf staging. */
START_TEST(test_multi_device)
{
	tilecopy_device_t *devs[2];
	tilecopy_tensor_t *s, *d;
	tilecopy_plan_t *plan;
	unsigned char *in, *dv, *cpu;
	uint64_t sb, db, before0, before1;
	int n, used = 0;

	TC_OK(tilecopy_device_count(&n));
	if (n < 2) {
		/* a single-engine run has nothing to split over, unless the
		 * harness said it booted more (TC_EXPECT_DEVICES) */
		const char *e = getenv("TC_EXPECT_DEVICES");

		ck_assert_msg(!e || atoi(e) < 2, "expected %s engines, found %d", e, n);
		return;
	}
	TC_OK(tilecopy_device_open(&devs[0], "0"));
	TC_OK(tilecopy_device_open(&devs[1], "1"));
	make(&s, "NCHW", "4x64x32x32", TILECOPY_DT_F32);
	make(&d, "NC1HWC0", "4x64x32x32", TILECOPY_DT_F32);
	TC_OK(tilecopy_plan_create(&plan, s, d, 0));
	sb = plan_src(plan);
	db = plan_dst(plan);
	in = malloc(sb);
	dv = malloc(db);
	cpu = malloc(db);
	fill_random(in, sb, 77);
	before0 = jobs_done(devs[0]);
	before1 = jobs_done(devs[1]);
	TC_OK(tilecopy_convert_multi(devs, 2, plan, in, sb, dv, db, &used));
	ck_assert_int_eq(used, 2);
	ck_assert_uint_gt(jobs_done(devs[0]), before0);
	ck_assert_uint_gt(jobs_done(devs[1]), before1);
	TC_OK(tilecopy_plan_execute_cpu(plan, in, sb, cpu, db, "scalar"));
	ck_assert(!memcmp(dv, cpu, db));
	free(in);
	free(dv);
	free(cpu);
	tilecopy_plan_destroy(plan);
	tilecopy_device_close(devs[1]);
	tilecopy_device_close(devs[0]);
}
END_TEST

START_TEST(test_bad_args)
{
	tilecopy_device_t *dev = open_dev(), *none = (tilecopy_device_t *)1;
	tilecopy_bo_t *bo;

	TC_FAILS(tilecopy_bo_create(&bo, dev, 0, 0), TILECOPY_ERR_INVALID_ARG, "size: 0");
	TC_FAILS(tilecopy_bo_create(&bo, dev, 4096, 0x80), TILECOPY_ERR_INVALID_ARG, "flags");
	TC_FAILS(tilecopy_device_open(&none, "7"), TILECOPY_ERR_NO_DEVICE, "index 7");
	ck_assert_ptr_null(none);
	TC_FAILS(tilecopy_device_open(&none, "/dev/accel/accel9"), TILECOPY_ERR_NO_DEVICE,
		 "does not exist");
	TC_FAILS(tilecopy_device_open(&none, "/dev/null"), TILECOPY_ERR_DEVICE,
		 "/dev/null");
	TC_FAILS(tilecopy_device_open(&none, "bogus"), TILECOPY_ERR_INVALID_ARG, "bogus");
	tilecopy_device_close(dev);
}
END_TEST

/* BOs holding a plan's source (random) and destination, and a job on them. */
struct bo_job {
	tilecopy_bo_t *sbo, *dbo;
	unsigned char *sp, *dp;
	struct tilecopy_buffer_ref sr, dr;
};

static void bo_job_init(struct bo_job *b, tilecopy_device_t *dev, const tilecopy_plan_t *plan,
			uint64_t seed)
{
	TC_OK(tilecopy_bo_create(&b->sbo, dev, plan_src(plan), 0));
	TC_OK(tilecopy_bo_create(&b->dbo, dev, plan_dst(plan), 0));
	TC_OK(tilecopy_bo_map(b->sbo, (void **)&b->sp));
	TC_OK(tilecopy_bo_map(b->dbo, (void **)&b->dp));
	fill_random(b->sp, plan_src(plan), seed);
	b->sr.bo = b->sbo, b->sr.offset = 0;
	b->dr.bo = b->dbo, b->dr.offset = 0;
}

static void bo_job_check(struct bo_job *b, const tilecopy_plan_t *plan)
{
	uint64_t ds = plan_dst(plan);
	unsigned char *ref = malloc(ds);

	TC_OK(tilecopy_plan_execute_cpu(plan, b->sp, plan_src(plan), ref, ds,
					"scalar"));
	ck_assert(!memcmp(b->dp, ref, ds));
	free(ref);
}

static void bo_job_fini(struct bo_job *b)
{
	tilecopy_bo_free(b->sbo);
	tilecopy_bo_free(b->dbo);
}

/*
 * The device's fd works with libdrm; a job split over every queue has one
 * fence that covers all its parts; a job waits for input fences given as
 * syncobjs or as sync_files; bad options are refused by name.
 */
START_TEST(test_fences)
{
	tilecopy_device_t *dev = open_dev();
	int fd = tilecopy_device_fd(dev), sync_file;
	drmVersionPtr v = drmGetVersion(fd);
	tilecopy_tensor_t *s, *d;
	tilecopy_plan_t *plan, *back;
	tilecopy_job_t *job, *after;
	struct bo_job a;
	tilecopy_bo_t *again;
	struct tilecopy_buffer_ref ar, br;
	uint32_t sync;
	unsigned char *ap;
	struct tilecopy_submit_opts o = { .size = sizeof(o) };
	uint64_t done, parts;

	ck_assert_int_eq(tilecopy_device_fd(NULL), -1);
	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(v->name, "tilecopy");
	drmFreeVersion(v);
	make(&s, "NCHW", "4x64x32x32", TILECOPY_DT_F32);	/* 2 MiB moved: split */
	make(&d, "NHWC", "4x64x32x32", TILECOPY_DT_F32);
	TC_OK(tilecopy_plan_create(&plan, s, d, 0));
	TC_OK(tilecopy_plan_create(&back, d, s, 0));
	bo_job_init(&a, dev, plan, 21);
	done = dev_counter(dev, "jobs_done");
	TC_OK(tilecopy_job_submit(&job, dev, plan, &a.sr, &a.dr, 0));
	/* the syncobj signals only when every part is done */
	TC_OK(tilecopy_job_syncobj(job, &sync));
	TC_OK(drmSyncobjWait(fd, &sync, 1, INT64_MAX, DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL) ?
	      TILECOPY_ERR_DEVICE : TILECOPY_SUCCESS);
	/*
	 * Every part had finished when the one syncobj signalled, and there
	 * were several: else this proves nothing about merged fences. (The
	 * suite runs alone on the device.)
	 */
	parts = dev_counter(dev, "jobs_done") - done;
	ck_assert_msg(parts >= 2, "the 2 MiB job ran as %llu hardware job(s), not split",
		      (unsigned long long)parts);
	TC_OK(tilecopy_job_wait(job, 0));	/* nothing left to wait for */
	bo_job_check(&a, plan);

	/* NHWC -> NCHW again, after the first job, through each kind of fence */
	TC_OK(tilecopy_bo_create(&again, dev, plan_src(plan), 0));
	TC_OK(tilecopy_bo_map(again, (void **)&ap));
	ar.bo = a.dbo, ar.offset = 0;
	br.bo = again, br.offset = 0;
	for (int kind = 0; kind < 2; kind++) {
		tilecopy_job_t *first;

		memset(a.dp, 0, plan_dst(plan));
		memset(ap, 0, plan_src(plan));
		TC_OK(tilecopy_job_submit(&first, dev, plan, &a.sr, &a.dr, 0));
		TC_OK(tilecopy_job_syncobj(first, &sync));
		if (kind == 0) {
			o.in_syncobjs = &sync;
			o.num_in_syncobjs = 1;
		} else {
			ck_assert_int_eq(drmSyncobjExportSyncFile(fd, sync, &sync_file), 0);
			o.num_in_syncobjs = 0;
			o.in_fences = &sync_file;
			o.num_in_fences = 1;
		}
		TC_OK(tilecopy_job_submit_opts(&after, dev, back, &ar, &br, &o));
		if (kind == 1)
			close(sync_file);
		TC_OK(tilecopy_job_wait(after, 60LL * 1000000000));
		TC_OK(tilecopy_job_wait(first, 0));	/* done before: the input */
		ck_assert(!memcmp(ap, a.sp, plan_src(plan)));
		tilecopy_job_destroy(first);
		tilecopy_job_destroy(after);
	}
	/* bad options, by name */
	o.num_in_fences = 0;
	o.size = 8;
	TC_FAILS(tilecopy_job_submit_opts(&after, dev, back, &ar, &br, &o),
		 TILECOPY_ERR_INVALID_ARG, "opts: size 8");
	{
		/* a newer caller's struct: unknown fields must be zero */
		struct { struct tilecopy_submit_opts o; uint64_t later; } big = { o, 1 };

		big.o.size = sizeof(big);
		TC_FAILS(tilecopy_job_submit_opts(&after, dev, back, &ar, &br, &big.o),
			 TILECOPY_ERR_INVALID_ARG, "beyond the fields");
	}
	o.size = sizeof(o);
	o.flags = 0x80;
	TC_FAILS(tilecopy_job_submit_opts(&after, dev, back, &ar, &br, &o),
		 TILECOPY_ERR_INVALID_ARG, "unknown flags");
	o.flags = 0;
	o.in_fences = &fd;	/* not a sync_file */
	o.num_in_fences = 1;
	TC_FAILS(tilecopy_job_submit_opts(&after, dev, back, &ar, &br, &o),
		 TILECOPY_ERR_INVALID_ARG, "not a sync_file");
	o.num_in_fences = 65;
	TC_FAILS(tilecopy_job_submit_opts(&after, dev, back, &ar, &br, &o),
		 TILECOPY_ERR_INVALID_ARG, "at most 64");
	ck_assert_ptr_null(after);
	tilecopy_job_destroy(job);
	tilecopy_bo_free(again);
	bo_job_fini(&a);
	tilecopy_plan_destroy(plan);
	tilecopy_plan_destroy(back);
	tilecopy_tensor_destroy(s);
	tilecopy_tensor_destroy(d);
	tilecopy_device_close(dev);
}
END_TEST

/*
 * Every job of queue 0 hangs (hang-queue-mask=0x1): a one-queue job of a
 * fresh device handle goes there. A short wait is TIMEOUT (not final);
 * then RESET, and RESET again on every later wait, with the same message.
 */
START_TEST(test_reset_status)
{
	tilecopy_device_t *dev = open_dev();
	tilecopy_tensor_t *s, *d;
	tilecopy_plan_t *plan;
	tilecopy_job_t *job, *next;
	struct bo_job a;
	char msg[512];

	make(&s, "RowMajor", "64x64", TILECOPY_DT_F32);
	make(&d, "ColumnMajor", "64x64", TILECOPY_DT_F32);
	TC_OK(tilecopy_plan_create(&plan, s, d, 0));
	bo_job_init(&a, dev, plan, 33);
	TC_OK(tilecopy_job_submit(&job, dev, plan, &a.sr, &a.dr, TILECOPY_SUBMIT_ONE_QUEUE));
	TC_FAILS(tilecopy_job_wait(job, 1000000), TILECOPY_ERR_TIMEOUT, "not finished by the deadline");
	TC_FAILS(tilecopy_job_wait(job, -1), TILECOPY_ERR_RESET, "hung the engine");
	snprintf(msg, sizeof(msg), "%s", tilecopy_last_error());
	for (int i = 0; i < 3; i++) {
		TC_FAILS(tilecopy_job_wait(job, i ? -1 : 0), TILECOPY_ERR_RESET, "the engine was reset");
		ck_assert_str_eq(tilecopy_last_error(), msg);
	}
	ck_assert_str_eq(tilecopy_status_str(TILECOPY_ERR_RESET), "engine reset");
	/* the next one-queue job goes to queue 1 and runs */
	TC_OK(tilecopy_job_submit(&next, dev, plan, &a.sr, &a.dr, TILECOPY_SUBMIT_ONE_QUEUE));
	TC_OK(tilecopy_job_wait(next, 60LL * 1000000000));
	bo_job_check(&a, plan);
	tilecopy_job_destroy(next);
	tilecopy_job_destroy(job);
	bo_job_fini(&a);
	tilecopy_plan_destroy(plan);
	tilecopy_tensor_destroy(s);
	tilecopy_tensor_destroy(d);
	tilecopy_device_close(dev);
}
END_TEST

/*
 * The engine fails job N with a DMA error (property dma-error-on-job):
 * through jobs first (the failure is sticky), then tilecopy_convert.
 */
START_TEST(test_fault_reported)
{
	tilecopy_device_t *dev = open_dev();
	tilecopy_tensor_t *s, *d;
	tilecopy_plan_t *plan;
	unsigned char *in, *out;
	tilecopy_status_t st = TILECOPY_SUCCESS;
	int faults = 0, good = 0;

	setenv("TILECOPY_DEVICE_THRESHOLD", "0", 1);
	make(&s, "NCHW", "1x16x8x8", TILECOPY_DT_F32);
	make(&d, "NHWC", "1x16x8x8", TILECOPY_DT_F32);
	TC_OK(tilecopy_plan_create(&plan, s, d, 0));
	in = calloc(1, plan_src(plan));
	out = calloc(1, plan_dst(plan));
	/* the injected job is one of the first few: a job's failure is sticky */
	for (int i = 0; i < 3 && !faults; i++) {
		struct bo_job b;
		tilecopy_job_t *job;

		bo_job_init(&b, dev, plan, 40 + i);
		TC_OK(tilecopy_job_submit(&job, dev, plan, &b.sr, &b.dr, 0));
		st = tilecopy_job_wait(job, -1);
		if (st == TILECOPY_ERR_FAULT) {
			char msg[512];

			faults++;
			snprintf(msg, sizeof(msg), "%s", tilecopy_last_error());
			ck_assert_msg(strstr(msg, "DMA error in plan descriptor 0") &&
				      strstr(msg, first_node()), "message: %s", msg);
			for (int w = 0; w < 2; w++) {
				TC_FAILS(tilecopy_job_wait(job, w ? 0 : -1), TILECOPY_ERR_FAULT,
					 "DMA error");
				ck_assert_str_eq(tilecopy_last_error(), msg);
			}
		} else {
			TC_OK(st);
			bo_job_check(&b, plan);
			good++;
		}
		tilecopy_job_destroy(job);
		bo_job_fini(&b);
	}
	ck_assert_int_eq(faults, 1);
	/* every convert after it works */
	for (int i = 0; i < 3; i++) {
		TC_OK(tilecopy_convert(dev, plan, in, plan_src(plan), out, plan_dst(plan),
				       NULL));
		good++;
	}
	ck_assert_int_eq(good, 5);
	free(in);
	free(out);
	tilecopy_plan_destroy(plan);
	tilecopy_device_close(dev);
}
END_TEST

START_TEST(test_no_device_fallback)
{
	tilecopy_device_t *dev = (tilecopy_device_t *)1;
	tilecopy_tensor_t *s, *d;
	tilecopy_plan_t *plan;
	unsigned char in[64 * 4], out[64 * 4];
	int n = -1, used = 1;

	TC_OK(tilecopy_device_count(&n));
	ck_assert_int_eq(n, 0);
	TC_FAILS(tilecopy_device_open(&dev, "auto"), TILECOPY_ERR_NO_DEVICE,
		 "no tilecopy engine found");
	ck_assert_ptr_null(dev);
	make(&s, "RowMajor", "8x8", TILECOPY_DT_F32);
	make(&d, "ColumnMajor", "8x8", TILECOPY_DT_F32);
	TC_OK(tilecopy_plan_create(&plan, s, d, 0));
	fill_random(in, sizeof(in), 3);
	TC_OK(tilecopy_convert(NULL, plan, in, sizeof(in), out, sizeof(out), &used));
	ck_assert_int_eq(used, 0);
	for (int r = 0; r < 8; r++)
		for (int c = 0; c < 8; c++)
			ck_assert(!memcmp(out + 4 * (c * 8 + r), in + 4 * (r * 8 + c), 4));
	tilecopy_plan_destroy(plan);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sdk-device");
	TCase *tc = tcase_create(mode());
	int n = 0;

	tcase_set_timeout(tc, 600);
	if (strcmp(mode(), "nodev")) {
		if (tilecopy_device_count(&n) || !n) {
			fprintf(stderr, "test_device: no tilecopy engine in this machine\n");
			return getenv("TC_REQUIRE_DEVICE") ? 1 : 77;
		}
	}
	if (!strcmp(mode(), "normal")) {
		tcase_add_test(tc, test_info);
		tcase_add_test(tc, test_all_pairs);
		tcase_add_test(tc, test_strided_views);
		tcase_add_test(tc, test_long_rows);
		tcase_add_test(tc, test_pipelined);
		tcase_add_test(tc, test_split_and_offsets);
		tcase_add_test(tc, test_prime);
		tcase_add_test(tc, test_multi_device);
		tcase_add_test(tc, test_bad_args);
		tcase_add_test(tc, test_fences);
		tcase_add_test(tc, test_userptr_convert);
		tcase_add_test(tc, test_userptr_rlimit);
	} else if (!strcmp(mode(), "fault")) {
		tcase_add_test(tc, test_fault_reported);
	} else if (!strcmp(mode(), "reset")) {
		tcase_add_test(tc, test_reset_status);
	} else {
		tcase_add_test(tc, test_no_device_fallback);
	}
	suite_add_tcase(s, tc);
	return tc_run_suite(s);
}
