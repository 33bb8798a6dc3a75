#!/bin/bash
# make install into a scratch root; build a program with pkg-config against
# it (shared and static); only the public API is exported.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }

make -s install PREFIX=/usr DESTDIR="$tmp" >/dev/null 2>"$tmp/err" && ok install/runs || bad install/runs "$(cat "$tmp/err")"
for f in usr/lib/libtilecopy.so.0 usr/lib/libtilecopy.a usr/lib/pkgconfig/tilecopy.pc \
	 usr/include/tilecopy/tilecopy.h usr/include/tilecopy/device.h usr/bin/tilecopy; do
	[ -e "$tmp/$f" ] && ok "install/$f" || bad "install/$f"
done
soname=$(readelf -d "$tmp/usr/lib/libtilecopy.so.0" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libtilecopy.so.0 ] && ok install/soname || bad install/soname "$soname"
export PKG_CONFIG_PATH=$tmp/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$tmp \
	PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1
cc -std=c11 -Wall -Werror $(pkg-config --cflags tilecopy) tests/install/example.c \
	-o "$tmp/ex" $(pkg-config --libs tilecopy) 2>"$tmp/err" && ok install/pkg-config-build ||
	bad install/pkg-config-build "$(cat "$tmp/err")"
LD_LIBRARY_PATH=$tmp/usr/lib "$tmp/ex" >/dev/null && ok install/run-shared || bad install/run-shared
cc -std=c11 $(pkg-config --cflags tilecopy) tests/install/example.c -o "$tmp/exs" \
	"$tmp/usr/lib/libtilecopy.a" $(pkg-config --libs-only-other --libs --static tilecopy | sed 's/-ltilecopy//') \
	2>"$tmp/err" && "$tmp/exs" >/dev/null && ok install/run-static || bad install/run-static "$(cat "$tmp/err")"
syms=$(nm -D --defined-only "$tmp/usr/lib/libtilecopy.so.0" 2>/dev/null | awk '{print $3}')
extra=$(echo "$syms" | grep -v '^tilecopy_' || true)
[ -n "$syms" ] && [ -z "$extra" ] && ok "install/only-public-symbols ($(echo "$syms" | wc -l))" ||
	bad install/only-public-symbols "${extra:-no symbols}"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
