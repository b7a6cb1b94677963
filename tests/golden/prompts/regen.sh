#!/bin/sh
# Rewrites tests/golden/prompts/<case>.expected from the current templates. Run from the repo root after `make`;
# review `git diff tests/golden/prompts` before committing.
set -eu
KP=${KP:-build/bin/kernelpro}
G=tests/golden/prompts
. "$G/cases.sh"
for c in $CASES; do
	run_case "$c" >"$G/$c.expected"
	echo "wrote $G/$c.expected"
done
