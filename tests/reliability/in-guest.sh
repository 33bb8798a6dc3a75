#!/bin/bash
# Runs inside the guest (tests/reliability/guest.sh starts it through
# tests/qemu/run-guest.sh). One scenario per boot, so the device's
# fault-injection counters start fresh:
#
#   in-guest.sh fuzz STRESS ITERS SEED   uAPI fuzzing + isolation
#   in-guest.sh faults STRESS PROCS JOBS TIMEOUTS DMAERRS
#   in-guest.sh load STRESS PROCS SECONDS  load with a debugfs reset storm,
#                                          then rmmod while in use
#   in-guest.sh kill STRESS PROCS ROUNDS   kill -9 with jobs in flight
#
# Each scenario takes a snapshot of the driver's and the kernel's counters
# first and compares after (tc_stress snapshot/compare): nothing may be left.
set -uo pipefail
what=$1
S=$2
shift 2
res=${TC_GUEST_RESULTS:-/tmp}
pci=$(basename "$(readlink -f /sys/class/accel/accel0/device)")
dbg=/sys/kernel/debug/accel/$pci
fail=0
step() { echo "=== $*"; }
bad() { echo "FAIL: $*"; fail=1; }

$S snapshot /tmp/before || exit 1
cat /tmp/before

case $what in
fuzz)
	step "uapi fuzzing: 4 processes x $1 iterations"
	$S uapi-fuzz 4 "$1" "$2" || bad "uapi-fuzz"
	step "isolation: A attacks B's buffers"
	$S isolation || bad "isolation"
	;;
faults)
	step "fault injection ($TC_DEVICE_PROPS): $1 processes x $2 jobs"
	$S faults "$@" || bad "faults"
	;;
load)
	procs=$1 secs=$2
	step "load: $procs processes for $secs s, engine reset through debugfs every 2 s"
	( end=$((SECONDS + secs - 2)); n=0
	  while [ $SECONDS -lt $end ]; do sleep 2; echo 1 > "$dbg/reset" && n=$((n + 1)); done
	  echo "forced resets: $n" ) &
	storm=$!
	$S load "$procs" "$secs" || bad "load"
	wait $storm
	;;
kill)
	step "kill -9 of $1 processes with jobs in flight, $2 rounds"
	$S kill "$1" "$2" || bad "kill"
	step "GEM_CLOSE of a running job's destination, new BOs at once"
	$S reuse 20 || bad "reuse"
	;;
esac

$S snapshot /tmp/after || exit 1
cat /tmp/after
$S compare /tmp/before /tmp/after || bad "counters not back to baseline"

# The leak check must be able to fail: a BO of 8 MiB kept alive by an mmap
# (its file closed) has to show up.
step "negative control: the leak check sees a held 8 MiB BO"
$S hold mmap 600 $((8 << 20)) & h=$!
sleep 2
$S snapshot /tmp/held >/dev/null
if $S compare /tmp/after /tmp/held >/tmp/control.out 2>&1; then
	bad "leak check did not notice a held 8 MiB BO: $(cat /tmp/control.out)"
else
	echo "noticed: $(grep -v RESULT /tmp/control.out | tr '\n' ' ')"
fi
kill $h; wait $h 2>/dev/null

if [ "$what" = load ]; then
	step "rmmod while a file is open: refused"
	exec 3<>/dev/accel/accel0
	if rmmod tilecopy 2>/tmp/rmmod.err; then bad "rmmod with an open file succeeded"; else
		grep -qiE "in use|busy" /tmp/rmmod.err && echo "refused: $(cat /tmp/rmmod.err)" ||
			bad "rmmod refused without 'in use': $(cat /tmp/rmmod.err)"
	fi
	exec 3>&-
	for hold in mmap dmabuf; do
		step "rmmod while a $hold outlives its file: refused"
		$S hold $hold 600 & h=$!
		sleep 2
		if rmmod tilecopy 2>/tmp/rmmod.err; then bad "rmmod with a $hold held succeeded"; else
			echo "refused: $(cat /tmp/rmmod.err)"; fi
		kill $h; wait $h 2>/dev/null
	done
	step "rmmod after close: succeeds"
	sleep 1
	refcnt=$(cat /sys/module/tilecopy/refcnt)
	[ "$refcnt" = 0 ] || bad "module refcnt $refcnt after every file closed"
	rmmod tilecopy || bad "rmmod after close failed"
	[ ! -e /dev/accel/accel0 ] || bad "/dev/accel/accel0 still there after rmmod"
	step "reload and use"
	insmod "$TC_MODULE" $TC_MODULE_ARGS || bad "insmod"
	for i in $(seq 50); do [ -e /dev/accel/accel0 ] && break; sleep 0.1; done
	$S load 2 3 || bad "load after reload"
fi
[ $fail = 0 ] && echo "in-guest $what: all passed"
exit $fail
