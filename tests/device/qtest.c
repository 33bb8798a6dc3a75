/* SPDX-License-Identifier: MIT */
/*
 * qtest.c - the harness behind the device tests and the device benchmark:
 * QEMU's qtest text protocol over pipes, guest RAM shared through a file,
 * PCI config, the engine's registers, firmware images, page tables, rings.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include "qtest.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void qt_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void qts_print_report(const char *rep);

/* The QEMU being driven, for diagnostics when it goes away. */
static struct qts *qt_current;

/* Fatal harness errors abort the test case (Check reports the signal and
 * the message on stderr, followed by the end of QEMU's log). */
static void qt_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "qtest harness: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	if (qt_current) {
		char *log = qts_log(qt_current);
		const char *rep = qts_sanitizer_report(log);
		size_t n = strlen(log);

		if (rep)	/* the report from its first line, not the log's tail */
			qts_print_report(rep);
		else
			fprintf(stderr, "--- QEMU log (end):\n%s\n",
				n > 3000 ? log + n - 3000 : log);
		free(log);
	}
	abort();
}

/*
 * A sanitizer's report on stderr, without the qtest protocol's log lines
 * ("[R +0.1] readl ...") that QEMU interleaves with it; 150 lines at most.
 */
static void qts_print_report(const char *rep)
{
	const char *p = rep, *nl;
	unsigned lines = 0;

	fprintf(stderr, "--- QEMU's sanitizer report:\n");
	for (; *p && lines < 150; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		if (!(p[0] == '[' && strchr("RSI", p[1]) && p[2] == ' ' && p[3] == '+')) {
			fprintf(stderr, "%.*s\n", (int)(nl - p + (*nl != '\n')), p);
			lines++;
		}
		if (!nl[1])
			break;
	}
}

/*
 * The first line of a report of AddressSanitizer, LeakSanitizer or
 * UndefinedBehaviorSanitizer in @log (a QEMU configured with
 * --enable-sanitizers), or NULL.
 */
const char *qts_sanitizer_report(const char *log)
{
	static const char *const marks[] = {
		"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", ": runtime error: ",
		"SUMMARY: UndefinedBehaviorSanitizer", "AddressSanitizer:DEADLYSIGNAL",
	};
	const char *first = NULL, *p;
	size_t i;

	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		p = strstr(log, marks[i]);
		if (p && (!first || p < first))
			first = p;
	}
	if (!first)
		return NULL;
	while (first > log && first[-1] != '\n')
		first--;
	return first;
}

double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

const char *qts_binary(void)
{
	const char *b = getenv("TC_QEMU");

	return b && *b ? b : "build/qemu/qemu-system-x86_64";
}

void qts_require_binary(void)
{
	if (access(qts_binary(), X_OK) != 0) {
		printf("SKIP: no QEMU with the tilecopy device at %s "
		       "(make qemu-build builds it)\n", qts_binary());
		exit(77);
	}
}

/* Split a space separated string into argv entries (no quoting needed). */
static int push_words(char **argv, int argc, int max, char *s)
{
	char *save = NULL, *w;

	for (w = strtok_r(s, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (argc >= max - 1)
			qt_die("too many QEMU arguments");
		argv[argc++] = w;
	}
	return argc;
}

static char *qts_cmd(struct qts *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Send one command, return the reply line (static buffer) after "OK". */
static char *qts_cmd(struct qts *q, const char *fmt, ...)
{
	static char line[4096];
	va_list ap;

	va_start(ap, fmt);
	vfprintf(q->to, fmt, ap);
	va_end(ap);
	fputc('\n', q->to);
	if (fflush(q->to) != 0)
		qt_die("QEMU went away (write: %s)", strerror(errno));
	for (;;) {
		if (!fgets(line, sizeof(line), q->from))
			qt_die("QEMU went away (no reply)");
		if (strncmp(line, "IRQ ", 4) == 0) {	/* asynchronous */
			unsigned n = 0;

			if (sscanf(line + 4, "raise %u", &n) == 1 && n < 64)
				q->irq[n] = 1;
			else if (sscanf(line + 4, "lower %u", &n) == 1 && n < 64)
				q->irq[n] = 0;
			q->irq_events++;
			continue;
		}
		break;
	}
	if (strncmp(line, "OK", 2) != 0)
		qt_die("qtest: unexpected reply '%s'", line);
	return line + 2;
}

/*
 * Where the guest RAM file goes: /dev/shm when it has room for all of it
 * (containers often give it 64 MiB: touching pages beyond that would kill
 * QEMU with SIGBUS), else $TMPDIR or /tmp.
 */
static const char *qts_ram_dir(uint64_t size)
{
	const char *tmp = getenv("TMPDIR");
	struct statvfs v;

	if (access("/dev/shm", W_OK) == 0 && statvfs("/dev/shm", &v) == 0 &&
	    (uint64_t)v.f_bavail * v.f_frsize >= size + (64ull << 20))
		return "/dev/shm";
	return tmp && *tmp ? tmp : "/tmp";
}

struct qts *qts_start(uint64_t ram, const char *devices)
{
	struct qts *q = calloc(1, sizeof(*q));
	int to[2], from[2], fd, logfd, argc = 0;
	const char *dir = qts_ram_dir(ram ? ram : QT_RAM_SIZE);
	const char *fwargs = getenv("TC_QEMU_ARGS");
	char *argv[96], memopt[256], machine[64], msize[32], *dev_copy, *fw_copy;

	if (!q)
		qt_die("out of memory");
	q->ram_size = ram ? ram : QT_RAM_SIZE;
	q->brk = QT_ALLOC_BASE;
	snprintf(q->ram_path, sizeof(q->ram_path), "%s/tc-qtest-ram-XXXXXX", dir);
	fd = mkstemp(q->ram_path);
	if (fd < 0 || ftruncate(fd, q->ram_size) != 0)
		qt_die("guest RAM file %s: %s", q->ram_path, strerror(errno));
	q->ram = mmap(NULL, q->ram_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (q->ram == MAP_FAILED)
		qt_die("mmap guest RAM: %s", strerror(errno));
	snprintf(q->log_path, sizeof(q->log_path), "/tmp/tc-qtest-log-XXXXXX");
	logfd = mkstemp(q->log_path);
	if (logfd < 0)
		qt_die("log file: %s", strerror(errno));

	snprintf(memopt, sizeof(memopt),
		 "memory-backend-file,id=ram0,size=%llu,mem-path=%s,share=on",
		 (unsigned long long)q->ram_size, q->ram_path);
	snprintf(machine, sizeof(machine), "q35,memory-backend=ram0");
	snprintf(msize, sizeof(msize), "%lluM", (unsigned long long)(q->ram_size >> 20));
	argv[argc++] = (char *)qts_binary();
	argv[argc++] = "-machine";
	argv[argc++] = machine;
	argv[argc++] = "-accel";
	argv[argc++] = "qtest";
	argv[argc++] = "-qtest";
	argv[argc++] = "stdio";
	argv[argc++] = "-display";
	argv[argc++] = "none";
	argv[argc++] = "-nodefaults";
	argv[argc++] = "-m";
	argv[argc++] = msize;
	argv[argc++] = "-object";
	argv[argc++] = memopt;
	argv[argc++] = "-d";
	argv[argc++] = "guest_errors,unimp";
	fw_copy = strdup(fwargs && *fwargs ? fwargs : "-L /usr/share/seabios -L /usr/share/qemu");
	argc = push_words(argv, argc, 96, fw_copy);
	dev_copy = strdup(devices ? devices : "");
	argc = push_words(argv, argc, 96, dev_copy);
	argv[argc] = NULL;

	if (pipe(to) || pipe(from))
		qt_die("pipe: %s", strerror(errno));
	q->pid = fork();
	if (q->pid < 0)
		qt_die("fork: %s", strerror(errno));
	if (q->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		dup2(logfd, 2);
		close(to[0]); close(to[1]); close(from[0]); close(from[1]);
		/* QEMU dies with the test, whatever happens to the test (a
		 * Check timeout kills the test process with SIGKILL). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(127);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	close(logfd);
	free(dev_copy);
	free(fw_copy);
	q->to = fdopen(to[1], "w");
	q->from = fdopen(from[0], "r");
	qt_current = q;
	/* First exchange: QEMU is up (it opened the RAM file). */
	qts_cmd(q, "clock_step 0");
	unlink(q->ram_path);
	return q;
}

char *qts_log(struct qts *q)
{
	FILE *f = fopen(q->log_path, "r");
	char *buf;
	long n;

	if (!f)
		return strdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, n + 1);
	if (n > 0 && fread(buf, 1, n, f) != (size_t)n)
		buf[0] = 0;
	fclose(f);
	return buf;
}

void qts_quit(struct qts *q)
{
	int st, i;
	char *log;

	if (qt_current == q)
		qt_current = NULL;
	fclose(q->to);
	kill(q->pid, SIGTERM);
	for (i = 0; i < 500; i++) {
		if (waitpid(q->pid, &st, WNOHANG) == q->pid)
			goto reaped;
		usleep(10000);
	}
	kill(q->pid, SIGKILL);
	waitpid(q->pid, &st, 0);
reaped:
	fclose(q->from);
	munmap(q->ram, q->ram_size);
	/*
	 * A sanitizer report at any time, the exit included (LeakSanitizer),
	 * fails the case even where QEMU kept answering: with halt_on_error a
	 * report also ends QEMU, which the next command finds.
	 */
	log = qts_log(q);
	if (qts_sanitizer_report(log)) {
		qt_current = q;
		qt_die("QEMU reported an error of a sanitizer (exit status 0x%x)", st);
	}
	free(log);
	unlink(q->log_path);
	free(q);
}

void qts_irq_intercept(struct qts *q, const char *path)
{
	qts_cmd(q, "irq_intercept_in %s", path);
}

uint32_t qts_readl(struct qts *q, uint64_t addr)
{
	return strtoul(qts_cmd(q, "readl 0x%llx", (unsigned long long)addr), NULL, 0);
}

void qts_writel(struct qts *q, uint64_t addr, uint32_t val)
{
	qts_cmd(q, "writel 0x%llx 0x%x", (unsigned long long)addr, val);
}

uint32_t qts_inl(struct qts *q, uint16_t port)
{
	return strtoul(qts_cmd(q, "inl 0x%x", port), NULL, 0);
}

void qts_outl(struct qts *q, uint16_t port, uint32_t val)
{
	qts_cmd(q, "outl 0x%x 0x%x", port, val);
}

void qts_memwrite(struct qts *q, uint64_t addr, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t off, n, i;
	char *hex = malloc(2 * 4096 + 1);

	for (off = 0; off < len; off += n) {
		n = len - off < 4096 ? len - off : 4096;
		for (i = 0; i < n; i++)
			sprintf(hex + 2 * i, "%02x", b[off + i]);
		qts_cmd(q, "write 0x%llx 0x%zx 0x%s", (unsigned long long)(addr + off), n, hex);
	}
	free(hex);
}

uint64_t qts_alloc(struct qts *q, uint64_t size, uint64_t align)
{
	uint64_t a = (q->brk + align - 1) & ~(align - 1);

	if (a + size > q->ram_size)
		qt_die("guest RAM exhausted (%llu bytes asked)", (unsigned long long)size);
	q->brk = a + size;
	memset(q->ram + a, 0, size);
	return a;
}

void *qts_ptr(struct qts *q, uint64_t gpa)
{
	if (gpa >= q->ram_size)
		qt_die("gpa 0x%llx outside RAM", (unsigned long long)gpa);
	return q->ram + gpa;
}

/* ---- PCI ------------------------------------------------------------------ */

uint32_t pci_cfg_read(struct qts *q, unsigned slot, unsigned off)
{
	qts_outl(q, 0xcf8, 0x80000000u | (slot << 11) | (off & 0xfc));
	return qts_inl(q, 0xcfc);
}

void pci_cfg_write(struct qts *q, unsigned slot, unsigned off, uint32_t val)
{
	qts_outl(q, 0xcf8, 0x80000000u | (slot << 11) | (off & 0xfc));
	qts_outl(q, 0xcfc, val);
}

void tcdev_init(struct tcdev *d, struct qts *q, unsigned slot, uint64_t bar_base)
{
	d->q = q;
	d->slot = slot;
	d->bar0 = bar_base;
	d->bar1 = bar_base + 0x10000;
	d->bar2 = bar_base + 0x40000;
	pci_cfg_write(q, slot, 0x10, (uint32_t)d->bar0);
	pci_cfg_write(q, slot, 0x14, (uint32_t)d->bar1);
	pci_cfg_write(q, slot, 0x18, (uint32_t)d->bar2);
	/* memory space + bus master */
	pci_cfg_write(q, slot, 0x04, (pci_cfg_read(q, slot, 0x04) & 0xffff0000u) | 0x6);
}

uint32_t tc_rd(struct tcdev *d, uint32_t reg)
{
	return qts_readl(d->q, d->bar0 + reg);
}

void tc_wr(struct tcdev *d, uint32_t reg, uint32_t val)
{
	qts_writel(d->q, d->bar0 + reg, val);
}

uint64_t tc_rd64(struct tcdev *d, uint32_t reg_lo)
{
	uint64_t lo = tc_rd(d, reg_lo);

	return lo | (uint64_t)tc_rd(d, reg_lo + 4) << 32;
}

uint32_t tc_qrd(struct tcdev *d, unsigned qi, uint32_t reg)
{
	return tc_rd(d, TC_Q_BASE(qi) + reg);
}

void tc_qwr(struct tcdev *d, unsigned qi, uint32_t reg, uint32_t val)
{
	tc_wr(d, TC_Q_BASE(qi) + reg, val);
}

/* ---- firmware images ------------------------------------------------------- */

uint32_t fw_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	int k;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

static size_t fw_rec(uint8_t *p, uint16_t type, const void *data, uint16_t len)
{
	memcpy(p, &type, 2);
	memcpy(p + 2, &len, 2);
	memcpy(p + 4, data, len);
	memset(p + 4 + len, 0, (4 - len % 4) % 4);
	return 4 + ((len + 3u) & ~3u);
}

size_t fw_image(uint8_t *buf, size_t cap, enum fw_break how)
{
	struct tc_fw_header h;
	uint8_t *p = buf + sizeof(h);
	uint32_t queues = 8, ops = (1u << DRM_TILECOPY_OP_COPY) |
		(1u << DRM_TILECOPY_OP_FILL) | (1u << DRM_TILECOPY_OP_WRITE64);
	uint32_t tile[2] = { 16, 16 };
	size_t psize;

	if (cap < 256)
		qt_die("firmware buffer too small");
	if (how == FW_ONLY_COPY)
		ops = 1u << DRM_TILECOPY_OP_COPY;
	if (how == FW_TWO_QUEUES)
		queues = 2;
	p += fw_rec(p, TC_FW_REC_NAME, "qtest", 5);
	if (how != FW_NO_QUEUES)
		p += fw_rec(p, TC_FW_REC_QUEUES, &queues, 4);
	if (how != FW_NO_OPS)
		p += fw_rec(p, TC_FW_REC_OPS, &ops, 4);
	p += fw_rec(p, TC_FW_REC_TILE, tile, 8);
	if (how != FW_NO_END)
		p += fw_rec(p, TC_FW_REC_END, NULL, 0);
	psize = p - (buf + sizeof(h));

	memset(&h, 0, sizeof(h));
	h.magic = how == FW_BAD_MAGIC ? 0x57464358 : TC_FW_MAGIC;
	h.format_version = how == FW_BAD_FORMAT ? 2 : TC_FW_FORMAT_VERSION;
	h.header_size = sizeof(h);
	h.fw_version = 0x010203;
	h.iface_min = h.iface_max = TC_FW_IFACE_VERSION;
	h.hw_version = how == FW_BAD_HW ? 0x00020000 : TC_HW_VERSION;
	h.features = TC_FW_FEAT_COPY | TC_FW_FEAT_FILL | TC_FW_FEAT_WRITE64;
	h.max_queues = 8;
	h.tilebuf_size = 4096;
	h.payload_size = psize;
	h.payload_crc32 = fw_crc32(0, buf + sizeof(h), psize);
	if (how == FW_BAD_PAYLOAD_CRC)
		h.payload_crc32 ^= 1;
	h.header_crc32 = 0;
	h.header_crc32 = fw_crc32(0, &h, sizeof(h));
	if (how == FW_BAD_HEADER_CRC)
		h.header_crc32 ^= 0x100;
	memcpy(buf, &h, sizeof(h));
	if (how == FW_TRUNCATED)
		return sizeof(h) + psize / 2;
	if (how == FW_TRUNCATED_HEADER)
		return 32;
	return sizeof(h) + psize;
}

uint32_t tc_boot(struct tcdev *d, const void *img, size_t len)
{
	qts_memwrite(d->q, d->bar2, img, len);
	tc_wr(d, TC_REG_BOOT_SIZE, len);
	tc_wr(d, TC_REG_BOOT_CTRL, TC_BOOT_START);
	return tc_rd(d, TC_REG_FW_STATUS);
}

void tc_boot_good(struct tcdev *d)
{
	uint8_t img[512];
	size_t n = fw_image(img, sizeof(img), FW_OK);
	uint32_t st = tc_boot(d, img, n);

	if (st != TC_FW_STATUS_OK || !(tc_rd(d, TC_REG_STATUS) & TC_STATUS_FW_READY))
		qt_die("good firmware refused: status %u", st);
}

/* ---- MMU ------------------------------------------------------------------------ */

void mmu_init(struct mmu *m, struct qts *q)
{
	m->q = q;
	m->root = qts_alloc(q, TC_PAGE_SIZE, TC_PAGE_SIZE);
}

static uint64_t *mmu_pte(struct mmu *m, uint64_t va, int create)
{
	uint64_t table = m->root;
	int level;

	for (level = 0; level < 2; level++) {
		uint64_t *e = (uint64_t *)qts_ptr(m->q, table) +
			((va >> (30 - 9 * level)) & (TC_PT_ENTRIES - 1));

		if (!(*e & TC_PTE_VALID)) {
			if (!create)
				return NULL;
			*e = qts_alloc(m->q, TC_PAGE_SIZE, TC_PAGE_SIZE) | TC_PTE_VALID;
		}
		table = *e & TC_PTE_ADDR_MASK;
	}
	return (uint64_t *)qts_ptr(m->q, table) + ((va >> TC_PAGE_SHIFT) & (TC_PT_ENTRIES - 1));
}

unsigned mmu_generation;

void mmu_map_page(struct mmu *m, uint64_t va, uint64_t pa, uint64_t perm)
{
	mmu_generation++;
	*mmu_pte(m, va, 1) = (pa & TC_PTE_ADDR_MASK) | perm | TC_PTE_VALID;
}

void mmu_unmap_page(struct mmu *m, uint64_t va)
{
	uint64_t *e = mmu_pte(m, va, 0);

	mmu_generation++;
	if (e)
		*e = 0;
}

void mmu_map(struct mmu *m, uint64_t va, uint64_t pa, uint64_t len, uint64_t perm)
{
	uint64_t off;

	for (off = 0; off < len; off += TC_PAGE_SIZE)
		mmu_map_page(m, va + off, pa + off, perm);
}

/* ---- rings ---------------------------------------------------------------------- */

void ring_setup(struct tcdev *d, unsigned qi, struct ring *r, uint32_t size)
{
	r->size = size;
	r->tail = 0;
	r->base = qts_alloc(d->q, size * sizeof(struct tc_ring_entry), 64);
	tc_qwr(d, qi, TC_Q_RING_BASE_LO, (uint32_t)r->base);
	tc_qwr(d, qi, TC_Q_RING_BASE_HI, r->base >> 32);
	tc_qwr(d, qi, TC_Q_RING_SIZE, size);
	tc_qwr(d, qi, TC_Q_INT_MASK, TC_Q_INT_DONE | TC_Q_INT_ERROR);
	tc_qwr(d, qi, TC_Q_CTRL, TC_Q_CTRL_ENABLE);
}

struct tc_ring_entry *ring_entry(struct tcdev *d, struct ring *r)
{
	struct tc_ring_entry *e = qts_ptr(d->q, r->base + r->tail * sizeof(*e));

	memset(e, 0, sizeof(*e));
	return e;
}

void ring_submit_flags(struct tcdev *d, unsigned qi, struct ring *r, uint64_t descs,
		       uint32_t count, uint32_t ctx, uint64_t seqno, uint32_t flags)
{
	struct tc_ring_entry *e = ring_entry(d, r);

	e->desc_addr = descs;
	e->desc_count = count;
	e->ctx = ctx;
	e->seqno = seqno;
	e->flags = flags;
	__sync_synchronize();
	r->tail = (r->tail + 1) % r->size;
	tc_qwr(d, qi, TC_Q_TAIL, r->tail);
	tc_qwr(d, qi, TC_Q_DOORBELL, 1);
}

void ring_submit(struct tcdev *d, unsigned qi, struct ring *r, uint64_t descs,
		 uint32_t count, uint32_t ctx, uint64_t seqno)
{
	ring_submit_flags(d, qi, r, descs, count, ctx, seqno, TC_RING_F_DESC_256);
}

uint32_t tc_wait(struct tcdev *d, unsigned qi, unsigned timeout_ms)
{
	double end = now_sec() + timeout_ms / 1000.0;
	uint32_t st;

	for (;;) {
		st = tc_qrd(d, qi, TC_Q_STATUS);
		if (st & TC_Q_STATUS_HALTED)
			return st;
		if (!(st & TC_Q_STATUS_BUSY) &&
		    tc_qrd(d, qi, TC_Q_HEAD) == tc_qrd(d, qi, TC_Q_TAIL) &&
		    !(tc_qrd(d, qi, TC_Q_STATUS) & TC_Q_STATUS_BUSY))
			return st;
		if (now_sec() > end)
			return st | 0x80000000u;	/* timed out */
		usleep(200);
	}
}

struct drm_tilecopy_desc *desc_alloc(struct qts *q, unsigned count, uint64_t *gpa)
{
	*gpa = qts_alloc(q, count * sizeof(struct drm_tilecopy_desc), 64);
	return qts_ptr(q, *gpa);
}
