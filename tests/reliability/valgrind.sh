#!/bin/bash
# make check-valgrind: the library's unit tests (Check, CK_FORK=no so the
# tests run in the process valgrind watches) and the CLI tests under
# valgrind memcheck. Every process gets its own log; any invalid access,
# use of uninitialised memory, or definite/indirect leak fails the run.
#
# Usage: tests/reliability/valgrind.sh BUILD_DIR UNIT_TEST...
# (VALGRIND_ORIGINS=1: also --track-origins=yes)
set -uo pipefail
cd "$(dirname "$0")/../.."
B=$1
shift
out=$B/valgrind
rm -rf "$out"
mkdir -p "$out/logs"
VG=(valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect
	--errors-for-leak-kinds=definite,indirect --error-exitcode=99 --num-callers=30)
# Origins of uninitialised values double the run time: on request only.
[ -n "${VALGRIND_ORIGINS:-}" ] && VG+=(--track-origins=yes)
failed=()
t0=$SECONDS

for t in "$@"; do
	name=$(basename "$t")
	ts=$SECONDS
	echo "--- valgrind $name"
	if ! CK_FORK=no TC_TEST_QUICK=1 timeout 1800 "${VG[@]}" --log-file="$out/logs/$name.%p.log" "$t" >"$out/$name.out" 2>&1; then
		echo "valgrind: $name FAILED"; tail -20 "$out/$name.out"
		failed+=("$name")
	fi
	grep -h "Checks:" "$out/$name.out"
	echo "    ($((SECONDS - ts)) s)"
done

# The fuzz corpora replayed (tests/fuzz/replay.c): the planner and every
# executor valgrind can run, on hundreds of odd layout pairs.
for t in layout tensor plan; do
	r=$B/tests/replay_$t
	[ -x "$r" ] || { echo "valgrind: $r missing"; failed+=("replay_$t"); continue; }
	echo "--- valgrind replay_$t"
	ts=$SECONDS
	if ! timeout 900 "${VG[@]}" --log-file="$out/logs/replay_$t.%p.log" "$r" tests/fuzz/corpus/$t >"$out/replay_$t.out" 2>&1; then
		echo "valgrind: replay_$t FAILED"; tail -20 "$out/replay_$t.out"
		failed+=("replay_$t")
	fi
	cat "$out/replay_$t.out"
	echo "    ($((SECONDS - ts)) s)"
done

# The CLI tests, with every tilecopy invocation under valgrind.
cat >"$out/tilecopy" <<WRAP
#!/bin/bash
exec ${VG[*]} --log-file=$(pwd)/$out/logs/cli.%p.log $(pwd)/$B/bin/tilecopy "\$@"
WRAP
chmod +x "$out/tilecopy"
echo "--- valgrind CLI tests"
ts=$SECONDS
if ! timeout 1200 bash tests/cli/run.sh "$out/tilecopy" >"$out/cli.out" 2>&1; then
	echo "valgrind: CLI tests FAILED"; grep -E "^FAIL" "$out/cli.out" | head -20
	failed+=(cli)
fi
tail -1 "$out/cli.out"
echo "    ($((SECONDS - ts)) s)"

# Every log: no errors, nothing definitely or indirectly lost.
nlogs=$(ls "$out/logs" | wc -l)
bad=$(grep -L "ERROR SUMMARY: 0 errors" "$out"/logs/*.log)
if [ -n "$bad" ]; then
	for f in $bad; do
		echo "valgrind: errors in $f:"; grep -E -A15 "Invalid|uninitialised|definitely lost|indirectly lost|ERROR SUMMARY" "$f" | head -40
	done
	failed+=(memcheck)
fi
leaks=$(grep -l -E "(definitely|indirectly) lost: [1-9]" "$out"/logs/*.log)
[ -z "$leaks" ] || { echo "valgrind: leaks in: $leaks"; failed+=(leaks); }
echo "valgrind: $nlogs processes checked in $((SECONDS - t0)) s, $(echo $bad | wc -w) with errors"
if [ ${#failed[@]} -gt 0 ]; then
	echo "check-valgrind: FAILED: ${failed[*]}"
	exit 1
fi
echo "check-valgrind: no invalid access, no uninitialised use, no leak"
