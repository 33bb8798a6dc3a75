#!/bin/bash
# Run libFuzzer targets; fail on any crash, sanitizer report or timeout.
# Seeds come from tests/fuzz/corpus/<target>/ (read only); new inputs go to
# $FUZZ_DIR/work/<target>/, findings to $FUZZ_DIR/artifacts/. A summary line
# per target (executions, exec/s, coverage, corpus) is printed and appended
# to $FUZZ_DIR/summary.txt.
#
# Usage: tests/fuzz/run.sh SECONDS TARGET...        random, for SECONDS each
#        tests/fuzz/run.sh --runs N[:SEED] TARGET... deterministic
#                                                    (FUZZ_DIR, default build/fuzz)
#
# The deterministic form is the gate (make check-fuzz): the committed corpus
# once, then exactly N mutations from SEED (default 1) starting from an empty
# work corpus, so the same tree gives the same result on every run and an
# unrelated change cannot fail because the dice fell differently. The timed
# form is `make fuzz`, for finding new bugs; what it finds is added to the
# corpus (regress-* files) and so to the gate.
set -uo pipefail
cd "$(dirname "$0")/../.."
runs=
seed=1
secs=
if [ "${1:-}" = --runs ]; then
	runs=${2%%:*}
	[ "$2" != "$runs" ] && seed=${2#*:}
	shift 2
else
	secs=$1
	shift
fi
FUZZ_DIR=${FUZZ_DIR:-build/fuzz}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
mkdir -p "$FUZZ_DIR/artifacts" "$FUZZ_DIR/work"
failed=()
for t in "$@"; do
	bin=$FUZZ_DIR/fuzz_$t
	seeds=tests/fuzz/corpus/$t
	work=$FUZZ_DIR/work/$t
	log=$FUZZ_DIR/$t.log
	mkdir -p "$work"
	rm -f "$FUZZ_DIR/artifacts/$t-"*
	dict=()
	[ -f tests/fuzz/$t.dict ] && dict=(-dict=tests/fuzz/$t.dict)
	# 1. every committed seed and regression input, once
	if ! "$bin" -runs=0 -artifact_prefix="$FUZZ_DIR/artifacts/$t-" "${dict[@]}" "$seeds" >"$log.seeds" 2>&1; then
		echo "fuzz $t: a committed corpus input fails:"; tail -40 "$log.seeds"
		failed+=("$t"); continue
	fi
	# 2. fuzzing, one process (2 shared cores): N runs from a fixed seed
	# on a fresh work corpus, or $secs seconds at random
	t0=$SECONDS
	if [ -n "$runs" ]; then
		rm -rf "$work" && mkdir -p "$work"
		mode=(-runs="$runs" -seed="$seed")
		limit=1800
	else
		mode=(-max_total_time="$secs")
		limit=$((secs + 120))
	fi
	timeout --kill-after=10 $limit "$bin" "${mode[@]}" -timeout=60 \
		-rss_limit_mb=2048 -max_len=1024 -print_final_stats=1 \
		-artifact_prefix="$FUZZ_DIR/artifacts/$t-" "${dict[@]}" "$work" "$seeds" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
	ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
	units=$(ls "$work" | wc -l)
	line="fuzz $t${runs:+ (seed $seed)}: ${execs:-?} executions in $((SECONDS - t0)) s (${speed:-?}/s), cov ${cov:-?}, ft ${ft:-?}, work corpus $units inputs, exit $rc"
	echo "$line"
	echo "$(date -u +%FT%TZ) $line" >>"$FUZZ_DIR/summary.txt"
	if [ $rc != 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|check failed' "$log"; then
		echo "fuzz $t: FAILED (log $log):"
		grep -E -A30 'ERROR:|runtime error:|check failed|deadly signal' "$log" | head -60
		ls "$FUZZ_DIR/artifacts" | grep "^$t-" | sed 's/^/  artifact: /'
		failed+=("$t")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: FAILED: ${failed[*]}"
	exit 1
fi
echo "fuzz: $* passed, no crash, no sanitizer report"
