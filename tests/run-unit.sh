#!/bin/sh
# Runs every cmocka unit-test binary from the repository root; prints one line per binary and a summary.
build=$1; shift
KP_ROOT=$(pwd); export KP_ROOT
pass=0; fail=0; failed=""
for t in "$@"; do
	name=$(basename "$t")
	log="$build/tests/$name.log"
	if timeout 300 "$t" >"$log" 2>&1; then
		pass=$((pass + 1))
		printf '  ok    %s\n' "$name"
	else
		fail=$((fail + 1)); failed="$failed $name"
		printf '  FAIL  %s (log: %s)\n' "$name" "$log"
		sed 's/^/        /' "$log" | grep -v '^        \[       OK \]\|RUN  ' | tail -40
	fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
