#!/bin/bash
# make check-guest: the driver in booted guests. Each line below is one
# guest boot (fresh engines: the fault-injection properties count jobs from
# the device's creation). Runs them all and fails if any failed, so one
# report names every broken part.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$here/../.." && pwd)
cd "$TOP"
BUILD=${BUILD:-$TOP/build}
export TC_REQUIRE_DEVICE=1
T=$BUILD/tests/guest
run=(bash tests/qemu/run-guest.sh)
failed=()

step() {
	local name=$1
	shift
	echo "--- check-guest: $name"
	local t0=$SECONDS
	if "$@"; then
		echo "--- check-guest: $name: ok ($((SECONDS - t0)) s)"
	else
		echo "--- check-guest: $name: FAILED ($((SECONDS - t0)) s)"
		failed+=("$name")
	fi
}

# every ioctl, real jobs, waits (slow engine: delay-ns-per-kb), syncobjs,
# every layout pair device vs CPU, typed descriptors (conversions) vs the
# CPU reference, several processes, two engines; then a forced reset with
# jobs in flight; then userptr BOs (unmapped under slow jobs, pin limits,
# 64 threads)
step "ioctl + jobs + userptr (2 engines)" "${run[@]}" --devices 2 --device-props delay-ns-per-kb=50000 \
	--timeout 900 -- bash -c "$T/test_ioctl && $T/test_convert && $T/test_layouts && $T/test_recovery && $T/test_userptr"
# the smallest engine: one queue, a 4 KiB tile buffer (the firmware's
# minimum), and no conversion (convert=off: an engine 1.1, which reads
# 192-byte descriptors): limits reported, jobs and every layout pair tiled
# through it, every typed descriptor refused (-EOPNOTSUPP)
step "1 queue, 4 KiB tile buffer, engine 1.1" "${run[@]}" \
	--device-props queues=1,tilebuf-size=4096,convert=off --timeout 600 -- \
	bash -c "CK_RUN_CASE=param $T/test_ioctl && CK_RUN_CASE=job $T/test_ioctl && $T/test_layouts &&
		CK_RUN_CASE=submit $T/test_ioctl && $T/test_convert"
# a DMA error in the middle of a job: status, err_desc, err_addr, recovery
step "dma error" "${run[@]}" --device-props dma-error-on-job=3 --timeout 300 -- "$T/test_recovery"
# a hung job: job timeout, engine reset, only the guilty job fails
step "hang + timeout reset" "${run[@]}" --device-props hang-on-job=2 --timeout 300 -- "$T/test_recovery"
# resets never replay a job: forced resets at moments spread over a
# non-idempotent job's life (60 runs, counted hits); a job waiting behind
# other queues' long jobs past job_timeout_ms is not blamed
step "resets: forced, victim" "${run[@]}" --device-props delay-ns-per-kb=300000 \
	--module-args job_timeout_ms=1000 --timeout 600 -- "$T/test_reset"
# another queue's hangs (every job of queue 3 hangs) reset the engine under
# the same job (50 runs); then abuse: a flood, 2^64 writes, 100 files, a
# file banned after 3 hangs, GEM_CLOSE racing the other ioctls
step "resets: hangs; abuse" "${run[@]}" --device-props hang-queue-mask=0x8,delay-ns-per-kb=1171875 \
	--module-args job_timeout_ms=250 --timeout 900 -- bash -c "$T/test_reset && $T/test_abuse"
# the scheduler's timer at one jiffy (job_timeout_ms=1) firing on jobs
# run_job() refused (banned files) or has not yet given to the engine
step "timeouts on unstarted jobs" "${run[@]}" --device-props hang-queue-mask=0x8,delay-ns-per-kb=50000 \
	--module-args job_timeout_ms=1 --timeout 600 -- env CK_RUN_CASE=tdr "$T/test_abuse"
# a reset that never completes wedges the device, unbind/bind recovers it;
# then unbind under an open file with jobs, mmaps and a dma-buf
step "wedge, unplug in use" "${run[@]}" --device-props reset-hang-on=2,delay-ns-per-kb=200000 \
	--timeout 600 -- "$T/test_wedge"
# the engine behind a translating IOMMU (VT-d, a DMA domain, strict
# invalidation), as on boards with an SMMU: BOs and userptr BOs mapped
# through it (a userptr BO is not refused as bounced), jobs, conversions
# and layouts bit-exact
step "behind an IOMMU" "${run[@]}" --iommu --timeout 600 -- bash -c '
	d=$(ls -d /sys/bus/pci/drivers/tilecopy/0000:*)
	case $(cat "$d/iommu_group/type" 2>/dev/null) in
	DMA|DMA-FQ) echo "check-guest: $d in an IOMMU DMA domain" ;;
	*) echo "check-guest: $d is not behind a translating IOMMU"; exit 1 ;;
	esac
	CK_RUN_CASE=job "$1/test_ioctl" && "$1/test_userptr" && "$1/test_convert" &&
		TC_TEST_QUICK=1 "$1/test_layouts"' _ "$T"
# unload and reload with two engines
step "unload/reload" "${run[@]}" --devices 2 --no-module --timeout 600 -- tests/guest/reload.sh "$BUILD"
# every broken firmware image, then the good one, in one boot
step "firmware failures" "${run[@]}" --no-module --timeout 900 -- tests/guest/fw-failures.sh "$BUILD"
# the harness path: a broken image through --module-args at boot
step "firmware at boot" "${run[@]}" --module-args firmware=tilecopy/test/bad_magic.bin --timeout 300 -- \
	bash -c 'n=$(ls /dev/accel 2>/dev/null | wc -l); [ "$n" = 0 ] || { echo "device probed with bad_magic.bin"; exit 1; }
		dmesg | grep -E "firmware tilecopy/test/bad_magic.bin: bad magic" || { echo "no bad-magic line"; exit 1; }
		rmmod tilecopy && insmod "$TC_MODULE" && sleep 1 && ls /dev/accel/accel0 && CK_RUN_CASE=param '"$T"'/test_ioctl'

if [ ${#failed[@]} -gt 0 ]; then
	echo "check-guest: FAILED: ${failed[*]}"
	exit 1
fi
echo "check-guest: all guest runs passed"
