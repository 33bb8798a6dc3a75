#!/bin/bash
# CLI tests: the stable interface of `tilecopy` (layout, plan, convert).
# Usage: tests/cli/run.sh path/to/tilecopy
set -u
T=${1:?usage: run.sh TILECOPY}
case $T in /*) ;; *) T=$PWD/$T ;; esac	# the tests change directory
# TC_CLI_WRAP: an emulator to run it under (qemu-aarch64-static for arm64)
[ -n "${TC_CLI_WRAP:-}" ] && T="$TC_CLI_WRAP $T"
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
# IN larger than needed: refused with both sizes, unless --allow-larger-input
cat "$tmp/in2" "$tmp/in2" > "$tmp/in3"
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in3" "$tmp/o3" 2>"$tmp/err"
expect convert/larger-input/exit 1 $?
grep -q "has 480 bytes, the source.*needs exactly 240" "$tmp/err" && ok convert/larger-input/message ||
	bad convert/larger-input/message "$(cat "$tmp/err")"
[ ! -e "$tmp/o3" ] && ok convert/larger-input/nothing-written || bad convert/larger-input/nothing-written
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC --allow-larger-input "$tmp/in3" "$tmp/o3"
cmp -s "$tmp/o2" "$tmp/o3" && ok convert/larger-input/allowed || bad convert/larger-input/allowed
# the issue's case: --dtype f16 on an f32 file
$T convert --shape 2x20x3x5 --dtype f16 --from NCHW --to NHWC "$tmp/in" "$tmp/x" 2>/dev/null
expect convert/wrong-dtype-size/exit 1 $?
# IN smaller: error, and OUT is not created
head -c 100 "$tmp/in2" > "$tmp/small"
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/small" "$tmp/none" 2>"$tmp/err"
expect convert/small-input/exit 1 $?
[ ! -e "$tmp/none" ] && ok convert/small-input/nothing-written || bad convert/small-input/nothing-written
grep -q "has 100 bytes, the source.*needs exactly 240" "$tmp/err" && ok convert/small-input/message ||
	bad convert/small-input/message "$(cat "$tmp/err")"
# existing OUT is left alone on error
echo keep > "$tmp/keep"
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/small" "$tmp/keep" 2>/dev/null
expect convert/small-input/out-untouched keep "$(cat "$tmp/keep")"
# shape mismatch between --from block and shape rank
$T convert --shape 2x3 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/x" 2>"$tmp/err"
expect convert/rank-mismatch/exit 1 $?
# unavailable executor is an error, not a fallback
arch=$(uname -m)
[ -n "${TC_CLI_WRAP:-}" ] && arch=aarch64	# the emulator runs an arm64 build
other=neon
[ "$arch" = aarch64 ] && other=avx2
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC --cpu $other "$tmp/in2" "$tmp/x" 2>"$tmp/err"
expect convert/cpu-unavailable/exit 1 $?
grep -q "not available" "$tmp/err" && ok convert/cpu-unavailable/message ||
	bad convert/cpu-unavailable/message "$(cat "$tmp/err")"
# every executor gives the same bytes
for cpu in scalar sse2 avx2 avx512 neon; do
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
	grep -q -e "accel9 does not exist" -e "this build has no device backend" "$tmp/err" &&
		ok convert/device-missing/message || bad convert/device-missing/message "$(cat "$tmp/err")"
fi

# strict shapes
$T plan --shape 2x3x --dtype f32 --from RowMajor --to ColumnMajor >/dev/null 2>"$tmp/err"
expect shape/trailing-x/exit 1 $?
# help and version: exit 0, on stdout
for c in layout plan convert info bench; do
	$T $c --help >"$tmp/help" 2>&1
	expect "help/$c/exit" 0 $?
	grep -q "usage: tilecopy $c" "$tmp/help" && ok "help/$c/text" || bad "help/$c/text"
	$T $c --version | grep -q "^tilecopy [0-9]" && ok "version/$c" || bad "version/$c"
done
$T --version | grep -q "^tilecopy [0-9]*\.[0-9]*\.[0-9]* (libtilecopy" && ok version || bad version
$T convert --help | grep -q -- "--from-block" && ok help/convert/from-block || bad help/convert/from-block
# --block goes to the side that takes one
$T plan --shape 8x12 --dtype f16 --from RowMajor --to zN --block 4x4 >/dev/null 2>"$tmp/err"
expect block/to-side-only 0 $?
$T plan --shape 8x12 --dtype f16 --from zN --to RowMajor --block 4x4 >/dev/null 2>"$tmp/err"
expect block/from-side-only 0 $?
$T plan --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC --block 4x4 >/dev/null 2>"$tmp/err"
expect block/neither/exit 1 $?
grep -q "neither NCHW nor NHWC takes it" "$tmp/err" && ok block/neither/message ||
	bad block/neither/message "$(cat "$tmp/err")"
# dtypes: different ones convert the values (since 1.2), --reinterpret
# copies same-size bits instead
$T convert --shape 2x20x3x5 --from-dtype f32 --to-dtype i32 --reinterpret --from NCHW --to NHWC "$tmp/in" "$tmp/x"
expect dtype/reinterpret 0 $?
$T convert --shape 2x20x3x5 --from-dtype f32 --to-dtype f16 --reinterpret --from NCHW --to NHWC "$tmp/in" "$tmp/x" 2>"$tmp/err"
expect dtype/reinterpret-size/exit 1 $?
grep -q "element size 2 (f16) differs" "$tmp/err" && ok dtype/reinterpret-size/message ||
	bad dtype/reinterpret-size/message "$(cat "$tmp/err")"
# - for standard input and output
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC - - < "$tmp/in2" > "$tmp/o6"
cmp -s "$tmp/o2" "$tmp/o6" && ok convert/stdin-stdout || bad convert/stdin-stdout
cat "$tmp/in2" | $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC - "$tmp/o7"
cmp -s "$tmp/o2" "$tmp/o7" && ok convert/pipe-in || bad convert/pipe-in
# OUT: symlinks written through, never replaced
echo old > "$tmp/target"
ln -s "$tmp/target" "$tmp/link"
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/link"
[ -L "$tmp/link" ] && ok out/symlink-kept || bad out/symlink-kept
cmp -s "$tmp/o2" "$tmp/target" && ok out/symlink-target-written || bad out/symlink-target-written
# hard links: every name sees the data
echo old > "$tmp/h1"; ln "$tmp/h1" "$tmp/h2"
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/h1"
cmp -s "$tmp/o2" "$tmp/h2" && ok out/hard-link-intact || bad out/hard-link-intact
# mode of an existing file kept; a new file follows the umask
echo old > "$tmp/m600"; chmod 600 "$tmp/m600"
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/m600"
expect out/mode-kept 600 "$(stat -c %a "$tmp/m600")"
cmp -s "$tmp/o2" "$tmp/m600" && ok out/replaced-data || bad out/replaced-data
(umask 077; $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/new077")
expect out/umask 600 "$(stat -c %a "$tmp/new077")"
(umask 022; $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/new022")
expect out/umask-022 644 "$(stat -c %a "$tmp/new022")"
# a 250-character name (no long temporary name next to it)
long=$tmp/$(printf 'n%.0s' $(seq 250))
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$long"
cmp -s "$tmp/o2" "$long" && ok out/long-name || bad out/long-name
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$long"
expect out/long-name-again 0 $?
[ -z "$(ls -A "$tmp" | grep '^\.tc')" ] && ok out/no-temporaries-left || bad out/no-temporaries-left
# devices are written through: /dev/null stays a device
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" /dev/null
expect out/dev-null 0 $?
[ -c /dev/null ] && ok out/dev-null-kept || bad out/dev-null-kept
# a directory is refused
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp" 2>"$tmp/err"
expect out/directory/exit 1 $?
# -v: executor, descriptors, time, GB/s
$T convert -v --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/o8" 2>"$tmp/err"
grep -q "CPU executor .*, 1 descriptors, .* ms, .* GB/s" "$tmp/err" && ok convert/verbose ||
	bad convert/verbose "$(cat "$tmp/err")"
# absurd growth: 72 bytes in, 128 MiB out, refused unless --allow-growth
head -c 72 "$tmp/in" > "$tmp/in72"
$T convert --shape 8x9 --dtype u8 --from RowMajor --to zN --to-block 65536x2048 "$tmp/in72" "$tmp/huge" 2>"$tmp/err"
expect growth/exit 1 $?
grep -q "allow-growth" "$tmp/err" && ok growth/message || bad growth/message "$(cat "$tmp/err")"
[ ! -e "$tmp/huge" ] && ok growth/nothing-written || bad growth/nothing-written
# progress: on a terminal's stderr only (TILECOPY_PROGRESS_MS=0: at once,
# so the verdict does not depend on how long the conversion takes)
TILECOPY_PROGRESS_MS=0 $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC \
	"$tmp/in2" "$tmp/o10" 2>"$tmp/err"
grep -q converting "$tmp/err" && bad progress/not-a-tty "$(cat "$tmp/err")" || ok progress/not-a-tty
if command -v script >/dev/null; then
	TILECOPY_PROGRESS_MS=0 script -qec "$T convert --shape 2x3x4x5 --dtype f16 --from NCHW \
		--to NHWC $tmp/in2 $tmp/o11" /dev/null > "$tmp/tty" 2>&1
	grep -q "converting 0.0 MB" "$tmp/tty" && grep -q "converted 0.0 MB in" "$tmp/tty" &&
		ok progress/tty || bad progress/tty "$(cat "$tmp/tty")"
	cmp -s "$tmp/o2" "$tmp/o11" && ok progress/tty-output || bad progress/tty-output
fi
# --physical-shape: the shape in --from's order (NHWC: N,H,W,C)
$T convert --shape 2x4x5x3 --physical-shape --dtype f16 --from NHWC --to NCHW "$tmp/o2" "$tmp/o9"
cmp -s "$tmp/in2" "$tmp/o9" && ok convert/physical-shape || bad convert/physical-shape

# --- the review of SDK 1.0 (notes/review-sdk.md), case by case ---------------
chmod 755 "$tmp"
cv() { $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$@"; }

# A1: a stream is read no further than the source's size and one byte
head -c $((64 << 20)) /dev/zero | cv - "$tmp/a1" 2>"$tmp/err"
expect a1/endless-stream/exit 1 $?
grep -q "has more than 240 bytes" "$tmp/err" && ok a1/endless-stream/message ||
	bad a1/endless-stream/message "$(cat "$tmp/err")"
[ ! -e "$tmp/a1" ] && ok a1/endless-stream/nothing-written || bad a1/endless-stream/nothing-written
head -c $((64 << 20)) /dev/zero | cv --allow-larger-input - "$tmp/a1"
expect a1/allow-larger/exit 0 $?
expect a1/allow-larger/size 240 "$(stat -c %s "$tmp/a1")"

# C: options end at "--"; an option twice is refused; --block goes to the
# one side that takes that block, and both taking it is ambiguous
cp "$tmp/in2" "$tmp/-v"
(cd "$tmp" && $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC -- -v dd) &&
	cmp -s "$tmp/o2" "$tmp/dd" && ok c/double-dash || bad c/double-dash
$T plan --shape 8x12 --dtype f16 --from RowMajor --to zN --to-block 4x4 --to-block 8x8 \
	>/dev/null 2>"$tmp/err"
expect c/option-twice/exit 2 $?
grep -q "option --to-block given twice" "$tmp/err" && ok c/option-twice/message ||
	bad c/option-twice/message "$(cat "$tmp/err")"
$T plan --shape 8x12 --dtype f16 --from zN --to nZ --block 4x4 >/dev/null 2>"$tmp/err"
expect c/block-both-sides/exit 1 $?
grep -q "both zN and nZ take it" "$tmp/err" && ok c/block-both-sides/message ||
	bad c/block-both-sides/message "$(cat "$tmp/err")"
$T plan --shape 2x5x3x3 --dtype f16 --from NC1HWC0 --to zN --block 4 >/dev/null 2>"$tmp/err"
expect c/block-to-the-side-that-takes-it 0 $?
for opt in --block --from-block --to-block --from-dtype --to-dtype --reinterpret --physical-shape; do
	$T plan --help | grep -q -- "$opt" && ok "c/plan-help/$opt" || bad "c/plan-help/$opt"
done

# C: OUT naming our own stdout is that descriptor, at its offset
{ echo header; cv "$tmp/in2" /dev/stdout; } > "$tmp/so"
{ echo header; cat "$tmp/o2"; } > "$tmp/so.want"
cmp -s "$tmp/so" "$tmp/so.want" && ok c/dev-stdout-keeps-what-came-before ||
	bad c/dev-stdout-keeps-what-came-before "$(stat -c %s "$tmp/so")"
echo header > "$tmp/so2"
cv "$tmp/in2" /dev/stdout >> "$tmp/so2"
cmp -s "$tmp/so2" "$tmp/so.want" && ok c/dev-stdout-appends || bad c/dev-stdout-appends
# C: a symlink to nothing is refused (its target could be anywhere)
ln -s "$tmp/nowhere/x" "$tmp/dangling"
cv "$tmp/in2" "$tmp/dangling" 2>"$tmp/err"
expect c/dangling-symlink/exit 1 $?
grep -q "symlink to nothing" "$tmp/err" && ok c/dangling-symlink/message ||
	bad c/dangling-symlink/message "$(cat "$tmp/err")"
# C: --device auto without an engine says so with -v
cv -v --device auto "$tmp/in2" "$tmp/auto" 2>"$tmp/err"
expect c/device-auto-cpu/exit 0 $?
grep -q -e "--device auto: .*converting on the CPU" "$tmp/err" && ok c/device-auto-cpu/says-so ||
	bad c/device-auto-cpu/says-so "$(cat "$tmp/err")"

# B5: no O_TMPFILE on the file system (an LD_PRELOAD shim says
# EOPNOTSUPP): a new OUT is created exclusively, an existing one written
# in place. Skipped where LD_PRELOAD cannot reach (a static binary).
if command -v cc >/dev/null && [ -z "${TC_CLI_WRAP:-}" ]; then
	cat > "$tmp/notmpfile.c" <<'SHIM'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
static int refused(int flags)
{
	const char *mark = getenv("TC_SHIM_MARK");
	if ((flags & O_TMPFILE) != O_TMPFILE)
		return 0;
	if (mark)
		close(open(mark, O_WRONLY | O_CREAT, 0644));
	errno = EOPNOTSUPP;
	return 1;
}
#define WRAP(name, ...) \
	int name(__VA_ARGS__, int flags, ...) { \
		static int (*real)(); va_list ap; mode_t m; \
		va_start(ap, flags); m = va_arg(ap, mode_t); va_end(ap); \
		if (refused(flags)) return -1; \
		if (!real) real = (int (*)())dlsym(RTLD_NEXT, #name); \
		return real(ARGS, flags, m); }
#define ARGS p
WRAP(open, const char *p)
WRAP(open64, const char *p)
#undef ARGS
#define ARGS d, p
WRAP(openat, int d, const char *p)
WRAP(openat64, int d, const char *p)
SHIM
	if cc -shared -fPIC -o "$tmp/notmpfile.so" "$tmp/notmpfile.c" -ldl 2>"$tmp/err"; then
		shim() { TC_SHIM_MARK=$tmp/shim.hit LD_PRELOAD=$tmp/notmpfile.so \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$@"; }
		shim $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/b5new"
		rc=$?
		if [ -e "$tmp/shim.hit" ]; then
			expect b5/no-tmpfile/new/exit 0 $rc
			cmp -s "$tmp/o2" "$tmp/b5new" && ok b5/no-tmpfile/new/data || bad b5/no-tmpfile/new/data
			echo old > "$tmp/b5old"; chmod 640 "$tmp/b5old"
			shim $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/b5old"
			expect b5/no-tmpfile/existing/exit 0 $?
			cmp -s "$tmp/o2" "$tmp/b5old" && ok b5/no-tmpfile/existing/data ||
				bad b5/no-tmpfile/existing/data
			expect b5/no-tmpfile/existing/mode 640 "$(stat -c %a "$tmp/b5old")"
		else
			echo "skip b5/no-tmpfile: LD_PRELOAD does not reach this binary"
		fi
	else
		bad b5/no-tmpfile/shim-build "$(cat "$tmp/err")"
	fi
else
	echo "skip b5/no-tmpfile: no cc, or an emulated binary LD_PRELOAD cannot reach"
fi

# A2, B5 as a user who is not root: OUT must be writable, as for '>'; its
# owner is kept; a directory the user may not write still lets it write
# OUT in place. Needs root (to be someone else) and the binary readable
# by nobody; skipped with the reason otherwise.
nb=(runuser -u nobody --)
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && "${nb[@]}" $T --version >/dev/null 2>&1; then
	d=$tmp/nb
	mkdir -m 0777 "$d"	# not sticky: renaming over others' files is allowed
	cp "$tmp/in2" "$d/in"; chmod 644 "$d/in"
	# a file of nobody's, read-only: refused, untouched (cat > refuses too)
	echo keep > "$d/ro"; chown nobody "$d/ro"; chmod 444 "$d/ro"
	"${nb[@]}" $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$d/in" "$d/ro" 2>"$tmp/err"
	expect a2/read-only/exit 1 $?
	expect a2/read-only/untouched keep "$(cat "$d/ro")"
	grep -q "cannot open for writing" "$tmp/err" && ok a2/read-only/message ||
		bad a2/read-only/message "$(cat "$tmp/err")"
	# root's 0644 file in a directory anyone may write: refused, still root's
	echo keep > "$d/roots"; chmod 644 "$d/roots"
	"${nb[@]}" $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$d/in" "$d/roots" 2>/dev/null
	expect a2/others-file/exit 1 $?
	expect a2/others-file/untouched "keep root" "$(cat "$d/roots") $(stat -c %U "$d/roots")"
	# root's file that nobody may write: written, and still root's
	echo old > "$d/shared"; chmod 666 "$d/shared"
	"${nb[@]}" $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$d/in" "$d/shared"
	expect a2/owner-kept/exit 0 $?
	cmp -s "$tmp/o2" "$d/shared" && ok a2/owner-kept/data || bad a2/owner-kept/data
	expect a2/owner-kept/owner "root 666" "$(stat -c '%U %a' "$d/shared")"
	# B5: nobody's file in a directory nobody may not write: written in place
	mkdir "$d/ro-dir"; echo old > "$d/ro-dir/f"; chown nobody "$d/ro-dir/f"; chmod 555 "$d/ro-dir"
	"${nb[@]}" $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$d/in" "$d/ro-dir/f" 2>"$tmp/err"
	expect b5/read-only-dir/exit 0 $?
	cmp -s "$tmp/o2" "$d/ro-dir/f" && ok b5/read-only-dir/data || bad b5/read-only-dir/data "$(cat "$tmp/err")"
	"${nb[@]}" $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$d/in" "$d/ro-dir/new" 2>/dev/null
	expect b5/read-only-dir/no-new-file 1 $?
	chmod 755 "$d/ro-dir"
else
	echo "skip a2/b5 as nobody: not root, no runuser, or nobody cannot run $T"
fi

# Review 2: a replaced OUT keeps set-user/group-ID; a full file system or
# a bind-mounted OUT never costs the old OUT (mounts need root: skipped
# with the reason otherwise)
echo old > "$tmp/su"; chmod 6755 "$tmp/su"
$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/su"
expect r2/setid-kept/exit 0 $?
expect r2/setid-kept/mode 6755 "$(stat -c %a "$tmp/su")"
cmp -s "$tmp/o2" "$tmp/su" && ok r2/setid-kept/data || bad r2/setid-kept/data
mkdir "$tmp/r2mnt"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=8k tmpfs "$tmp/r2mnt" 2>/dev/null; then
	head -c 4096 /dev/urandom > "$tmp/r2mnt/o"; cp "$tmp/r2mnt/o" "$tmp/o.keep"
	head -c 4096 /dev/zero > "$tmp/r2mnt/fill" 2>/dev/null
	rand "$tmp/in8k" 8192
	$T convert --shape 2x8x8x16 --dtype f32 --from NCHW --to NHWC "$tmp/in8k" "$tmp/r2mnt/o" \
		2>"$tmp/err"
	expect r2/enospc/exit 1 $?
	cmp -s "$tmp/r2mnt/o" "$tmp/o.keep" && ok r2/enospc/out-kept ||
		bad r2/enospc/out-kept "$(cat "$tmp/err")"
	grep -q "OUT left as it was" "$tmp/err" && ok r2/enospc/message ||
		bad r2/enospc/message "$(cat "$tmp/err")"
	umount "$tmp/r2mnt"
	echo keep > "$tmp/bm"; echo src > "$tmp/bmsrc"
	if mount --bind "$tmp/bmsrc" "$tmp/bm" 2>/dev/null; then
		$T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC "$tmp/in2" "$tmp/bm" \
			2>"$tmp/err"
		expect r2/bind-mount/exit 0 $?
		cmp -s "$tmp/o2" "$tmp/bm" && ok r2/bind-mount/data ||
			bad r2/bind-mount/data "$(cat "$tmp/err")"
		umount "$tmp/bm"
	else
		echo "skip r2/bind-mount: mount --bind refused here"
	fi
else
	echo "skip r2/enospc, r2/bind-mount: not root, or tmpfs cannot be mounted here"
fi

# ---- dtype conversion (issue 14) --------------------------------------------
# f32 values that are exact, rounding ties and specials, as raw bytes
python3 -c "
import struct, random
random.seed(3)
v = [random.uniform(-300, 300) for _ in range(2*20*3*5 - 6)] + [0.5, 1.5, 2.5, -0.0, 1e30, -1e-40]
open('$tmp/f32', 'wb').write(struct.pack('<%df' % len(v), *v))"
# python references: bf16 round to nearest even; int8 round half even, saturated
refcv() { python3 - "$tmp/f32" "$@" <<'PY'
import struct, sys, math, hashlib
path, kind, fmt = sys.argv[1], sys.argv[2], sys.argv[3]
scale = float(sys.argv[4]); zp = int(sys.argv[5]); chan = sys.argv[6:]
d = open(path, 'rb').read(); N, C, H, W = 2, 20, 3, 5
f = struct.unpack('<%df' % (N*C*H*W), d)
def bf16(x):
    u = struct.unpack('<I', struct.pack('<f', x))[0]
    if (u & 0x7f800000) == 0: return (u >> 16) & 0x8000
    return ((u + 0x7fff + ((u >> 16) & 1)) >> 16) & 0xffff
def f32(x): return struct.unpack('<f', struct.pack('<f', x))[0]
def i8(x): return max(-128, min(127, round(x)))
out = {}
for n in range(N):
  for c in range(C):
    for h in range(H):
      for w in range(W):
        x = f[((n*C+c)*H+h)*W+w]
        s = float(chan[c]) if chan else scale
        if s != 1.0: x = f32(x * f32(s))
        if zp: x = f32(x + zp)
        t = ((n*H+h)*W+w)*C+c if fmt == 'NHWC' else ((n*C+c)*H+h)*W+w
        out[t] = bf16(x) if kind == 'bf16' else i8(x) & 0xff
b = b''.join(struct.pack('<H' if kind == 'bf16' else '<B', out[t]) for t in range(len(out)))
print(hashlib.sha1(b).hexdigest())
PY
}
$T convert --shape 2x20x3x5 --dtype f32 --to-dtype bf16 --from NCHW --to NHWC "$tmp/f32" "$tmp/bf"
expect cvt/f32-bf16/exit 0 $?
expect cvt/f32-bf16/reference "$(refcv bf16 NHWC 1 0)" "$(sha1sum < "$tmp/bf" | cut -d' ' -f1)"
$T convert --shape 2x20x3x5 --dtype f32 --to-dtype i8 --scale 0.37 --zero-point 3 --from NCHW --to NCHW "$tmp/f32" "$tmp/q"
expect cvt/quantize/exit 0 $?
expect cvt/quantize/reference "$(refcv i8 NCHW 0.37 3)" "$(sha1sum < "$tmp/q" | cut -d' ' -f1)"
python3 -c "print(', '.join(str(0.25 * (c + 1) - 2) for c in range(20)))" > "$tmp/scales"
$T convert --shape 2x20x3x5 --dtype f32 --to-dtype i8 --scales "$tmp/scales" --scale-dim 1 --from NCHW --to NHWC "$tmp/f32" "$tmp/qc"
expect cvt/per-channel/exit 0 $?
expect cvt/per-channel/reference "$(refcv i8 NHWC 1 0 $(tr -d , < "$tmp/scales"))" "$(sha1sum < "$tmp/qc" | cut -d' ' -f1)"
# dequantize back: i8 -> f32 with the same scale, then NCHW again
$T convert --shape 2x20x3x5 --dtype i8 --to-dtype f32 --src-zero-point 3 --scale 2 --from NCHW --to NHWC "$tmp/q" "$tmp/dq"
expect cvt/dequantize/exit 0 $?
expect cvt/dequantize/size $((2 * 20 * 3 * 5 * 4)) "$(stat -c %s "$tmp/dq")"
$T plan --shape 2x20x3x5 --dtype f32 --to-dtype bf16 --from NCHW --to nChw16c | grep -q "COPY  f32>bf16" &&
	ok cvt/plan/typed-descriptor || bad cvt/plan/typed-descriptor
# refused, naming the field or the option
cvbad() { name=$1 want=$2; shift 2
	$T convert --shape 2x20x3x5 --dtype f32 --from NCHW --to NHWC "$@" "$tmp/f32" "$tmp/never" 2>"$tmp/err"
	expect "cvt/refused/$name/exit" 1 $?
	grep -q -- "$want" "$tmp/err" && ok "cvt/refused/$name/message" ||
		bad "cvt/refused/$name/message" "$(cat "$tmp/err")"
	[ ! -e "$tmp/never" ] || bad "cvt/refused/$name/nothing-written"
}
cvbad nan-scale "params->scales\[0\]: NaN" --to-dtype i8 --scale nan
cvbad not-a-number "--scale: 'abc' is not a number" --to-dtype i8 --scale abc
cvbad scales-without-dim "--scales needs --scale-dim" --to-dtype i8 --scales "$tmp/scales"
echo "1, 2, 3" > "$tmp/scales3"
cvbad nscales "params->nscales: 3, but dim 1 (scale_dim) has extent 20" --to-dtype i8 --scales "$tmp/scales3" --scale-dim 1
cvbad scale-dim "params->scale_dim: 7 outside -1..3" --to-dtype i8 --scales "$tmp/scales3" --scale-dim 7
echo "1, x" > "$tmp/scalesx"
cvbad scales-text "scale 1, 'x', is not a number" --to-dtype i8 --scales "$tmp/scalesx" --scale-dim 1
cvbad zero-point "--zero-point: '1.5' is not an integer" --to-dtype u8 --zero-point 1.5
cvbad reinterpret "--reinterpret copies bits" --to-dtype i32 --reinterpret --scale 2
cvbad f64 "dst: dtype f64 cannot be converted" --to-dtype f64
# int4: layout sizes, and NCHW <-> NCHW64 with odd C round trips, padding 0
expect i4/layout/size "physical size: 53 bytes (105 elements of 4 bits, two a byte)" \
	"$($T layout NCHW --shape 1x3x5x7 --dtype i4 | tail -1)"
rand "$tmp/i4" 53
$T convert --shape 1x3x5x7 --dtype i4 --from NCHW --to NCHW64 "$tmp/i4" "$tmp/i4b" &&
	$T convert --shape 1x3x5x7 --dtype i4 --from NCHW64 --to NCHW "$tmp/i4b" "$tmp/i4c"
expect i4/roundtrip/exit 0 $?
expect i4/nchw64/size $((35 * 32)) "$(stat -c %s "$tmp/i4b")"
# the 105th nibble (the last byte's high one) is outside the tensor: not carried
python3 -c "
a = open('$tmp/i4', 'rb').read(); c = open('$tmp/i4c', 'rb').read()
assert a[:52] == c[:52] and (a[52] & 15) == (c[52] & 15), 'differs'
b = open('$tmp/i4b', 'rb').read()
assert all(b[p * 32 + 1] >> 4 == 0 and not any(b[p * 32 + 2:p * 32 + 32]) for p in range(35)), 'padding'
" && ok i4/roundtrip/bytes-and-padding || bad i4/roundtrip/bytes-and-padding
$T convert --shape 1x3x5x7 --dtype i4 --to-dtype i8 --from NCHW --to NHWC "$tmp/i4" "$tmp/i4i8"
python3 -c "
a = open('$tmp/i4', 'rb').read(); o = open('$tmp/i4i8', 'rb').read()
nib = lambda e: (a[e >> 1] >> (4 * (e & 1))) & 15
for c in range(3):
  for p in range(35):
    v = nib(c * 35 + p); v = v - 16 if v > 7 else v
    assert (o[p * 3 + c] ^ 0x80) - 0x80 == v, (c, p)
" && ok i4/to-i8/sign-extended || bad i4/to-i8/sign-extended

# Review 2 B4: a bad $TILECOPY_THREADS / $TILECOPY_AFFINITY is refused by
# name, never taken as something else
# env_refused VARIABLE VALUE
env_refused() {
	env "$1=$2" $T convert --shape 2x3x4x5 --dtype f16 --from NCHW --to NHWC \
		"$tmp/in2" "$tmp/thr" 2>"$tmp/err"
	expect "r2/env/$1='$2'/exit" 1 $?
	grep -q "\$$1" "$tmp/err" && ok "r2/env/$1='$2'/message" ||
		bad "r2/env/$1='$2'/message" "$(cat "$tmp/err")"
}
for v in abc 0 2x " 2" 1000; do env_refused TILECOPY_THREADS "$v"; done
for v in "0,,x" 99999 -1; do env_refused TILECOPY_AFFINITY "$v"; done
TILECOPY_THREADS=2 TILECOPY_AFFINITY=none $T convert --shape 2x3x4x5 --dtype f16 --from NCHW \
	--to NHWC "$tmp/in2" "$tmp/thr"
expect r2/threads-env/valid 0 $?

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
