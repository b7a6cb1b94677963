#!/bin/sh
# Runs tests/integration/t*.sh against the built binary, each in its own temp dir with a time limit.
build=$1
root=$(pwd)
KP="$root/$build/bin/kernelpro"
export KP KP_ROOT="$root" KP_BUILD="$root/$build"
pass=0; fail=0; skip=0
for t in tests/integration/t*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-it-XXXXXX")
	log="$root/$build/tests/$name.log"
	mkdir -p "$root/$build/tests"
	t0=$(date +%s)
	( cd "$tmp" && KP_TMP="$tmp" timeout 600 sh "$root/$t" ) >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); printf '  ok    %s (%ss)\n' "$name" "$secs"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); printf '  skip  %s: %s\n' "$name" "$(tail -1 "$log")"
	else
		fail=$((fail + 1)); printf '  FAIL  %s (log: %s)\n' "$name" "$log"
		tail -30 "$log" | sed 's/^/        /'
	fi
	rm -rf "$tmp"
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
