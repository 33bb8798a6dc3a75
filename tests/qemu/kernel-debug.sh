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
# workqueue.watchdog_thresh: as the other detectors (run-guest.sh), past
#   the tens of seconds a TCG vCPU can go unscheduled on a busy host
#   (default 30 s).
kernel_args="no5lvl acpi=noirq kasan_multi_shot log_buf_len=16M workqueue.watchdog_thresh=120"

# Reports of the debug options, on top of the stock patterns: lockdep's
# INFO: splats, DMA-API and debugobjects lines, the hard-lockup detector,
# kmemleak giving up (tests/qemu/debug-reports.ere, shared with the
# fault-injection sweep).
debug_bad=$(grep -v '^#' "$here/debug-reports.ere" | paste -sd'|')

# What counts as "the driver's or the DRM helpers' leak": a kmemleak
# backtrace with a frame in one of these modules or core DRM/dma-buf code,
# or a bare address: code of a module unloaded since (kmemleak names frames
# when it prints them, and init.sh unloads tilecopy before the scans; no
# other module is ever unloaded in these guests).
kmemleak_ours='\[(tilecopy|drm|drm_shmem_helper|gpu_sched|drm_exec|drm_gpuvm|drm_kms_helper)\]|dma_buf_|dma_fence_|dma_resv_|sync_file_|drm_|(^|\n) +0x[0-9a-f]+(\n|$)'

# Print every report in full, each distinct one once: from a line
# matching the pattern (with the WARN's "cut here" line and the message
# lines between it and the match, e.g. DMA-API's, up to 6 lines back) to
# the end of its trace: a WARN to its "end trace" line (then DMA-API's
# "Mapped at:" stack of the mapping it names), a KASAN report to its
# closing ==== line (the access's stack, then the allocation's and the
# free's, the object, the shadow memory), any other to its </TASK>; at most
# 200 lines (KASAN 400). A report seen again (the same text but for
# numbers, addresses and shadow bytes) is counted, not printed again; the
# first 8 distinct reports are printed.
print_report_blocks() {
	awk -v pat="$1" '
		function norm(s) {
			sub(/^\[ *[0-9]+\.[0-9]+\] /, "", s)
			gsub(/0x[0-9a-f]+|[0-9a-f]{8,}/, "#", s)
			gsub(/[0-9]+/, "N", s)
			return s
		}
		function stamp(s) { return match(s, /^\[ *[0-9]+\.[0-9]+\]/) ? substr(s, 1, RLENGTH) : "" }
		# (a KASAN report'"'"'s shadow bytes, which depend on where in the
		# object the access fell, are not part of what makes it distinct)
		function add(s) { blk = blk s "\n"; n++
			if (s ~ /Memory state around the buggy address/) shadow = 1
			if (!shadow) key = key norm(s) "\n" }
		function close_blk() {
			if (!(key in seen)) {
				seen[key] = ++nd; txt[nd] = blk; first[nd] = t0
			}
			cnt[seen[key]]++
			inblk = pend = mapped = 0
		}
		# after a WARN: DMA-API prints where the mapping was made
		pend && !mapped && /DMA-API: Mapped at:/ { add($0); mapped = 1; next }
		pend && mapped && /^(\[ *[0-9]+\.[0-9]+\])? +[A-Za-z0-9_.]+\+0x[0-9a-f]+\/0x[0-9a-f]+/ { add($0); next }
		pend { close_blk() }
		inblk { add($0)
			h[NR % 6] = $0
			# KASAN: up to its closing ==== line, past the task stack
			# to the allocation and free stacks and the shadow memory
			if (kasan) {
				if ($0 ~ /\] =+$/ || n >= 400)
					close_blk()
			} else if ($0 ~ /---\[ end trace/) {
				pend = 1
			} else if (n >= 200 || (n > 3 && (($0 ~ /<\/TASK>/ && !cut) || $0 ~ /\] =+$/))) {
				close_blk()
			}
			next }
		$0 ~ pat { blk = ""; key = ""; n = 0; shadow = 0; t0 = stamp($0)
			kasan = $0 ~ /BUG: KASAN/
			for (k = 6; k >= 1; k--) if (NR - k > 0 && h[(NR - k) % 6] ~ /cut here/) break
			# a WARN (its "cut here" line, then its message, e.g.
			# DMA-API'"'"'s, then WARNING:) ends at its end trace line,
			# after the lockdep irq-state lines that follow its stack
			cut = k >= 1
			for (; k >= 1; k--) add(h[(NR - k) % 6])
			inblk = 1; add($0) }
		{ h[NR % 6] = $0 }
		END {
			if (inblk || pend) close_blk()
			for (i = 1; i <= nd && i <= 8; i++) {
				printf "%s", txt[i]
				if (cnt[i] > 1)
					printf "-- the report above %d times in all (the first at %s)\n", cnt[i], first[i]
				else
					print "--"
			}
			if (nd > 8) {
				for (r = 0; i <= nd; i++) r += cnt[i]
				printf "-- %d more distinct report(s) (%d in all), not printed: see the dmesg\n", nd - 8, r
			}
		}' "$2"
}

# The dmesg without the allocator's warnings of failures the sweep injected
# on purpose (tests/faultinject): a warn_alloc() dump ("page allocation
# failure:" or "vmalloc error:", a stack to its </TASK>, the memory state)
# within 4 lines of a "FAULT_INJECTION: forcing a failure" line. vmalloc()
# warns so, e.g. in request_firmware() during the sweep's bind. Only the
# dump's own lines go (its message, CPU/Tainted/Hardware lines, frames);
# any other line printed meanwhile is judged. A warning of an allocation
# that failed on its own stays, and is a report.
drop_injected_alloc_warnings() {
	awk '
		BEGIN { since = 100 }
		/FAULT_INJECTION: forcing a failure/ { since = 0 }
		{ since++ }
		!skip && since <= 5 && /(page allocation failure|vmalloc error): / { skip = 1; dropped++ }
		# only the dump_stack() lines: what another CPU printed meanwhile stays
		skip && /^(\[ *[0-9]+\.[0-9]+\] )? *(CPU: |Tainted: |Hardware name: |Call Trace:|<TASK>|<\/TASK>|(\? )?[A-Za-z0-9_.]+\+0x[0-9a-f]+\/0x[0-9a-f]+)/ {
			if (/<\/TASK>/) skip = 0
			next
		}
		{ print }
		END { if (dropped) printf "run-guest: %d allocation-failure warning(s) of injected failures set aside\n", dropped >"/dev/stderr" }' "$1"
}

scan_reports() {
	local pat="$bad|$debug_bad" nleak nours
	drop_injected_alloc_warnings "$res/dmesg" >"$res/dmesg.scan"
	if grep -E "$pat" "$res/dmesg.scan" >"$res/dmesg.bad"; then
		echo "run-guest: the debug kernel reported (full reports; dmesg in $res):" >&2
		print_report_blocks "$pat" "$res/dmesg.scan" >&2
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
		[ -s "$res/tilecopy.text" ] &&
			echo "run-guest: (bare addresses: tilecopy, unloaded; its .text was at $(cat "$res/tilecopy.text"))" >&2
		report_found=1
	fi
	# DMA-API debugging counts every error, also any it did not print
	# (num_errors, raised by init.sh, spent)
	if [ "$(cat "$res/dma-api-errors" 2>/dev/null || echo 0)" != 0 ]; then
		echo "run-guest: DMA-API debugging counted $(cat "$res/dma-api-errors") error(s)" >&2
		report_found=1
	fi
}
