// SPDX-License-Identifier: GPL-2.0-only
/* Copyright (c) 2026 The tilecopy authors */

#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/sysfs.h>

#include "tilecopy_device.h"

/*
 * Counters of the PCI device, in /sys/bus/pci/devices/<bdf>/ (also reached
 * as /sys/class/accel/accelN/device/). They count since probe; engine
 * resets do not clear them.
 */

static struct tc_device *tc_sysfs_tdev(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static ssize_t tc_stat_show(atomic64_t *counter, char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(counter));
}

static ssize_t jobs_done_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return tc_stat_show(&tc_sysfs_tdev(dev)->stats.jobs_done, buf);
}
static DEVICE_ATTR_RO(jobs_done);

static ssize_t jobs_failed_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return tc_stat_show(&tc_sysfs_tdev(dev)->stats.jobs_failed, buf);
}
static DEVICE_ATTR_RO(jobs_failed);

static ssize_t bytes_moved_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return tc_stat_show(&tc_sysfs_tdev(dev)->stats.bytes_moved, buf);
}
static DEVICE_ATTR_RO(bytes_moved);

/* Finished busy periods plus the ones still running. */
static ssize_t busy_ns_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct tc_device *tdev = tc_sysfs_tdev(dev);
	s64 ns = atomic64_read(&tdev->stats.busy_ns);
	ktime_t now = ktime_get();
	unsigned int i;

	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		mutex_lock(&q->lock);
		if (!list_empty(&q->active))
			ns += ktime_to_ns(ktime_sub(now, q->busy_since));
		mutex_unlock(&q->lock);
	}
	return sysfs_emit(buf, "%lld\n", ns);
}
static DEVICE_ATTR_RO(busy_ns);

static ssize_t resets_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return tc_stat_show(&tc_sysfs_tdev(dev)->stats.resets, buf);
}
static DEVICE_ATTR_RO(resets);

static ssize_t hangs_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return tc_stat_show(&tc_sysfs_tdev(dev)->stats.hangs, buf);
}
static DEVICE_ATTR_RO(hangs);

static ssize_t reset_hits_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return tc_stat_show(&tc_sysfs_tdev(dev)->stats.reset_hits, buf);
}
static DEVICE_ATTR_RO(reset_hits);

static ssize_t reset_requeued_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return tc_stat_show(&tc_sysfs_tdev(dev)->stats.reset_requeued, buf);
}
static DEVICE_ATTR_RO(reset_requeued);

static ssize_t tdr_skips_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return tc_stat_show(&tc_sysfs_tdev(dev)->stats.tdr_skips, buf);
}
static DEVICE_ATTR_RO(tdr_skips);

static ssize_t wedged_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(tc_sysfs_tdev(dev)->wedged));
}
static DEVICE_ATTR_RO(wedged);

static ssize_t fw_version_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct tc_device *tdev = tc_sysfs_tdev(dev);
	u32 v = tdev->fw_version;

	return sysfs_emit(buf, "%u.%u.%u\n", v >> 16, (v >> 8) & 0xff, v & 0xff);
}
static DEVICE_ATTR_RO(fw_version);

static ssize_t fw_name_show(struct device *dev,
			    struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", tc_sysfs_tdev(dev)->fw_name);
}
static DEVICE_ATTR_RO(fw_name);

static ssize_t bos_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return tc_stat_show(&tc_sysfs_tdev(dev)->stats.bos, buf);
}
static DEVICE_ATTR_RO(bos);

static ssize_t bo_bytes_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return tc_stat_show(&tc_sysfs_tdev(dev)->stats.bo_bytes, buf);
}
static DEVICE_ATTR_RO(bo_bytes);

static ssize_t pinned_bytes_show(struct device *dev, struct device_attribute *attr,
				 char *buf)
{
	return tc_stat_show(&tc_sysfs_tdev(dev)->stats.pinned_bytes, buf);
}
static DEVICE_ATTR_RO(pinned_bytes);

static struct attribute *tc_sysfs_attrs[] = {
	&dev_attr_bos.attr,
	&dev_attr_bo_bytes.attr,
	&dev_attr_pinned_bytes.attr,
	&dev_attr_jobs_done.attr,
	&dev_attr_jobs_failed.attr,
	&dev_attr_bytes_moved.attr,
	&dev_attr_busy_ns.attr,
	&dev_attr_resets.attr,
	&dev_attr_hangs.attr,
	&dev_attr_reset_hits.attr,
	&dev_attr_reset_requeued.attr,
	&dev_attr_tdr_skips.attr,
	&dev_attr_wedged.attr,
	&dev_attr_fw_version.attr,
	&dev_attr_fw_name.attr,
	NULL
};

static const struct attribute_group tc_sysfs_group = {
	.attrs = tc_sysfs_attrs,
};

const struct attribute_group *tc_sysfs_groups[] = {
	&tc_sysfs_group,
	NULL
};
