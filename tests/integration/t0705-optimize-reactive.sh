# optimize --orchestration reactive on the CPU: the optimize prompt offers the tools by name instead of
# the proactive feedback; a recorded reply asks for one (tool: coalescing), the answer is that tool's
# finding on the parent's saved profile (a real H200 ncu row of a stride-33 copy, via the fake
# harness), and the next reply's code is evaluated. The run keeps its orchestration on resume.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"
export KP_FAKE_PROFILE="$S/profile-strided"
reactive() { "$KP" optimize "$TASK" --llm "replay:$S/replay-reactive" --evaluator "$FAKE" --search greedy "$@"; }

# What reactive orchestration cannot work with is refused before anything runs.
expect_exit 2 reactive --orchestration reactive --no-profile
contains err "--no-profile leaves none"
expect_exit 2 reactive --orchestration reactive --feedback raw
contains err "leave --feedback at tools"
expect_exit 2 reactive --tool-rounds 2
contains err "--tool-rounds applies to --orchestration reactive only"
expect_exit 2 reactive --orchestration reactive --tool-rounds 0
contains err "option '--tool-rounds' must be 1..10"
[ ! -d kernelpro-runs ] || [ -z "$(ls kernelpro-runs)" ] || fail "a refused run left a directory behind"

expect_exit 0 reactive --orchestration reactive --evals 2 --name r
contains err "(greedy, speed, reactive tools)"
contains err "#3: refine of #2: The coalescing tool found stride-33 accesses"
contains out "best: #3, 2.00x faster than the reference"
grep -q "fake-verdict: correct 2.0" kernelpro-runs/r/best.cu || fail "best.cu is not the code sent after the tool answer"
[ "$(json kernelpro-runs/r/summary.json 'd["used"]["tool_calls"]')" = 1 ] || fail "summary: tool_calls"
[ "$(json kernelpro-runs/r/summary.json 'd["used"]["generations"]')" = 2 ] || fail "summary: generations"
expect_exit 0 "$KP" show r --node 3
# Round 0: the menu, not the feedback the fake harness reported for #2.
contains out "== prompt (optimize, round 0)"
contains out '- `tool: <name>` runs a profiling tool on the current version'
contains out "- coalescing: Excess global sectors"
contains out "You have at most 3 rounds of requests"
lacks out "## Profiling diagnosis of this version"
lacks out "after #2: occupancy 50%"
# Round 1: the model's request and the tool's finding on #2's profile, saved like every exchange.
contains out "== prompt (optimize, round 1)"
contains out "### tool: coalescing"
contains out "Tool coalescing: fired"
contains out "[critical] Uncoalesced global loads and stores: 88% of the sectors moved are excess"
contains out "You may ask again (2 more rounds)"
expect_exit 0 "$KP" show r
contains out "tools:     reactive, at most 3 rounds of requests per version; 1 request answered"
[ "$(json kernelpro-runs/r/summary.json 'd["orchestration"]["mode"]')" = reactive ] || fail "summary: orchestration"
# The feedback the fake harness reported is kept, and show says it was not sent.
expect_exit 0 "$KP" show r --node 2
contains out "== feedback (kept, not sent: this run offers the tools on request)"
# The initial request (from the reference) is not an optimize request: no tools offered (code search
# may be, where CUTLASS is installed).
expect_exit 0 "$KP" show r --node 2
lacks out '`tool: <name>`'

# A resumed run keeps reactive orchestration; an unknown tool is answered with an error, not a crash.
expect_exit 2 "$KP" optimize --resume r --orchestration proactive
contains err "keeps its search settings"
expect_exit 0 "$KP" optimize --resume r --evals 3 --evaluator "$FAKE"
contains err "(greedy, speed, reactive tools)"
contains out "best: #4, 2.50x faster than the reference"
expect_exit 0 "$KP" show r --node 4
contains out "### tool: no_such_tool"
contains out "error: no tool named 'no_such_tool'; ask for one of the tools listed"
[ "$(json kernelpro-runs/r/summary.json 'd["used"]["tool_calls"]')" = 2 ] || fail "summary: tool_calls after resume"

# Proactive (the default) offers no tools: the same parent's feedback goes into the prompt.
expect_exit 0 optimize --evals 4 --name p
expect_exit 0 "$KP" show p --node 4
contains out "## Profiling diagnosis of this version"
lacks out "Asking before you answer"
expect_exit 0 "$KP" show p
lacks out "tools:     reactive"
[ "$(json kernelpro-runs/p/summary.json 'd["orchestration"]["mode"]')" = proactive ] || fail "summary: proactive"
[ "$(json kernelpro-runs/p/summary.json 'd["used"]["tool_calls"]')" = 0 ] || fail "summary: proactive tool_calls"
expect_exit 0 "$KP" optimize --help-all
contains out "--orchestration WHICH"
contains out "--tool-rounds N"
exit 0
