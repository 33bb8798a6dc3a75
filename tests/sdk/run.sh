#!/bin/bash
# The SDK device backend in guests: `run.sh check` (one boot per mode) or
# `run.sh bench`. Each boot: tests/qemu/run-guest.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-$PWD/build}
S=$BUILD/tests/sdk
T=$BUILD/bin/tilecopy
run=(bash tests/qemu/run-guest.sh)
export TC_REQUIRE_DEVICE=1
failed=()

step() {
	local name=$1
	shift
	echo "--- check-sdk: $name"
	if "$@"; then echo "--- check-sdk: $name: ok"; else echo "--- check-sdk: $name: FAILED"; failed+=("$name"); fi
}

case ${1:-check} in
check)
	step "device: pairs, pipelining, split, PRIME (2 engines)" "${run[@]}" --devices 2 \
		--timeout 900 -- env TC_SDK_MODE=normal "$S/test_device"
	step "device: CLI info and convert on the engines (2)" "${run[@]}" --devices 2 --timeout 300 -- \
		bash tests/sdk/cli-guest.sh "$T"
	step "device: injected DMA error, sticky" "${run[@]}" --device-props dma-error-on-job=3 \
		--timeout 300 -- env TC_SDK_MODE=fault "$S/test_device"
	step "device: hung job, RESET apart from TIMEOUT" "${run[@]}" --device-props hang-queue-mask=0x1 \
		--module-args job_timeout_ms=250 --timeout 300 -- env TC_SDK_MODE=reset "$S/test_device"
	step "module loaded, no engine: CPU fallback" "${run[@]}" --devices 0 --timeout 300 -- \
		bash -c "TC_SDK_MODE=nodev $S/test_device && $T info | grep -q 'no tilecopy engine found'"
	step "no module: CPU fallback" "${run[@]}" --no-module --timeout 300 -- \
		bash -c "TC_SDK_MODE=nodev $S/test_device && $T info | grep -q 'no tilecopy engine found'"
	step "python: tilecopy.convert on the engine, every named format pair" "${run[@]}" \
		--timeout 900 -- env TILECOPY_DEVICE_THRESHOLD=0 TC_TEST_QUICK=1 \
		PYTHONPATH="$BUILD/python" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -q -rs \
		-p no:cacheprovider python/tests/test_device.py python/tests/test_formats.py::test_convert_pair
	;;
bench)
	"${run[@]}" --timeout 600 -- "$S/bench_device" "${@:2}"
	exit $?
	;;
esac
if [ ${#failed[@]} -gt 0 ]; then
	echo "check-sdk: FAILED: ${failed[*]}"
	exit 1
fi
echo "check-sdk: all guest runs passed"
