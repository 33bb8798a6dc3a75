#!/bin/bash
# Install what tilecopy needs from Debian's packages; a no-op when all is there.
#
# Usage: scripts/deps.sh [base|all]
#   base  library, CLI, unit tests, benchmark, NEON cross tests
#   all   base + QEMU build deps, guest kernel tooling, sparse (default)
#
# The apt suites are derived from the machine's own debian.sources (its URIs:
# line), so no registry host is written into the project.
set -euo pipefail

what=${1:-all}

BASE_PKGS="build-essential pkg-config check libdrm-dev libudev-dev libdnnl-dev
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static valgrind
	python3 clang-14 libclang-rt-14-dev"
ALL_PKGS="$BASE_PKGS ninja-build meson libglib2.0-dev libpixman-1-dev libfdt-dev
	libattr1-dev libcap-ng-dev dpkg-dev busybox-static seabios cpio
	sparse xz-utils bc flex bison libelf-dev kmod
	zlib1g-dev qemu-system-data libssl-dev"

case "$what" in
base) pkgs=$BASE_PKGS ;;
all) pkgs=$ALL_PKGS ;;
*) echo "deps.sh: unknown set '$what' (base|all)" >&2; exit 2 ;;
esac

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

missing=()
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

# Backports (guest kernel 6.12 + headers) and deb-src (QEMU source).
src_file=/etc/apt/sources.list.d/tilecopy.sources
need_update=0
if [ "$what" = all ] && [ ! -f "$src_file" ]; then
	uris=$(awk '/^URIs:/ && $2 ~ /debian\/?$/ {print $2; exit}' \
		/etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	if [ -z "$uris" ]; then
		uris=$(awk '$1=="deb" && $0 !~ /security/ {print $2; exit}' \
			/etc/apt/sources.list 2>/dev/null || true)
	fi
	[ -n "$uris" ] || { echo "deps.sh: no Debian URIs found in apt sources" >&2; exit 1; }
	$SUDO tee "$src_file" >/dev/null <<SRC
Types: deb
URIs: $uris
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: $uris
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	need_update=1
fi

# Kernel headers for the guest kernel (host-side module build).
if [ "$what" = all ]; then
	if ! ls -d /usr/src/linux-headers-6.12.*+deb12-amd64 >/dev/null 2>&1; then
		need_update=1
		missing+=(__headers)
	fi
fi

stamp=/var/lib/apt/periodic/tilecopy-update-stamp
if [ ${#missing[@]} -gt 0 ] || [ $need_update = 1 ]; then
	if [ $need_update = 1 ] || [ ! -f $stamp ]; then
		$SUDO apt-get update -qq
		$SUDO mkdir -p "$(dirname $stamp)" && $SUDO touch $stamp
	fi
fi

# check:arm64 for the NEON equivalence test under qemu-user (check-neon):
# arm64 as a foreign architecture, then its static libcheck.
if ! dpkg-query -W -f='${Status}' check:arm64 2>/dev/null | grep -q 'install ok installed'; then
	dpkg --print-foreign-architectures | grep -qx arm64 ||
		$SUDO dpkg --add-architecture arm64
	$SUDO apt-get update -qq
	missing+=(check:arm64)
fi

if [ ${#missing[@]} -gt 0 ]; then
	real=()
	for p in "${missing[@]}"; do
		if [ "$p" = __headers ]; then
			hdr=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
				awk '{print $1}' | sort -V | tail -1)
			[ -n "$hdr" ] || { echo "deps.sh: no linux-headers-6.12 in bookworm-backports" >&2; exit 1; }
			real+=("$hdr")
		else
			real+=("$p")
		fi
	done
	echo "deps.sh: installing ${real[*]}"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
		--no-install-recommends "${real[@]}"
fi
