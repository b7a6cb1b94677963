#!/bin/sh
# Runs tests/gpu/g*.sh on a GPU machine. Without a GPU each test reports itself skipped, never passed.
build=$1
root=$(pwd)
KP="$root/$build/bin/kernelpro"
export KP KP_ROOT="$root" KP_BUILD="$root/$build"
out=${KP_GPU_LOGS:-$root/$build/gpu-tests}
mkdir -p "$out"
have_gpu=0
if "$KP" doctor --json --no-counters --no-python 2>/dev/null | grep -q '"name": "gpu",' &&
   "$KP" doctor --json --no-counters --no-python 2>/dev/null | tr -d '\n ' | grep -q '"name":"gpu","status":"ok"'; then
	have_gpu=1
fi
pass=0; fail=0; skip=0
for t in tests/gpu/g*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	if [ -n "${KP_GPU_TESTS:-}" ]; then
		want=0
		for p in $KP_GPU_TESTS; do case "$name" in "$p"*) want=1 ;; esac; done
		[ $want -eq 1 ] || continue
	fi
	if [ $have_gpu -eq 0 ]; then
		skip=$((skip + 1)); printf '  skip  %s: no GPU on this machine\n' "$name"; continue
	fi
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-gpu-XXXXXX")
	log="$out/$name.log"
	start=$(date +%s)
	( cd "$tmp" && KP_TMP="$tmp" timeout 900 sh "$root/$t" ) >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); printf '  ok    %s (%ss)\n' "$name" "$secs"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); printf '  skip  %s: %s\n' "$name" "$(tail -1 "$log")"
	else
		fail=$((fail + 1)); printf '  FAIL  %s (%ss, log: %s)\n' "$name" "$secs" "$log"
		tail -25 "$log" | sed 's/^/        /'
	fi
	rm -rf "$tmp"
done
echo "gpu: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
