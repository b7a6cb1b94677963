#!/bin/sh
# kernelpro diagnose on the saved H200 probe output: offline, every launch classified as labelled; bad input fails clearly.
. "$KP_ROOT/tests/integration/lib.sh"
G="$KP_ROOT/tests/golden/h200-probe"
export XDG_CACHE_HOME="$PWD/cache"

expect_exit 0 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt" --ptxas "$G/ptxas.txt"
contains out "GPU model: NVIDIA H200 SXM 141GB (h200-sxm)"   # taken from the report's device name
contains out "launch 0  vec_add_naive"
contains out "sources: ncu, sass, ptxas"

expect_exit 0 "$KP" diagnose --json --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt" --ncu-details "$G/ncu_details.csv"
python3 - "$G/labels.json" <<'PY' || fail "classes differ from labels.json"
import json, sys
out = json.load(open("out"))
labels = {k["id"]: k["class"] for k in json.load(open(sys.argv[1]))["kernels"]}
assert out["schema"] == 1 and out["gpu"]["key"] == "h200-sxm" and out["incomplete"] is False
assert len(out["launches"]) == 17
for l in out["launches"]:
    assert l["stage1"]["class"] == labels[l["launch_id"]], (l["launch_id"], l["stage1"])
    for f in l["findings"]:  # the tools' findings, most important first (issue 4)
        assert f["tool"] and f["severity"] in ("low", "medium", "high", "critical") and f["title"], f
print("ok")
PY

# one launch, another GPU model, the task's minimum bytes
expect_exit 0 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --gpu-model a100-80 --launch 1 --min-bytes 805306368
contains out "NVIDIA A100 SXM4 80GB"
contains out "minimum traffic"
lacks out "launch 0 "

# bad input: clear messages naming the file, never a crash
expect_exit 2 "$KP" diagnose
contains err "--ncu-csv FILE is required"
expect_exit 1 "$KP" diagnose --ncu-csv "$G/sass.txt"
contains err "sass.txt: no ncu CSV header"
expect_exit 1 "$KP" diagnose --ncu-csv nonexistent.csv
contains err "nonexistent.csv"
expect_exit 2 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --gpu gtx-480
contains err "unknown GPU 'gtx-480'"
expect_exit 1 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --launch 99
contains err "no launch with the requested ID"

# a truncated CSV: the cut launch is reported incomplete
head -c 200000 "$G/ncu_raw.csv" > cut.csv
expect_exit 0 "$KP" diagnose --json --ncu-csv cut.csv
python3 -c "
import json; o = json.load(open('out'))
assert o['incomplete'] is True, o['incomplete']
assert any('truncated' in w for w in o['warnings'])
" || fail "truncation not reported"

# a CSV from an ncu without the FLOP counters: incomplete, not a silent zero
python3 - "$G/ncu_raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [i for i, n in enumerate(rows[0]) if "sass_thread_inst_executed_op" not in n]
with open("old.csv", "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_ALL)
    for r in rows:
        w.writerow([r[i] for i in keep])
PY
expect_exit 0 "$KP" diagnose --json --ncu-csv old.csv --launch 0
python3 -c "
import json; o = json.load(open('out')); s = o['launches'][0]['stage1']
assert s['incomplete'] is True and s['flops_source'] == 'missing', s
assert 'smsp__sass_thread_inst_executed_op_ffma_pred_on.sum' in s['missing_metrics']
assert s['class'] == 'memory'
" || fail "missing FLOP counters not reported"
echo ok

# the whole task (issue 19): the ranking above the launches, and with --task only the kernels it selects
expect_exit 0 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt" --min-bytes 1e9
contains out "Whole task: 17 kernels in 17 launches"
contains out "1. reduce_atomic: 77% of the time"
contains out "2. (not diagnosed) sgemm_naive_uncoal"
contains out "launch 0  vec_add_naive"
expect_exit 0 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt" --task
contains out "launch 3  reduce_atomic"
contains out "Contended atomics"
lacks out "launch 0  vec_add_naive"
expect_exit 0 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt" --task --feedback-text
contains out "# The whole task"
contains out "# Kernel 1: reduce_atomic"
expect_exit 0 "$KP" diagnose --json --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt" --min-bytes 1e9
python3 - <<'PY' || fail "whole-task JSON"
import json
out = json.load(open("out"))
t = out["task"]
assert t["launches"] == 17 and len(t["kernels"]) == 17 and len(out["launches"]) == 17, t.keys()
k = t["kernels"][0]
assert (k["rank"], k["function"], k["class"], k["tools"], k["longest_launch_id"]) == (1, "reduce_atomic", "latency", True, 3), k
assert all(a["saving_s"] >= b["saving_s"] for a, b in zip(t["kernels"], t["kernels"][1:]))
assert abs(sum(k["share"] for k in t["kernels"]) - 1) < 1e-9 and t["floor_s"] > 0
assert t["feedback_text"].startswith("# The whole task")
ev = out["launches"][0]["stage1"]["evidence"]
assert ev["rule"] == "intensity" and ev["memory"]["unit"] in ("DRAM", "L2") and ev["units"], ev
print("ok")
PY
# one launch: no ranking
expect_exit 0 "$KP" diagnose --ncu-csv "$G/ncu_raw.csv" --launch 1
lacks out "Whole task"
