# One exit code per kind of mistake, in every command (docs/cli.md, "Exit codes"): a path that is not
# there is 1 wherever it is named; what a command needs is reported all at once (no model and no GPU:
# both, exit 2); other tools' model names are read as docs/llm.md maps them; no driver is said so.
. "$KP_ROOT/tests/integration/lib.sh"
TASK="$KP_ROOT/examples/native/gelu"
export KERNELPRO_HOME="$KP_ROOT" XDG_CONFIG_HOME="$PWD/xdg"
unset KERNELPRO_LLM KERNELPRO_LLM_CONFIG OPENAI_API_KEY ANTHROPIC_API_KEY OPENAI_BASE_URL ANTHROPIC_BASE_URL
# No driver library at all, whatever this machine has: the GPU checks find none.
export KP_LIBCUDA=/nonexistent/libcuda.so.1

# A missing path: exit 1 and the path named, in every command that reads one.
missing() {
	expect_exit 1 "$KP" "$@"
	contains err "nosuch"
}
missing optimize nosuch-task --llm openai:gpt-4.1 --evaluator "exec:true"
missing analyze nosuch-profile
missing eval "$TASK" nosuch.cu
missing eval nosuch-task x.cu
missing baseline nosuch-task
missing tune "$TASK" nosuch.cu
missing show nosuch-run
missing report nosuch-run
missing diagnose --ncu-csv nosuch.csv
missing ask --reference nosuch.cu --dry-run
missing ask --task nosuch-task --dry-run
missing energy proxy --ncu-csv nosuch.csv
missing tools list --tools-dir nosuch-dir
missing tools list --thresholds nosuch.conf
missing codesearch --db nosuch.db smem
missing bench nosuch-task --gpus 0

# The command line itself wrong: exit 2, however deep the command.
expect_exit 2 "$KP" optimize "$TASK" --llm bogus/model
contains err "openai:bogus/model"
expect_exit 2 "$KP" ask --reference "$TASK/reference.cu" --llm gemini-pro
contains err "openai:gemini-pro"
expect_exit 2 "$KP" tools list --threshold coalescing.max_excess_pct=many
for c in "hw show" "ask --dry-run" "diagnose --ncu-csv x.csv" "analyze x"; do
	expect_exit 2 "$KP" $c --gpu-model no-such-gpu
	contains err "unknown GPU 'no-such-gpu'"
done
expect_exit 2 "$KP" profile --gpu-model no-such-gpu true
contains err "unknown GPU 'no-such-gpu'"
expect_exit 2 "$KP" optimize "$TASK" --hw no-such-gpu
contains err "option '--hw': unknown GPU"

# Without a GPU and without a model, optimize says both at once (and the task when it is missing too).
expect_exit 2 "$KP" optimize "$TASK"
contains err "no LLM chosen"
contains err "no usable GPU 0 here"
contains err "no NVIDIA driver"
[ ! -e kernelpro-runs ] || fail "optimize left a runs directory behind"
expect_exit 2 "$KP" optimize nosuch-task
contains err "cannot open task 'nosuch-task'"
contains err "no LLM chosen"
contains err "no usable GPU"
# Only the GPU missing: exit 3 (a device), with the true reason.
mkdir replies && echo "no code" >replies/1.md
expect_exit 3 "$KP" optimize "$TASK" --llm "replay:$PWD/replies"
contains err "no NVIDIA driver on this machine"
lacks err "no LLM chosen"
# An exec evaluator needs no GPU here: then only the model is missing.
expect_exit 2 "$KP" optimize "$TASK" --evaluator "exec:true"
contains err "no LLM chosen"
lacks err "no usable GPU"

# Model names as other tools write them: a bare family name or provider/model reaches that provider
# (which then wants its key), never "not PROVIDER:MODEL".
for m in gpt-4o openai/gpt-4o o3-mini; do
	expect_exit 1 "$KP" ask --reference "$TASK/reference.cu" --llm "$m"
	contains err "OPENAI_API_KEY is not set"
done
for m in claude-sonnet-4-5 anthropic/claude-sonnet-4-5; do
	expect_exit 1 "$KP" ask --reference "$TASK/reference.cu" --llm "$m"
	contains err "ANTHROPIC_API_KEY is not set"
done

# The harness with no driver at all says so, not the CUDA runtime's "insufficient driver".
unset KP_LIBCUDA
if [ -x "$(dirname "$KP")/../libexec/kernelpro/kp-native-harness" ] &&
	! python3 -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null; then
	expect_exit 3 "$KP" baseline --cache "$PWD/cache" "$TASK"
	contains err "no NVIDIA driver on this machine"
	lacks err "cudaErrorInsufficientDriver"
fi
exit 0
