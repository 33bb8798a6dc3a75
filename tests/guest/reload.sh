#!/bin/bash
# In-guest: unload and reload the driver with work done in between, with
# every engine of the VM (run-guest.sh --devices N), and check jobs still
# work and nothing is left behind.
#
#   run-guest.sh --devices 2 -- tests/guest/reload.sh BUILD_DIR
#
# POSIX sh as well as bash: the arm64 guest runs it with busybox sh
# (tests/arm64/), where BUILD_DIR is the cross-built tree.
set -uo pipefail

build=${1:?usage: reload.sh BUILD_DIR}
module=${TC_MODULE:?}
smoke=$build/tests/guest/test_ioctl
want=${TC_EXPECT_DEVICES:-1}
fail=0
bad() { echo "reload: FAIL: $*"; fail=1; }

# The driver's nodes: accel nodes, or render nodes on a kernel without the
# accel core (CONFIG_DRM_ACCEL=n: Debian's arm64 6.12).
nodes() {
	ls -d /sys/bus/pci/drivers/tilecopy/*/accel/accel* \
		/sys/bus/pci/drivers/tilecopy/*/drm/renderD* 2>/dev/null
}
ndev() { nodes | wc -l; }
node0() {
	n=$(nodes | head -1)
	case $n in */accel/*) echo "/dev/accel/${n##*/}" ;; *) echo "/dev/dri/${n##*/}" ;; esac
}

for round in 1 2 3; do
	if ! lsmod | grep -q '^tilecopy '; then
		timeout 60 insmod "$module" ${TC_MODULE_ARGS:-} || { bad "round $round: insmod"; break; }
	fi
	for _ in $(seq 50); do [ "$(ndev)" -ge "$want" ] && break; sleep 0.1; done
	[ "$(ndev)" = "$want" ] || bad "round $round: $(ndev) device nodes, want $want"
	TC_REQUIRE_DEVICE=1 CK_RUN_CASE=job timeout 300 "$smoke" ||
		bad "round $round: jobs failed"
	# an open file and a mapping do not survive rmmod: rmmod must refuse
	# while the file is open, then succeed once it is closed
	node=$(node0)
	exec 9<>"$node"
	# 9>&-: busybox's timeout leaves a watcher process behind for up to a
	# second, which would otherwise keep the file (and the module) open
	if timeout 30 rmmod tilecopy 2>/dev/null 9>&-; then
		bad "round $round: rmmod succeeded with $node open"
	fi
	exec 9>&-
	timeout 60 rmmod tilecopy || { bad "round $round: rmmod"; break; }
	[ "$(ndev)" = 0 ] || bad "round $round: device nodes left after rmmod"
	[ ! -e /sys/bus/pci/drivers/tilecopy ] || bad "round $round: driver still registered"
	# every reference tilecopy took on its helpers is given back
	for m in gpu_sched drm_shmem_helper; do
		used=$(awk -v m=$m '$1 == m { print $3 }' /proc/modules)
		[ "$used" = 0 ] || bad "round $round: $m still used $used time(s) after rmmod"
	done
	# the device dirs are named by PCI address (accel/ or dri/)
	left=$(for d in /sys/kernel/debug/accel /sys/kernel/debug/dri; do
		ls "$d" 2>/dev/null; done | grep :)
	[ -z "$left" ] || bad "round $round: debugfs dir(s) left under accel/ or dri/:" $left
done
[ $fail = 0 ] && echo "reload: 3 unload/reload rounds passed with $want device(s)"
exit $fail
