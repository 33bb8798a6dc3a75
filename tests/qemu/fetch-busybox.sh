#!/bin/bash
# Fetch a static busybox for a foreign guest architecture: Debian's
# busybox-static:ARCH (apt-get download + dpkg-deb -x, never installed: it
# could not be installed next to the host's own busybox-static anyway).
#
# Usage: tests/qemu/fetch-busybox.sh arm64
#
# Result (cached): ${TILECOPY_CACHE:-$HOME/.cache/tilecopy}/busybox-ARCH/busybox
# (the stamp .complete holds the package version). Prints the binary's path.
set -euo pipefail

CACHE=${TILECOPY_CACHE:-$HOME/.cache/tilecopy}
T=${TC_STEP_TIMEOUT:-600}
arch=${1:?usage: fetch-busybox.sh ARCH}
dir=$CACHE/busybox-$arch

if [ -f "$dir/.complete" ] && [ -x "$dir/busybox" ]; then
	echo "$dir/busybox"
	exit 0
fi
mkdir -p "$CACHE"
exec 8>"$dir.lock"
timeout "$T" flock 8 || { echo "fetch-busybox: cache lock busy" >&2; exit 1; }
if [ -f "$dir/.complete" ] && [ -x "$dir/busybox" ]; then
	echo "$dir/busybox"
	exit 0
fi

echo "fetch-busybox: fetching busybox-static:$arch into $dir" >&2
rm -rf "$dir"
mkdir -p "$dir/deb"
(cd "$dir/deb" && timeout "$T" apt-get download -q "busybox-static:$arch" 2>&1 |
	grep -v "couldn't be accessed by user '_apt'" >&2) || true
deb=$(ls "$dir"/deb/busybox-static_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || {
	echo "fetch-busybox: cannot download busybox-static:$arch (is $arch a foreign architecture? scripts/deps.sh)" >&2
	exit 1
}
timeout "$T" dpkg-deb -x "$deb" "$dir/root"
cp "$dir/root/bin/busybox" "$dir/busybox"
dpkg-deb -f "$deb" Version >"$dir/.complete.tmp"
rm -rf "$dir/root" "$dir/deb"
mv "$dir/.complete.tmp" "$dir/.complete"
echo "$dir/busybox"
