# kernelpro ask --dry-run: each prompt mode on fixed inputs matches tests/golden/prompts/<case>.expected.
# After a deliberate template change: tests/golden/prompts/regen.sh, then review the diff.
. "$KP_ROOT/tests/integration/lib.sh"
G="$KP_ROOT/tests/golden/prompts"
. "$G/cases.sh"
unset KERNELPRO_LLM KERNELPRO_LLM_CONFIG
# The prompts of this tree, whichever build directory the binary is in.
export KERNELPRO_HOME="$KP_ROOT"
for c in $CASES; do
	run_case "$c" >"$c.out" 2>"$c.err" || { cat "$c.err"; fail "case $c exited $?"; }
	if ! cmp -s "$c.out" "$G/$c.expected"; then
		diff -u "$G/$c.expected" "$c.out" | head -60
		fail "prompt for case $c differs from $G/$c.expected (tests/golden/prompts/regen.sh rewrites them)"
	fi
done
# Determinism: the same inputs twice give the same bytes.
run_case optimize-cuda >again.out
cmp -s again.out "$G/optimize-cuda.expected" || fail "the same inputs gave a different prompt"
exit 0
