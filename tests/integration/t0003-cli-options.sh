# Options behave the same in every command: repeated short flags bundle (-vv), a bad value is a
# usage error (exit 2, before anything runs), usage lines name the whole command, help is checked.
. "$KP_ROOT/tests/integration/lib.sh"
TASK="$KP_ROOT/examples/native/gelu"
export KERNELPRO_HOME="$KP_ROOT"

# -v repeats, before or after the command; -vv and -vvv are that, bundled.
for v in -v -vv -vvv; do
	expect_exit 0 "$KP" $v version
	expect_exit 0 "$KP" version $v
done
expect_exit 2 "$KP" version -vx
contains err "unknown option '-x' in '-vx'"

# help: a command, a sub-command, and nonsense (a usage error, not the main help with exit 0).
expect_exit 0 "$KP" help hw calibrate
contains out "usage: kernelpro hw calibrate"
expect_exit 2 "$KP" help nosuch
contains err "unknown command 'nosuch'"
expect_exit 2 "$KP" help hw nosuch
contains err "no sub-command 'nosuch'"

# A sub-command's usage line names its parent.
expect_exit 2 "$KP" hw calibrate --bogus
contains err "usage: kernelpro hw calibrate"
contains err "kernelpro hw calibrate: unknown option '--bogus'"
expect_exit 2 "$KP" energy proxy --bogus
contains err "usage: kernelpro energy proxy"

# Help text says "(repeatable)" once, however the option's help is written.
for c in optimize bench runs show report eval baseline tune ask energy doctor profile analyze diagnose codesearch \
	version "tools list" "tools show" "tools metrics" "hw show" "hw calibrate" "energy proxy" "energy calibrate"; do
	"$KP" $c --help >help.txt || fail "'$c --help' failed"
	if grep -n 'repeatable.*repeatable' help.txt; then
		fail "'$c --help' says repeatable twice"
	fi
done

# One meaning of --gpu: an index (optimize, eval, tune, bench). A GPU model is --gpu-model KEY; the
# old --gpu KEY still works where it meant a model, with a warning that names the new spelling.
for c in ask profile analyze diagnose "hw show"; do
	"$KP" $c --help >help.txt || fail "'$c --help' failed"
	grep -q -- '--gpu-model KEY' help.txt || fail "'$c --help' lacks --gpu-model"
	! grep -q -- '--gpu KEY' help.txt || fail "'$c --help' still lists --gpu KEY"
done
for c in optimize eval tune; do
	"$KP" $c --help | grep -q -- '--gpu N' || fail "'$c --help': --gpu is no longer the GPU index"
done
expect_exit 0 "$KP" hw show --gpu-model h200-sxm
lacks err "warning"
expect_exit 0 "$KP" hw show --gpu h200-sxm
contains out "H200"
contains err "warning: '--gpu' is now '--gpu-model'"
expect_exit 0 "$KP" ask --reference "$TASK/reference.cu" --dry-run --gpu=h200-sxm
contains err "'--gpu' is now '--gpu-model'"

# Help: every command shows examples; the long ones (optimize, bench) keep to the common options and
# say how many more --help-all lists, with where the details are.
for c in optimize bench runs show report eval baseline tune ask energy doctor profile analyze diagnose codesearch \
	version "tools list" "hw show" "energy proxy"; do
	"$KP" $c --help >help.txt || fail "'$c --help' failed"
	grep -q '^examples:' help.txt || fail "'$c --help' has no examples"
	grep -q '^  kernelpro ' help.txt || fail "'$c --help': an example is no kernelpro command line"
done
for c in optimize bench; do
	"$KP" $c --help >help.txt
	[ "$(wc -l <help.txt)" -le 50 ] || fail "'$c --help' is $(wc -l <help.txt) lines"
	contains help.txt "more: 'kernelpro $c --help-all' lists every option; docs/"
	"$KP" $c --help-all >all.txt
	contains all.txt "--param NAME=VALUE"
	contains all.txt "--nvcc-flag FLAG"
	lacks all.txt "more:"
done
"$KP" optimize --help | grep -q -- '--param NAME' && fail "optimize --help lists --param (a detail: --help-all)"

# One name for the prompt directory, in every command that has one.
mkdir prompts-empty
expect_exit 0 "$KP" ask --reference "$TASK/reference.cu" --dry-run --prompts-dir prompts-empty
"$KP" optimize --help-all | grep -q -- '--prompts-dir' || fail "optimize lost --prompts-dir"

# A bad value is a usage error (exit 2) in every command, found from the option table before the
# command does anything (no GPU check, no file read, no network).
bad() {
	expect_exit 2 "$KP" "$@"
	contains err "usage: kernelpro"
}
bad ask --reference "$TASK/reference.cu" --dry-run --max-tokens -1
bad ask --reference "$TASK/reference.cu" --dry-run --max-tokens 0
bad ask --reference "$TASK/reference.cu" --dry-run --llm-timeout 0
bad ask --reference "$TASK/reference.cu" --dry-run --llm-retries -1
bad ask --reference "$TASK/reference.cu" --dry-run --temperature 3
bad ask --reference "$TASK/reference.cu" --dry-run --temperature nan
bad ask --reference "$TASK/reference.cu" --dry-run --max-prompt-chars 0
bad optimize "$TASK" --max-tokens -1
bad optimize "$TASK" --temperature -3
bad optimize "$TASK" --cost inf
bad optimize "$TASK" --llm-timeout -1
# bench: its budgets and request limits before it looks for GPUs (which would be exit 3 here).
bad bench "$TASK" --evals 0
bad bench "$TASK" --tokens 0
bad bench "$TASK" --cost -1
bad bench "$TASK" --suite-evals 0
bad bench "$TASK" --suite-tokens -5
bad bench "$TASK" --suite-cost 0
bad bench "$TASK" --parallel 0
bad bench "$TASK" --parallel 65
bad bench "$TASK" --tool-rounds 11
bad bench "$TASK" --max-tokens 0
bad optimize "$TASK" --parallel 65
bad tune "$TASK" no-such.cu --budget 0
bad codesearch --limit 0 smem
bad eval "$TASK" no-such.cu --tolerance -1
bad eval "$TASK" no-such.cu --floor-slack 0
bad show no-such-run --node 0
bad hw show --gpu-index -1
bad hw calibrate --timeout 0
bad profile --timeout -1 true
bad profile -c -1 true
bad profile --launch-skip -1 true
contains err "option '--launch-skip' must be at least 0, not '-1'"

# calibrate measures this machine's GPU: without one (no driver library here) it says so, exit 3,
# and suggests no option it lacks.
KP_LIBCUDA=/nonexistent/libcuda.so.1 expect_exit 3 "$KP" hw calibrate
grep -q "kp-calibrate was not built" err || contains err "measures a GPU on this machine"
lacks err "--gpu "
exit 0
