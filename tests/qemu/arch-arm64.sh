# shellcheck shell=bash
# Sourced by run-guest.sh for --arch arm64 / arm64-16k: the arm64 guest.
#
# Debian's arm64 6.12 kernel (linux-image-<ver>-arm64[-16k]-unsigned:arm64,
# the x86 guest's version) under TCG on QEMU's `virt` board: PCIe through
# the generic ECAM host bridge, a GICv3 whose ITS delivers the engines'
# MSI-X (its=off with --no-msi: no MSI controller, so the driver takes the
# legacy INTx line), the 9p shares and the engines on the root bus.
#
# The host's userspace is x86: COMMAND cannot run with the host's bash.
# It runs chrooted into the host's / as on x86 (same paths; the arm64
# libraries of Debian's multiarch packages are under /usr/lib/aarch64-linux-gnu,
# the loader at /lib/ld-linux-aarch64.so.1), with busybox-static:arm64 as
# its shell and tools: init.sh copies the initramfs' busybox into the
# guest's /tmp ($guest_busybox_dir), first on PATH. So COMMAND is a
# cross-built program or a POSIX sh script run as `sh script`.
# shellcheck disable=SC2034  # the variables are run-guest.sh's
qemu_name=qemu-system-aarch64
firmware_dirs=			# -kernel boots the Image directly: no firmware
module_default=$B/$arch/driver/tilecopy.ko
its=on
[ "$no_msi" = 1 ] && its=off
# pauth-impdef: the kernel signs return addresses (PAC) all the time; the
# architected QARMA algorithm costs TCG several times the implementation-
# defined one, which is as good for a test machine.
machine_args=(-M "virt,gic-version=3,its=$its" -cpu max,pauth-impdef=on)
console=ttyAMA0
arch_append=
initrd_name=initramfs-$arch
busybox=$(timeout 900 bash "$here/fetch-busybox.sh" arm64)
guest_busybox_dir=/tmp/.tc-guest/bin
