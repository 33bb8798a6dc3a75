// SPDX-License-Identifier: MIT
/*
 * tc_faultinject.c - allocation-failure sweep over the driver's entry points
 * (issue 12), inside a guest running the debug kernel:
 *
 *   run-guest.sh --kernel debug --devices 2 -- tc_faultinject REPORTS.ere [OP...]
 *
 * For each operation (open, close, BO_CREATE, BO_INFO, PRIME export,
 * PRIME import within a device and across devices, SUBMIT with BOs and
 * syncobjs, SUBMIT as a file's first job (its descriptor pool's first
 * slot), SUBMIT of 256 descriptors over 16 BOs, WAIT, GEM_CLOSE,
 * BO_USERPTR, and the probe: a PCI bind of the second engine), the kernel's per-task
 * fail-nth makes the n-th allocation of that one system call fail (slab and
 * page allocator, order 0 included, sleeping allocations included), for
 * n = 1, 2, ... until a call reaches no n-th allocation. One more
 * operation, submit_usercopy, fails SUBMIT's copies from and to user
 * memory instead (CONFIG_FAULT_INJECTION_USERCOPY). After every injected
 * failure:
 *
 *   - the call returned 0 (the failure was absorbed by a fallback) or an
 *     errno of the operation's documented set (ENOMEM; EFAULT for a failed
 *     copy; for bind also ENOENT: request_firmware() reports any failure to
 *     read the image as a missing file, and EINVAL and EBUSY: the PCI
 *     core's BAR mapping reports a failed ioremap() or region request so);
 *   - nothing leaks: the driver's BO count, BO bytes and pinned user bytes
 *     of both engines, the tilecopy dma-bufs, the open DRM clients, the
 *     module's references, the engines bound, their interrupt lines, this
 *     process's file descriptors and pinned pages (VmPin) are back to their
 *     baseline (DMA mappings left behind: DMA-API debugging's check when
 *     the driver is unloaded at the end of the boot, tests/qemu/init.sh);
 *   - the same call, without injection, succeeds at once (bind: the next
 *     normal bind works);
 *   - the kernel log got no report (REPORTS.ere: KASAN, lockdep, ...).
 *
 * kmemleak: the scan at the end of the boot (tests/qemu/init.sh, judged by
 * run-guest.sh) fails the run on any leak whose backtrace is in tilecopy or
 * DRM code; the backtrace names the path. With TC_FI_KMEMLEAK=1, the sweep
 * also scans after each operation (two scans of ~15 s each under TCG, so
 * not in make check) and attributes leaks to the operation.
 * Output: one line per operation with the failure points reached and how
 * many failed the call or were absorbed. Exit 0 when everything held.
 *
 * The process locks its memory first (mlockall): a page fault of its own in
 * an armed call would allocate and turn an injected failure into EFAULT.
 *
 * bind: probe runs synchronously in the task that writes the PCI address
 * to /sys/bus/pci/drivers/tilecopy/bind, so fail-nth reaches it. The second
 * engine is unbound (its file of the sweep closed) before each armed bind;
 * after a failed one it is bound again without injection. A failure point
 * absorbed inside debugfs leaves the device without its debugfs files:
 * its client count then reads as absent, which is no leak.
 *
 * Environment: TC_FI_VERBOSE=2 makes the kernel print a stack for every
 * injected failure, and the sweep print each failure point's outcome with
 * its call chain ("point 3 -> ENOMEM: tc_gem_create_object < ..."); for
 * finding the sites, not for the gate (run-guest.sh then fails the boot on
 * the printed stacks). TC_FI_MAX=N bounds the failure points per operation
 * (default 3000); TC_FI_FIRST=N starts at the N-th (to reproduce one point
 * of a long sweep; no verdict on the counts then). TC_FI_SKIP_SLOW=1
 * leaves out, unless named, the operations that take long (bind: over 400
 * points of 2-5 s, each a probe and a removal under the debug kernel);
 * make check-debug sets it.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "tilecopy_accel.h"
#include "hw/tilecopy_hw.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BO_SIZE (2 * 4096)
#define MANY_BOS 16
#define MANY_DESCS 256	/* 48 KiB of descriptors: a multi-page DMA buffer */

/* ---- environment ----------------------------------------------------------- */

struct dev {
	char node[64];	/* /dev/accel/accelN */
	char pci[32];	/* 0000:00:04.0 */
};

/*
 * A dma-buf's line in debugfs dma_buf/bufinfo: "size\tflags\tmode\tcount\t
 * exp_name\t...". DRM's PRIME export names the exporter after its own
 * module ("drm"), not the driver: "tilecopy" would only match the fence
 * lines under each buffer. Nothing else in the guest exports through DRM.
 */
#define TC_DMABUF_LINE	"\tdrm\t"

static struct dev devs[2];
static int ndevs;
static int fd_nth = -1;		/* /proc/thread-self/fail-nth */
static int fd_kmsg = -1;
static regex_t reports;
static int failed;
static int verbose;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("faultinject: fatal: ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(1);
}

static void bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("faultinject: FAIL: ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	failed = 1;
}

static bool write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok;
}

static long read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 0) : -1;
}

/* Lines of @path containing @match (all lines if NULL), minus @skip. */
static long count_lines(const char *path, const char *match, int skip)
{
	char line[1024];
	FILE *f = fopen(path, "re");
	long n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (skip-- <= 0 && (!match || strstr(line, match)))
			n++;
	fclose(f);
	return n;
}

static void find_devices(void)
{
	for (int i = 0; i < 16 && ndevs < 2; i++) {
		char p[256], link[256];
		ssize_t n;

		snprintf(p, sizeof(p), "/sys/class/accel/accel%d/device/vendor", i);
		if (read_long(p) != TC_PCI_VENDOR_ID)
			continue;
		snprintf(p, sizeof(p), "/sys/class/accel/accel%d/device", i);
		n = readlink(p, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		snprintf(devs[ndevs].pci, sizeof(devs[ndevs].pci), "%s",
			 strrchr(link, '/') + 1);
		snprintf(devs[ndevs].node, sizeof(devs[ndevs].node), "/dev/accel/accel%d", i);
		ndevs++;
	}
	if (!ndevs)
		die("no tilecopy device");
}

/* Where an armed call's failure points are: allocations, user copies. */
#define SITE_ALLOC	1u	/* failslab, fail_page_alloc */
#define SITE_USERCOPY	2u	/* fail_usercopy: copy_{from,to}_user, strncpy_from_user */

static const char *const fault_dirs[] = { "failslab", "fail_page_alloc", "fail_usercopy" };
static const unsigned int fault_dir_site[] = { SITE_ALLOC, SITE_ALLOC, SITE_USERCOPY };
static bool have_usercopy;

/*
 * fail-nth counts every should_fail() of the task whose attribute's stack
 * filter passes. A filter that requires a stack inside [0, 0) never passes
 * (stacktrace-depth 0 makes it decide without a stack): that attribute's
 * calls are then no failure points. The defaults (depth 32, any address)
 * make every call one.
 */
static void fault_sites(unsigned int sites)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(fault_dirs); i++) {
		bool on = sites & fault_dir_site[i];
		char p[128];

		if (fault_dir_site[i] == SITE_USERCOPY && !have_usercopy)
			continue;
		snprintf(p, sizeof(p), "/sys/kernel/debug/%s/stacktrace-depth", fault_dirs[i]);
		if (!write_file(p, on ? "32" : "0"))
			die("cannot write %s", p);
		snprintf(p, sizeof(p), "/sys/kernel/debug/%s/require-end", fault_dirs[i]);
		if (!write_file(p, on ? "18446744073709551615" : "0"))
			die("cannot write %s", p);
	}
}

/* [*start, *end) of a kernel function: its address and the next symbol's. */
static bool kallsyms_range(const char *sym, unsigned long *start, unsigned long *end)
{
	char line[512], name[256];
	unsigned long a;
	FILE *f;

	*start = 0;
	*end = ~0ul;
	for (int pass = 0; pass < 2; pass++) {
		f = fopen("/proc/kallsyms", "re");
		if (!f)
			return false;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%lx %*s %255s", &a, name) != 2)
				continue;
			if (!pass && !*start && !strcmp(name, sym))
				*start = a;
			else if (pass && a > *start && a < *end)
				*end = a;
		}
		fclose(f);
		if (!*start)
			return false;
	}
	return *end != ~0ul;
}

/*
 * Allocations made inside [start, end) are no failure points (0, 0: none
 * excluded): the stack filter's reject range, on both allocators.
 */
static void fault_reject(unsigned long start, unsigned long end)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(fault_dirs); i++) {
		char p[128], v[32];

		if (fault_dir_site[i] != SITE_ALLOC)
			continue;
		snprintf(p, sizeof(p), "/sys/kernel/debug/%s/reject-start", fault_dirs[i]);
		snprintf(v, sizeof(v), "%lu", start);
		if (!write_file(p, v))
			die("cannot write %s", p);
		snprintf(p, sizeof(p), "/sys/kernel/debug/%s/reject-end", fault_dirs[i]);
		snprintf(v, sizeof(v), "%lu", end);
		if (!write_file(p, v))
			die("cannot write %s", p);
	}
}

static void setup_fault_attrs(void)
{
	/*
	 * At least 1: every injected failure logs a "FAULT_INJECTION: forcing
	 * a failure" line, which tells the allocator's warning of that failure
	 * from a report (kmsg_check(), tests/qemu/kernel-debug.sh).
	 */
	const char *level = getenv("TC_FI_VERBOSE") && atoi(getenv("TC_FI_VERBOSE")) > 1 ?
			    getenv("TC_FI_VERBOSE") : "1";
	static const char *const dirs[] = { "failslab", "fail_page_alloc" };

	have_usercopy = !access("/sys/kernel/debug/fail_usercopy/require-end", W_OK);
	if (have_usercopy && !write_file("/sys/kernel/debug/fail_usercopy/verbose", level))
		die("cannot write fail_usercopy/verbose");

	for (unsigned int i = 0; i < ARRAY_SIZE(dirs); i++) {
		char p[128];

		/* fail-nth ignores probability/interval/times; the filters
		 * below decide which calls count. */
#define SET(file, val) do {						\
		snprintf(p, sizeof(p), "/sys/kernel/debug/%s/" file, dirs[i]);	\
		if (!write_file(p, val))				\
			die("cannot write %s", p);			\
	} while (0)
		SET("verbose", level);
		SET("verbose_ratelimit_interval_ms", "0");	/* every one */
		SET("ignore-gfp-wait", "N");
		if (!strcmp(dirs[i], "fail_page_alloc")) {
			SET("ignore-gfp-highmem", "N");
			SET("min-order", "0");
		} else {
			SET("cache-filter", "N");
		}
#undef SET
	}
	fault_sites(SITE_ALLOC);
}

/* ---- the armed call --------------------------------------------------------- */

static void arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(fd_nth, buf, len, 0) != len)
		die("write fail-nth: %s", strerror(errno));
}

/*
 * Read and clear the armed thread's fail-nth from another thread, started
 * before any arming: its copies to and from user memory are its own, so
 * they are no failure points of ours (with fail_usercopy armed, our own
 * read would consume, or be, the n-th point of a call that did not reach
 * it). The armed thread asks through memory only and spins with
 * sched_yield(): no allocation, no user copy of its own. fd_nth stays
 * bound to the thread that opened it.
 */
static atomic_int disarm_req, disarm_done;
static char disarm_buf[16];

static void *disarm_thread(void *arg)
{
	(void)arg;
	for (;;) {
		if (!atomic_load(&disarm_req)) {
			usleep(50);
			continue;
		}
		memset(disarm_buf, 0, sizeof(disarm_buf));
		if (pread(fd_nth, disarm_buf, sizeof(disarm_buf) - 1, 0) <= 0)
			die("read fail-nth: %s", strerror(errno));
		if (pwrite(fd_nth, "0", 1, 0) != 1)
			die("clear fail-nth: %s", strerror(errno));
		atomic_store(&disarm_req, 0);
		atomic_store(&disarm_done, 1);
	}
	return NULL;
}

static void disarm_start(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, disarm_thread, NULL))
		die("no disarm thread");
	pthread_detach(t);
}

/* Disarm; returns how many failure points were still to go (0: it fired). */
static unsigned int disarm(void)
{
	atomic_store(&disarm_done, 0);
	atomic_store(&disarm_req, 1);
	while (!atomic_load(&disarm_done))
		sched_yield();
	return (unsigned int)strtoul(disarm_buf, NULL, 10);
}

/* ---- kernel log ------------------------------------------------------------- */

/* Frames of the allocators themselves, skipped in a call chain. */
static bool alloc_frame(const char *f)
{
	static const char *const prefixes[] = {
		"dump_stack", "should_fail", "__should_fail", "fail_dump",
		"prepare_alloc_pages", "__alloc_pages", "alloc_pages", "__kmalloc",
		"kmalloc", "kmem_cache_alloc", "slab_pre_alloc_hook", "__slab_alloc",
		"___slab_alloc", "new_slab", "allocate_slab", "alloc_slab_page",
		"__kvmalloc", "kvmalloc", "folio_alloc", "__folio_alloc",
		"alloc_pages_mpol", "__dma_direct_alloc_pages",
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(f, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* With TC_FI_VERBOSE=2: the call chain of the last injected failure. */
static char chain[512];

/* One record of an injected failure's stack: add its frame to chain. */
static void chain_add(const char *msg)
{
	char fn[128], mod[64] = "";
	int depth = 0;

	while (*msg == ' ')
		msg++;
	if (*msg == '?' || sscanf(msg, "%127[A-Za-z0-9_.]", fn) != 1 ||
	    strncmp(msg + strlen(fn), "+0x", 3) || alloc_frame(fn))
		return;
	sscanf(msg, "%*[^ ] [%63[^]]", mod);
	for (const char *p = chain; (p = strstr(p, " < ")); p += 3)
		depth++;
	if (depth >= 4)
		return;
	snprintf(chain + strlen(chain), sizeof(chain) - strlen(chain), "%s%s%s%s%s",
		 chain[0] ? " < " : "", fn, mod[0] ? " [" : "", mod, mod[0] ? "]" : "");
}

/*
 * The allocator's own warning of a failed allocation without __GFP_NOWARN
 * (warn_alloc(): its message, a stack, the memory state): vmalloc() warns
 * so when the sweep fails its area or page-array allocation, e.g. in
 * request_firmware()'s kernel_read_file() during bind. No report when it
 * follows an injected failure's line within a few records; any other one
 * (an allocation that failed on its own) still is.
 */
static bool warn_alloc_line(const char *msg)
{
	return strstr(msg, "page allocation failure: ") || strstr(msg, "vmalloc error: ");
}

/*
 * A line of dump_stack()'s output (warn_alloc()'s stack): the only records
 * set aside after warn_alloc_line(); anything else printed meanwhile, by
 * another CPU, is checked as usual.
 */
static bool dump_stack_line(const char *msg)
{
	static const char *const starts[] = {
		"CPU: ", "Tainted: ", "Hardware name: ", "Call Trace:", "<TASK>", "</TASK>",
	};
	char fn[128];

	while (*msg == ' ')
		msg++;
	for (unsigned int i = 0; i < ARRAY_SIZE(starts); i++)
		if (!strncmp(msg, starts[i], strlen(starts[i])))
			return true;
	if (*msg == '?')
		msg += 2;
	return sscanf(msg, "%127[A-Za-z0-9_.]", fn) == 1 && !strncmp(msg + strlen(fn), "+0x", 3);
}

/* The cache line of a dma-api/dump line the line tracking covers, or 0. */
static unsigned long long dump_cln(const char *line)
{
	const char *c = strstr(line, " cln=");

	/* DMA_TO_DEVICE mappings are not tracked by cache line */
	return c && !strstr(line, "DMA_TO_DEVICE") ? strtoull(c + 5, NULL, 16) : 0;
}

/*
 * After DMA-API's "cacheline tracking EEXIST" (a mapping the device may
 * write, over a cache line another such mapping holds), the mappings that
 * share a cache line, from dma-api/dump; none: the line's first mapping was
 * freed without its unmap, and only its tracking entry stayed.
 */
static void dma_overlaps_print(void)
{
	static unsigned long long cln[1 << 14];
	unsigned int n = 0, shown = 0;
	char line[256];
	FILE *f = fopen("/sys/kernel/debug/dma-api/dump", "re");

	if (!f) {
		printf("  (no dma-api/dump: %s)\n", strerror(errno));
		return;
	}
	/* the tracked lines, then each mapping whose line is among them twice */
	while (n < ARRAY_SIZE(cln) && fgets(line, sizeof(line), f))
		if ((cln[n] = dump_cln(line)))
			n++;
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long c = dump_cln(line);
		unsigned int same = 0;

		for (unsigned int i = 0; c && i < n; i++)
			same += cln[i] == c;
		if (same > 1) {
			printf("  DMA-API mapping sharing a cache line: %s", line);
			shown++;
		}
	}
	fclose(f);
	if (!shown)
		printf("  DMA-API: no two live mappings share a cache line (%u tracked): "
		       "the earlier mapping's memory was freed without its unmap\n", n);
}

/* Print and count the new kernel log records that match a report pattern;
 * after a match, up to 80 following records are printed (its stack). The
 * stack printed for an injected failure (TC_FI_VERBOSE=2) is no report: it
 * becomes chain; nor is warn_alloc()'s dump of that failure. */
static const char *kmsg_needle;	/* kmsg_check() looks for it too */
static bool kmsg_needle_seen;

static int kmsg_check(const char *op, unsigned int n)
{
	char rec[8192];
	int found = 0, tail = 0, since_injected = 100;
	bool injected = false, alloc_warning = false, overlap = false;

	for (;;) {
		ssize_t len = read(fd_kmsg, rec, sizeof(rec) - 1);
		char *msg;

		if (len < 0 && errno == EPIPE) {
			/* records overwritten before we read them: one may
			 * have been a report */
			if (!found++)
				bad("%s, failure point %u: kernel log records lost", op, n);
			continue;
		}
		if (len <= 0)
			break;
		rec[len] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		since_injected++;
		if (kmsg_needle && strstr(msg, kmsg_needle))
			kmsg_needle_seen = true;
		if (strstr(msg, "FAULT_INJECTION: forcing a failure")) {
			since_injected = 0;
			if (verbose > 1) {
				injected = true;
				chain[0] = 0;
			}
			continue;
		}
		if (!alloc_warning && since_injected <= 4 && warn_alloc_line(msg))
			alloc_warning = true;
		if (alloc_warning && dump_stack_line(msg)) {
			if (strstr(msg, "</TASK>"))
				alloc_warning = false;
			continue;
		}
		if (injected) {
			if (strstr(msg, "</TASK>"))
				injected = false;
			else
				chain_add(msg);
			continue;
		}
		if (!regexec(&reports, msg, 0, NULL, 0)) {
			if (!found++)
				bad("%s, failure point %u: kernel report:", op, n);
			tail = 80;
		}
		overlap |= !!strstr(msg, "cacheline tracking EEXIST");
		if (tail) {
			tail--;
			fputs(msg, stdout);
		}
	}
	if (overlap)
		dma_overlaps_print();
	return found;
}

/* ---- counters (leak check) ------------------------------------------------------ */

struct counters {
	long bos[2], bo_bytes[2], pinned[2], clients[2];
	long dmabufs, refcnt, fds, vmpin;
	long bound;	/* engines bound to the driver */
	long irqs;	/* /proc/interrupts lines of the driver */
};

/* VmPin of /proc/self/status, in kB: the pages this process has pinned. */
static long vmpin_kb(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmPin:", 6))
			v = strtol(line + 6, NULL, 10);
	fclose(f);
	return v;
}

/* Devices bound to tilecopy: their links in the driver's sysfs directory. */
static long count_bound(void)
{
	DIR *d = opendir("/sys/bus/pci/drivers/tilecopy");
	struct dirent *e;
	long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strchr(e->d_name, ':') != NULL;
	closedir(d);
	return n;
}

/* Interrupt lines requested by the driver: named tilecopy-PCI-qN (queue
 * vectors, INTx) or PCI (the global vector). */
static long count_irqs(void)
{
	char line[1024];
	FILE *f = fopen("/proc/interrupts", "re");
	long n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		bool mine = strstr(line, "tilecopy") != NULL;

		for (int i = 0; i < ndevs && !mine; i++)
			mine = strstr(line, devs[i].pci) != NULL;
		n += mine;
	}
	fclose(f);
	return n;
}

static void counters_read(struct counters *c)
{
	char p[256];

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < ndevs; i++) {
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/bos", devs[i].pci);
		c->bos[i] = read_long(p);
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/bo_bytes", devs[i].pci);
		c->bo_bytes[i] = read_long(p);
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/pinned_bytes", devs[i].pci);
		c->pinned[i] = read_long(p);
		snprintf(p, sizeof(p), "/sys/kernel/debug/accel/%s/clients", devs[i].pci);
		c->clients[i] = count_lines(p, NULL, 1);
	}
	c->dmabufs = count_lines("/sys/kernel/debug/dma_buf/bufinfo", TC_DMABUF_LINE, 0);
	c->refcnt = read_long("/sys/module/tilecopy/refcnt");
	c->vmpin = vmpin_kb();
	c->bound = count_bound();
	c->irqs = count_irqs();
	c->fds = 0;
	{
		DIR *d = opendir("/proc/self/fd");
		struct dirent *e;

		while (d && (e = readdir(d)))
			c->fds += e->d_name[0] != '.';
		if (d)
			closedir(d);
	}
}

/*
 * @b back to @a? With @rebound (the bind operation), device 1 may have been
 * bound with a failure absorbed inside debugfs: no clients file to read.
 */
static bool counters_equal(const struct counters *a, const struct counters *b, bool rebound)
{
	struct counters bb = *b;

	if (rebound && bb.clients[1] == -1)
		bb.clients[1] = a->clients[1];
	return !memcmp(a, &bb, sizeof(*a));
}

static void counters_print(const char *what, const struct counters *c)
{
	printf("  %s: bos %ld/%ld, bo_bytes %ld/%ld, pinned_bytes %ld/%ld, clients %ld/%ld, dma-bufs %ld, module refs %ld, fds %ld, VmPin %ld kB, bound %ld, irqs %ld\n",
	       what, c->bos[0], c->bos[1], c->bo_bytes[0], c->bo_bytes[1], c->pinned[0],
	       c->pinned[1], c->clients[0], c->clients[1], c->dmabufs, c->refcnt, c->fds,
	       c->vmpin, c->bound, c->irqs);
}

/*
 * Back to @base? Jobs are freed by the scheduler's worker after their fence
 * signalled, so what a finished job held may go a moment later: poll, with
 * a bound far above any delay (the verdict does not depend on timing).
 */
static bool counters_settle(const struct counters *base, struct counters *now, bool rebound)
{
	for (int i = 0; i < 6000; i++) {
		counters_read(now);
		if (counters_equal(base, now, rebound))
			return true;
		usleep(10000);
	}
	return false;
}

/* ---- uAPI helpers (never armed unless said) ---------------------------------- */

/*
 * The raw ioctl, not drmIoctl(): that one repeats a call that returned
 * EINTR or EAGAIN, which would hide such an error behind the clean retry.
 */
static int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

static int open_dev(int i)
{
	int fd = open(devs[i].node, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open %s: %s", devs[i].node, strerror(errno));
	return fd;
}

static uint32_t bo_new(int fd, uint64_t *va)
{
	struct drm_tilecopy_bo_create c = { .size = BO_SIZE };
	int r = xioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c);

	if (r)
		die("BO_CREATE: %s", strerror(-r));
	if (va)
		*va = c.va;
	return c.handle;
}

static void gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };
	int r = xioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);

	if (r)
		bad("GEM_CLOSE %u: %s", handle, strerror(-r));
}

static int prime_export(int fd, uint32_t handle)
{
	struct drm_prime_handle p = { .handle = handle, .flags = O_CLOEXEC | O_RDWR };
	int r = xioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p);

	if (r)
		die("PRIME export: %s", strerror(-r));
	return p.fd;
}

static uint32_t syncobj_new(int fd, bool signaled)
{
	struct drm_syncobj_create c = { .flags = signaled ? DRM_SYNCOBJ_CREATE_SIGNALED : 0 };
	int r = xioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &c);

	if (r)
		die("SYNCOBJ_CREATE: %s", strerror(-r));
	return c.handle;
}

static void syncobj_free(int fd, uint32_t handle)
{
	struct drm_syncobj_destroy d = { .handle = handle };

	if (xioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d))
		bad("SYNCOBJ_DESTROY %u", handle);
}

static void desc_copy(struct drm_tilecopy_desc *d, uint64_t dst, uint64_t src)
{
	memset(d, 0, sizeof(*d));
	d->op = DRM_TILECOPY_OP_COPY;
	d->elem_size = 8;
	d->ndims = 1;
	d->extent[0] = BO_SIZE / 8;
	d->src_stride[0] = 1;
	d->dst_stride[0] = 1;
	d->src = src;
	d->dst = dst;
}

static void submit_args(struct drm_tilecopy_submit *s, const struct drm_tilecopy_desc *d,
			const uint32_t *bos, uint32_t nbo, const uint32_t *in, uint32_t nin,
			uint32_t out)
{
	memset(s, 0, sizeof(*s));
	s->descs = (uintptr_t)d;
	s->desc_count = 1;
	s->desc_size = sizeof(*d);
	s->bo_handles = (uintptr_t)bos;
	s->bo_count = nbo;
	s->in_syncobjs = (uintptr_t)in;
	s->in_syncobj_count = nin;
	s->out_syncobj = out;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int job_wait(int fd, uint64_t id, uint32_t *status)
{
	struct drm_tilecopy_wait w = { .job_id = id, .timeout_ns = now_ns() + 60000000000ll };
	int r = xioctl(fd, DRM_IOCTL_TILECOPY_WAIT, &w);

	if (status)
		*status = w.status;
	return r;
}

/*
 * A call that succeeded, whatever it absorbed, made an object that works: a
 * BO (or an imported one) that a job can use. One 8-byte copy inside it,
 * which must finish OK.
 */
static void bo_use(const char *op, int fd, uint32_t handle)
{
	struct drm_tilecopy_bo_info i = { .handle = handle };
	struct drm_tilecopy_submit sub;
	struct drm_tilecopy_desc d;
	uint32_t st = 0;
	int r = xioctl(fd, DRM_IOCTL_TILECOPY_BO_INFO, &i);

	if (r || i.size < 16) {
		bad("%s: the BO it made: BO_INFO %s, size %llu", op, strerror(-r),
		    (unsigned long long)i.size);
		return;
	}
	desc_copy(&d, i.va + 8, i.va);
	d.extent[0] = 1;
	submit_args(&sub, &d, &handle, 1, NULL, 0, 0);
	r = xioctl(fd, DRM_IOCTL_TILECOPY_SUBMIT, &sub);
	if (!r)
		r = job_wait(fd, sub.job_id, &st);
	if (r || st != DRM_TILECOPY_STATUS_OK)
		bad("%s: a job on the BO it made: %s, status %u", op, strerror(-r), st);
}

/* ---- operations ------------------------------------------------------------- */

/*
 * setup() prepares without injection, call() is the one armed system call
 * (0 or -errno), undo() releases, without injection, what setup() and a
 * successful call() made. The sweep's own files stay open throughout.
 */
struct state {
	int fd;			/* a file of device 0 (the sweep's) */
	int fd2;		/* a second file of device 0 */
	int fdx;		/* a file of device 1, or -1 */
	int tmpfd, dmabuf;
	uint8_t *umem;		/* 4 pages of this process, mlocked */
	uint32_t bo, bo2, bo_imp, sync_in, sync_out;
	uint64_t va, va2, job;
	struct drm_tilecopy_desc desc;
	uint32_t bos[2], ins[1];
	/* submit_many */
	uint32_t many[MANY_BOS];
	uint64_t many_va[MANY_BOS];
	struct drm_tilecopy_desc descs[MANY_DESCS];
};

struct op {
	const char *name;
	bool needs_two_devices;
	void (*setup)(struct state *s);
	int (*call)(struct state *s);
	void (*undo)(struct state *s, int ret);
	/* once before and after the operation's sweep (may be NULL) */
	void (*prepare)(struct state *s);
	void (*finish)(struct state *s);
	unsigned int sites;	/* SITE_*; 0: SITE_ALLOC */
	const char *exclude;	/* a kernel function whose allocations are skipped */
	int errs[4];		/* errnos the call may fail with; none: ENOMEM */
	/* for errs[i], a text the point's kernel log must hold (the driver's
	 * message naming the helper whose errno it passed on), or NULL */
	const char *errs_log[4];
	bool rebinds;		/* device 1 is bound anew by each call */
	bool slow;		/* minutes: left out under TC_FI_SKIP_SLOW=1 */
	/*
	 * Failure points the call must reach: ~3/4 of the count measured
	 * (docs/reliability.md), so that the ±1 between runs never trips it
	 * but allocations moved out of the call's task (a worker, which
	 * fail-nth does not reach) or behind a cache do.
	 */
	unsigned int min_points;
};

/* open */
static void open_setup(struct state *s) { s->tmpfd = -1; }
static int open_call(struct state *s)
{
	s->tmpfd = open(devs[0].node, O_RDWR | O_CLOEXEC);
	return s->tmpfd < 0 ? -errno : 0;
}
static void open_undo(struct state *s, int ret)
{
	uint32_t bo;

	if (ret)
		return;
	bo = bo_new(s->tmpfd, NULL);
	bo_use("open", s->tmpfd, bo);
	close(s->tmpfd);
}

/*
 * close of a file with a BO, a BO imported from the other file, an exported
 * dma-buf (still open: it outlives the file), a syncobj, a finished job whose
 * status nobody reaped and a job that may still run.
 */
static void close_setup(struct state *s)
{
	struct drm_tilecopy_submit sub;
	struct drm_prime_handle imp = { 0 };
	uint64_t va;
	uint32_t bo;
	int r;

	s->tmpfd = open_dev(0);
	bo = bo_new(s->tmpfd, &va);
	s->dmabuf = prime_export(s->tmpfd, bo);
	s->bo2 = bo_new(s->fd, NULL);
	imp.fd = prime_export(s->fd, s->bo2);
	r = xioctl(s->tmpfd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp);
	if (r)
		die("PRIME import: %s", strerror(-r));
	close(imp.fd);
	s->sync_out = syncobj_new(s->tmpfd, false);
	s->bos[0] = bo;
	desc_copy(&s->desc, va + 0, va + 0);
	s->desc.extent[0] = 1;
	submit_args(&sub, &s->desc, s->bos, 1, NULL, 0, s->sync_out);
	for (int i = 0; i < 2; i++) {
		r = xioctl(s->tmpfd, DRM_IOCTL_TILECOPY_SUBMIT, &sub);
		if (r)
			die("SUBMIT: %s", strerror(-r));
		if (!i) {
			/* finished, its status reaped by nobody */
			struct drm_syncobj_wait w = {
				.handles = (uintptr_t)&s->sync_out, .count_handles = 1,
				.timeout_nsec = now_ns() + 60000000000ll,
			};
			if (xioctl(s->tmpfd, DRM_IOCTL_SYNCOBJ_WAIT, &w))
				die("SYNCOBJ_WAIT");
		}
	}
}
static int close_call(struct state *s)
{
	return close(s->tmpfd) ? -errno : 0;
}
static void close_undo(struct state *s, int ret)
{
	if (ret)
		close(s->tmpfd);
	close(s->dmabuf);
	gem_close(s->fd, s->bo2);
}

/* BO_CREATE */
static void none_setup(struct state *s) { (void)s; }
static int bo_create_call(struct state *s)
{
	struct drm_tilecopy_bo_create c = { .size = BO_SIZE };
	int r = xioctl(s->fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c);

	s->bo = c.handle;
	return r;
}
static void bo_create_undo(struct state *s, int ret)
{
	if (ret)
		return;
	bo_use("BO_CREATE/BO_USERPTR", s->fd, s->bo);
	gem_close(s->fd, s->bo);
}

/* BO_INFO */
static void bo_setup(struct state *s) { s->bo = bo_new(s->fd, &s->va); }
static int bo_info_call(struct state *s)
{
	struct drm_tilecopy_bo_info i = { .handle = s->bo };

	return xioctl(s->fd, DRM_IOCTL_TILECOPY_BO_INFO, &i);
}
static void bo_undo(struct state *s, int ret)
{
	(void)ret;
	gem_close(s->fd, s->bo);
}

/* PRIME export */
static int export_call(struct state *s)
{
	struct drm_prime_handle p = { .handle = s->bo, .flags = O_CLOEXEC | O_RDWR };
	int r = xioctl(s->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p);

	s->dmabuf = p.fd;
	return r;
}
static void export_undo(struct state *s, int ret)
{
	struct drm_prime_handle p = { .fd = s->dmabuf };

	if (!ret) {
		/* the dma-buf works: imported by another file, used there */
		if (xioctl(s->fd2, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p))
			bad("prime_export: its dma-buf cannot be imported");
		else {
			bo_use("prime_export", s->fd2, p.handle);
			gem_close(s->fd2, p.handle);
		}
		close(s->dmabuf);
	}
	gem_close(s->fd, s->bo);
}

/* PRIME import of a dma-buf of another file (same device) or device */
static void import_setup_from(struct state *s, int from)
{
	s->bo2 = bo_new(from, NULL);
	s->dmabuf = prime_export(from, s->bo2);
}
static void import_same_setup(struct state *s) { import_setup_from(s, s->fd2); }
static void import_other_setup(struct state *s) { import_setup_from(s, s->fdx); }
static int import_call(struct state *s)
{
	struct drm_prime_handle p = { .fd = s->dmabuf };
	int r = xioctl(s->fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);

	s->bo_imp = p.handle;
	return r;
}
static void import_undo_from(struct state *s, int from, int ret)
{
	if (!ret) {
		bo_use("prime_import", s->fd, s->bo_imp);
		gem_close(s->fd, s->bo_imp);
	}
	close(s->dmabuf);
	gem_close(from, s->bo2);
}
static void import_same_undo(struct state *s, int ret) { import_undo_from(s, s->fd2, ret); }
static void import_other_undo(struct state *s, int ret) { import_undo_from(s, s->fdx, ret); }

/*
 * SUBMIT with two BOs, an in-syncobj that holds the fence of an earlier job
 * on the same BOs (explicit and implicit dependencies), an out-syncobj.
 */
static void submit_setup(struct state *s)
{
	struct drm_tilecopy_submit sub;
	int r;

	s->bo = bo_new(s->fd, &s->va);
	s->bo2 = bo_new(s->fd, &s->va2);
	s->sync_in = syncobj_new(s->fd, false);
	s->sync_out = syncobj_new(s->fd, false);
	s->bos[0] = s->bo;
	s->bos[1] = s->bo2;
	desc_copy(&s->desc, s->va2, s->va);
	submit_args(&sub, &s->desc, s->bos, 2, NULL, 0, s->sync_in);
	r = xioctl(s->fd, DRM_IOCTL_TILECOPY_SUBMIT, &sub);
	if (r)
		die("SUBMIT (setup): %s", strerror(-r));
	s->job = sub.job_id;
	s->ins[0] = s->sync_in;
}
static int submit_call(struct state *s)
{
	struct drm_tilecopy_submit sub;
	int r;

	submit_args(&sub, &s->desc, s->bos, 2, s->ins, 1, s->sync_out);
	r = xioctl(s->fd, DRM_IOCTL_TILECOPY_SUBMIT, &sub);
	s->va = sub.job_id;	/* va is free here: the armed job's id */
	return r;
}
static void submit_undo(struct state *s, int ret)
{
	uint32_t st;

	if (job_wait(s->fd, s->job, &st) || st != DRM_TILECOPY_STATUS_OK)
		bad("submit: the setup job did not finish (status %u)", st);
	if (!ret && (job_wait(s->fd, s->va, &st) || st != DRM_TILECOPY_STATUS_OK))
		bad("submit: the submitted job did not finish (status %u)", st);
	syncobj_free(s->fd, s->sync_in);
	syncobj_free(s->fd, s->sync_out);
	gem_close(s->fd, s->bo);
	gem_close(s->fd, s->bo2);
}

/*
 * SUBMIT as a file's first job: its descriptors get the first slot of the
 * file's descriptor pool, allocated and mapped in the call.
 */
static void submit_first_setup(struct state *s)
{
	s->tmpfd = open_dev(0);
	s->bo = bo_new(s->tmpfd, &s->va);
	s->bos[0] = s->bo;
	desc_copy(&s->desc, s->va, s->va);
	s->desc.extent[0] = 1;
}
static int submit_first_call(struct state *s)
{
	struct drm_tilecopy_submit sub;
	int r;

	submit_args(&sub, &s->desc, s->bos, 1, NULL, 0, 0);
	r = xioctl(s->tmpfd, DRM_IOCTL_TILECOPY_SUBMIT, &sub);
	s->job = sub.job_id;
	return r;
}
static void submit_first_undo(struct state *s, int ret)
{
	uint32_t st;

	if (!ret && (job_wait(s->tmpfd, s->job, &st) || st != DRM_TILECOPY_STATUS_OK))
		bad("submit_first: the submitted job did not finish (status %u)", st);
	gem_close(s->tmpfd, s->bo);
	close(s->tmpfd);
}

/* SUBMIT of 256 descriptors over 16 BOs (larger arrays, multi-page DMA) */
static void submit_many_setup(struct state *s)
{
	for (int i = 0; i < MANY_BOS; i++)
		s->many[i] = bo_new(s->fd, &s->many_va[i]);
	for (int i = 0; i < MANY_DESCS; i++) {
		desc_copy(&s->descs[i], s->many_va[(i + 1) % MANY_BOS] + 8 * (i / MANY_BOS),
			  s->many_va[i % MANY_BOS]);
		s->descs[i].extent[0] = 1;
	}
}
static int submit_many_call(struct state *s)
{
	struct drm_tilecopy_submit sub;
	int r;

	submit_args(&sub, s->descs, s->many, MANY_BOS, NULL, 0, 0);
	sub.desc_count = MANY_DESCS;
	r = xioctl(s->fd, DRM_IOCTL_TILECOPY_SUBMIT, &sub);
	s->job = sub.job_id;
	return r;
}
static void submit_many_undo(struct state *s, int ret)
{
	uint32_t st;

	if (!ret && (job_wait(s->fd, s->job, &st) || st != DRM_TILECOPY_STATUS_OK))
		bad("submit_many: the submitted job did not finish (status %u)", st);
	for (int i = 0; i < MANY_BOS; i++)
		gem_close(s->fd, s->many[i]);
}

/* WAIT for a job (queued just before) */
static void wait_setup(struct state *s)
{
	struct drm_tilecopy_submit sub;
	int r;

	s->bo = bo_new(s->fd, &s->va);
	s->bos[0] = s->bo;
	desc_copy(&s->desc, s->va, s->va);
	s->desc.extent[0] = 1;
	submit_args(&sub, &s->desc, s->bos, 1, NULL, 0, 0);
	r = xioctl(s->fd, DRM_IOCTL_TILECOPY_SUBMIT, &sub);
	if (r)
		die("SUBMIT (setup): %s", strerror(-r));
	s->job = sub.job_id;
}
static int wait_call(struct state *s)
{
	return job_wait(s->fd, s->job, NULL);
}
static void wait_undo(struct state *s, int ret)
{
	if (ret && job_wait(s->fd, s->job, NULL))
		bad("wait: the job's status is gone after a failed WAIT");
	gem_close(s->fd, s->bo);
}

/* GEM_CLOSE */
static int gem_close_call(struct state *s)
{
	struct drm_gem_close c = { .handle = s->bo };

	return xioctl(s->fd, DRM_IOCTL_GEM_CLOSE, &c);
}
static void gem_close_undo(struct state *s, int ret)
{
	if (ret)
		gem_close(s->fd, s->bo);
}

/*
 * BO_USERPTR over 2 pages' worth at an odd offset (3 pages pinned): the
 * pin, its charge, the sg table, the DMA mapping, the engine mapping and
 * the handle, each undone when a later one fails.
 */
static int bo_userptr_call(struct state *s)
{
	struct drm_tilecopy_bo_userptr u = {
		.addr = (uintptr_t)s->umem + 100, .size = BO_SIZE,
	};
	int r = xioctl(s->fd, DRM_IOCTL_TILECOPY_BO_USERPTR, &u);

	s->bo = u.handle;
	return r;
}

/*
 * bind: probe of device 1, run by the write to the driver's bind file. The
 * sweep's file of device 1 is closed first (an open file keeps the
 * unplugged drm_device, and its minor, until it is closed) and opened again
 * on the new device at the end.
 */
#define TC_DRV_SYSFS "/sys/bus/pci/drivers/tilecopy"

static bool dev1_bound(void)
{
	char p[128];

	snprintf(p, sizeof(p), TC_DRV_SYSFS "/%s", devs[1].pci);
	return !access(p, F_OK);
}

static int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

static void bind_prepare(struct state *s)
{
	close(s->fdx);
	s->fdx = -1;
}
static void bind_setup(struct state *s)
{
	int r;

	if (dev1_bound() && (r = sysfs_write(TC_DRV_SYSFS "/unbind", devs[1].pci)))
		die("unbind %s: %s", devs[1].pci, strerror(-r));
	/* opened here: only the write is armed (probe runs inside it) */
	s->tmpfd = open(TC_DRV_SYSFS "/bind", O_WRONLY | O_CLOEXEC);
	if (s->tmpfd < 0)
		die("open %s/bind: %s", TC_DRV_SYSFS, strerror(errno));
}
static int bind_call(struct state *s)
{
	return write(s->tmpfd, devs[1].pci, strlen(devs[1].pci)) < 0 ? -errno : 0;
}
static void bind_undo(struct state *s, int ret)
{
	int r;

	close(s->tmpfd);
	if (!ret && !dev1_bound())
		bad("bind: the write succeeded but %s is not bound", devs[1].pci);
	if (ret && dev1_bound())
		bad("bind: the write failed (%s) but %s is bound", strerror(-ret), devs[1].pci);
	/*
	 * A probe that absorbed a failure may have bound with less (one
	 * interrupt vector instead of MSI-X's five: the driver's fallback):
	 * unbound and bound normally again, so that the leak check compares
	 * like with like and the degraded device's removal is run too.
	 */
	if (!ret && dev1_bound() && (r = sysfs_write(TC_DRV_SYSFS "/unbind", devs[1].pci)))
		bad("bind: unbind after an absorbed failure: %s", strerror(-r));
	if (!dev1_bound() && (r = sysfs_write(TC_DRV_SYSFS "/bind", devs[1].pci)))
		bad("bind: the next normal bind of %s failed: %s", devs[1].pci, strerror(-r));
}
static void bind_finish(struct state *s)
{
	ndevs = 0;
	find_devices();
	if (ndevs > 1)
		s->fdx = open_dev(1);
	else
		bad("bind: device 1 is gone after the sweep");
}

static const struct op ops[] = {
	{ .name = "open", .min_points = 12, .setup = open_setup, .call = open_call, .undo = open_undo },
	{ .name = "close", .min_points = 1, .setup = close_setup, .call = close_call, .undo = close_undo },
	{ .name = "bo_create", .min_points = 24, .setup = none_setup, .call = bo_create_call,
	  .undo = bo_create_undo },
	{ .name = "bo_info", .setup = bo_setup, .call = bo_info_call, .undo = bo_undo },
	{ .name = "prime_export", .min_points = 7,
	  .setup = bo_setup, .call = export_call, .undo = export_undo },
	{ .name = "prime_import", .min_points = 6, .setup = import_same_setup, .call = import_call,
	  .undo = import_same_undo },
	{ .name = "prime_import_other_device", .min_points = 12, .needs_two_devices = true,
	  .setup = import_other_setup, .call = import_call, .undo = import_other_undo },
	{ .name = "submit", .min_points = 15,
	  .setup = submit_setup, .call = submit_call, .undo = submit_undo },
	{ .name = "submit_first", .min_points = 25, .setup = submit_first_setup, .call = submit_first_call,
	  .undo = submit_first_undo },
	{ .name = "submit_many", .min_points = 50, .setup = submit_many_setup, .call = submit_many_call,
	  .undo = submit_many_undo },
	/* the copies of SUBMIT's struct, descriptors, BO handles and
	 * in-syncobjs from user memory, and of the struct back: EFAULT (a job
	 * whose ID could not be copied back still runs, and is freed) */
	{ .name = "submit_usercopy", .min_points = 3, .setup = submit_setup, .call = submit_call,
	  .undo = submit_undo, .sites = SITE_USERCOPY, .errs = { EFAULT } },
	{ .name = "wait", .setup = wait_setup, .call = wait_call, .undo = wait_undo },
	{ .name = "gem_close", .min_points = 1,
	  .setup = bo_setup, .call = gem_close_call, .undo = gem_close_undo },
	{ .name = "bo_userptr", .min_points = 15, .setup = none_setup, .call = bo_userptr_call,
	  .undo = bo_create_undo },
	{ .name = "bind", .min_points = 250, .needs_two_devices = true,
	  .setup = bind_setup, .call = bind_call,
	  .undo = bind_undo, .prepare = bind_prepare, .finish = bind_finish,
	  /*
	   * ENOENT: request_firmware(); EINVAL and EBUSY: the PCI core's
	   * pcim_iomap_region() (devres.c, 6.12) returns -EINVAL when
	   * pci_iomap() fails (ioremap()'s allocations) and -EBUSY when the
	   * region request fails (its resource's allocation); the driver
	   * passes a helper's errno on, as drivers do
	   */
	  .errs = { ENOMEM, ENOENT, EINVAL, EBUSY }, .rebinds = true, .slow = true,
	  .errs_log = { NULL, "error -ENOENT: firmware", "error -EINVAL: cannot map the",
			"error -EBUSY: cannot map the" },
	  /*
	   * DRM core, not the driver: drm_minor_alloc() (drm_drv.c, 6.12)
	   * registers drm_minor_alloc_release() before it allocates the
	   * minor's device, and that release calls put_device() on
	   * minor->kdev even when it holds the ERR_PTR of a failed
	   * drm_sysfs_minor_alloc(): a general protection fault in
	   * kobject_put(), from devm_drm_dev_alloc() in tc_probe. Its
	   * allocations are left out (TC_FI_EXCLUDE=none keeps them).
	   */
	  .exclude = "drm_sysfs_minor_alloc" },
};

/* ---- kmemleak --------------------------------------------------------------- */

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

/* Suspected leaks in tilecopy or DRM code since the last call; printed. */
static int kmemleak_ours(const char *op)
{
	static const char *const ours[] = {
		"[tilecopy]", "[drm]", "[drm_shmem_helper]", "[gpu_sched]",
		"dma_buf_", "dma_fence_", "dma_resv_", "drm_",
	};
	char line[512], rec[8192] = "";
	size_t len = 0;
	int n = 0, total = 0;
	bool mine = false;
	FILE *f;

	/*
	 * An object is reported once unreferenced in a scan and older than
	 * 5 s; the second scan confirms it.
	 */
	sleep(6);
	if (!write_file(KMEMLEAK, "scan") || !write_file(KMEMLEAK, "scan")) {
		bad("%s: kmemleak scan failed", op);
		return 1;
	}
	f = fopen(KMEMLEAK, "re");
	if (!f) {
		bad("%s: cannot read kmemleak", op);
		return 1;
	}
	for (bool more = true; more;) {
		more = fgets(line, sizeof(line), f);
		if (!more || !strncmp(line, "unreferenced object", 19)) {
			if (len && mine) {
				if (!n++)
					bad("%s: kmemleak found leaks in tilecopy/DRM code:", op);
				if (n <= 10)
					fputs(rec, stdout);
			}
			total += len > 0;
			len = 0;
			mine = false;
			rec[0] = 0;
			if (!more)
				break;
		}
		for (unsigned int i = 0; i < ARRAY_SIZE(ours); i++)
			mine |= strstr(line, ours[i]) != NULL;
		if (len + strlen(line) < sizeof(rec)) {
			memcpy(rec + len, line, strlen(line) + 1);
			len += strlen(line);
		}
	}
	fclose(f);
	/* Reported once: the next operation sees only its own. */
	write_file(KMEMLEAK, "clear");
	if (total)
		printf("  kmemleak: %d suspect(s), %d in tilecopy/DRM code\n", total, n);
	return n;
}

/* ---- the sweep -------------------------------------------------------------- */

static const char *errname(int r)
{
	return r ? strerror(-r) : "success";
}

/* Index of -@r in the operation's errnos, or -1. */
static int op_errno(const struct op *op, int r)
{
	for (int i = 0; i < (int)ARRAY_SIZE(op->errs); i++)
		if (op->errs[i] ? -r == op->errs[i] : (i == 0 && r == -ENOMEM))
			return i;
	return -1;
}

/*
 * Back to @base once settled, or else reported with both readings: the
 * first leak of an operation only (@reported), then @base moves to what is
 * left, so that one leak is not counted again at every later point.
 */
static void leak_check(const struct op *op, struct counters *base, bool *reported,
		       const char *what)
{
	struct counters now;

	if (counters_settle(base, &now, op->rebinds) || *reported)
		return;
	bad("%s, %s: something was left behind", op->name, what);
	counters_print("before", base);
	counters_print("after ", &now);
	*reported = true;
	counters_read(base);
}

static void sweep(const struct op *op, struct state *s, unsigned int first,
		  unsigned int max)
{
	unsigned int n, left = 0, failed_calls[ARRAY_SIZE(op->errs)] = { 0 };
	unsigned int absorbed = 0, errs = 0, nfailed = 0;
	struct counters base;
	char what[96];
	bool leak_reported = false;
	time_t t0 = time(NULL);
	char how[128] = "";

	if (op->prepare)
		op->prepare(s);
	fault_sites(op->sites ? op->sites : SITE_ALLOC);
	if (op->exclude && !(getenv("TC_FI_EXCLUDE") && !strcmp(getenv("TC_FI_EXCLUDE"), "none"))) {
		unsigned long a, b;

		if (!kallsyms_range(op->exclude, &a, &b))
			die("%s: no %s in /proc/kallsyms", op->name, op->exclude);
		fault_reject(a, b);
		printf("  %s: allocations inside %s are no failure points (a DRM core bug)\n",
		       op->name, op->exclude);
	}
	counters_read(&base);
	kmsg_check(op->name, 0);
	/* TC_FI_FIRST=N: from the N-th point on (a reproduction, not a verdict
	 * on the whole call) */
	for (n = first; n <= max; n++) {
		int64_t tp = now_ns();
		int r, r2, e;

		op->setup(s);
		arm(n);
		r = op->call(s);
		left = disarm();
		op->undo(s, r);
		e = op_errno(op, r);
		kmsg_needle = !left && r && e >= 0 ? op->errs_log[e] : NULL;
		kmsg_needle_seen = false;
		if (verbose && !left) {
			chain[0] = 0;
			kmsg_check(op->name, n);
			printf("  point %u -> %s: %s (%.1f s)\n", n, errname(r),
			       chain[0] ? chain : "(no stack: a __GFP_NOWARN allocation)",
			       (now_ns() - tp) / 1e9);
		}

		if (left) {
			/* n-th point not reached: the call ran clean. */
			if (r)
				bad("%s: fails without an injected failure: %s", op->name, errname(r));
		} else if (!r) {
			absorbed++;
		} else if (e >= 0) {
			failed_calls[e]++;
		} else {
			if (errs++ < 10)
				bad("%s, failure point %u: returned %s, not an errno of the operation",
				    op->name, n, errname(r));
		}
		snprintf(what, sizeof(what), "failure point %u (call returned %s)", n, errname(r));
		leak_check(op, &base, &leak_reported, what);
		kmsg_check(op->name, n);
		if (kmsg_needle && !kmsg_needle_seen)
			bad("%s, failure point %u: returned %s without the driver's \"%s\" message "
			    "that names the helper it comes from", op->name, n, errname(r), kmsg_needle);
		kmsg_needle = NULL;
		if (left)
			break;
		/* bind: after a failed bind, undo bound it normally already */
		if (op->rebinds && r)
			continue;

		/* The same call right after, without injection, works. */
		op->setup(s);
		r2 = op->call(s);
		op->undo(s, r2);
		if (r2)
			bad("%s: the call after failure point %u failed: %s", op->name, n,
			    errname(r2));
		snprintf(what, sizeof(what), "the call after failure point %u", n);
		leak_check(op, &base, &leak_reported, what);
	}
	if (n > max && first == 1)
		bad("%s: more than %u failure points; raise TC_FI_MAX", op->name, max);
	if (n - 1 < op->min_points && first == 1)
		bad("%s: %u failure points reached, fewer than the %u it must reach",
		    op->name, n - 1, op->min_points);
	fault_sites(SITE_ALLOC);
	fault_reject(0, 0);
	for (unsigned int i = 0; i < ARRAY_SIZE(op->errs); i++) {
		int err = op->errs[i] ? op->errs[i] : i == 0 ? ENOMEM : 0;

		nfailed += failed_calls[i];
		if (err && (failed_calls[i] || i == 0))
			snprintf(how + strlen(how), sizeof(how) - strlen(how), "%s%s %u",
				 i ? ", " : "", strerrorname_np(err), failed_calls[i]);
	}
	printf("RESULT %s: %u failure points reached, %u failed the call (%s), %u absorbed, %u other (%ld s)\n",
	       op->name, n - 1, nfailed, how, absorbed, errs, (long)(time(NULL) - t0));
	if (left > 1)	/* allocations depend a little on the state */
		printf("  note: the clean call reached %u points\n", n - left);
	if (getenv("TC_FI_KMEMLEAK") && atoi(getenv("TC_FI_KMEMLEAK")))
		kmemleak_ours(op->name);
	kmsg_check(op->name, n);
	if (op->finish)
		op->finish(s);
}

static void load_patterns(const char *path)
{
	char line[512], *pat = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		die("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		size_t l;

		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		l = strlen(line);
		pat = realloc(pat, len + l + 2);
		if (!pat)
			die("out of memory");
		if (len)
			pat[len++] = '|';
		memcpy(pat + len, line, l + 1);
		len += l;
	}
	fclose(f);
	if (!pat || regcomp(&reports, pat, REG_EXTENDED | REG_NOSUB))
		die("bad patterns in %s", path);
	free(pat);
}

/* The dma-buf count must see an export, or a leaked one would pass unseen. */
static void dmabuf_count_check(struct state *s)
{
	struct counters before, during;
	uint64_t va;
	uint32_t h = bo_new(s->fd, &va);
	int fd;

	counters_read(&before);
	fd = prime_export(s->fd, h);
	counters_read(&during);
	close(fd);
	gem_close(s->fd, h);
	if (during.dmabufs != before.dmabufs + 1)
		die("dma_buf/bufinfo: %ld buffers with one exported, %ld before: the leak check cannot count dma-bufs",
		    during.dmabufs, before.dmabufs);
}

int main(int argc, char **argv)
{
	struct state s = { .fdx = -1 };
	unsigned int max = getenv("TC_FI_MAX") ? atoi(getenv("TC_FI_MAX")) : 3000;
	bool skip_slow = getenv("TC_FI_SKIP_SLOW") && atoi(getenv("TC_FI_SKIP_SLOW"));
	unsigned int first = getenv("TC_FI_FIRST") ? atoi(getenv("TC_FI_FIRST")) : 1;
	int ran = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: tc_faultinject REPORTS.ere [OP...]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	verbose = getenv("TC_FI_VERBOSE") ? atoi(getenv("TC_FI_VERBOSE")) : 0;
	load_patterns(argv[1]);
	find_devices();
	if (access("/proc/thread-self/fail-nth", W_OK))
		die("no /proc/thread-self/fail-nth: not the debug kernel (CONFIG_FAULT_INJECTION)");
	setup_fault_attrs();
	fd_kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd_kmsg < 0 || lseek(fd_kmsg, 0, SEEK_END) < 0)
		die("/dev/kmsg: %s", strerror(errno));
	fd_nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (fd_nth < 0)
		die("fail-nth: %s", strerror(errno));
	disarm_start();
	s.fd = open_dev(0);
	s.fd2 = open_dev(0);
	if (ndevs > 1)
		s.fdx = open_dev(1);
	/* No page fault of ours inside an armed call. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall: %s", strerror(errno));
	s.umem = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s.umem == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	dmabuf_count_check(&s);
	printf("faultinject: %d device(s) (%s%s%s), fail-nth over slab and page allocations\n",
	       ndevs, devs[0].pci, ndevs > 1 ? ", " : "", ndevs > 1 ? devs[1].pci : "");

	for (unsigned int i = 0; i < ARRAY_SIZE(ops); i++) {
		bool want = argc == 2 && !(ops[i].slow && skip_slow);

		for (int a = 2; a < argc; a++)
			want |= !strcmp(argv[a], ops[i].name);
		if (!want)
			continue;
		if (ops[i].needs_two_devices && ndevs < 2) {
			bad("%s needs two engines (run-guest.sh --devices 2)", ops[i].name);
			continue;
		}
		if ((ops[i].sites & SITE_USERCOPY) && !have_usercopy) {
			bad("%s needs fail_usercopy (CONFIG_FAULT_INJECTION_USERCOPY)", ops[i].name);
			continue;
		}
		sweep(&ops[i], &s, first ? first : 1, max);
		ran++;
	}
	if (!ran)
		bad("no operation matched");
	printf("faultinject: %s\n", failed ? "FAILED" : "all operations held");
	return failed;
}
