#!/bin/bash
# make check-arm64: the arm64 board. Debian's arm64 6.12 kernel boots under
# TCG on QEMU's `virt` board with tilecopy engines; the cross-built module
# and programs run inside (tests/arm64/in-guest.sh). One boot per line;
# all run, and the lane fails if any failed, naming them.
#
# Needs (make check-arm64 builds them): build/qemu/qemu-system-aarch64,
# build/arm64/driver/tilecopy.ko, build/arm64-16k/driver/tilecopy.ko,
# build/arm64/ (the in-guest programs), build/firmware.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$here/../.." && pwd)
cd "$TOP"
BUILD=${BUILD:-$TOP/build}
A=$BUILD/arm64
export TC_REQUIRE_DEVICE=1
run=(bash tests/qemu/run-guest.sh)
failed=()

step() {
	local name=$1
	shift
	echo "--- check-arm64: $name"
	local t0=$SECONDS
	if "$@"; then
		echo "--- check-arm64: $name: ok ($((SECONDS - t0)) s)"
	else
		echo "--- check-arm64: $name: FAILED ($((SECONDS - t0)) s)"
		failed+=("$name")
	fi
}

# delay-ns-per-kb: jobs slow enough that a forced reset finds them in
# flight; 50000 as in check-guest (test_recovery's reset storm wants its
# two workers still busy after six resets 150 ms apart).
step "MSI-X via ITS, 2 engines: smoke, uAPI, layouts vs NEON, SDK, resets" \
	"${run[@]}" --arch arm64 --devices 2 --device-props delay-ns-per-kb=50000 \
	--timeout 1500 -- sh tests/arm64/in-guest.sh msix "$A"
step "INTx (GICv3 without ITS): smoke, jobs, resets" \
	"${run[@]}" --arch arm64 --no-msi --device-props delay-ns-per-kb=50000 \
	--timeout 900 -- sh tests/arm64/in-guest.sh intx "$A"
step "module not loaded: NEON fallback; unload/reload" \
	"${run[@]}" --arch arm64 --devices 2 --no-module \
	--timeout 900 -- sh tests/arm64/in-guest.sh fallback "$A"
step "16 KiB pages: smoke, jobs, layouts vs NEON" \
	"${run[@]}" --arch arm64-16k --timeout 900 -- sh tests/arm64/in-guest.sh pages16k "$A"

if [ ${#failed[@]} -gt 0 ]; then
	echo "check-arm64: FAILED: ${failed[*]}"
	exit 1
fi
echo "check-arm64: all arm64 guest runs passed"
