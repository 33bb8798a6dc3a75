#!/bin/bash
# Boot the guest kernel under QEMU (TCG) with tilecopy engines, load the
# driver, run one command inside, and report.
#
# Usage: tests/qemu/run-guest.sh [options] -- COMMAND ARGS...
#   --devices N          tilecopy engines in the VM (default 1; 0 = none)
#   --device-props P     extra properties for every engine, e.g. "hang-on-job=3"
#                        (comma separated, appended to -device tilecopy,...)
#   --no-module          do not insmod tilecopy.ko (the DRM modules still load)
#   --module-args A      parameters for insmod tilecopy.ko ("firmware=...")
#   --timeout S          seconds COMMAND may run inside the guest (default 300)
#   --smp N              guest CPUs (default 2)
#   --keep               keep the run directory (console log, dmesg) on success
#   --arch A             x86_64 (default), arm64 or arm64-16k (16 KiB pages):
#                        Debian's arm64 kernel on the `virt` board, settings
#                        in tests/qemu/arch-arm64.sh (tests/arm64/)
#   --no-msi             no MSI in the guest: the driver falls back to INTx
#                        (arm64: a GICv3 without ITS; x86: pci=nomsi)
#   --kernel K           stock (default, or $TC_KERNEL): Debian's kernel;
#                        debug: the debug kernel (tests/qemu/kernel-debug.sh:
#                        KASAN, lockdep, DMA-API, kmemleak, ...; its reports
#                        fail the run; x86_64 only)
#
# COMMAND runs inside the guest, chrooted into the host's / (shared read-only
# through 9p, so host binaries and the build tree are at the same paths), with
# cwd = the project root, HOME=/tmp (a guest tmpfs) and TC_GUEST_RESULTS=
# /tmp/results (a writable share whose files survive the run). It also gets
# TC_MODULE, TC_MODULE_ARGS, TC_FW_DIR, TC_DEVICE_PROPS, TC_EXPECT_DEVICES
# and, when set on the host, TC_REQUIRE_DEVICE, CK_RUN_CASE, CK_VERBOSITY. Its output is
# printed. After COMMAND, the guest unloads tilecopy if it is loaded
# (tests/qemu/init.sh: removal and module exit in every boot). Exit status:
# COMMAND's; 1 if dmesg has a WARNING, BUG, oops, KASAN or UBSAN line
# (printed), or the unload failed, although COMMAND passed; 125 when the guest
# could not run it (boot failure, timeout: the console log is printed).
#
# Environment (the defaults are for x86_64; arch-arm64.sh has its own):
# QEMU_SYSTEM (default build/qemu/qemu-system-x86_64, else
# qemu-system-x86_64 from PATH when --devices 0), QEMU_FIRMWARE_ARGS,
# TC_MODULE (default build/driver/tilecopy.ko), TC_FW_DIR (firmware search
# path, default build/firmware), TILECOPY_CACHE (kernel cache).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac

devices=1
props=
no_module=0
module_args=
timeout_s=300
smp=2
keep=0
arch=x86_64
no_msi=0
iommu=0
kernel=${TC_KERNEL:-stock}
while [ $# -gt 0 ]; do
	case $1 in
	--devices) devices=$2; shift 2 ;;
	--device-props) props=$2; shift 2 ;;
	--no-module) no_module=1; shift ;;
	--module-args) module_args=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--arch) arch=$2; shift 2 ;;
	--no-msi) no_msi=1; shift ;;
	--iommu) iommu=1; shift ;;
	--kernel) kernel=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "run-guest: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: run-guest.sh [options] -- COMMAND ARGS..." >&2; exit 2; }
case $kernel in
stock) ;;
debug)	[ "$arch" = x86_64 ] ||
		{ echo "run-guest: --kernel debug is x86_64 only (not --arch $arch)" >&2; exit 2; } ;;
*) echo "run-guest: unknown kernel '$kernel' (stock|debug)" >&2; exit 2 ;;
esac

# What differs between architectures; x86_64 here, the others sourced.
qemu_name=qemu-system-x86_64
firmware_dirs="/usr/share/seabios /usr/share/qemu"
module_default=$B/driver/tilecopy.ko
machine_args=(-cpu max)
console=ttyS0
arch_append=
[ $no_msi = 1 ] && arch_append=pci=nomsi
initrd_name=initramfs
busybox=			# the host's busybox-static
guest_busybox_dir=		# the host's userspace runs COMMAND (bash)
case $arch in
x86_64)
	# --iommu: the engines behind a translating IOMMU (VT-d on the q35
	# machine, which it needs; strict: each unmap invalidates at once),
	# as on boards with an SMMU. Interrupt remapping stays off (MSI-X as
	# without it).
	if [ $iommu = 1 ]; then
		machine_args=(-M q35 -cpu max -device intel-iommu,intremap=off)
		arch_append="$arch_append intel_iommu=on iommu.passthrough=0 iommu.strict=1"
	fi ;;
arm64|arm64-16k)
	[ $iommu = 0 ] || { echo "run-guest: --iommu is x86_64 only" >&2; exit 2; }
	. "$here/arch-arm64.sh" ;;
*) echo "run-guest: unknown --arch '$arch' (x86_64|arm64|arm64-16k)" >&2; exit 2 ;;
esac

qemu=${QEMU_SYSTEM:-$B/qemu/$qemu_name}
if [ ! -x "$qemu" ]; then
	if [ "$devices" = 0 ] && command -v $qemu_name >/dev/null; then
		qemu=$(command -v $qemu_name)
	else
		echo "run-guest: no QEMU at $qemu (make qemu-build)" >&2
		exit 125
	fi
fi
if [ -z "${QEMU_FIRMWARE_ARGS:-}" ]; then
	QEMU_FIRMWARE_ARGS=
	for d in $firmware_dirs; do
		[ -d $d ] && QEMU_FIRMWARE_ARGS="$QEMU_FIRMWARE_ARGS -L $d"
	done
fi
module=${TC_MODULE:-$module_default}
fwdir=${TC_FW_DIR:-$B/firmware}

# The dmesg verdict; a kernel file may replace it (kernel-debug.sh does).
bad='WARNING:|BUG:|Oops|KASAN|UBSAN|general protection fault|kernel BUG|Call Trace:|refcount_t:|list_(add|del) corruption|INFO: task .* blocked|rcu: INFO|stack-protector|Kernel panic'
report_found=0
scan_reports() {
	if grep -E "$bad" "$res/dmesg" >"$res/dmesg.bad"; then
		echo "run-guest: dmesg has kernel errors:" >&2
		grep -E -A25 "$bad" "$res/dmesg" | head -80 >&2
		report_found=1
	fi
}

kernel_args=
guest_kernel=stock
case $kernel in
stock)
	kdir=$(timeout 900 bash "$here/fetch-kernel.sh" --arch "$arch")
	initrd=$B/guest/$initrd_name.cpio.gz ;;
debug) . "$here/kernel-debug.sh" ;;
esac
timeout 300 bash "$here/mkinitramfs.sh" "$kdir" "$initrd" $busybox

# Kernel modules to load, in order; the 9p ones are loaded by /init itself.
kmods=
while read -r m; do
	m=${m%.ko}
	case $m in netfs|9p|9pnet|9pnet_virtio) ;; *) kmods="$kmods $m" ;; esac
done <"$kdir/modules.order"
if [ $no_module = 0 ]; then
	[ -f "$module" ] || { echo "run-guest: no module $module (make module)" >&2; exit 125; }
	for dep in $(modinfo -F depends "$module" | tr , ' '); do
		d=${dep//-/_}
		echo " $kmods " | tr - _ | grep -q " $d " ||
			grep -qE "/$dep\.ko$|/${d}\.ko$" "$kdir/modules.builtin" ||
			{ echo "run-guest: $module needs $dep, not in $kdir (add it to fetch-kernel.sh)" >&2; exit 125; }
	done
fi

# The guest gets its own tmpfs on /tmp; host paths below /tmp it needs are
# bound back into it (a tree cloned into /tmp, its build dir).
tmp_binds=
for p in "$TOP" "$B" "$(dirname "$module")" "$fwdir"; do
	p=$(realpath -m "$p")
	case $p in
	/tmp/*)
		case $p in *[[:space:]]*)
			echo "run-guest: $p: paths with spaces under /tmp are not supported" >&2; exit 125 ;;
		esac
		[ -d "$p" ] || continue
		case " $tmp_binds " in *" $p "*) ;; *) tmp_binds="$tmp_binds $p" ;; esac ;;
	esac
done

mkdir -p "$B/guest"
res=$(mktemp -d "$B/guest/run.XXXXXX")
chmod 0777 "$res"
{
	echo "GUEST_KMODS='$kmods'"
	echo "GUEST_TIMEOUT=$timeout_s"
	echo "GUEST_FW_PATH='$fwdir'"
	echo "GUEST_TMP_BINDS='$tmp_binds'"
	echo "GUEST_BUSYBOX_DIR='$guest_busybox_dir'"
	echo "GUEST_KERNEL=$guest_kernel"
	if [ $no_module = 0 ]; then
		echo "GUEST_MODULE='$module'"
		echo "GUEST_MODULE_ARGS='$module_args'"
	else
		echo "GUEST_MODULE="
	fi
} >"$res/env"
{
	echo "cd $(printf %q "$TOP") || exit 125"
	echo "export PATH=${guest_busybox_dir:+$guest_busybox_dir:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	echo "export HOME=/tmp TC_GUEST_RESULTS=/tmp/results TC_IN_GUEST=1"
	echo "export TC_MODULE=$(printf %q "$module") TC_FW_DIR=$(printf %q "$fwdir")"
	echo "export TC_MODULE_ARGS=$(printf %q "$module_args")"
	echo "export TC_DEVICE_PROPS=$(printf %q "$props") TC_EXPECT_DEVICES=$devices"
	[ -n "${TC_REQUIRE_DEVICE:-}" ] && echo "export TC_REQUIRE_DEVICE=$(printf %q "$TC_REQUIRE_DEVICE")"
	[ -n "${CK_RUN_CASE:-}" ] && echo "export CK_RUN_CASE=$(printf %q "$CK_RUN_CASE")"
	[ -n "${CK_VERBOSITY:-}" ] && echo "export CK_VERBOSITY=$(printf %q "$CK_VERBOSITY")"
	printf 'exec'
	printf ' %q' "$@"
	echo
} >"$res/cmd.sh"

devargs=()
for ((i = 0; i < devices; i++)); do
	devargs+=(-device "tilecopy${props:+,$props}")
done

# One TCG thread for all vCPUs (the guest still has --smp CPUs): with one
# thread per vCPU, the kernel's boot-time code patching (int3 + text_poke)
# raced with the other vCPU's translated code and oopsed ("Oops: int3" in
# sched_clock_cpu) in about one boot of fifty here. TC_TCG_THREAD=multi
# restores the parallel mode.
tcg_thread=${TC_TCG_THREAD:-single}

# TCG vCPUs on a busy host can go unscheduled for tens of seconds while guest
# time runs on (a 37 s RCU "stall" was seen with three guests and builds on 2
# cores). Lengthen the stall and lockup detectors past that, so what they
# still report is a real hang (defaults: RCU 21 s, soft lockup 20 s; this
# kernel has no workqueue watchdog).
watchdogs="rcupdate.rcu_cpu_stall_timeout=120 watchdog_thresh=60"

# shellcheck disable=SC2086
qemu_cmd=("$qemu" $QEMU_FIRMWARE_ARGS -accel "tcg,thread=$tcg_thread" "${machine_args[@]}" -smp "$smp" -m 1G
	-nodefaults -no-user-config -display none -vga none -no-reboot
	-serial "file:$res/console.log" -monitor none
	-kernel "$kdir/vmlinuz" -initrd "$initrd"
	-append "console=$console panic=-1 loglevel=6 rdinit=/init $watchdogs $arch_append $kernel_args"
	-fsdev "local,id=hostfs,path=/,security_model=none,readonly=on,multidevs=remap"
	-device "virtio-9p-pci,fsdev=hostfs,mount_tag=host"
	-fsdev "local,id=resfs,path=$res,security_model=none"
	-device "virtio-9p-pci,fsdev=resfs,mount_tag=results"
	"${devargs[@]}")

start=$(date +%s.%N)
for attempt in 1 2; do
	set +e
	# the margin: boot, the driver's unload and kmemleak's scans (init.sh)
	timeout --kill-after=10 $((timeout_s + 240)) "${qemu_cmd[@]}" >"$res/qemu.log" 2>&1
	qrc=$?
	set -e
	# A guest that died before /init mounted the shares ran nothing of
	# ours (kernel, firmware and busybox only): boot once more, saying so.
	if [ -f "$res/status" ] || grep -q 'guest-init: shares mounted' "$res/console.log" ||
		[ $attempt = 2 ]; then
		break
	fi
	echo "run-guest: the guest died during boot, before running anything of the project; retrying once (first console: $res/console.boot1.log)" >&2
	grep -E -m5 'Oops|BUG|panic' "$res/console.log" >&2 || true
	mv "$res/console.log" "$res/console.boot1.log"
	keep=1
done
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

[ -f "$res/output" ] && cat "$res/output"
[ -f "$res/init.log" ] && sed 's/^/run-guest: /' "$res/init.log" >&2

if [ ! -f "$res/status" ]; then
	echo "run-guest: guest did not report a status (qemu exit $qrc after ${secs}s); run dir $res" >&2
	echo "--- qemu:" >&2; tail -20 "$res/qemu.log" >&2
	echo "--- console (last 60 lines):" >&2; tail -60 "$res/console.log" >&2
	exit 125
fi
rc=$(cat "$res/status")
scan_reports
if [ $report_found = 1 ]; then
	[ "$rc" = 0 ] && rc=1
	keep=1
fi
echo "run-guest: '$*' exited $rc (guest run ${secs}s, $kernel kernel)" >&2
if [ "$rc" = 125 ] || [ "$keep" = 1 ] || [ "$rc" != 0 ]; then
	echo "run-guest: console log, dmesg and output kept in $res" >&2
else
	rm -rf "$res"
fi
exit "$rc"
