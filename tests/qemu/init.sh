#!/bin/sh
# /init of the guest initramfs (busybox-static). Generic: everything about
# one run comes from /results/env, written by tests/qemu/run-guest.sh.
#
# Mounts the host's / read-only (9p tag "host") at /host and the writable
# results share (tag "results") at /results, loads the kernel modules, runs
# the command chrooted into the host's userspace (so host binaries linked
# with libcheck/libdrm work unchanged), then writes the exit status and
# dmesg to /results and powers off.
export PATH=/bin:/sbin
# A foreign-architecture busybox (mkinitramfs.sh cannot run it to list its
# applets) comes with /bin/sh only: link the others now.
[ -e /bin/mount ] || /bin/busybox --install -s /bin

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

fail() {
	echo "guest-init: $*" >&2
	[ -d /results/. ] && echo "guest-init: $*" >>/results/init.log
	dmesg >/results/dmesg 2>/dev/null
	echo 125 >/results/status.tmp && mv /results/status.tmp /results/status
	sync
	poweroff -f
}

for m in netfs 9pnet 9pnet_virtio 9p; do
	[ -f /lib/modules/$m.ko ] && insmod /lib/modules/$m.ko
done
O9P="trans=virtio,version=9p2000.L,msize=512000"
mkdir -p /host /results
mount -t 9p -o "$O9P,cache=none" results /results || fail "cannot mount results share"
mount -t 9p -o "$O9P,ro,cache=loose" host /host || fail "cannot mount host share"
. /results/env || fail "no /results/env"
# run-guest.sh retries a boot that never got here (nothing of the project ran)
echo "guest-init: shares mounted" >/dev/console

# The debug kernel (run-guest.sh --kernel debug): every DMA-API error is
# printed, not only the first.
if [ "${GUEST_KERNEL:-stock}" = debug ]; then
	echo 100000 >/sys/kernel/debug/dma-api/num_errors ||
		fail "cannot raise dma-api/num_errors"
fi

# Modules: the kernel's own (from the initramfs), then the driver (from the
# host tree) unless --no-module.
for m in $GUEST_KMODS; do
	insmod /lib/modules/$m.ko || fail "insmod $m failed"
done
if [ -n "$GUEST_FW_PATH" ]; then
	echo -n "/host$GUEST_FW_PATH" >/sys/module/firmware_class/parameters/path
fi

# The host's userspace, with the guest's kernel filesystems.
for d in proc sys dev; do mount --bind /$d /host/$d || fail "bind /$d"; done
mount -t debugfs debugfs /host/sys/kernel/debug 2>/dev/null
# A writable /tmp; host paths under /tmp that the run needs (a tree
# cloned into /tmp, its build dir) stay visible through bind mounts.
mkdir -p /hosttmp
mount --bind /host/tmp /hosttmp || fail "bind host /tmp"
mount -t tmpfs tmpfs /host/tmp || fail "tmpfs /tmp"
for p in $GUEST_TMP_BINDS; do
	mkdir -p "/host$p" && mount --bind "/hosttmp${p#/tmp}" "/host$p" ||
		fail "cannot keep $p visible over the guest's /tmp"
done
mount -t tmpfs tmpfs /host/run 2>/dev/null
mkdir -p /host/tmp/results
mount --bind /results /host/tmp/results || fail "bind results"

if [ -n "$GUEST_MODULE" ]; then
	# shellcheck disable=SC2086
	insmod "/host$GUEST_MODULE" $GUEST_MODULE_ARGS ||
		echo "guest-init: insmod $GUEST_MODULE $GUEST_MODULE_ARGS failed" >>/results/init.log
fi

# The host's userspace is of another architecture (run-guest.sh --arch):
# the command gets this busybox, in the guest's /tmp, as shell and tools.
shell=/bin/bash
if [ -n "${GUEST_BUSYBOX_DIR:-}" ]; then
	bbdir=/host$GUEST_BUSYBOX_DIR
	mkdir -p "$bbdir" && cp /bin/busybox "$bbdir/" || fail "cannot install busybox in $bbdir"
	for app in $(/bin/busybox --list); do
		[ -e "$bbdir/$app" ] || ln -s busybox "$bbdir/$app"
	done
	shell=$GUEST_BUSYBOX_DIR/sh
fi

echo "guest-init: running command" >/dev/console
timeout "$GUEST_TIMEOUT" chroot /host "$shell" /tmp/results/cmd.sh \
	>/results/output 2>&1 </dev/null
rc=$?
# busybox timeout kills with SIGTERM: 143
[ $rc = 143 ] && echo "guest-init: command killed after the ${GUEST_TIMEOUT}s timeout (--timeout)" >>/results/init.log
echo "guest-init: command exited with $rc" >/dev/console

# Teardown, on either kernel: unload the driver if it is loaded, so that
# every boot runs the removal of each engine and the module's exit, and
# the verdict below sees what they print. On the debug kernel that is
# DMA-API debugging's check that the driver left no mapping behind (at
# unbind: the only check of a DMA_TO_DEVICE mapping never unmapped, which
# its cacheline tracking skips), debugobjects' check of works and timers
# freed while active, drm_mm_takedown() of every address space (names, with
# DRM_DEBUG_MM, who inserted a node left in it), and kmemleak's scans below
# after the removal has freed all it should. Processes of the command still
# alive (helpers it left behind) are killed first: a file they hold open
# would keep the module. rmmod failing then means a reference nobody
# holds any more (a leaked file, dma-buf or fence reference): the run fails.
if grep -q '^tilecopy ' /proc/modules; then
	kill -KILL -1 2>/dev/null	# every process but init
	# The module's .text, to place the frames of its code that kmemleak
	# prints as bare addresses once it is unloaded.
	cat /sys/module/tilecopy/sections/.text >/results/tilecopy.text 2>/dev/null
	rmmod_ok=0
	for _ in 1 2 3 4 5 6 7 8 9 10; do	# killed processes' files close as they exit
		timeout 120 rmmod tilecopy 2>/results/rmmod.err
		case $? in
		0) rmmod_ok=1; break ;;
		1) sleep 1 ;;		# in use
		*) echo "(rmmod did not finish in 120 s)" >>/results/rmmod.err; break ;;
		esac
	done
	if [ $rmmod_ok = 0 ]; then
		{
			echo "guest-init: rmmod tilecopy failed at the end of the run: $(cat /results/rmmod.err)"
			echo "guest-init: $(grep '^tilecopy ' /proc/modules) (name size refcount users ...)"
			for f in /proc/[0-9]*/fd/*; do
				case $(readlink "$f" 2>/dev/null) in
				/dev/accel/*|/dev/dri/*|*dmabuf*|*sync_file*)
					p=${f#/proc/}
					echo "guest-init: still open: $(readlink "$f") by pid ${p%%/*} ($(cat /proc/${p%%/*}/comm))" ;;
				esac
			done
		} >>/results/init.log
		[ $rc = 0 ] && rc=1
	fi
fi

# kmemleak reports an object that is at least 5 s old when a scan starts
# and found unreferenced, with the same checksum, in two scans: the wait
# makes what the unload just leaked old enough for the first scan, however
# fast the scans run.
if [ "${GUEST_KERNEL:-stock}" = debug ]; then
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak && echo scan >/sys/kernel/debug/kmemleak &&
		cat /sys/kernel/debug/kmemleak >/results/kmemleak
	# every error DMA-API debugging counted, printed or not
	cat /sys/kernel/debug/dma-api/error_count >/results/dma-api-errors
fi
# A test that clears the kernel log keeps what it cleared in dmesg.cleared
# (tests/guest/fw-failures.sh): the verdict reads all of it.
{ cat /results/dmesg.cleared 2>/dev/null; dmesg; } >/results/dmesg
echo $rc >/results/status.tmp && mv /results/status.tmp /results/status
umount /host/tmp/results 2>/dev/null
sync
poweroff -f
