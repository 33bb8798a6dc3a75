#!/bin/bash
# make check-reliability: the driver under hostile input, faults and load,
# in booted guests (tests/qemu/run-guest.sh; one boot per scenario so the
# engine's fault-injection counters start fresh). Fails if any boot fails;
# run-guest.sh also fails a boot whose dmesg has a WARNING, BUG or oops.
#
# Environment: RELIABILITY_ITERS (uAPI fuzz iterations per process, default
# 15000), RELIABILITY_SEED (default 1), RELIABILITY_LOAD_SECONDS (default 20).
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-$PWD/build}
S=$BUILD/tests/reliability/tc_stress
G=tests/reliability/in-guest.sh
iters=${RELIABILITY_ITERS:-15000}
seed=${RELIABILITY_SEED:-1}
load_s=${RELIABILITY_LOAD_SECONDS:-20}
run=(bash tests/qemu/run-guest.sh)
export TC_REQUIRE_DEVICE=1
failed=()
log=$BUILD/reliability
mkdir -p "$log"
rm -f "$log"/*.log "$log/summary.txt"

step() {
	local name=$1 t0=$SECONDS
	shift
	echo "--- check-reliability: $name"
	if "$@" 2>&1 | tee "$log/$name.log"; [ "${PIPESTATUS[0]}" = 0 ]; then
		echo "--- check-reliability: $name: ok ($((SECONDS - t0)) s)"
	else
		echo "--- check-reliability: $name: FAILED ($((SECONDS - t0)) s)"
		failed+=("$name")
	fi
}

# random and mutated-valid ioctls, 4 processes; then process A against B
step uapi-fuzz "${run[@]}" --timeout 900 -- $G fuzz "$S" "$iters" "$seed"
# a DMA error (job 5) and a hung job (job 30, 2 s timeout, engine reset)
# while 4 processes submit: exactly those two fail, every other job verifies
step faults "${run[@]}" --device-props dma-error-on-job=5,hang-on-job=30 \
	--module-args job_timeout_ms=2000 --timeout 600 -- $G faults "$S" 4 12 1 1
# a fault right behind a hang: job 6 hangs, job 7 (the next ring entry,
# taken while the engine is stuck or re-run by the reset) gets a DMA error
step fault-during-reset "${run[@]}" --device-props hang-on-job=6,dma-error-on-job=7 \
	--module-args job_timeout_ms=2000 --timeout 600 -- $G faults "$S" 4 12 1 1
# N processes with verification and forced resets; rmmod while open
step load-rmmod "${run[@]}" --timeout 900 -- $G load "$S" 4 "$load_s"
# kill -9 with jobs queued on a slow engine (20 us per KiB written)
step kill "${run[@]}" --device-props delay-ns-per-kb=20000 --timeout 600 -- $G kill "$S" 4 3

grep -h "RESULT\|forced resets" "$log"/*.log >"$log/summary.txt"
if [ ${#failed[@]} -gt 0 ]; then
	echo "check-reliability: FAILED: ${failed[*]}"
	exit 1
fi
echo "check-reliability: all guest scenarios passed"
