#!/bin/bash
# Build QEMU 7.2 (Debian's source package) with the tilecopy engine device,
# cached outside the work tree.
#
# Usage: scripts/build-qemu.sh [--sanitizers] OUT
#   OUT  path of the symlink to create; it points at the cached binary. Its
#        name picks the emulator: .../qemu-system-x86_64 (the x86 guests,
#        the device tests) or .../qemu-system-aarch64 (the arm64 guest: the
#        `virt` board only, tests/arm64/).
#   --sanitizers  the same emulator configured with --enable-sanitizers
#        (ASan + UBSan; tests/device/README.md, `make check-device-asan`):
#        its own build directory and its own cache key.
#
# The cache lives in ${TILECOPY_CACHE:-$HOME/.cache/tilecopy}/qemu:
#   src/           the .dsc/.orig/.debian files of `apt-get source qemu`
#   src/tree/      the unpacked tree (Debian patches applied), with qemu/*
#                  copied into hw/misc/ and a few hooks appended; build/ in it
#                  is the x86_64 ninja build directory, build-aarch64/ the
#                  aarch64 one, build-asan/ the x86_64 one with sanitizers
#                  (each its own configure flags, so that none reconfigures
#                  another); all reused incrementally
#   bin/KEY/       finished binaries, KEY = hash of qemu/, the shared hardware
#                  headers, this script, the target and the sanitizer
#                  choice: a rebuild happens only
#                  when one of them changes (and then ninja recompiles only
#                  what changed).
#
# Every step is bounded by a timeout; builds serialise on a lock, which a
# caller whose binary is cached never takes.
set -euo pipefail

sanitizers=no
if [ "${1:-}" = --sanitizers ]; then
	sanitizers=yes
	shift
fi
out=${1:?usage: build-qemu.sh [--sanitizers] OUT}
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
if [ $sanitizers = yes ]; then
	# ASan + UBSan (QEMU's "default sanitizers"); the x86_64 emulator is
	# the one the device tests drive. No -O change: QEMU's -O2 keeps the
	# run of the suite within a few times the normal one.
	[ "$target" = x86_64 ] || die "--sanitizers: only the x86_64 emulator (the device tests)"
	# QEMU 7.2's configure probes UBSan with a program that GCC 12 warns
	# about (maybe-uninitialized) under -Werror, and then quietly leaves
	# UBSan out: it is asked for explicitly, with float-cast-overflow (not
	# in GCC's -fsanitize=undefined; the engine converts guest floats).
	# The binary is checked for both runtimes below.
	CONFIGURE_FLAGS+=(--enable-sanitizers
		"--extra-cflags=-fsanitize=undefined -fsanitize=float-cast-overflow"
		"--extra-ldflags=-fsanitize=undefined")
	bdir_name=build-asan
fi
emu=qemu-system-$target

# Files of the device, as they go into hw/misc/ of the QEMU tree; the
# element conversion of typed descriptors is the library's own scalar
# reference (cvt_files), built into hw/misc/tilecopy-cvt/.
cvt_files=("$top/libuser/cpu/cvt_scalar.c" "$top/libuser/cpu/cvt_desc.c"
	"$top/libuser/cpu/cvt.h" "$top/libuser/cpu/cvt_desc.h"
	"$top/libuser/cpu/cpu_exec.h")
dev_files=("$top/qemu/tilecopy.c" "$top/qemu/tilecopy-transpose.c"
	"$top/qemu/tilecopy-transpose.h" "$top/qemu/tilecopy-cvt.c"
	"$top/qemu/tilecopy-cvt.h" "$top/qemu/trace-events"
	"$top/include/hw/tilecopy_hw.h" "$top/include/uapi/drm/tilecopy_accel.h"
	"${cvt_files[@]}")
for f in "${dev_files[@]}"; do
	[ -f "$f" ] || die "missing $f"
done

key=$( (cat "$top/scripts/build-qemu.sh" "${dev_files[@]}"; echo "$target"
	[ $sanitizers = no ] || echo sanitizers) |
	sha256sum | cut -c1-16)
bin=$cache/bin/$key/$emu

link_out() {
	mkdir -p "$(dirname "$out")"
	ln -sfn "$bin" "$out"
}

# A cached binary needs no lock: an entry appears only whole (bin/KEY.tmp
# renamed to bin/KEY below), so a caller never waits for another's build
# (a sanitizer build, another target, another branch's device). Touching
# the entry marks it used: the pruning at the end keeps recently used
# entries, and one touched here is not pruned under the caller's feet.
use_cached() {
	[ -x "$bin" ] && touch -c "$cache/bin/$key" && [ -x "$bin" ] || return 1
	link_out
	log "cached ($key)"
}
use_cached && exit 0

mkdir -p "$cache/src" "$cache/bin"
exec 9>"$cache/lock"
flock -w "$build_timeout" 9 || die "cache lock held for more than ${build_timeout}s"

# built meanwhile by the holder of the lock
use_cached && exit 0

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
# The conversion library: the library's files include "cpu/cvt.h" and
# "tilecopy_accel.h", so they get a directory of their own on the include
# path of their own small library (not the whole of QEMU's: a drm.h there
# could shadow a system one).
mkdir -p "$misc/tilecopy-cvt/cpu"
put "$top/qemu/tilecopy-cvt.c" "$misc/tilecopy-cvt/tilecopy-cvt.c"
put "$top/qemu/tilecopy-cvt.h" "$misc/tilecopy-cvt.h"
put "$top/qemu/tilecopy-cvt.h" "$misc/tilecopy-cvt/tilecopy-cvt.h"
put "$top/libuser/cpu/cvt_scalar.c" "$misc/tilecopy-cvt/cvt_scalar.c"
put "$top/libuser/cpu/cvt_desc.c" "$misc/tilecopy-cvt/cvt_desc.c"
for h in cvt.h cvt_desc.h cpu_exec.h; do
	put "$top/libuser/cpu/$h" "$misc/tilecopy-cvt/cpu/$h"
done

append_hook "$misc/meson.build" "
# tilecopy engine (added by tilecopy's scripts/build-qemu.sh)
# Its element conversion is the tilecopy library's scalar reference, built
# as the library builds it (no FMA contraction: each step rounds once).
tilecopy_cvt_lib = static_library('tilecopy-cvt',
    files('tilecopy-cvt/tilecopy-cvt.c', 'tilecopy-cvt/cvt_scalar.c',
          'tilecopy-cvt/cvt_desc.c'),
    include_directories: include_directories('tilecopy-cvt', 'tilecopy-include'),
    c_args: ['-ffp-contract=off'],
    build_by_default: false)
softmmu_ss.add(when: 'CONFIG_TILECOPY',
               if_true: [files('tilecopy.c', 'tilecopy-transpose.c'), zlib,
                         declare_dependency(link_with: tilecopy_cvt_lib,
                                            dependencies: libm)])"
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
# fail QEMU with SIGPIPE and the check with it; LeakSanitizer would fail
# this run on QEMU's own exit-time allocations)
devices=$(ASAN_OPTIONS=detect_leaks=0 "$bdir/$emu" -device help 2>/dev/null || true)
grep -q '"tilecopy"' <<<"$devices" ||
	die "the built QEMU has no tilecopy device"
if [ $sanitizers = yes ]; then
	# (QEMU builds with -fwrapv: no signed-overflow checks to look for)
	for rt in __asan_report_load8 __ubsan_handle_shift_out_of_bounds \
		__ubsan_handle_float_cast_overflow; do
		nm -D "$bdir/$emu" | grep " U $rt$" >/dev/null ||
			die "the sanitizer QEMU does not call $rt: a sanitizer is missing (configure.log)"
	done
fi

mkdir -p "$cache/bin/$key.tmp"
cp "$bdir/$emu" "$cache/bin/$key.tmp/"
[ $sanitizers = no ] || touch "$cache/bin/$key.tmp/.sanitizers"
rm -rf "$cache/bin/$key"
mv "$cache/bin/$key.tmp" "$cache/bin/$key"

# Keep the six most recently built or used binaries of this target and
# kind (plain or with sanitizers: switching branches back and forth is
# cheap) and any built or used in the last two hours (a test run elsewhere
# may still use it).
# (the entries' own times: use_cached touches the entry, not the binary)
ls -1dt "$cache"/bin/*/ 2>/dev/null | while read -r d; do
	d=${d%/}
	case $d in *.tmp) continue ;; esac
	[ -x "$d/$emu" ] || continue
	if [ -e "$d/.sanitizers" ]; then k=yes; else k=no; fi
	[ $k != $sanitizers ] || echo "$d"
done | tail -n +7 | while read -r old; do
	if [ -n "$(find "$old" -maxdepth 0 -mmin +120)" ]; then
		rm -rf "$old"
	fi
done || true

link_out
log "ready: $out -> $bin"
