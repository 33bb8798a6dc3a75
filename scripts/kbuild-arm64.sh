#!/bin/bash
# Prepare a kernel build directory for cross-building tilecopy.ko for
# Debian's arm64 6.12 kernel, and print its path (the KDIR of `make M=`).
#
# Usage: scripts/kbuild-arm64.sh [FLAVOUR]
#   FLAVOUR  arm64 (default; 4 KiB pages) or arm64-16k (16 KiB pages)
#
# The arm64 headers package cannot be used as it is on an x86 host: its
# host tools (modpost, fixdep, ...) are arm64 binaries. So the build
# directory is prepared from the full source instead:
#   - the source: Debian's linux-source-6.12 of the guest kernel's version,
#     unpacked once by scripts/linux-source.sh (shared, never written: this
#     builds out of tree with O=);
#   - .config and Module.symvers: from linux-headers-<ver>-FLAVOUR:arm64
#     (apt-get download, never installed), so the module gets the CRCs and
#     the struct layouts of the kernel it loads into;
#   - `make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- olddefconfig
#     modules_prepare` with KERNELRELEASE set as Debian sets it, so the
#     module's vermagic is the kernel's. Nothing else is built (no vmlinux).
# olddefconfig re-evaluates the toolchain-dependent options; the script
# fails if anything differs from Debian's .config (a different struct
# module would not load) but for the compiler's version text and the
# 32-bit compat vDSO (COMPAT_VDSO needs an arm32 cross compiler too; it
# only changes the kernel image's vDSO, nothing a module sees). A Rust
# toolchain on the host is hidden (RUSTC=false): Debian builds without Rust.
#
# Cached in ${TILECOPY_CACHE:-$HOME/.cache/tilecopy}/kbuild-<release>/,
# complete when .complete holds this script's hash; concurrent callers
# serialise on a lock. About 1-2 minutes on 2 cores, once.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${TILECOPY_CACHE:-$HOME/.cache/tilecopy}
T=${TC_STEP_TIMEOUT:-900}
flavour=${1:-arm64}
case $flavour in arm64|arm64-16k) ;; *)
	echo "kbuild-arm64: unknown flavour '$flavour' (arm64|arm64-16k)" >&2; exit 2 ;;
esac

log() { echo "kbuild-arm64: $*" >&2; }
die() { log "error: $*"; exit 1; }

# The release follows the x86 guest kernel (its headers are installed).
hdr=$(ls -d /usr/src/linux-headers-6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -1 || true)
[ -n "$hdr" ] || die "no /usr/src/linux-headers-6.12.*+deb12-amd64 (run scripts/deps.sh)"
abi=${hdr#/usr/src/linux-headers-}	# 6.12.117+deb12-amd64
abi=${abi%-amd64}			# 6.12.117+deb12
krel=$abi-$flavour
dir=$CACHE/kbuild-$krel
key=$(sha256sum "$top/scripts/kbuild-arm64.sh" | cut -c1-16)

if [ "$(cat "$dir/.complete" 2>/dev/null)" = "$key" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$CACHE"
exec 7>"$dir.lock"
timeout "$T" flock 7 || die "lock $dir.lock busy for ${T}s"
if [ "$(cat "$dir/.complete" 2>/dev/null)" = "$key" ]; then
	echo "$dir"
	exit 0
fi
command -v aarch64-linux-gnu-gcc >/dev/null || die "no aarch64-linux-gnu-gcc (scripts/deps.sh installs it)"
src=$(bash "$top/scripts/linux-source.sh")

start=$(date +%s)
log "preparing $dir for $krel (once)"
rm -rf "$dir"
mkdir -p "$dir/dl"
pkg=linux-headers-$krel:arm64
(cd "$dir/dl" && timeout "$T" apt-get download -q "$pkg" 2>&1 |
	grep -v "couldn't be accessed by user '_apt'" >&2) || true
deb=$(ls "$dir"/dl/linux-headers-*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || die "cannot download $pkg (arm64 multiarch and bookworm-backports: scripts/deps.sh)"
p=./usr/src/linux-headers-$krel
timeout "$T" dpkg-deb --fsys-tarfile "$deb" |
	tar -x -C "$dir/dl" "$p/.config" "$p/Module.symvers" ||
	die "no .config or Module.symvers in $deb"
cp "$dir/dl/$p/.config" "$dir/.config"
cp "$dir/dl/$p/.config" "$dir/config.debian"
cp "$dir/dl/$p/Module.symvers" "$dir/Module.symvers"
rm -rf "$dir/dl"

kmake() {
	timeout "$T" make -s -C "$src" O="$dir" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		KERNELRELEASE="$krel" RUSTC=false -j"${TILECOPY_JOBS:-2}" "$@"
}
kmake olddefconfig >"$dir/prepare.log" 2>&1 || { tail -30 "$dir/prepare.log" >&2; die "olddefconfig failed"; }

# Every option as Debian built it, but for the compiler's self-description.
strip_cc() {
	grep -E '^(CONFIG_|# CONFIG_)' "$1" |
		grep -vE '^CONFIG_CC_VERSION_TEXT=|^CONFIG_(GENERIC_|THUMB2_)?COMPAT_VDSO=' | sort
}
if ! diff <(strip_cc "$dir/config.debian") <(strip_cc "$dir/.config") >"$dir/config.diff"; then
	cat "$dir/config.diff" >&2
	die "the cross toolchain changes Debian's $krel configuration (above); the module would not load"
fi

kmake modules_prepare >>"$dir/prepare.log" 2>&1 ||
	{ tail -30 "$dir/prepare.log" >&2; die "modules_prepare failed (log: $dir/prepare.log)"; }
[ "$(cat "$dir/include/config/kernel.release")" = "$krel" ] ||
	die "prepared release $(cat "$dir/include/config/kernel.release"), wanted $krel"
echo "$key" >"$dir/.complete"
log "ready in $(($(date +%s) - start)) s: $dir"
echo "$dir"
