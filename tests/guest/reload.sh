#!/bin/bash
# In-guest: unload and reload the driver with work done in between, with
# every engine of the VM (run-guest.sh --devices N), and check jobs still
# work and nothing is left behind.
#
#   run-guest.sh --devices 2 -- tests/guest/reload.sh BUILD_DIR
set -uo pipefail

build=${1:?usage: reload.sh BUILD_DIR}
module=${TC_MODULE:?}
smoke=$build/tests/guest/test_ioctl
want=${TC_EXPECT_DEVICES:-1}
fail=0
bad() { echo "reload: FAIL: $*"; fail=1; }

ndev() { ls -d /sys/class/accel/accel* 2>/dev/null | wc -l; }

for round in 1 2 3; do
	if ! lsmod | grep -q '^tilecopy '; then
		timeout 60 insmod "$module" ${TC_MODULE_ARGS:-} || { bad "round $round: insmod"; break; }
	fi
	for _ in $(seq 50); do [ "$(ndev)" -ge "$want" ] && break; sleep 0.1; done
	[ "$(ndev)" = "$want" ] || bad "round $round: $(ndev) accel devices, want $want"
	TC_REQUIRE_DEVICE=1 CK_RUN_CASE=job timeout 300 "$smoke" ||
		bad "round $round: jobs failed"
	# an open file and a mapping do not survive rmmod: rmmod must refuse
	# while the file is open, then succeed once it is closed
	exec 9<>/dev/accel/accel0
	if timeout 30 rmmod tilecopy 2>/dev/null; then
		bad "round $round: rmmod succeeded with /dev/accel/accel0 open"
	fi
	exec 9>&-
	timeout 60 rmmod tilecopy || { bad "round $round: rmmod"; break; }
	[ "$(ndev)" = 0 ] || bad "round $round: accel devices left after rmmod"
	[ ! -e /sys/bus/pci/drivers/tilecopy ] || bad "round $round: driver still registered"
	# every reference tilecopy took on its helpers is given back
	for m in gpu_sched drm_shmem_helper; do
		used=$(awk -v m=$m '$1 == m { print $3 }' /proc/modules)
		[ "$used" = 0 ] || bad "round $round: $m still used $used time(s) after rmmod"
	done
	left=$(ls /sys/kernel/debug/accel 2>/dev/null | wc -l)
	[ "$left" = 0 ] || bad "round $round: $left debugfs dir(s) left under accel/"
done
[ $fail = 0 ] && echo "reload: 3 unload/reload rounds passed with $want device(s)"
exit $fail
