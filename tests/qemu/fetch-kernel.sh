#!/bin/bash
# Fetch the guest kernel: Debian's linux-image-<ver>-unsigned for the version
# of the installed /usr/src/linux-headers-6.12.*+deb12-amd64 (the headers the
# module is built against), without installing it on the host.
#
# Usage: tests/qemu/fetch-kernel.sh [--arch x86_64|arm64|arm64-16k]
#   --arch   the guest's kernel flavour (default x86_64): arm64 and arm64-16k
#            are linux-image-<same version>-arm64[-16k]-unsigned:arm64, for
#            the arm64 guest (tests/arm64/); 16k has 16 KiB pages.
#
# Result (cached, reused when complete):
#   ${TILECOPY_CACHE:-$HOME/.cache/tilecopy}/kernel-<ver>/
#     vmlinuz                  the kernel image
#     modules/*.ko             uncompressed modules: drm, drm_kms_helper,
#                              drm_shmem_helper, gpu-sched and their deps,
#                              plus the 9p/virtio ones if built as modules
#     modules.order            insmod order (dependencies first)
#     .complete                stamp
# Prints the directory on stdout.
set -euo pipefail

CACHE=${TILECOPY_CACHE:-$HOME/.cache/tilecopy}
T=${TC_STEP_TIMEOUT:-600}

hdr=$(ls -d /usr/src/linux-headers-6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$hdr" ]; then
	echo "fetch-kernel: no /usr/src/linux-headers-6.12.*+deb12-amd64 (run scripts/deps.sh)" >&2
	exit 1
fi
ver=${hdr#/usr/src/linux-headers-}
pkg=linux-image-$ver-unsigned
if [ "${1:-}" = --arch ]; then
	case ${2:-} in
	x86_64) ;;
	arm64|arm64-16k) ver=${ver%-amd64}-$2; pkg=linux-image-$ver-unsigned:arm64 ;;
	*) echo "fetch-kernel: unknown --arch '${2:-}' (x86_64|arm64|arm64-16k)" >&2; exit 2 ;;
	esac
fi
dir=$CACHE/kernel-$ver
# Modules wanted (by name as in modules.dep: '-' and '_' both appear).
# drm_exec/drm_gpuvm are optional helpers the driver may come to use.
want="drm_shmem_helper gpu-sched drm_kms_helper drm drm_exec drm_gpuvm 9p 9pnet 9pnet_virtio netfs virtio_pci virtio_pci_modern_dev virtio_pci_legacy_dev virtio virtio_ring"
if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$want" ]; then
	echo "$dir"
	exit 0
fi

# One fetch at a time (parallel make targets boot guests too).
mkdir -p "$CACHE"
exec 8>"$CACHE/kernel-$ver.lock"
timeout "$T" flock 8 || { echo "fetch-kernel: cache lock busy" >&2; exit 1; }
if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$want" ]; then
	echo "$dir"
	exit 0
fi

echo "fetch-kernel: fetching $pkg into $dir" >&2
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp/deb"
download() {
	(cd "$dir.tmp/deb" && timeout "$T" apt-get download -q "$pkg" >&2)
}
if ! download; then
	# Package lists may be missing (cleaned image): refresh them once.
	echo "fetch-kernel: download failed; updating the package lists and retrying" >&2
	SUDO=
	[ "$(id -u)" = 0 ] || SUDO=sudo
	timeout "$T" $SUDO apt-get update -qq >&2
	download || { echo "fetch-kernel: cannot download $pkg" >&2; exit 1; }
fi
deb=$(ls "$dir.tmp"/deb/*.deb)
mkdir -p "$dir.tmp/root"
timeout "$T" dpkg-deb -x "$deb" "$dir.tmp/root"
moddir=$dir.tmp/root/lib/modules/$ver
[ -d "$moddir" ] || moddir=$dir.tmp/root/usr/lib/modules/$ver
[ -d "$moddir" ] || { echo "fetch-kernel: no modules dir in $deb" >&2; exit 1; }
cp "$dir.tmp/root/boot/vmlinuz-$ver" "$dir.tmp/vmlinuz"
# The package ships no modules.dep (depmod runs at install): make one.
if [ ! -f "$moddir/modules.dep" ]; then
	timeout "$T" depmod -b "$dir.tmp/root" "$ver"
fi

# Resolve dependencies with modules.dep; emit in load order (deps first).
declare -A seen=()
order=()
resolve() {
	local path=$1 line deps d
	[ -n "${seen[$path]:-}" ] && return 0
	seen[$path]=1
	line=$(grep -m1 "^$path:" "$moddir/modules.dep" || true)
	deps=${line#*:}
	for d in $deps; do resolve "$d"; done
	order+=("$path")
}
for m in $want; do
	# built-in modules are not in modules.dep: that is fine (nothing to load)
	path=$(grep -E "(^|/)$m\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" | head -1 | cut -d: -f1 || true)
	if [ -z "$path" ]; then
		if grep -qE "(^|/)$m\.ko$" "$moddir/modules.builtin" 2>/dev/null; then
			continue
		fi
		# virtio_pci_legacy_dev etc. may not exist at all: only the drm ones are required
		case $m in drm|drm_kms_helper|drm_shmem_helper|gpu-sched)
			echo "fetch-kernel: module $m missing from $ver" >&2; exit 1 ;;
		esac
		continue
	fi
	resolve "$path"
done

mkdir -p "$dir.tmp/modules"
: >"$dir.tmp/modules.order"
for p in "${order[@]}"; do
	src=$moddir/$p
	base=$(basename "$p")
	case $base in
	*.xz) xz -dc "$src" >"$dir.tmp/modules/${base%.xz}"; base=${base%.xz} ;;
	*.zst) zstd -dcq "$src" >"$dir.tmp/modules/${base%.zst}"; base=${base%.zst} ;;
	*.gz) gzip -dc "$src" >"$dir.tmp/modules/${base%.gz}"; base=${base%.gz} ;;
	*) cp "$src" "$dir.tmp/modules/$base" ;;
	esac
	echo "$base" >>"$dir.tmp/modules.order"
done
cp "$moddir/modules.builtin" "$dir.tmp/" 2>/dev/null || true
rm -rf "$dir.tmp/root" "$dir.tmp/deb"
echo "$want" >"$dir.tmp/.complete"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "$dir"
