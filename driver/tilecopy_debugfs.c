// SPDX-License-Identifier: GPL-2.0-only
/* Copyright (c) 2026 The tilecopy authors */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <drm/drm_drv.h>

#include "tilecopy_accel.h"
#include "tilecopy_device.h"
#include "tilecopy_job.h"
#include "tilecopy_mmu.h"

/*
 * /sys/kernel/debug/accel/<bdf>/ (dri/<bdf>/ for a render node, see tc_fops):
 *   regs    global and queue registers
 *   queues  driver view of each queue
 *   jobs    jobs the engine owns, per queue
 *   reset   write anything: reset the engine, as a hang would (completed jobs
 *           complete, started ones fail with RESET, the others run after it)
 */

static const struct {
	const char *name;
	u32 reg;
} tc_global_regs[] = {
	{ "ID", TC_REG_ID },
	{ "VERSION", TC_REG_VERSION },
	{ "NUM_QUEUES", TC_REG_NUM_QUEUES },
	{ "TILEBUF_SIZE", TC_REG_TILEBUF_SIZE },
	{ "CTRL", TC_REG_CTRL },
	{ "STATUS", TC_REG_STATUS },
	{ "FW_VERSION", TC_REG_FW_VERSION },
	{ "FW_STATUS", TC_REG_FW_STATUS },
	{ "INT_STATUS", TC_REG_INT_STATUS },
	{ "INT_MASK", TC_REG_INT_MASK },
	{ "JOBS_DONE_LO", TC_REG_JOBS_DONE_LO },
	{ "JOBS_FAILED_LO", TC_REG_JOBS_FAILED_LO },
	{ "BYTES_MOVED_LO", TC_REG_BYTES_MOVED_LO },
	{ "BYTES_MOVED_HI", TC_REG_BYTES_MOVED_HI },
	{ "BUSY_NS_LO", TC_REG_BUSY_NS_LO },
	{ "BUSY_NS_HI", TC_REG_BUSY_NS_HI },
};

static const struct {
	const char *name;
	u32 reg;
} tc_queue_regs[] = {
	{ "RING_SIZE", TC_Q_RING_SIZE },
	{ "HEAD", TC_Q_HEAD },
	{ "TAIL", TC_Q_TAIL },
	{ "CTRL", TC_Q_CTRL },
	{ "STATUS", TC_Q_STATUS },
	{ "INT_STATUS", TC_Q_INT_STATUS },
	{ "INT_MASK", TC_Q_INT_MASK },
	{ "ERR_CODE", TC_Q_ERR_CODE },
	{ "ERR_DESC", TC_Q_ERR_DESC },
	{ "ERR_ADDR_LO", TC_Q_ERR_ADDR_LO },
	{ "ERR_ADDR_HI", TC_Q_ERR_ADDR_HI },
	{ "DONE_SEQNO_LO", TC_Q_DONE_SEQNO_LO },
	{ "ERR_SEQNO_LO", TC_Q_ERR_SEQNO_LO },
	{ "STARTED_SEQNO_LO", TC_Q_STARTED_SEQNO_LO },
};

static int tc_regs_show(struct seq_file *m, void *unused)
{
	struct tc_device *tdev = m->private;
	unsigned int i, q;
	int idx;

	if (!drm_dev_enter(&tdev->base, &idx))
		return -ENODEV;
	for (i = 0; i < ARRAY_SIZE(tc_global_regs); i++)
		seq_printf(m, "%-16s 0x%03x = 0x%08x\n", tc_global_regs[i].name,
			   tc_global_regs[i].reg,
			   tc_readl(tdev, tc_global_regs[i].reg));
	for (q = 0; q < tdev->num_queues; q++) {
		for (i = 0; i < ARRAY_SIZE(tc_queue_regs); i++) {
			u32 reg = TC_Q_BASE(q) + tc_queue_regs[i].reg;

			seq_printf(m, "Q%u_%-13s 0x%03x = 0x%08x\n", q,
				   tc_queue_regs[i].name, reg, tc_readl(tdev, reg));
		}
	}
	drm_dev_exit(idx);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tc_regs);

static int tc_queues_show(struct seq_file *m, void *unused)
{
	struct tc_device *tdev = m->private;
	unsigned int i;

	seq_printf(m, "firmware %s running=%d version 0x%08x\n", tdev->fw_name,
		   tdev->fw_ok, tdev->fw_version);
	seq_printf(m, "wedged=%d\n", READ_ONCE(tdev->wedged));
	seq_printf(m, "engine contexts in use: %u of %u\n",
		   tc_mmu_slots_used(tdev), TC_NUM_CONTEXTS);
	seq_printf(m, "resets %lld, hangs %lld, jobs hit by a reset %lld, timeouts that found no hang %lld\n",
		   atomic64_read(&tdev->stats.resets), atomic64_read(&tdev->stats.hangs),
		   atomic64_read(&tdev->stats.reset_hits),
		   atomic64_read(&tdev->stats.tdr_skips));
	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];
		struct tc_job *job;
		unsigned int n = 0;

		mutex_lock(&q->lock);
		list_for_each_entry(job, &q->active, link)
			n++;
		seq_printf(m, "queue %u: %u jobs on the engine, last seqno %llu, tail %u, credits %d/%u\n",
			   i, n, q->seqno, q->tail % TC_RING_ENTRIES,
			   atomic_read(&q->sched->credit_count), q->sched->credit_limit);
		mutex_unlock(&q->lock);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tc_queues);

static int tc_jobs_show(struct seq_file *m, void *unused)
{
	struct tc_device *tdev = m->private;
	unsigned int i;

	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];
		struct tc_job *job;

		mutex_lock(&q->lock);
		list_for_each_entry(job, &q->active, link)
			seq_printf(m, "queue %u seqno %llu ctx %d descs %u bytes %llu\n",
				   i, job->seqno, READ_ONCE(job->ctx->slot), job->desc_count,
				   job->bytes);
		mutex_unlock(&q->lock);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tc_jobs);

static ssize_t tc_reset_write(struct file *file, const char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct tc_device *tdev = file->private_data;
	int ret = tc_device_reset_forced(tdev);

	return ret ? ret : count;
}

static const struct file_operations tc_reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = tc_reset_write,
	.llseek = noop_llseek,
};

/**
 * tc_debugfs_init() - create the device's debugfs files
 * @tdev: device
 *
 * They live in the device's debugfs directory, removed with the device.
 */
void tc_debugfs_init(struct tc_device *tdev)
{
	struct dentry *root = tdev->base.debugfs_root;

	debugfs_create_file("regs", 0400, root, tdev, &tc_regs_fops);
	debugfs_create_file("queues", 0400, root, tdev, &tc_queues_fops);
	debugfs_create_file("jobs", 0400, root, tdev, &tc_jobs_fops);
	debugfs_create_file("reset", 0200, root, tdev, &tc_reset_fops);
}
