# What optimize, runs and show print from a run reaches the terminal as text (issue 21): control
# characters in a model's reply or in a task's path are shown escaped, never sent raw (an ESC
# sequence could rewrite the screen); the reference is shown as such; a stopped run says why once.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"

esc=$(printf '\033')
# no_raw FILE: FILE holds no ESC, CR or BEL byte.
no_raw() { ! grep -q "$(printf '[\033\r\007]')" "$1" || { cat -A "$1" | head -20; fail "raw control characters in $1"; }; }

# Replies whose summary line carries an ESC sequence, a CR and a BEL; a task whose path has an ESC.
mkdir replay
for f in "$S"/replay/*.md; do cp "$f" replay/; done
{ printf 'First version\033[2J\r\007 clears your screen.\n'; tail -n +2 "$S/replay/001.md"; } >replay/001.md
dir="task${esc}[31m"
mkdir "$dir" && cp "$TASK/task.json" "$TASK/reference.cu" "$dir/"
"$KP" optimize "$dir" --llm "replay:$PWD/replay" --evaluator "$FAKE" --evals 3 --name t >out 2>err ||
	fail "optimize: $(cat err)"
no_raw out
no_raw err
contains err 'First version\x1b[2J'
contains err '\x07 clears your screen.'
for args in "runs" "show t" "show t --tree" "show t --node 2"; do
	expect_exit 0 "$KP" $args
	no_raw out
done
expect_exit 0 "$KP" show t
contains out 'task\x1b[31m'
# One session, one word: no "session(s)" (and no "1 evaluations" anywhere).
contains out " in 1 session"
lacks out "(s)"
# `show t --node 2 | head -1`: a reader that has gone is no error (no message, exit 0).
closed_stdout "$KP" show t --node 2 || fail "show --node to a closed pipe exited $?"
[ ! -s err ] || fail "show --node to a closed pipe said: $(cat err)"
# --json stays JSON (its own escapes), with the text as it is.
expect_exit 0 "$KP" show t --node 2 --json
[ "$(json out '"\x1b[2J" in d["summary"] and "\x07" in d["summary"]')" = True ] || fail "--json: $(cat out)"

# The reference is the reference, not "root of #0".
expect_exit 0 "$KP" show t --node 1
lacks out "of #0"
contains out "#1: the reference, correct"

# A stopped run says "stopped" once, and how to go on.
slow_run st 1 --evals 9
kill -INT $pid
wait $pid
[ "$n" -ge 1 ] || fail "the run did not get to an evaluation: $(cat st.err)"
lacks st.out "stopped (stopped)"
contains st.out "run st: stopped"
contains st.out "continue with: kernelpro optimize --resume"
exit 0
