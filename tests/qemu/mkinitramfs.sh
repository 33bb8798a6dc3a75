#!/bin/bash
# Build the guest initramfs: busybox-static, the 9p/virtio and DRM modules of
# the guest kernel (from tests/qemu/fetch-kernel.sh) and tests/qemu/init.sh
# as /init. Rebuilt only when one of its inputs is newer than the output.
#
# Usage: tests/qemu/mkinitramfs.sh KERNEL_DIR OUTPUT.cpio.gz [BUSYBOX]
#   BUSYBOX  a static busybox of the guest's architecture when it is not the
#            host's (tests/qemu/fetch-busybox.sh); /init links its applets.
set -euo pipefail

kdir=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
# busybox-static installs /bin/busybox; the dynamic "busybox" package would
# not run in an initramfs without libc.
bb=${3:-/bin/busybox}
if [ -n "${3:-}" ]; then
	[ -f "$bb" ] || { echo "mkinitramfs: no busybox at $bb" >&2; exit 1; }
elif ! dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'install ok installed' ||
	[ ! -x "$bb" ]; then
	echo "mkinitramfs: busybox-static is not installed (scripts/deps.sh installs it)" >&2
	exit 1
fi

if [ -f "$out" ] && [ "$out" -nt "$here/init.sh" ] && [ "$out" -nt "$here/mkinitramfs.sh" ] &&
	[ "$out" -nt "$kdir/.complete" ] && [ "$out" -nt "$bb" ]; then
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,sbin,proc,sys,dev,tmp,host,results,lib/modules}
cp "$bb" "$tmp/bin/busybox"
if [ -n "${3:-}" ]; then
	ln -s busybox "$tmp/bin/sh"
else
	for app in $("$bb" --list); do
		[ "$app" = busybox ] || ln -s busybox "$tmp/bin/$app"
	done
fi
cp "$kdir"/modules/*.ko "$tmp/lib/modules/"
install -m 0755 "$here/init.sh" "$tmp/init"
mkdir -p "$(dirname "$out")"
part=$(mktemp "$out.XXXXXX")
(cd "$tmp" && find . -print0 | LC_ALL=C sort -z |
	timeout 120 cpio --null -o -H newc --quiet --reproducible) | gzip -1 >"$part"
chmod 0644 "$part"
mv "$part" "$out"	# atomic: a guest booting meanwhile reads the old or the new one
