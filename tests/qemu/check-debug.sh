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
#      (tc_faultinject);
#      one boot for the three, since a boot with its kmemleak scans costs a
#      minute here;
#   2. dma-error-on-job=3: test_recovery (DMA error mid-job, recovery);
#   3. hang-on-job=2: test_recovery (job timeout, engine reset);
#   4. reset-hang-on=2: test_wedge (a failed reset wedges the device;
#      PCI unbind with files, jobs, mmaps and dma-bufs alive; bind again):
#      the teardown paths where DMA-API debugging and kmemleak found bugs.
#
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
	part "fault-injection sweep" "$2/tests/faultinject/tc_faultinject" \
		"$TOP/tests/qemu/debug-reports.ere" $3
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
step "recovery: dma error" "${run[@]}" --device-props dma-error-on-job=3 --timeout 600 -- \
	"$G/test_recovery"
step "recovery: hang + timeout reset" "${run[@]}" --device-props hang-on-job=2 --timeout 600 -- \
	"$G/test_recovery"
step "wedge, unplug in use" "${run[@]}" --device-props reset-hang-on=2,delay-ns-per-kb=200000 \
	--timeout 900 -- "$G/test_wedge"

if [ ${#failed[@]} -gt 0 ]; then
	echo "check-debug: FAILED: ${failed[*]}"
	exit 1
fi
echo "check-debug: all debug-kernel runs passed"
