#!/bin/sh
# convert-all.sh BIN OUTDIR: converts every golden input (testdata/*/*.in.jsonl)
# and every capture of ../shared/corpus (when it is there) at three --max-text
# settings, keeping each dialog, its stderr and its exit status in OUTDIR.
# Run it with the binary before a change and after it, then `diff -r` the two
# folders: a change meant to keep the output (a speed-up, a refactoring) shows
# no difference.
set -eu
bin=${1:?usage: scripts/convert-all.sh BIN OUTDIR}
out=${2:?usage: scripts/convert-all.sh BIN OUTDIR}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
{
	ls testdata/*/*.in.jsonl
	if [ -d ../shared/corpus ]; then
		find ../shared/corpus -type f ! -name '*.md' ! -name '*.meta.json'
	fi
} | sort | while read -r f; do
	key=$(echo "$f" | sed 's#^\.\./shared/##; s#/#__#g')
	for cap in 16384 100 -1; do
		rc=0
		"$bin" --clock 0 --cwd /w --task t --max-text "$cap" -o "$out/$key.cap$cap" "$f" 2>"$out/$key.cap$cap.err" || rc=$?
		echo "$rc" >"$out/$key.cap$cap.rc"
	done
done
echo "$(ls "$out" | wc -l) files in $out"
