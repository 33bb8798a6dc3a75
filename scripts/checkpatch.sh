#!/bin/bash
# Run the kernel's checkpatch.pl on every driver file.
#
# checkpatch.pl, spelling.txt and const_structs.checkpatch come from the
# tarball in Debian's linux-source-6.12 package: the package is fetched with
# `apt-get download` into the cache (never installed) and only those three
# files are extracted. The cache survives clean clones, so CI pays the
# ~150 MB download once.
#
# Usage: scripts/checkpatch.sh [FILE...]   (default: driver/*.[ch])
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${TILECOPY_CACHE:-$HOME/.cache/tilecopy}/checkpatch
cp_dir=$cache/scripts

if [ ! -f "$cp_dir/checkpatch.pl" ] || [ ! -f "$cp_dir/spelling.txt" ] ||
   [ ! -f "$cp_dir/const_structs.checkpatch" ]; then
	mkdir -p "$cache/dl" "$cp_dir"
	(
		cd "$cache/dl"
		rm -f linux-source-6.12_*.deb
		# apt writes as _apt when it can; the cache may not be its own.
		timeout 900 apt-get download -q linux-source-6.12 2>&1 |
			grep -v "couldn't be accessed by user '_apt'" || true
		deb=$(ls linux-source-6.12_*.deb 2>/dev/null | head -1)
		[ -n "$deb" ] || { echo "checkpatch.sh: cannot download linux-source-6.12" >&2; exit 1; }
		members=()
		for f in checkpatch.pl spelling.txt const_structs.checkpatch; do
			members+=("linux-source-6.12/scripts/$f")
		done
		# data.tar holds usr/src/linux-source-6.12.tar.xz; extract just
		# the three scripts from it.
		timeout 600 dpkg-deb --fsys-tarfile "$deb" |
			tar -xO --wildcards './usr/src/linux-source-6.12.tar.*' |
			timeout 600 tar -xJ -C "$cache/dl" "${members[@]}"
		mv "$cache/dl/linux-source-6.12/scripts/"* "$cp_dir/"
		rm -rf "$cache/dl"
	)
fi

cd "$top"
if [ $# -eq 0 ]; then
	set -- driver/*.c driver/*.h
fi

# --no-tree: not run inside a kernel tree. Spelling and const-struct lists
# are found beside the script.
fail=0
for f in "$@"; do
	out=$(perl "$cp_dir/checkpatch.pl" --no-tree --strict --terse --no-summary \
		--show-types -f "$f" 2>&1) || fail=1
	[ -z "$out" ] || printf "%s\n" "$out"
done
if [ $fail -ne 0 ]; then
	echo "checkpatch: problems above" >&2
	exit 1
fi
echo "checkpatch: $# files clean"
