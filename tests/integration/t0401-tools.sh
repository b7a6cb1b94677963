#!/bin/sh
# kernelpro tools list/show/metrics, user tools from --tools-dir and KERNELPRO_TOOLS_PATH, threshold
# overrides, and the tools' findings in diagnose (human, JSON, feedback modes, trace only).
. "$KP_ROOT/tests/integration/lib.sh"
G="$KP_ROOT/tests/golden/h200-probe"
export XDG_CACHE_HOME="$PWD/cache"
unset KERNELPRO_TOOLS_PATH

expect_exit 0 "$KP" tools list
for t in sol_gap coalescing vector_width cache_reuse occupancy warp_stalls bank_conflicts tensor_cores \
	pipe_balance divergence grid_waves local_memory instruction_mix atomics launch_overhead; do
	contains out "$t "
done
expect_exit 0 "$KP" tools list --json
python3 -c "import json; a = json.load(open('out')); assert len(a) == 15 and a[0]['name'] == 'sol_gap'" ||
	fail "tools list --json"

expect_exit 0 "$KP" tools show coalescing --threshold coalescing.max_excess_pct=5
contains out "What it looks for:"
contains out "memory_l2_theoretical_sectors_global  (optional)"
contains out "max_excess_pct = 5 % (default 10)"
expect_exit 0 "$KP" tools show --json occupancy
python3 -c "import json; o = json.load(open('out')); assert o['thresholds'][0]['name'] == 'min_occupancy_pct'" ||
	fail "tools show --json"
expect_exit 2 "$KP" tools show nope
contains err "no tool 'nope'"
expect_exit 2 "$KP" tools list --threshold coalescing.nope=1
contains err "has no threshold 'nope' (valid: max_excess_pct, min_bytes_per_sector)"
expect_exit 2 "$KP" tools list --threshold coalescing.max_excess_pct=many
contains err "expected TOOL.NAME=NUMBER"
printf 'coalescing.max_excess_pct = 3\nbroken line\n' >t.conf
expect_exit 2 "$KP" tools list --thresholds t.conf
contains err "t.conf:2: expected"
expect_exit 1 "$KP" tools list --tools-dir nonexistent
contains err "tools directory 'nonexistent'"

# What the profiler must collect for a class, or for named tools.
expect_exit 0 "$KP" tools metrics --class memory
contains out "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
lacks out "smsp__thread_inst_executed_per_inst_executed.ratio"
expect_exit 0 "$KP" tools metrics divergence --json
python3 -c "import json; o = json.load(open('out')); m = o['metrics']; \
assert o['tools'] == ['divergence'] and 'smsp__thread_inst_executed_per_inst_executed.ratio' in m and m == sorted(m)" ||
	fail "tools metrics --json"
expect_exit 2 "$KP" tools metrics nope

# User tools: the shipped example, a broken one beside it, one replacing a built-in.
mkdir tools
cp "$KP_ROOT/examples/tools/l2_hit_rate.lua" tools/
printf 'return {\n  name = "broken",\n  metrics = {,}\n}\n' >tools/broken.lua
cat >tools/mine.lua <<'LUA'
return { name = "divergence", description = "my divergence", metrics = {}, classes = {"compute"},
  trigger = function(m, t) return m.launch.name == "divergent" end,
  analyze = function(m, t) return { title = "my own divergence finding", severity = "critical", gain = 0.5 } end }
LUA
expect_exit 0 "$KP" tools list --tools-dir tools
contains out "l2_hit_rate"
contains out "[user, replaces built-in: tools/mine.lua]"
contains err "tools/broken.lua:3:"
KERNELPRO_TOOLS_PATH="$PWD/tools" expect_exit 0 "$KP" tools show l2_hit_rate
contains out "user tool: $PWD/tools/l2_hit_rate.lua"

# diagnose: findings per launch, most important first.
expect_exit 0 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt" --ptxas "$G/ptxas.txt" --launch 2
contains out "findings: 2"
contains out "1. [critical] Uncoalesced global loads and stores"
contains out "do: Map threadIdx.x"
expect_exit 0 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt" --launch 11 --tools-dir tools
contains out "[critical] my own divergence finding (divergence, up to 50%)"
expect_exit 0 "$KP" diagnose --json --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt" --ptxas "$G/ptxas.txt"
python3 - <<'PY' || fail "diagnose --json findings"
import json
o = json.load(open("out"))
by = {l["launch_id"]: l for l in o["launches"]}
assert by[3]["findings"][0]["tool"] == "atomics" and by[3]["findings"][0]["severity"] == "critical"
assert by[8]["findings"][0]["tool"] == "bank_conflicts"
assert all(r["status"] in ("silent", "fired", "missing") for l in o["launches"] for r in l["tool_runs"])
assert "## What to try first" in by[5]["feedback_text"]
print("ok")
PY
# The exact LLM text, and the ablations.
expect_exit 0 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt" --launch 14 --feedback-text
contains out "# Feedback for tiny_grid"
contains out "### 1. [critical] Grid too small"
expect_exit 0 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt" --launch 14 --feedback raw
contains out "| launch__grid_size | 1 |"
lacks out "## Findings"
expect_exit 0 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --launch 14 --feedback none
contains out "Time 1.49 ms."
lacks out "| launch__grid_size"
# energy adds instruction_mix to a memory-bound kernel
expect_exit 0 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt" --launch 12 --energy
contains out "(instruction_mix)"

# Timing only: the trace tools.
expect_exit 0 "$KP" diagnose --trace "$KP_ROOT/tests/golden/tools/tiny_trace.json"
contains out "200 x _Z11tiny_kernelPf"
contains out "[critical] Launch-bound: 200 launches of tiny_kernel"
expect_exit 0 "$KP" diagnose --json --trace "$KP_ROOT/tests/golden/tools/tiny_trace.json"
python3 -c "import json; o = json.load(open('out')); assert o['findings'][0]['tool'] == 'launch_overhead'" ||
	fail "diagnose --json --trace"
# profile --tools: the tools' metrics join the one ncu collection and the report lists findings.
mkdir bin
cp "$KP_ROOT/tests/integration/fake-ncu" bin/ncu
KP_FAKE_NCU_ARGS="$PWD/ncu.args" KP_FAKE_NCU_MODE=ok PATH="$PWD/bin:$PATH" CUDA_HOME= \
	expect_exit 0 "$KP" profile --out p --tools memory true
contains ncu.args "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
contains ncu.args "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"   # Stage 1's are kept
lacks ncu.args "SourceCounters"
lacks ncu.args "memory_l2_theoretical_sectors_global"
test "$(grep -c -- '--metrics' ncu.args)" -eq 1 || fail "more than one --metrics"
contains out "[critical] Uncoalesced global loads and stores"
KP_FAKE_NCU_ARGS="$PWD/ncu.args" KP_FAKE_NCU_MODE=ok PATH="$PWD/bin:$PATH" CUDA_HOME= \
	expect_exit 0 "$KP" profile --out p --tools compute --source-counters true
contains ncu.args "SourceCounters"
contains ncu.args "smsp__thread_inst_executed_per_inst_executed.ratio"
echo ok
