# kernelpro optimize end to end on the CPU: recorded replies, a fake harness (tests/integration/search).
# The first version fails to compile and is repaired; a wrong 9x version never becomes best; the
# outputs (best.cu, summary.json, candidates/), runs and show agree with the run database.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"

expect_exit 0 optimize --evals 8 --name cpu
contains err "starting run cpu"
contains err "#2: compile_error"
contains err "#3: repair of #2"
contains out "best: #8, 2.60x faster than the reference"
R=kernelpro-runs/cpu
[ -f $R/best.cu ] || fail "no best.cu"
grep -q "fake-verdict: correct 2.6" $R/best.cu || fail "best.cu is not the best candidate"
[ -f $R/candidates/2.cu ] || fail "no candidates/2.cu"
[ "$(json $R/summary.json 'd["used"]["evaluations"]')" = 8 ] || fail "summary: evaluations"
[ "$(json $R/summary.json 'd["outcomes"]["wrong_output"]')" = 1 ] || fail "summary: wrong_output count"
[ "$(json $R/summary.json 'd["best"]["speedup"]')" = 2.6 ] || fail "summary: best speedup"
# The wrong candidate (it claims 9x) is in the tree but never best.
expect_exit 0 "$KP" show cpu --tree
contains out "#5 refine wrong_output"
contains out "#8* refine 2.60x"
lacks out "#5*"
# The saved prompts carry the compile log to the repair and the tools' feedback to refinements.
expect_exit 0 "$KP" show cpu --node 3
contains out "== prompt (debug, round 0)"
contains out 'error: identifier "vec4" is undefined'
expect_exit 0 "$KP" show cpu --node 4
contains out "## Profiling diagnosis of this version"
contains out "occupancy 50%, limited by registers"
contains out "## Roofline position of the task"
contains out "memory-bound: 1.21 TB/s"
expect_exit 0 "$KP" show cpu --node 8
contains out "## What earlier attempts found"
contains out 'compile error "error: identifier "vec4" is undefined" fixed by'
expect_exit 0 "$KP" runs
contains out "cpu"
contains out "2.60x"
expect_exit 0 "$KP" runs --json
[ "$(json out 'd[0]["best"]["node"]')" = 8 ] || fail "runs --json: best node"
# --json prints the summary.
expect_exit 0 optimize --evals 2 --name j --json
[ "$(json out 'd["used"]["evaluations"]')" = 2 ] || fail "optimize --json"
# Search memory shared by runs of a task family: the second run's first prompt knows the first's lessons.
expect_exit 0 optimize --evals 4 --name s1 --shared-memory shared.db
expect_exit 0 optimize --evals 1 --name s2 --shared-memory shared.db
expect_exit 0 "$KP" show s2 --node 2
contains out "## Notes from earlier attempts at this task"
contains out 'compile error "error: identifier "vec4" is undefined" fixed by'
expect_exit 0 "$KP" show s1 --node 2
lacks out "## Notes from earlier attempts at this task"
# Greedy and beam run the same way.
expect_exit 0 optimize --evals 6 --name g --search greedy
contains err "(greedy, speed)"
expect_exit 0 optimize --evals 6 --name b --search beam --param beam_width=2
exit 0
