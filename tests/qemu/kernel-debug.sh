# shellcheck shell=bash disable=SC2034,SC2154  # sourced: sets and reads run-guest.sh variables
# Sourced by tests/qemu/run-guest.sh for --kernel debug (or TC_KERNEL=debug):
# the debug guest kernel of scripts/build-debug-kernel.sh (KASAN, lockdep,
# DMA-API debugging, debugobjects, kmemleak, UBSAN, fault injection) and
# the module built against it. Sets kdir, initrd, module, kernel_args and
# guest_kernel, and replaces scan_reports (the dmesg verdict) with one that
# knows every report the debug options print and the kmemleak scan that
# tests/qemu/init.sh runs at the end of each boot.
#
# Environment: TC_DEBUG_MODULE (default $B/driver-debug/tilecopy.ko; the
# stock TC_MODULE is ignored, a module for the other kernel would not load).

kdir=$(timeout "${TC_DEBUG_KERNEL_TIMEOUT:-5400}" bash "$TOP/scripts/build-debug-kernel.sh") ||
	{ echo "run-guest: no debug kernel (scripts/build-debug-kernel.sh failed)" >&2; exit 125; }
initrd=$B/guest/initramfs-debug.cpio.gz
module=${TC_DEBUG_MODULE:-$B/driver-debug/tilecopy.ko}
if [ "$no_module" = 0 ] || [ -f "$module" ]; then
	[ -f "$module" ] || { echo "run-guest: no module $module (make module-debug)" >&2; exit 125; }
	vm=$(modinfo -F vermagic "$module" | cut -d' ' -f1)
	kr=$(cat "$kdir/build/include/config/kernel.release")
	[ "$vm" = "$kr" ] ||
		{ echo "run-guest: $module is for $vm, the debug kernel is $kr (make module-debug)" >&2; exit 125; }
fi
guest_kernel=debug

# no5lvl: -cpu max offers 5-level paging, with which KASAN reported a false
#   wild-memory-access in identify_cpu during early boot.
# acpi=noirq: with KASAN, ACPI's interpretation of the i440fx _PRT took ~10 s
#   per PCI device enable (boots of 41-46 s); every device used here has
#   MSI-X, so no legacy IRQ routing is needed (boots of ~12 s).
# kasan_multi_shot: every KASAN report, not only the first.
# log_buf_len: lockdep and KASAN reports are long; nothing may scroll out
#   before init.sh saves dmesg.
kernel_args="no5lvl acpi=noirq kasan_multi_shot log_buf_len=16M"

# Reports of the debug options, on top of the stock patterns: lockdep's
# INFO: splats, DMA-API and debugobjects lines, the hard-lockup detector,
# kmemleak giving up (tests/qemu/debug-reports.ere, shared with the
# fault-injection sweep).
debug_bad=$(grep -v '^#' "$here/debug-reports.ere" | paste -sd'|')

# What counts as "the driver's or the DRM helpers' leak": a kmemleak
# backtrace with a frame in one of these modules or core DRM/dma-buf code.
kmemleak_ours='\[(tilecopy|drm|drm_shmem_helper|gpu_sched|drm_exec|drm_gpuvm|drm_kms_helper)\]|dma_buf_|dma_fence_|dma_resv_|sync_file_|drm_'

# Print every report in full: from a line matching the pattern (with the
# WARN's "cut here" line and the message lines between it and the match,
# e.g. DMA-API's, up to 6 lines back) to the end of its trace (---[ end
# trace, </TASK>, KASAN's closing ====), at most 150 lines each, the first
# 8 reports.
print_report_blocks() {
	awk -v pat="$1" '
		inblk { print; n++
			if (n >= 150 || (n > 3 && ($0 ~ /---\[ end trace|<\/TASK>/ || $0 ~ /\] =+$/))) { print "--"; inblk = 0 }
			h[NR % 6] = $0; next }
		$0 ~ pat { if (++shown > 8) exit
			for (k = 6; k >= 1; k--) if (NR - k > 0 && h[(NR - k) % 6] ~ /cut here/) break
			for (; k >= 1; k--) print h[(NR - k) % 6]
			inblk = 1; n = 1; print }
		{ h[NR % 6] = $0 }' "$2"
}

scan_reports() {
	local pat="$bad|$debug_bad" nleak nours
	if grep -E "$pat" "$res/dmesg" >"$res/dmesg.bad"; then
		echo "run-guest: the debug kernel reported (full reports; dmesg in $res):" >&2
		print_report_blocks "$pat" "$res/dmesg" >&2
		report_found=1
	fi
	if [ ! -f "$res/kmemleak" ]; then
		echo "run-guest: no kmemleak scan from the guest (init.sh did not get to it)" >&2
		report_found=1
		return
	fi
	# One record per "unreferenced object" paragraph.
	nleak=$(grep -c '^unreferenced object' "$res/kmemleak" || true)
	awk -v ours="$kmemleak_ours" '
		/^unreferenced object/ { if (rec != "" && rec ~ ours) printf "%s\n", rec; rec = $0; next }
		rec != "" { rec = rec "\n" $0 }
		END { if (rec != "" && rec ~ ours) printf "%s\n", rec }' "$res/kmemleak" >"$res/kmemleak.ours"
	nours=$(grep -c '^unreferenced object' "$res/kmemleak.ours" || true)
	echo "run-guest: kmemleak: $nleak suspected leak(s) after the run, $nours in tilecopy or the DRM/dma-buf code it calls" >&2
	if [ "$nours" != 0 ]; then
		head -120 "$res/kmemleak.ours" >&2
		report_found=1
	fi
}
