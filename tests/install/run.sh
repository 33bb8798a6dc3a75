#!/bin/bash
# make install into a user PREFIX (as an unprivileged user when we are
# root), then: only PREFIX written; SONAMEs; the core needs libc and libm
# only; the exported symbols are exactly the version scripts' lists, which
# are exactly the headers' TILECOPY_API functions; the static archives
# expose tilecopy_* only; the examples build through pkg-config (shared,
# and the core fully static) and run; LDFLAGS reaches every link.
set -u
cd "$(dirname "$0")/../.."
B=${BUILD:-build}
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }

P=$tmp/prefix
mkdir -p "$P"
touch "$tmp/stamp"
as_user=()
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null; then
	chown nobody "$P"
	as_user=(runuser -u nobody --)
fi
"${as_user[@]}" make -s install PREFIX="$P" BUILD="$B" >/dev/null 2>"$tmp/err" &&
	ok "install/user-prefix${as_user:+ (as nobody)}" || bad install/user-prefix "$(cat "$tmp/err")"
for f in lib/libtilecopy.so.1 lib/libtilecopy.a lib/pkgconfig/tilecopy.pc \
	 lib/libtilecopy-device.so.1 lib/libtilecopy-device.a lib/pkgconfig/tilecopy-device.pc \
	 include/tilecopy/tilecopy.h include/tilecopy/device.h include/tilecopy/dlpack.h \
	 include/tilecopy/uapi/tilecopy_accel.h bin/tilecopy bin/tilecopy-bench; do
	[ -e "$P/$f" ] && ok "install/$f" || bad "install/$f"
done
outside=$(find "$tmp" -mindepth 1 -newer "$tmp/stamp" -not -path "$P*" -not -name err 2>/dev/null)
[ -z "$outside" ] && ok install/only-under-prefix || bad install/only-under-prefix "$outside"
[ ! -e "$P/lib/firmware" ] && ok install/no-firmware || bad install/no-firmware
for l in libtilecopy libtilecopy-device; do
	soname=$(readelf -d "$P/lib/$l.so.1" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
	expect=$l.so.1
	[ "$soname" = "$expect" ] && ok "install/soname/$l ($soname)" || bad "install/soname/$l" "$soname"
done
needed=$(readelf -d "$P/lib/libtilecopy.so.1" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' |
	grep -v -E '^(libc\.so\.6|libm\.so\.6|ld-linux.*)$' || true)
[ -z "$needed" ] && ok install/core-needs-libc-libm-only || bad install/core-needs-libc-libm-only "$needed"

# exported = version script = headers
api() { sed -n 's/.*TILECOPY_API[^(]*[ *]\(tilecopy_[a-z0-9_]*\)(.*/\1/p' "$@" | sort -u; }
mapped() { sed -n 's/^[[:space:]]*\(tilecopy_[a-z0-9_]*\);.*/\1/p' "$1" | grep -v private | sort -u; }
exported() { nm -D --defined-only "$1" | awk '$2 == "T" {print $3}' | sed 's/@.*//' | grep -v private | sort -u; }
api include/tilecopy/tilecopy.h include/tilecopy/dlpack.h > "$tmp/api.core"
api include/tilecopy/device.h > "$tmp/api.dev"
mapped libuser/tilecopy.map.in > "$tmp/map.core"
mapped libuser/tilecopy-device.map > "$tmp/map.dev"
exported "$P/lib/libtilecopy.so.1" > "$tmp/exp.core"
exported "$P/lib/libtilecopy-device.so.1" > "$tmp/exp.dev"
for k in core dev; do
	d=$(diff "$tmp/api.$k" "$tmp/map.$k")
	[ -z "$d" ] && ok "symbols/$k/headers-match-version-script ($(wc -l < "$tmp/map.$k"))" ||
		bad "symbols/$k/headers-match-version-script" "$d"
	d=$(diff "$tmp/map.$k" "$tmp/exp.$k")
	[ -z "$d" ] && ok "symbols/$k/exported-match-version-script" ||
		bad "symbols/$k/exported-match-version-script" "$d"
done
# ... each in the version node the published list gives it (a function
# moved to, or added in, a released node breaks programs linked before)
for l in libtilecopy libtilecopy-device; do
	nm -D --defined-only --with-symbol-versions "$P/lib/$l.so.1" | awk '$2 == "T" {print $3}' |
		grep -v PRIVATE | sed "s/@@/ /;s/^/$l: /"
done | sort > "$tmp/symbols.built"
grep -v '^#' tests/install/symbols | sort > "$tmp/symbols.published"
d=$(diff "$tmp/symbols.published" "$tmp/symbols.built")
[ -z "$d" ] && ok "symbols/version-nodes-match-published ($(wc -l < "$tmp/symbols.built"))" ||
	bad "symbols/version-nodes-match-published" \
		"$d (< tests/install/symbols, > built: released nodes never change; new functions go in a new node and get a line there)"
extra=$(nm -D --defined-only "$P/lib/libtilecopy.so.1" | awk '$2 == "T" {print $3}' |
	grep -v '^tilecopy_' || true)
[ -z "$extra" ] && ok symbols/core/only-tilecopy || bad symbols/core/only-tilecopy "$extra"
for a in libtilecopy.a libtilecopy-device.a; do
	extra=$(nm -g --defined-only "$P/lib/$a" | awk 'NF == 3 {print $3}' | grep -v '^tilecopy_' || true)
	n=$(nm -g --defined-only "$P/lib/$a" | awk 'NF == 3' | wc -l)
	[ -z "$extra" ] && ok "symbols/$a/only-tilecopy ($n)" || bad "symbols/$a/only-tilecopy" "$extra"
done

# the examples, through pkg-config
export PKG_CONFIG_PATH=$P/lib/pkgconfig PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1
for ex in convert dlpack_view; do
	cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags tilecopy) examples/$ex.c -o "$tmp/$ex" \
		$(pkg-config --libs tilecopy) 2>"$tmp/err" && ok "examples/$ex/build" ||
		bad "examples/$ex/build" "$(cat "$tmp/err")"
	LD_LIBRARY_PATH=$P/lib "$tmp/$ex" >"$tmp/out" 2>&1 && ok "examples/$ex/run: $(head -1 "$tmp/out")" ||
		bad "examples/$ex/run" "$(cat "$tmp/out")"
done
cc -std=c11 -static $(pkg-config --cflags tilecopy) examples/convert.c -o "$tmp/convert-static" \
	"$P/lib/libtilecopy.a" $(pkg-config --static --libs-only-l tilecopy | sed 's/-ltilecopy//') \
	2>"$tmp/err" && ok examples/convert/fully-static-build || bad examples/convert/fully-static-build "$(cat "$tmp/err")"
file "$tmp/convert-static" 2>/dev/null | grep -q "statically linked" && "$tmp/convert-static" >/dev/null &&
	ok examples/convert/fully-static-run || bad examples/convert/fully-static-run
cc -std=c11 -Wall -Werror $(pkg-config --cflags tilecopy-device) examples/device_info.c \
	-o "$tmp/device_info" $(pkg-config --libs tilecopy-device) 2>"$tmp/err" &&
	ok examples/device_info/build || bad examples/device_info/build "$(cat "$tmp/err")"
LD_LIBRARY_PATH=$P/lib "$tmp/device_info" >"$tmp/out" 2>&1 &&
	ok "examples/device_info/run: $(tail -1 "$tmp/out")" || bad examples/device_info/run "$(cat "$tmp/out")"
# the headers as C++ and as strict C99
printf '#include <tilecopy/tilecopy.h>\n#include <tilecopy/dlpack.h>\n#include <tilecopy/device.h>\nint main(void) { return tilecopy_version() == 0; }\n' > "$tmp/h.c"
c++ -x c++ -Wall -Werror $(pkg-config --cflags tilecopy-device) "$tmp/h.c" -o "$tmp/hpp" \
	$(pkg-config --libs tilecopy-device) 2>"$tmp/err" && ok headers/c++ || bad headers/c++ "$(cat "$tmp/err")"
cc -std=c99 -pedantic -Wall -Werror $(pkg-config --cflags tilecopy-device) -c "$tmp/h.c" -o "$tmp/h.o" \
	2>"$tmp/err" && ok headers/c99-pedantic || bad headers/c99-pedantic "$(cat "$tmp/err")"
# docs/sdk.md's complete example is examples/convert.c, verbatim
awk '/^## A complete example/ { on = 1 } on && /^```c$/ { grab = 1; next }
	grab && /^```$/ { exit } grab' docs/sdk.md > "$tmp/doc_example.c"
if cmp -s "$tmp/doc_example.c" examples/convert.c; then
	ok docs/sdk.md/complete-example-is-examples-convert.c
else
	bad docs/sdk.md/complete-example-is-examples-convert.c "$(diff "$tmp/doc_example.c" examples/convert.c | head -5)"
fi
# a CPU-only program walks and prints a plan's descriptors without drm.h
# (tilecopy.pc has no libdrm cflags; tilecopy_plan_desc, review B8)
if pkg-config --cflags tilecopy | grep -q libdrm; then
	bad examples/convert/no-libdrm-cflags "$(pkg-config --cflags tilecopy)"
elif LD_LIBRARY_PATH=$P/lib "$tmp/convert" | grep -q "^descriptor 1: COPY"; then
	ok examples/convert/descriptors-without-drm.h
else
	bad examples/convert/descriptors-without-drm.h "$(LD_LIBRARY_PATH=$P/lib "$tmp/convert" 2>&1 | head -3)"
fi
# the device library fits any core of its private interface, whatever the
# release (review B14): the installed one loads against a core relinked
# from the same objects as release x.y.99 (the node used to be named after
# the exact release, TILECOPY_PRIVATE_1.0.0, and this failed to load)
need=$(readelf -V "$P/lib/libtilecopy-device.so.1" | sed -n 's/.*Name: \(TILECOPY_PRIVATE[^ ]*\).*/\1/p')
case "$need" in TILECOPY_PRIVATE_[0-9]*[!.0-9]* | *.* | "") bad "packaging/private-node-not-a-release" "$need" ;;
	*) ok "packaging/private-node-not-a-release ($need)" ;; esac
ver=$(cd "$P/lib" && ls libtilecopy.so.*.*.* | sed 's/^libtilecopy\.so\.//')
other=${ver%.*}.99
mkdir -p "$tmp/relink"
ln -s "$PWD/$B/obj" "$tmp/relink/obj"
if make -s BUILD="$tmp/relink" LIB_VERSION="$other" "$tmp/relink/lib/libtilecopy.so" >"$tmp/err" 2>&1 &&
	[ -e "$tmp/relink/lib/libtilecopy.so.$other" ] &&
	LD_LIBRARY_PATH=$tmp/relink/lib:$P/lib "$tmp/device_info" >"$tmp/out" 2>&1 &&
	LD_LIBRARY_PATH=$tmp/relink/lib:$P/lib ldd "$tmp/device_info" | grep -q "relink/lib/libtilecopy.so.1"; then
	ok "packaging/device-library-on-core-$other"
else
	bad "packaging/device-library-on-core-$other" "$(cat "$tmp/err" "$tmp/out" | tail -3)"
fi
# a program of the core alone does not pull in libdrm or libudev
if LD_LIBRARY_PATH=$P/lib ldd "$tmp/convert" | grep -q -E 'libdrm|libudev'; then
	bad examples/convert/no-device-libs
else
	ok examples/convert/no-device-libs
fi

# The installed CLI needs the core and libc only (review B6): the device
# library is loaded when a command needs an engine, the oneDNN benchmark is
# tilecopy-bench; so a CPU-only user without libtilecopy-device, libdrm,
# libudev, oneDNN, libgomp, libstdc++ or OpenCL runs it.
needed=$(readelf -d "$P/bin/tilecopy" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | sort | paste -sd' ')
case " $needed " in
*" libtilecopy.so.1 "*) extra=$(echo "$needed" | tr ' ' '\n' |
	grep -v -E '^(libtilecopy\.so\.1|libc\.so\.6|libm\.so\.6)$' || true) ;;
*) extra="no libtilecopy.so.1 in: $needed" ;;
esac
[ -z "$extra" ] && ok "cli/needs-core-and-libc-only ($needed)" || bad cli/needs-core-and-libc-only "$extra"
deps=$(ldd "$P/bin/tilecopy")
if echo "$deps" | grep -q -E 'libdrm|libudev|libdnnl|libgomp|libstdc\+\+|libOpenCL|libtilecopy-device'; then
	bad cli/no-device-or-onednn-libs "$deps"
elif echo "$deps" | grep -q "libtilecopy.so.1 => $P/bin/../lib/libtilecopy.so.1"; then
	ok cli/no-device-or-onednn-libs-and-finds-its-lib
else
	bad cli/finds-its-lib "$deps"
fi
# a CPU-only installation: the prefix without the device library or the benchmark
cp -a "$P" "$tmp/cpuonly"
rm -f "$tmp/cpuonly"/lib/libtilecopy-device* "$tmp/cpuonly/bin/tilecopy-bench"
C=$tmp/cpuonly/bin/tilecopy
head -c 480 /dev/urandom > "$tmp/in480"
"$C" convert --shape 2x3x4x5 --dtype f32 --from NCHW --to NHWC "$tmp/in480" "$tmp/o1" 2>"$tmp/err" &&
	"$P/bin/tilecopy" convert --shape 2x3x4x5 --dtype f32 --from NCHW --to NHWC "$tmp/in480" "$tmp/o2" &&
	cmp -s "$tmp/o1" "$tmp/o2" && ok cli/cpu-only/convert || bad cli/cpu-only/convert "$(cat "$tmp/err")"
"$C" info > "$tmp/out" 2>&1
grep -q "no tilecopy engine found (the device library cannot be loaded" "$tmp/out" &&
	ok cli/cpu-only/info || bad cli/cpu-only/info "$(cat "$tmp/out")"
"$C" convert -v --device auto --shape 2x3x4x5 --dtype f32 --from NCHW --to NHWC "$tmp/in480" "$tmp/o3" 2>"$tmp/err" &&
	cmp -s "$tmp/o1" "$tmp/o3" && grep -q "converting on the CPU" "$tmp/err" &&
	ok cli/cpu-only/device-auto || bad cli/cpu-only/device-auto "$(cat "$tmp/err")"
"$C" convert --device 0 --shape 2x3x4x5 --dtype f32 --from NCHW --to NHWC "$tmp/in480" "$tmp/o4" 2>"$tmp/err"
[ $? = 1 ] && grep -q "device library cannot be loaded" "$tmp/err" && [ ! -e "$tmp/o4" ] &&
	ok cli/cpu-only/device-0-refused || bad cli/cpu-only/device-0-refused "$(cat "$tmp/err")"
"$C" bench --reps 1 > "$tmp/out" 2>&1
[ $? = 1 ] && grep -q "cannot run .*tilecopy-bench" "$tmp/out" && ok cli/cpu-only/bench-says-why ||
	bad cli/cpu-only/bench-says-why "$(cat "$tmp/out")"
# ... and with the benchmark installed, tilecopy bench runs it
"$P/bin/tilecopy" bench --json --reps 1 --case small-4k-f32 > "$tmp/out" 2>&1 &&
	grep -q '"case": *"small-4k-f32"' "$tmp/out" && ok cli/bench-runs-tilecopy-bench ||
	bad cli/bench-runs-tilecopy-bench "$(head -3 "$tmp/out")"

# LDFLAGS reaches every link of what make install installs (a dry run
# with a marker): both libraries, the CLI and the benchmark it runs
out=$(make -n -B LDFLAGS=-Wl,--tc-marker BUILD="$B" "$B/lib/libtilecopy.so" "$B/lib/libtilecopy-device.so" \
	"$B/bin/tilecopy" "$B/bin/tilecopy-bench" 2>/dev/null | grep -c -- '-Wl,--tc-marker')
[ "$out" -ge 4 ] && ok "ldflags/honoured ($out links)" || bad ldflags/honoured "$out"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
