#!/bin/bash
# In the guest: `tilecopy info` sees the engine; `tilecopy convert
# --device auto` runs on it (threshold 0) and matches --device cpu.
set -u
T=${1:?tilecopy}
tmp=$(mktemp -d)
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }

out=$($T info)
case "$out" in *"engine 0: /dev/accel/accel0"*firmware*) ok cli/info ;; *) bad cli/info "$out" ;; esac
head -c $((4 * 40 * 17 * 9 * 4)) /dev/urandom > "$tmp/in"
for pair in "NCHW NHWC f32 4x40x17x9" "NCHW nChw16c f32 4x40x17x9" \
	    "NHWC NC1HWC0 f16 4x40x17x9" "RowMajor zN f16 96x130" "zN nZ i8 64x100"; do
	set -- $pair
	TILECOPY_DEVICE_THRESHOLD=0 $T convert --shape "$4" --dtype "$3" --from "$1" --to "$2" \
		--device auto --allow-larger-input "$tmp/in" "$tmp/dev" &&
		$T convert --shape "$4" --dtype "$3" --from "$1" --to "$2" --device cpu \
		--cpu scalar --allow-larger-input "$tmp/in" "$tmp/cpu" &&
		cmp -s "$tmp/dev" "$tmp/cpu" && ok "cli/convert/$1-$2" || bad "cli/convert/$1-$2"
done
rm -rf "$tmp"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
