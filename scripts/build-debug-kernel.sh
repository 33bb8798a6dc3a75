#!/bin/bash
# Build the debug guest kernel (issue 12): Debian's linux-source-6.12 of the
# guest kernel's version (scripts/linux-source.sh) with x86_64_defconfig +
# kvm_guest.config + tests/qemu/debug.config (KASAN, lockdep, DMA-API
# debugging, debugobjects, kmemleak, UBSAN bounds, fault injection, lockup
# and hung-task detectors), built out of tree. Cached by a hash of the
# source version, the compiler, the fragment, debug.Kconfig and RECIPE
# below; a second run with the same inputs prints the cached directory at
# once.
#
# Usage: scripts/build-debug-kernel.sh            build (or find) and print the dir
#        scripts/build-debug-kernel.sh --key      print the cache key only
#        scripts/build-debug-kernel.sh --config-only
#                 configure and check the fragment, do not build
#        scripts/build-debug-kernel.sh --background LOG
#                 start the build detached (output to LOG) and return; a later
#                 plain call waits for it on the cache lock
#
# Result, in the layout of tests/qemu/fetch-kernel.sh (run-guest.sh takes
# either):
#   ${TILECOPY_CACHE:-~/.cache/tilecopy}/debug-kernel/<ver>-<key>/
#     vmlinuz, modules/*.ko, modules.order (load order), modules.builtin
#     build/       the O= tree, objects removed: KDIR for tilecopy.ko
#     config       the final .config;  build-seconds   how long it took
#     .complete    stamp (the key)
#
# Environment: TC_DEBUG_KERNEL_TIMEOUT (seconds for the build and for
# waiting on another build's lock, default 5400), TC_DEBUG_KERNEL_JOBS
# (make -j, default nproc), TC_DEBUG_KERNEL_NICE (default 10; 19 and the
# idle I/O class for --background), TILECOPY_CACHE.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$here/.." && pwd)
CACHE=${TILECOPY_CACHE:-$HOME/.cache/tilecopy}
T=${TC_DEBUG_KERNEL_TIMEOUT:-5400}
JOBS=${TC_DEBUG_KERNEL_JOBS:-$(nproc)}
NICE=${TC_DEBUG_KERNEL_NICE:-10}
frag=$TOP/tests/qemu/debug.config
kconf=$TOP/tests/qemu/debug.Kconfig

# Bump when a change here changes what is built (not for comments, not for
# the collection steps after the build): it is part of the cache key.
RECIPE=1

log() { echo "build-debug-kernel: $*" >&2; }
die() { log "error: $*"; exit 1; }

if [ "${1:-}" = --background ]; then
	out=${2:?usage: build-debug-kernel.sh --background LOG}
	mkdir -p "$(dirname "$out")"
	# setsid + nohup: the build outlives the make recipe that started it;
	# stdout/stderr go to LOG so make does not wait on a pipe. The
	# compilation runs at nice 19 and the idle I/O class, so it takes only
	# what the rest of make check leaves idle: the guests' TCG threads and
	# the tests keep their share of the CPU. The source's download and
	# unpacking (scripts/linux-source.sh, ~1 min) keep normal priority, as
	# the arm64 lane waits for the same tree on its lock.
	TC_DEBUG_KERNEL_NICE=19 setsid nohup bash "$0" >"$out" 2>&1 </dev/null &
	log "started in the background (pid $!, log $out)"
	exit 0
fi

src=$(bash "$here/linux-source.sh")
srcver=$(cat "$(dirname "$src")/.complete")	# e.g. 6.12.117-1~deb12u1
ver=$(basename "$(dirname "$src")")		# e.g. 6.12.117
key=$( { echo "$srcver"; gcc --version | head -1; echo "$RECIPE"; cat "$frag" "$kconf"; } |
	sha256sum | cut -c1-12)
if [ "${1:-}" = --key ]; then
	echo "$ver-$key"
	exit 0
fi
dir=$CACHE/debug-kernel/$ver-$key
if [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi

mkdir -p "$CACHE/debug-kernel"
exec 9>"$dir.lock"
if ! flock -n 9; then
	log "another build of $dir is running; waiting for it (up to ${T}s)"
	timeout "$T" flock 9 || die "lock $dir.lock busy for ${T}s"
fi
if [ -f "$dir/.complete" ]; then
	echo "$dir"
	exit 0
fi

start=$SECONDS
# Built in place (the O= tree records its own path); the entry counts only
# once .complete exists. A build that was interrupted resumes: same key,
# same configuration, and make redoes only what is missing.
O=$dir/build
mkdir -p "$O"
# The top-level Kconfig (its mainmenu must come first, so it cannot be
# sourced) followed by debug.Kconfig; it lives in the cache entry, so the
# O= tree never refers back to a work tree that may be gone.
cat "$src/Kconfig" "$kconf" >"$dir/debug.Kconfig"
ioidle=()
[ "$NICE" = 19 ] && command -v ionice >/dev/null && ioidle=(ionice -c 3)
kmake() {
	timeout "$T" nice -n "$NICE" "${ioidle[@]}" make -s -C "$src" O="$O" \
		KBUILD_KCONFIG="$dir/debug.Kconfig" "$@"
}

log "configuring $ver ($srcver) in $O"
kmake x86_64_defconfig >&2
bash "$src/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" \
	"$src/kernel/configs/kvm_guest.config" "$frag" >/dev/null
kmake olddefconfig >&2

# Every line of the fragment must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF "$line" "$O/.config" || { log "fragment: '$line' not in the final .config ($(grep -E "^(# )?${line%%=*}[= ]" "$O/.config" || echo absent))"; bad=1; } ;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		! grep -qE "^$sym=" "$O/.config" || { log "fragment: $sym should be off: $(grep -E "^$sym=" "$O/.config")"; bad=1; } ;;
	esac
done <"$frag"
[ $bad = 0 ] || die "the fragment does not apply to $ver (see above)"
if [ "${1:-}" = --config-only ]; then
	log "configuration checked: $O/.config"
	exit 0
fi

log "building bzImage and modules with -j$JOBS (about 15 minutes on 2 idle cores)"
kmake -j"$JOBS" bzImage modules >"$dir/build.log" 2>&1 ||
	{ tail -40 "$dir/build.log" >&2; die "kernel build failed (log $dir/build.log)"; }
grep -E '(^|: )(warning|error):' "$dir/build.log" | head -20 >&2 || true

# The modules the harness loads (the DRM ones, with their dependencies),
# installed to a scratch root for depmod, then listed in load order
# (dependencies first) as run-guest.sh / init.sh expect them. Other modules
# the configuration builds (x86_pkg_temp_thermal) are not loaded.
want="drm drm_shmem_helper gpu-sched drm_exec drm_gpuvm drm_kms_helper"
root=$dir/root
rm -rf "$root"
kmake INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 modules_install >/dev/null
krel=$(cat "$O/include/config/kernel.release")
moddir=$root/lib/modules/$krel
declare -A seen=()
order=()
resolve() {
	local path=$1 line d
	[ -n "${seen[$path]:-}" ] && return 0
	seen[$path]=1
	line=$(grep -m1 "^$path:" "$moddir/modules.dep" || true)
	for d in ${line#*:}; do resolve "$d"; done
	order+=("$path")
}
for m in $want; do
	p=$(awk -F: -v m="/$m.ko" 'substr($1, length($1) - length(m) + 1) == m { print $1; exit }' \
		"$moddir/modules.dep")
	[ -n "$p" ] && resolve "$p"
done
rm -rf "$dir/modules"
mkdir -p "$dir/modules"
: >"$dir/modules.order"
for p in "${order[@]}"; do
	cp "$moddir/$p" "$dir/modules/"
	basename "$p" >>"$dir/modules.order"
done
for m in drm drm_shmem_helper gpu-sched; do
	grep -qx "$m.ko" "$dir/modules.order" || die "module $m.ko was not built"
done
cp "$moddir/modules.builtin" "$dir/"
cp "$O/arch/x86/boot/bzImage" "$dir/vmlinuz"
cp "$O/.config" "$dir/config"
rm -rf "$root"

# Keep what an external module build needs (headers, generated files,
# scripts, objtool, Module.symvers), drop the objects: ~1 GB less.
find "$O" \( -name '*.o' -o -name '*.a' -o -name '*.ko' -o -name '*.mod.c' \) -delete
rm -f "$O"/vmlinux "$O"/.tmp_vmlinux* "$O"/arch/x86/boot/compressed/vmlinux*
log "built $krel in $((SECONDS - start)) s"
echo $((SECONDS - start)) >"$dir/build-seconds"
echo "$key" >"$dir/.complete"
echo "$dir"
