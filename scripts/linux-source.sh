#!/bin/bash
# Unpack Debian's linux-source-6.12 (the full kernel tree) once into the
# cache and print its path. The version is the one of the guest kernel: the
# installed /usr/src/linux-headers-6.12.N+deb12-amd64 gives N, and the
# linux-source-6.12 package of version 6.12.N-* is downloaded (never
# installed). Users: the debug-kernel build (issue 12) and the arm64 module
# build (issue 16); each builds out of tree (make O=...) and never writes
# into this tree, so one copy serves both.
#
# Usage: scripts/linux-source.sh        prints e.g.
#   ~/.cache/tilecopy/linux-source/6.12.117/linux-source-6.12
#
# Concurrent callers serialise on a lock; the tree is complete when the
# .complete stamp exists (a half-extracted tree is thrown away).
set -euo pipefail

CACHE=${TILECOPY_CACHE:-$HOME/.cache/tilecopy}
T=${TC_STEP_TIMEOUT:-900}

log() { echo "linux-source: $*" >&2; }
die() { log "error: $*"; exit 1; }

hdr=$(ls -d /usr/src/linux-headers-6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -1 || true)
[ -n "$hdr" ] || die "no /usr/src/linux-headers-6.12.*+deb12-amd64 (run scripts/deps.sh)"
ver=${hdr#/usr/src/linux-headers-}	# 6.12.117+deb12-amd64
ver=${ver%%+*}				# 6.12.117
dir=$CACHE/linux-source/$ver
tree=$dir/linux-source-6.12

if [ -f "$dir/.complete" ]; then
	echo "$tree"
	exit 0
fi
mkdir -p "$dir"
exec 7>"$dir.lock"
timeout "$T" flock 7 || die "lock $dir.lock busy for ${T}s"
if [ -f "$dir/.complete" ]; then
	echo "$tree"
	exit 0
fi

# The package version that matches the headers (6.12.117-1~deb12u1 or a
# backports build of the same upstream version).
pkgver=$(apt-cache madison linux-source-6.12 2>/dev/null |
	awk -v v="$ver-" '$3 ~ "^"v {print $3}' | sort -V | tail -1)
if [ -z "$pkgver" ]; then
	SUDO=
	[ "$(id -u)" = 0 ] || SUDO=sudo
	timeout "$T" $SUDO apt-get update -qq >&2 || true
	pkgver=$(apt-cache madison linux-source-6.12 2>/dev/null |
		awk -v v="$ver-" '$3 ~ "^"v {print $3}' | sort -V | tail -1)
fi
[ -n "$pkgver" ] || die "no linux-source-6.12 of version $ver-* in the apt sources"

log "unpacking linux-source-6.12 $pkgver into $dir (once; ~1.5 GB)"
rm -rf "$dir/dl" "$tree"
mkdir -p "$dir/dl"
(cd "$dir/dl" && timeout "$T" apt-get download -q "linux-source-6.12=$pkgver" 2>&1 |
	grep -v "couldn't be accessed by user '_apt'" >&2) || true
deb=$(ls "$dir"/dl/linux-source-6.12_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || die "cannot download linux-source-6.12=$pkgver"
# data.tar holds usr/src/linux-source-6.12.tar.xz: the tree itself.
timeout "$T" dpkg-deb --fsys-tarfile "$deb" |
	tar -xO --wildcards './usr/src/linux-source-6.12.tar.*' |
	timeout "$T" tar -xJ -C "$dir" ||
	die "extracting $deb failed"
[ -f "$tree/Makefile" ] || die "no $tree/Makefile after extraction"
rm -rf "$dir/dl"
echo "$pkgver" >"$dir/.complete"
echo "$tree"
