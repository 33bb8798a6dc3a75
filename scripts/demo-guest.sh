#!/bin/bash
# Inside the emulated board (scripts/demo.sh boots it): the engine end to end.
# POSIX sh too: the arm64 board (scripts/demo-arm64.sh) runs it with busybox
# sh, B being the cross-built tree, and TC_DEMO_REF_CPUS="neon scalar" to
# check the engine against the guest's native NEON path as well.
set -euo pipefail
B=${1:?build dir}
refs=${TC_DEMO_REF_CPUS:-scalar}
T=$B/bin/tilecopy
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say() { printf '\n== [board] %s\n' "$*"; }

say "tilecopy info"
$T info

say "a zN matrix as the engine stores it (8x12 f16, 4x4 fractals)"
$T layout zN --shape 8x12 --dtype f16 --block 4x4

head -c $((4 * 64 * 28 * 28 * 4)) /dev/urandom > "$tmp/x"
for pair in "NCHW NHWC f32 4x64x28x28" "NCHW nChw16c f32 4x64x28x28" \
	    "NCHW NC1HWC0 f16 4x64x28x28" "RowMajor zN f16 256x384" "zN nZ i8 256x512" \
	    "NHWC CHWN4 i8 4x30x28x28"; do
	set -- $pair
	say "convert $1 -> $2 ($3 $4) on the engine, checked against the CPU path"
	TILECOPY_DEVICE_THRESHOLD=0 $T convert --shape "$4" --dtype "$3" --from "$1" --to "$2" \
		--device auto --allow-larger-input "$tmp/x" "$tmp/dev"
	for cpu in $refs; do
		$T convert --shape "$4" --dtype "$3" --from "$1" --to "$2" --device cpu --cpu "$cpu" \
			--allow-larger-input "$tmp/x" "$tmp/cpu"
		cmp "$tmp/dev" "$tmp/cpu"
	done
	echo "ok: $(stat -c %s "$tmp/dev") bytes, engine == CPU ($refs)," \
		"$($T plan --shape "$4" --dtype "$3" --from "$1" --to "$2" | tail -1)"
done

say "throughput: engine vs CPU path in this guest"
"$B/tests/sdk/bench_device"
