#!/bin/bash
# make check-debug: the debug-kernel lane's part of make check, in four
# boots of the debug kernel (run-guest.sh --kernel debug; any KASAN,
# lockdep, DMA-API, debugobjects or UBSAN report, or a kmemleak leak in
# tilecopy/DRM code, fails a boot):
#
#   1. two engines, slow (delay-ns-per-kb): the uAPI suite (test_ioctl), the
#      recovery suite's forced resets with jobs in flight and reset storm
#      (test_recovery), the userptr suite (test_userptr: ranges unmapped
#      under running jobs, 64 threads), then the allocation-failure sweep
#      (tc_faultinject) of every entry point but the probe's (bind: 30
#      minutes or more; make check-debug-faultinject runs it);
#      one boot for them, since a boot with its kmemleak scans costs a
#      minute here;
#   2. dma-error-on-job=3, no MSI (--no-msi): test_recovery (DMA error
#      mid-job, recovery) with every interrupt through the INTx line: the
#      driver's only hard-IRQ handler (tc_device_intx) and its thread;
#   3. hang-on-job=2: test_recovery (job timeout, engine reset); then the
#      driver reloaded with job_timeout_ms=1 for test_abuse's tdr case
#      (the scheduler's timer firing on jobs the engine never got: report
#      7's regression case; hang-queue-mask=0x8 hangs queue 3's jobs, which
#      test_recovery leaves alone);
#   4. reset-hang-on=2: test_wedge (a failed reset wedges the device;
#      PCI unbind with files, jobs, mmaps and dma-bufs alive; bind again):
#      the teardown paths where DMA-API debugging and kmemleak found bugs.
#
# Each boot ends with the driver's unload (tests/qemu/init.sh: removal,
# DMA-API's check for mappings left, module exit) and the kmemleak scans.
# Every part runs even when an earlier one failed; the output names each
# part with its time (guest seconds). Environment: as run-guest.sh
# (TC_DEBUG_MODULE, QEMU_SYSTEM, BUILD), FI_OPS (sweep only these).
#
#   check-debug.sh --in-guest BUILD FI_OPS   (boot 1's parts, in the guest)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$here/../.." && pwd)
cd "$TOP" || exit 1

if [ "${1:-}" = --in-guest ]; then
	G=$2/tests/guest
	rc=0
	part() {
		local t=$SECONDS
		echo "=== $1"
		shift
		"$@" || { echo "=== FAILED"; rc=1; }
		echo "=== took $((SECONDS - t)) s"
	}
	part "uapi suite" "$G/test_ioctl"
	part "recovery: forced resets in flight, reset storm" "$G/test_recovery"
	part "userptr suite" "$G/test_userptr"
	# shellcheck disable=SC2086
	# the probe's sweep (bind, 30 min or more here) runs in make
	# check-debug-faultinject, not in the gate
	part "fault-injection sweep" env TC_FI_SKIP_SLOW=1 \
		"$2/tests/faultinject/tc_faultinject" "$TOP/tests/qemu/debug-reports.ere" $3
	exit $rc
fi

BUILD=${BUILD:-$TOP/build}
export TC_REQUIRE_DEVICE=1 TC_KERNEL=debug
G=$BUILD/tests/guest
run=(bash tests/qemu/run-guest.sh --kernel debug)
failed=()

step() {
	local name=$1 t0=$SECONDS
	shift
	echo "--- check-debug: $name"
	if "$@"; then
		echo "--- check-debug: $name: ok ($((SECONDS - t0)) s)"
	else
		echo "--- check-debug: $name: FAILED ($((SECONDS - t0)) s)"
		failed+=("$name")
	fi
}

step "uapi + recovery + userptr + fault injection (2 engines)" "${run[@]}" --devices 2 \
	--device-props delay-ns-per-kb=50000 --timeout 2400 -- \
	bash tests/qemu/check-debug.sh --in-guest "$BUILD" "${FI_OPS:-}"
# (pci=nomsi; acpi=noirq leaves the line to the BIOS's PIR table). The
# handler must have run: the line's count in /proc/interrupts.
step "recovery: dma error, INTx" "${run[@]}" --no-msi --device-props dma-error-on-job=3 \
	--timeout 600 -- bash -c '
	dmesg | grep -q "using the INTx interrupt" ||
		{ echo "check-debug: the driver did not take the INTx line"; exit 1; }
	"$1" || exit
	line=$(grep -E "tilecopy" /proc/interrupts)
	echo "check-debug: /proc/interrupts: $line"
	case $line in *MSI*) echo "check-debug: an MSI vector"; exit 1 ;; esac
	[ "$(echo "$line" | awk "{ n = 0; for (i = 2; i <= NF && \$i ~ /^[0-9]+\$/; i++) n += \$i; print n }")" -gt 0 ] ||
		{ echo "check-debug: no interrupt on the INTx line"; exit 1; }' _ "$G/test_recovery"
step "recovery: hang + timeout reset; timeouts on unstarted jobs" "${run[@]}" \
	--device-props hang-on-job=2,hang-queue-mask=0x8,delay-ns-per-kb=50000 --timeout 900 -- \
	bash -c '"$1/test_recovery" || exit
	rmmod tilecopy && insmod "$TC_MODULE" job_timeout_ms=1 || exit
	for _ in $(seq 50); do [ -e /dev/accel/accel0 ] && break; sleep 0.1; done
	CK_RUN_CASE=tdr "$1/test_abuse"' _ "$G"
step "wedge, unplug in use" "${run[@]}" --device-props reset-hang-on=2,delay-ns-per-kb=200000 \
	--timeout 900 -- "$G/test_wedge"

if [ ${#failed[@]} -gt 0 ]; then
	echo "check-debug: FAILED: ${failed[*]}"
	exit 1
fi
echo "check-debug: all debug-kernel runs passed"
