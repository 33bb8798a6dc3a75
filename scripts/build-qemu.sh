#!/bin/bash
# Build QEMU 7.2 (Debian's source package) with the tilecopy engine device,
# cached outside the work tree.
#
# Usage: scripts/build-qemu.sh OUT
#   OUT  path of the symlink to create; it points at the cached binary. Its
#        name picks the emulator: .../qemu-system-x86_64 (the x86 guests,
#        the device tests) or .../qemu-system-aarch64 (the arm64 guest: the
#        `virt` board only, tests/arm64/).
#
# The cache lives in ${TILECOPY_CACHE:-$HOME/.cache/tilecopy}/qemu:
#   src/           the .dsc/.orig/.debian files of `apt-get source qemu`
#   src/tree/      the unpacked tree (Debian patches applied), with qemu/*
#                  copied into hw/misc/ and a few hooks appended; build/ in it
#                  is the x86_64 ninja build directory, build-aarch64/ the
#                  aarch64 one (its own configure flags, so that neither
#                  reconfigures the other); both reused incrementally
#   bin/KEY/       finished binaries, KEY = hash of qemu/, the shared hardware
#                  headers, this script and the target: a rebuild happens only
#                  when one of them changes (and then ninja recompiles only
#                  what changed).
#
# Every step is bounded by a timeout; concurrent callers serialise on a lock.
set -euo pipefail

out=${1:?usage: build-qemu.sh OUT}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${TILECOPY_CACHE:-$HOME/.cache/tilecopy}/qemu
jobs=${TILECOPY_JOBS:-2}
# About 3 minutes on 2 cores from scratch; allow a slow machine 10x.
build_timeout=${TILECOPY_QEMU_BUILD_TIMEOUT:-2400}

log() { echo "build-qemu: $*" >&2; }
die() { log "error: $*"; exit 1; }

target=${out##*/qemu-system-}
case $target in
x86_64)
	# Flags verified in DESIGN.md: a minimal x86_64 system emulator with
	# TCG, 9p (the guest tests share the host's tree) and fdt.
	CONFIGURE_FLAGS=(--target-list=x86_64-softmmu --without-default-features
		--enable-tcg --enable-kvm --disable-docs --disable-werror --disable-user
		--enable-fdt=system --enable-virtfs --enable-attr --enable-cap-ng
		--disable-install-blobs)
	bdir_name=build
	;;
aarch64)
	# The arm64 guest (tests/arm64/) needs the `virt` board only: PCIe
	# (generic ECAM host bridge), GICv3 with its ITS, virtio-pci for 9p and
	# the engine. Only those devices are built (configs/devices file
	# written below), which roughly halves the build of the full default
	# set of ~60 ARM boards. TCG only: the host is x86.
	CONFIGURE_FLAGS=(--target-list=aarch64-softmmu --without-default-features
		--without-default-devices --with-devices-aarch64=tilecopy
		--enable-tcg --disable-docs --disable-werror --disable-user
		--enable-fdt=system --enable-virtfs --enable-attr --enable-cap-ng
		--disable-install-blobs)
	bdir_name=build-aarch64
	;;
*) die "cannot tell the target from '$out' (want .../qemu-system-x86_64 or .../qemu-system-aarch64)" ;;
esac
emu=qemu-system-$target

# Files of the device, as they go into hw/misc/ of the QEMU tree.
dev_files=("$top/qemu/tilecopy.c" "$top/qemu/tilecopy-transpose.c"
	"$top/qemu/tilecopy-transpose.h" "$top/qemu/trace-events"
	"$top/include/hw/tilecopy_hw.h" "$top/include/uapi/drm/tilecopy_accel.h")
for f in "${dev_files[@]}"; do
	[ -f "$f" ] || die "missing $f"
done

key=$( (cat "$top/scripts/build-qemu.sh" "${dev_files[@]}"; echo "$target") |
	sha256sum | cut -c1-16)
bin=$cache/bin/$key/$emu

link_out() {
	mkdir -p "$(dirname "$out")"
	ln -sfn "$bin" "$out"
}

mkdir -p "$cache/src" "$cache/bin"
exec 9>"$cache/lock"
flock -w "$build_timeout" 9 || die "cache lock held for more than ${build_timeout}s"

if [ -x "$bin" ]; then
	link_out
	log "cached ($key)"
	exit 0
fi

# ---- 1. source ----------------------------------------------------------
tree=$cache/src/tree
if [ ! -f "$tree/.tc-unpacked" ]; then
	log "fetching Debian's QEMU source"
	command -v dpkg-source >/dev/null || die "dpkg-source missing (scripts/deps.sh installs dpkg-dev)"
	rm -rf "$tree" "$tree.tmp"
	(cd "$cache/src" && ls qemu_*.dsc >/dev/null 2>&1 ||
		timeout 900 apt-get source --download-only qemu >/dev/null) ||
		die "apt-get source qemu failed (deb-src configured? see scripts/deps.sh)"
	dsc=$(ls "$cache"/src/qemu_*.dsc | sort -V | tail -1)
	timeout 600 dpkg-source -x --no-check "$dsc" "$tree.tmp" >/dev/null ||
		die "dpkg-source -x $dsc failed"
	touch "$tree.tmp/.tc-unpacked"
	mv "$tree.tmp" "$tree"
fi
grep -q '^7\.2' "$tree/VERSION" || log "warning: QEMU $(cat "$tree/VERSION"), expected 7.2"

# ---- 2. add the device (idempotent; files rewritten only when changed,
#         so that ninja's timestamps stay meaningful) ------------------------
put() {	# put SRC DST: copy when different
	cmp -s "$1" "$2" || cp "$1" "$2"
}
append_hook() {	# append_hook FILE TEXT: FILE = pristine FILE + TEXT
	local f=$1 text=$2
	[ -f "$f.tc-orig" ] || cp "$f" "$f.tc-orig"
	{ cat "$f.tc-orig"; printf '%s\n' "$text"; } >"$f.tc-new"
	if cmp -s "$f.tc-new" "$f"; then rm "$f.tc-new"; else mv "$f.tc-new" "$f"; fi
}

misc=$tree/hw/misc
mkdir -p "$misc/tilecopy-include"
put "$top/qemu/tilecopy.c" "$misc/tilecopy.c"
put "$top/qemu/tilecopy-transpose.c" "$misc/tilecopy-transpose.c"
put "$top/qemu/tilecopy-transpose.h" "$misc/tilecopy-transpose.h"
put "$top/include/hw/tilecopy_hw.h" "$misc/tilecopy-include/tilecopy_hw.h"
put "$top/include/uapi/drm/tilecopy_accel.h" "$misc/tilecopy-include/tilecopy_accel.h"
# The uAPI header includes "drm.h" for the ioctl macros; the device only
# needs its structs and enums, so a shim with the kernel types is enough.
printf '/* shim for tilecopy_accel.h inside QEMU */\n#include <linux/types.h>\n' \
	>"$misc/tilecopy-include/drm.h.new"
put "$misc/tilecopy-include/drm.h.new" "$misc/tilecopy-include/drm.h"
rm -f "$misc/tilecopy-include/drm.h.new"

append_hook "$misc/meson.build" "
# tilecopy engine (added by tilecopy's scripts/build-qemu.sh)
softmmu_ss.add(when: 'CONFIG_TILECOPY',
               if_true: [files('tilecopy.c', 'tilecopy-transpose.c'), zlib])"
append_hook "$misc/Kconfig" "
config TILECOPY
    bool
    default y
    depends on PCI && MSI_NONBROKEN"
append_hook "$misc/trace-events" "
$(cat "$top/qemu/trace-events")"

# The device set of the aarch64 build (see CONFIGURE_FLAGS): --without-
# default-devices turns off every `default y`, so what virt only implies
# (PCI devices, virtio-pci, 9p) is named here, as are the TCG GICv3 (and
# ITS) and ARM_V7M, which QEMU 7.2's TCG translator needs whatever the board
# (both "default y if TCG").
printf '%s\n' "# tilecopy's arm64 guest (scripts/build-qemu.sh)" CONFIG_ARM_VIRT=y \
	CONFIG_ARM_GICV3_TCG=y CONFIG_ARM_V7M=y CONFIG_PCI_DEVICES=y CONFIG_VIRTIO_PCI=y \
	CONFIG_VIRTIO_9P=y CONFIG_TILECOPY=y \
	>"$tree/configs/devices/aarch64-softmmu/tilecopy.mak.new"
put "$tree/configs/devices/aarch64-softmmu/tilecopy.mak.new" \
	"$tree/configs/devices/aarch64-softmmu/tilecopy.mak"
rm -f "$tree/configs/devices/aarch64-softmmu/tilecopy.mak.new"

# The dfsg tarball has no edk2 blobs; do not try to unpack them.
if grep -q 'unpack_edk2_blobs = bzip2.found()' "$tree/meson.build"; then
	sed -i 's/unpack_edk2_blobs = bzip2.found()/unpack_edk2_blobs = false/' "$tree/meson.build"
fi

# ---- 3. configure (once per set of flags) --------------------------------
bdir=$tree/$bdir_name
cfg_key=$(printf '%s\n' "${CONFIGURE_FLAGS[@]}" | sha256sum | cut -c1-16)
if [ "$(cat "$bdir/.tc-config" 2>/dev/null)" != "$cfg_key" ]; then
	log "configuring"
	rm -rf "$bdir"
	mkdir -p "$bdir"
	(cd "$bdir" && timeout 900 ../configure "${CONFIGURE_FLAGS[@]}" >configure.log 2>&1) || {
		tail -30 "$bdir/configure.log" >&2
		die "configure failed (log: $bdir/configure.log)"
	}
	echo "$cfg_key" >"$bdir/.tc-config"
fi

# ---- 4. build ------------------------------------------------------------
log "building $emu with ninja -j$jobs in $bdir_name/ (key $key)"
start=$(date +%s)
if ! timeout "$build_timeout" ninja -C "$bdir" -j"$jobs" "$emu" >"$bdir/ninja.log" 2>&1; then
	grep -E -A12 'error|FAILED' "$bdir/ninja.log" | head -60 >&2 || tail -40 "$bdir/ninja.log" >&2
	die "ninja failed or timed out after ${build_timeout}s (log: $bdir/ninja.log)"
fi
log "built in $(($(date +%s) - start)) s"

# (the whole list first: under pipefail, `| grep -q` leaving early could
# fail QEMU with SIGPIPE and the check with it)
devices=$("$bdir/$emu" -device help 2>/dev/null || true)
grep -q '"tilecopy"' <<<"$devices" ||
	die "the built QEMU has no tilecopy device"

mkdir -p "$cache/bin/$key.tmp"
cp "$bdir/$emu" "$cache/bin/$key.tmp/"
rm -rf "$cache/bin/$key"
mv "$cache/bin/$key.tmp" "$cache/bin/$key"

# Keep the six newest binaries of this target (switching branches back and
# forth is cheap) and any younger than two hours (a test run elsewhere may
# still use it).
ls -1dt "$cache"/bin/*/"$emu" 2>/dev/null | xargs -r -n1 dirname | tail -n +7 | while read -r old; do
	if [ -n "$(find "$old" -maxdepth 0 -mmin +120)" ]; then
		rm -rf "$old"
	fi
done || true

link_out
log "ready: $out -> $bin"
