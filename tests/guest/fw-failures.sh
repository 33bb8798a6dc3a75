#!/bin/bash
# In-guest: every broken firmware image makes the probe fail cleanly with one
# precise message; afterwards the module unloads, and loads again with the
# good image, and the device works.
#
# Run by make check-guest as:
#   run-guest.sh --no-module -- tests/guest/fw-failures.sh BUILD_DIR
# (TC_MODULE comes from run-guest.sh). Images: BUILD_DIR/firmware/tilecopy/
# test/*.bin from firmware/mkfw; the kernel's firmware search path is
# BUILD_DIR/firmware.
set -uo pipefail

build=${1:?usage: fw-failures.sh BUILD_DIR}
module=${TC_MODULE:?}
smoke=$build/tests/guest/test_ioctl
fail=0
# Each case reads the kernel log from a clean start, but what is cleared is
# kept for run-guest.sh's verdict (init.sh puts it before the final dmesg):
# a report printed during an earlier case must not vanish with the clear.
keep_log=${TC_GUEST_RESULTS:-/tmp/results}/dmesg.cleared
clear_log() { dmesg -c >>"$keep_log"; }

say() { echo "fw-failures: $*"; }
bad() { echo "fw-failures: FAIL: $*"; fail=1; }

# Wait up to $1 seconds for /dev/accel/accel* of the tilecopy device.
devices() {
	local n=0 d
	for d in /sys/class/accel/accel*; do
		[ -e "$d/device/vendor" ] || continue
		[ "$(cat "$d/device/vendor")" = 0x1234 ] && [ "$(cat "$d/device/device")" = 0x7c01 ] &&
			n=$((n + 1))
	done
	echo $n
}

bound() {
	ls /sys/bus/pci/drivers/tilecopy/ 2>/dev/null | grep -c '^0000:' || true
}

# name | expected message (ERE) of the one line the driver prints
cases=(
	"missing|firmware tilecopy/test/missing\.bin: cannot load it"
	"bad_magic|firmware tilecopy/test/bad_magic\.bin: bad magic 0x57464358"
	"bad_format|firmware tilecopy/test/bad_format\.bin: unsupported format 2"
	"bad_header_crc|firmware tilecopy/test/bad_header_crc\.bin: bad header checksum"
	"bad_payload_crc|firmware tilecopy/test/bad_payload_crc\.bin: bad payload checksum"
	"bad_iface|firmware tilecopy/test/bad_iface\.bin: speaks interface 0x00020000\.\.0x00020000"
	"bad_hw|firmware tilecopy/test/bad_hw\.bin: built for hardware 0x00020000"
	"truncated|firmware tilecopy/test/truncated\.bin: truncated"
	"truncated_header|firmware tilecopy/test/truncated_header\.bin: truncated"
	"no_queues|firmware tilecopy/test/no_queues\.bin: refused by the engine: malformed payload"
)

if lsmod | grep -q '^tilecopy '; then
	bad "tilecopy is loaded already (run with --no-module)"
	exit 1
fi

for c in "${cases[@]}"; do
	name=${c%%|*}
	want=${c#*|}
	[ "$name" = missing ] || [ -f "$build/firmware/tilecopy/test/$name.bin" ] ||
		{ bad "$name: no image $build/firmware/tilecopy/test/$name.bin"; continue; }
	clear_log
	if ! timeout 60 insmod "$module" "firmware=tilecopy/test/$name.bin"; then
		bad "$name: insmod failed (the module should load and its probe fail)"
		continue
	fi
	log=$(dmesg)
	lines=$(grep -c "firmware tilecopy/test/$name\.bin" <<<"$log" || true)
	if ! grep -Eq "$want" <<<"$log"; then
		bad "$name: no dmesg line matching '$want'"
		sed 's/^/    /' <<<"$log"
	elif [ "$lines" != 1 ]; then
		bad "$name: $lines dmesg lines about the image, want exactly 1"
		sed 's/^/    /' <<<"$log"
	else
		say "ok   $name: $(grep -E "$want" <<<"$log" | sed 's/^\[[^]]*\] //')"
	fi
	[ "$(devices)" = 0 ] || bad "$name: a device node exists although the probe failed"
	[ "$(bound)" = 0 ] || bad "$name: a device is bound to the driver although the probe failed"
	timeout 60 rmmod tilecopy || bad "$name: rmmod tilecopy failed"
done

# The good image now: loads, works, unloads, loads again, works again.
for round in 1 2; do
	clear_log
	if ! timeout 60 insmod "$module"; then
		bad "round $round: insmod with the good image failed"
		break
	fi
	for _ in $(seq 50); do [ "$(devices)" -ge 1 ] && break; sleep 0.1; done
	if [ "$(devices)" -lt 1 ]; then
		bad "round $round: no device after insmod with the good image"
		dmesg | sed 's/^/    /'
		break
	fi
	v=$(cat /sys/class/accel/accel0/device/fw_version 2>/dev/null)
	[ "$v" = 1.0.0 ] || bad "round $round: sysfs fw_version '$v', want 1.0.0 (engine.bin)"
	if ! TC_REQUIRE_DEVICE=1 CK_RUN_CASE=job timeout 300 "$smoke"; then
		bad "round $round: jobs fail with the good image"
	fi
	# printed at the end of the probe, after the node appeared
	dmesg | grep -q 'firmware 1\.0\.0' || bad "round $round: no 'firmware 1.0.0' line in dmesg"
	timeout 60 rmmod tilecopy || bad "round $round: rmmod failed"
	[ "$(devices)" = 0 ] || bad "round $round: device node left after rmmod"
done

[ $fail = 0 ] && say "all firmware cases passed"
exit $fail
