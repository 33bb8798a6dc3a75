#!/bin/sh
# In the arm64 guest (tests/arm64/check.sh boots it): one part of the lane.
# POSIX sh: the guest runs it with busybox sh (the host's userspace is x86).
#
#   sh tests/arm64/in-guest.sh PART A
#     A     the cross-built tree (build/arm64: tests/guest/, tests/sdk/,
#           driver/tc_drv_smoke, bin/tilecopy)
#     PART  msix      2 engines, MSI-X through the GICv3 ITS: the driver
#                     smoke test, the uAPI suite, typed descriptors
#                     (conversions) against the CPU reference, every layout pair on the
#                     engine against NEON, the SDK suite, forced resets
#           intx      no MSI controller: the same driver on the INTx line
#           fallback  engines present, module not loaded: the SDK and the
#                     CLI fall back to the CPU (NEON); then unload/reload
#           pages16k  the 16 KiB-page kernel: smoke, jobs, layouts
set -u
part=${1:?usage: in-guest.sh PART BUILD_ARM64}
A=${2:?usage: in-guest.sh PART BUILD_ARM64}
fail=0
t0=$(date +%s)

run() {	# run NAME CMD...: one check, its time, its verdict
	name=$1
	shift
	s=$(date +%s)
	if "$@"; then
		echo "arm64: ok   $name ($(($(date +%s) - s)) s)"
	else
		echo "arm64: FAIL $name ($(($(date +%s) - s)) s)"
		fail=1
	fi
}

# The interrupts the driver got: "<chip> ... tilecopy" lines of /proc/interrupts.
irq_lines() { grep tilecopy /proc/interrupts; }

neon_is_default() {
	# the CPU path of this guest is NEON, natively
	"$A/bin/tilecopy" info | grep -qE 'CPU path: neon|CPU path \(neon\)' || {
		"$A/bin/tilecopy" info
		echo "the CPU path is not neon"
		return 1
	}
}

# CPU fallback of the SDK through the CLI: --device auto without an engine
# runs the default executor (NEON); it must equal the scalar reference.
cli_fallback() {
	T=$A/bin/tilecopy
	tmp=$(mktemp -d)
	head -c $((4 * 64 * 28 * 28 * 4)) /dev/urandom >"$tmp/x"
	for pair in "NCHW NHWC f32 4x64x28x28" "NCHW NC1HWC0 f16 4x64x28x28" \
		"RowMajor zN f16 256x384" "zN nZ i8 256x512"; do
		# shellcheck disable=SC2086
		set -- $pair
		"$T" convert --shape "$4" --dtype "$3" --from "$1" --to "$2" --device auto --allow-larger-input \
			"$tmp/x" "$tmp/auto" || return 1
		"$T" convert --shape "$4" --dtype "$3" --from "$1" --to "$2" --cpu scalar --allow-larger-input \
			"$tmp/x" "$tmp/ref" || return 1
		cmp "$tmp/auto" "$tmp/ref" || { echo "$1 -> $2: NEON fallback != scalar"; return 1; }
		echo "fallback $1 -> $2 ($3 $4): NEON == scalar"
	done
	rm -rf "$tmp"
}

case $part in
msix)
	# the engines' vectors come from the ITS (chip ITS-PCI-MSIX-<bdf>)
	run "MSI-X through the GICv3 ITS" sh -c \
		'grep tilecopy /proc/interrupts | grep -q ITS-PCI-MSI || { grep -e tilecopy -e ITS /proc/interrupts; exit 1; }'
	run "CPU path is NEON" neon_is_default
	run "driver smoke test" "$A/driver/tc_drv_smoke"
	run "uAPI suite (test_ioctl)" "$A/tests/guest/test_ioctl"
	run "typed descriptors vs the CPU reference (test_convert)" "$A/tests/guest/test_convert"
	run "every layout pair, engine vs NEON" env TC_REF_CPU=neon "$A/tests/guest/test_layouts"
	run "SDK device backend (test_device)" env TC_SDK_MODE=normal "$A/tests/sdk/test_device"
	run "forced reset with jobs in flight" "$A/tests/guest/test_recovery"
	irq_lines
	;;
intx)
	run "INTx, no MSI-X" sh -c \
		'dmesg | grep -q "using the INTx interrupt" && ! grep tilecopy /proc/interrupts | grep -q MSI'
	run "driver smoke test" "$A/driver/tc_drv_smoke"
	run "jobs (test_ioctl job)" env CK_RUN_CASE=job "$A/tests/guest/test_ioctl"
	run "forced reset with jobs in flight" "$A/tests/guest/test_recovery"
	irq_lines
	;;
fallback)
	run "no device node without the module" sh -c \
		'! ls /dev/accel/* /dev/dri/renderD* 2>/dev/null | grep -q .'
	run "CPU path is NEON" neon_is_default
	run "tilecopy info: no engine" sh -c \
		"'$A/bin/tilecopy' info | grep -q 'no tilecopy engine found'"
	run "SDK without the module (test_device nodev)" env TC_SDK_MODE=nodev "$A/tests/sdk/test_device"
	run "CLI conversions fall back to NEON" cli_fallback
	run "unload/reload (3 rounds)" sh tests/guest/reload.sh "$A"
	;;
pages16k)
	run "16 KiB pages" sh -c 'grep -m1 KernelPageSize /proc/self/smaps | grep -q " 16 kB"'
	run "driver smoke test" "$A/driver/tc_drv_smoke"
	run "jobs (test_ioctl job, bo)" sh -c "CK_RUN_CASE=job '$A/tests/guest/test_ioctl' &&
		CK_RUN_CASE=bo '$A/tests/guest/test_ioctl'"
	run "every layout pair, engine vs NEON" env TC_REF_CPU=neon "$A/tests/guest/test_layouts"
	;;
*)
	echo "in-guest.sh: unknown part '$part'" >&2
	exit 2
	;;
esac
echo "arm64: $part done in $(($(date +%s) - t0)) s"
exit $fail
