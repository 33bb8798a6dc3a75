#!/bin/bash
# make demo: the main job, end to end, on this machine's CPU path.
# Converts tensors between formats, checks each against a round trip and the
# scalar reference executor, and draws the layouts.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s all
T=build/bin/tilecopy
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

say() { printf '\n== %s\n' "$*"; }

say "layouts: a zN matrix (8x12 f16, 4x4 fractals) and its nZ twin"
$T layout zN --shape 8x12 --dtype f16 --block 4x4
$T layout nZ --shape 8x12 --dtype f16 --block 4x4

say "layouts: NCHW and nChw8c of 1x20x2x3 f32 (C padded to 24)"
$T layout NCHW --shape 1x20x2x3 --dtype f32
$T layout nChw8c --shape 1x20x2x3 --dtype f32

head -c $((8 * 64 * 56 * 56 * 4)) /dev/urandom > "$tmp/x"
for pair in "NCHW NHWC f32 8x64x56x56" "NCHW nChw16c f32 8x64x56x56" \
	    "NCHW NC1HWC0 f16 8x64x56x56" "RowMajor zN f16 1024x2048" \
	    "zN nZ i8 2048x2048"; do
	set -- $pair
	say "convert $1 -> $2 ($3 $4) and back, scalar and SIMD"
	$T plan --shape "$4" --dtype "$3" --from "$1" --to "$2" | tail -1
	start=$(date +%s.%N)
	$T convert --shape "$4" --dtype "$3" --from "$1" --to "$2" --allow-larger-input "$tmp/x" "$tmp/y"
	end=$(date +%s.%N)
	$T convert --shape "$4" --dtype "$3" --from "$1" --to "$2" --cpu scalar --allow-larger-input \
		"$tmp/x" "$tmp/y_ref"
	$T convert --shape "$4" --dtype "$3" --from "$2" --to "$1" "$tmp/y" "$tmp/z"
	bytes=$(stat -c %s "$tmp/z")
	cmp -s "$tmp/y" "$tmp/y_ref" || { echo "demo: $1 -> $2 differs from the scalar reference" >&2; exit 1; }
	cmp -s "$tmp/z" <(head -c "$bytes" "$tmp/x") || { echo "demo: round trip $1 -> $2 -> $1 lost data" >&2; exit 1; }
	echo "ok: $(stat -c %s "$tmp/y") bytes out, round trip exact, matches scalar;" \
		"whole command $(python3 -c "print(f'{$end-$start:.3f}')") s"
done
say "CPU path passed"

# The emulated board: the project's QEMU with the engine, the Debian 6.12
# kernel, the tilecopy module; the same CLI runs inside.
say "booting the emulated board (QEMU + tilecopy engine + Linux 6.12 + tilecopy.ko)"
make -s qemu-build module firmware build/tests/sdk/bench_device
BUILD=$PWD/build TC_REQUIRE_DEVICE=1 bash tests/qemu/run-guest.sh --timeout 600 -- \
	bash scripts/demo-guest.sh "$PWD/build"
say "demo passed (CPU path and engine)"
