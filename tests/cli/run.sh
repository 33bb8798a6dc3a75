#!/bin/bash
# CLI tests: the stable interface of `tilecopy` (layout, plan, convert).
# Usage: tests/cli/run.sh path/to/tilecopy
set -u
T=${1:?usage: run.sh TILECOPY}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }
# expect NAME WANT GOT
expect() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "got '$3', want '$2'"; fi; }
# rand FILE BYTES: reproducible pseudo-random bytes
rand() { python3 -c "import random,sys; random.seed(7); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range($2)))" > "$1"; }

# layout: the first line is the CuTe notation, exactly
expect layout/zN/seed-example "((4,2),(4,3)):((4,16),(1,32))" \
	"$($T layout zN --shape 8x12 --dtype f16 --block 4x4 | head -1)"
expect layout/zN/grid-row1 " 4  5  6  7 36 37 38 39 68 69 70 71" \
	"$($T layout zN --shape 8x12 --dtype f16 --block 4x4 | sed -n 4p)"
expect layout/nChw16c/size "physical size: 1536 bytes (384 elements of 4 bytes), with padding" \
	"$($T layout nChw16c --shape 2x20x3x2 --dtype f32 | tail -1)"
$T layout NCHQ --shape 1x2x3x4 2>"$tmp/err" >/dev/null
expect layout/unknown-format/exit 1 $?
grep -q "format: unknown format 'NCHQ'" "$tmp/err" && ok layout/unknown-format/message ||
	bad layout/unknown-format/message "$(cat "$tmp/err")"

# plan: descriptors one a line, then their count
expect plan/nchw-nhwc/count "descriptors: 1" \
	"$($T plan --shape 32x64x56x56 --dtype f32 --from NCHW --to NHWC | tail -1)"
expect plan/nchw-nhwc/lines 2 \
	"$($T plan --shape 32x64x56x56 --dtype f32 --from NCHW --to NHWC | wc -l)"
$T plan --shape 8x12 --dtype f16 --from RowMajor --to zN --to-block 4x5 >/dev/null 2>"$tmp/err"
expect plan/block-does-not-divide-is-fine 0 $?

# convert: round trip NCHW -> nChw16c -> NCHW is the identity
rand "$tmp/in" $((2 * 20 * 3 * 5 * 4))
$T convert --shape 2x20x3x5 --dtype f32 --from NCHW --to nChw16c "$tmp/in" "$tmp/b" &&
	$T convert --shape 2x20x3x5 --dtype f32 --from nChw16c --to NCHW "$tmp/b" "$tmp/c"
expect convert/roundtrip/exit 0 $?
cmp -s "$tmp/in" "$tmp/c" && ok convert/roundtrip/bytes || bad convert/roundtrip/bytes
expect convert/out-size-exact $((2 * 32 * 3 * 5 * 4)) "$(stat -c %s "$tmp/b")"
# padding channels 20..31 of block 1 are zero: element (n=0, C1=1, h=0, w=0, c0=4..15)
pad=$(python3 -c "
import struct,sys
d=open('$tmp/b','rb').read()
off=(1*3*5*16 + 4)*4
print(sum(d[off:off+12*4]))")
expect convert/padding-zeroed 0 "$pad"
# NCHW -> NHWC checked against a python reference
rand "$tmp/in2" $((2 * 3 * 4 * 5 * 2))
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/o2"
ref=$(python3 -c "
d=open('$tmp/in2','rb').read(); o=bytearray(len(d))
N,C,H,W=2,3,4,5
for n in range(N):
 for c in range(C):
  for h in range(H):
   for w in range(W):
    s=((n*C+c)*H+h)*W+w; t=((n*H+h)*W+w)*C+c
    o[2*t:2*t+2]=d[2*s:2*s+2]
import hashlib; print(hashlib.sha1(bytes(o)).hexdigest())")
expect convert/nchw-nhwc/reference "$ref" "$(sha1sum < "$tmp/o2" | cut -d' ' -f1)"
# IN larger than needed is fine
cat "$tmp/in2" "$tmp/in2" > "$tmp/in3"
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in3" "$tmp/o3"
cmp -s "$tmp/o2" "$tmp/o3" && ok convert/larger-input || bad convert/larger-input
# IN smaller: error, and OUT is not created
head -c 100 "$tmp/in2" > "$tmp/small"
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/small" "$tmp/none" 2>"$tmp/err"
expect convert/small-input/exit 1 $?
[ ! -e "$tmp/none" ] && ok convert/small-input/nothing-written || bad convert/small-input/nothing-written
grep -q "buffer too small" "$tmp/err" && ok convert/small-input/message ||
	bad convert/small-input/message "$(cat "$tmp/err")"
# existing OUT is left alone on error
echo keep > "$tmp/keep"
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/small" "$tmp/keep" 2>/dev/null
expect convert/small-input/out-untouched keep "$(cat "$tmp/keep")"
# shape mismatch between --from block and shape rank
$T convert --shape 2x3 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/x" 2>"$tmp/err"
expect convert/rank-mismatch/exit 1 $?
# unavailable executor is an error, not a fallback
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC --cpu neon "$tmp/in2" "$tmp/x" 2>"$tmp/err"
rc=$?
if [ "$(uname -m)" = x86_64 ]; then
	expect convert/cpu-unavailable/exit 1 $rc
	grep -q "not available" "$tmp/err" && ok convert/cpu-unavailable/message ||
		bad convert/cpu-unavailable/message "$(cat "$tmp/err")"
fi
# every executor gives the same bytes
for cpu in scalar sse2 avx2 avx512; do
	if $T convert --shape 3x17x5x7 --dtype i8 --from NCHW --to NC1HWC0 --cpu $cpu \
		"$tmp/in" "$tmp/e_$cpu" 2>/dev/null; then
		cmp -s "$tmp/e_scalar" "$tmp/e_$cpu" && ok "convert/executor/$cpu" ||
			bad "convert/executor/$cpu"
	fi
done

# info: without an engine it says so and names the CPU path
if ! ls /dev/accel/accel* >/dev/null 2>&1; then
	out=$($T info); rc=$?
	expect info/no-device/exit 0 $rc
	case "$out" in *"no tilecopy engine found"*"CPU path"*) ok info/no-device/message ;;
		*) bad info/no-device/message "$out" ;; esac
	# auto falls back to the CPU; an explicit missing path is an error
	$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC --device auto "$tmp/in2" "$tmp/o4"
	cmp -s "$tmp/o2" "$tmp/o4" && ok convert/device-auto-fallback || bad convert/device-auto-fallback
	$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC --device /dev/accel/accel9 \
		"$tmp/in2" "$tmp/o5" 2>"$tmp/err"
	expect convert/device-missing/exit 1 $?
	grep -q "accel9 does not exist" "$tmp/err" && ok convert/device-missing/message ||
		bad convert/device-missing/message "$(cat "$tmp/err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
