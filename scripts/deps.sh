#!/bin/bash
# Install what tilecopy needs from Debian's packages; a no-op when all is there.
#
# Usage: scripts/deps.sh [base|all|python]
#   base    library, CLI, unit tests, benchmark, NEON cross tests
#   all     base + QEMU build deps, guest kernel tooling, sparse (default)
#   python  the Python package's tests (make check-python): pytest, and
#           PyTorch where Debian has it for this architecture (optional:
#           about 660 MB and 2-3 minutes with its dependencies;
#           TILECOPY_NO_TORCH=1 skips it, and its tests then skip)
#
# The apt suites are derived from the machine's own debian.sources (its URIs:
# line), so no registry host is written into the project.
set -euo pipefail

what=${1:-all}

BASE_PKGS="build-essential pkg-config check libdrm-dev libudev-dev libdnnl-dev
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static valgrind
	python3 clang-14 libclang-rt-14-dev libdlpack-dev python3-numpy file
	python3-pytest"
ALL_PKGS="$BASE_PKGS ninja-build meson libglib2.0-dev libpixman-1-dev libfdt-dev
	libattr1-dev libcap-ng-dev dpkg-dev busybox-static seabios cpio
	sparse xz-utils bc flex bison libelf-dev kmod
	zlib1g-dev qemu-system-data dwarves libssl-dev"

PYTHON_PKGS="python3 python3-numpy python3-pytest"

case "$what" in
base) pkgs=$BASE_PKGS ;;
all) pkgs=$ALL_PKGS ;;
python) pkgs=$PYTHON_PKGS ;;
*) echo "deps.sh: unknown set '$what' (base|all|python)" >&2; exit 2 ;;
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

# Optional: PyTorch, the outside reference of the Python tests.
want_torch=0
if [ "$what" = python ] && [ -z "${TILECOPY_NO_TORCH:-}" ] &&
	! dpkg-query -W -f='${Status}' python3-torch 2>/dev/null | grep -q 'install ok installed'; then
	want_torch=1
fi

stamp=/var/lib/apt/periodic/tilecopy-update-stamp
if [ ${#missing[@]} -gt 0 ] || [ $need_update = 1 ] || [ $want_torch = 1 ]; then
	if [ $need_update = 1 ] || [ ! -f $stamp ]; then
		$SUDO apt-get update -qq
		$SUDO mkdir -p "$(dirname $stamp)" && $SUDO touch $stamp
	fi
fi

# check:arm64 for the NEON equivalence test under qemu-user (check-neon):
# arm64 as a foreign architecture, then its static libcheck. With `all`,
# also arm64 libdrm and libudev: the arm64 guest's programs are cross-built
# against them (tests/arm64/; dwarves above: the arm64 kernel configuration
# needs pahole's version, scripts/kbuild-arm64.sh).
arm64_pkgs=(check:arm64)
[ "$what" = all ] && arm64_pkgs+=(libdrm-dev:arm64 libudev-dev:arm64)
arm64_missing=()
for p in "${arm64_pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		arm64_missing+=("$p")
done
if [ "$what" != python ] && [ ${#arm64_missing[@]} -gt 0 ]; then
	dpkg --print-foreign-architectures | grep -qx arm64 ||
		$SUDO dpkg --add-architecture arm64
	$SUDO apt-get update -qq
	missing+=("${arm64_missing[@]}")
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

if [ $want_torch = 1 ]; then
	# (not `| grep -q`: under pipefail, grep leaving early fails apt-cache
	# with SIGPIPE, and the test with it)
	cand=$(apt-cache policy python3-torch 2>/dev/null | sed -n 's/^ *Candidate: //p')
	if [ -n "$cand" ] && [ "$cand" != "(none)" ]; then
		echo "deps.sh: installing python3-torch (optional, large; TILECOPY_NO_TORCH=1 skips it)"
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
			--no-install-recommends python3-torch ||
			echo "deps.sh: python3-torch did not install: the PyTorch tests will skip" >&2
	else
		echo "deps.sh: no python3-torch for $(dpkg --print-architecture): the PyTorch tests will skip"
	fi
fi
