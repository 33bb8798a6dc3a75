#!/bin/bash
# Cross-build tilecopy.ko for Debian's arm64 6.12 kernel, like `make module`
# does for x86: W=1, and no compiler warning allowed. With --sparse, also
# sparse (C=2) on every file, no warning allowed.
#
# Usage: tests/arm64/module.sh [--sparse] FLAVOUR OUTDIR
#   FLAVOUR  arm64 (4 KiB pages) or arm64-16k (16 KiB pages)
#   OUTDIR   e.g. build/arm64/driver: gets tilecopy.ko, build.log,
#            sparse.log and kbuild/ (a copy of the sources: the tree stays
#            free of kbuild's objects)
#
# The kernel build directory comes from scripts/kbuild-arm64.sh (cached).
set -euo pipefail

sparse=0
if [ "${1:-}" = --sparse ]; then
	sparse=1
	shift
fi
flavour=${1:?usage: module.sh [--sparse] FLAVOUR OUTDIR}
out=${2:?usage: module.sh [--sparse] FLAVOUR OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)

kdir=$(bash "$top/scripts/kbuild-arm64.sh" "$flavour")
kb=$(realpath -m "$out/kbuild")
mkdir -p "$kb/driver" "$kb/include/uapi/drm" "$kb/include/hw"
cp -pu "$top/Kbuild" "$kb/"
cp -pu "$top"/driver/*.c "$top"/driver/*.h "$top/driver/Kbuild" "$kb/driver/"
cp -pu "$top/include/uapi/drm/tilecopy_accel.h" "$kb/include/uapi/drm/"
cp -pu "$top/include/hw/tilecopy_hw.h" "$kb/include/hw/"

kmake() {
	timeout 900 make --no-print-directory -C "$kdir" M="$kb" ARCH=arm64 \
		CROSS_COMPILE=aarch64-linux-gnu- "$@"
}

if ! kmake W=1 modules >"$out/build.log" 2>&1; then
	cat "$out/build.log"
	echo "module-arm64: the $flavour build failed" >&2
	exit 1
fi
if grep -E '(warning|error):' "$out/build.log"; then
	echo "module-arm64: compiler warnings above ($flavour)" >&2
	exit 1
fi
cp "$kb/driver/tilecopy.ko" "$out/tilecopy.ko"
echo "  KO      $out/tilecopy.ko ($(modinfo -F vermagic "$out/tilecopy.ko"))"

if [ $sparse = 1 ]; then
	kmake C=2 modules >"$out/sparse.log" 2>&1 || { cat "$out/sparse.log"; exit 1; }
	if grep -E '(warning|error):' "$out/sparse.log"; then
		echo "module-arm64: sparse warnings above ($flavour)" >&2
		exit 1
	fi
	echo "  SPARSE  $flavour: clean"
fi
