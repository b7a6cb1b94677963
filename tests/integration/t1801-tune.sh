#!/bin/sh
# kernelpro tune end to end without a GPU: stand-ins for nvcc and both harnesses (tests/integration/tune/)
# decide each variant's verdict and time from its knob values, so the table, the best, the statuses, the
# parallel builds, the result cache, the warm worker (KernelBench) and the errors can be checked exactly.
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null || skip "no python3"
d="$KP_ROOT/tests/integration/tune"
mkdir -p home/harness libexec nvcc w
ln -s "$KP_ROOT/harness/include" home/harness/include
ln -s "$KP_ROOT/harness/kp_worker.py" home/harness/kp_worker.py
ln -s "$d/fake-harness.py" home/harness/kp_torch.py
ln -s "$d/fake-harness.py" libexec/kp-native-harness
chmod 700 w
KERNELPRO_HOME="$KP_TMP/home" KERNELPRO_LIBEXEC="$KP_TMP/libexec" KERNELPRO_WORKER_DIR="$KP_TMP/w"
KERNELPRO_WORKER_IDLE=30 FAKE_NVCC_DIR="$KP_TMP/nvcc" XDG_CACHE_HOME="$KP_TMP/xdg"
# The stand-in nvcc's variable reaches it as a user's variable reaches any child (docs/eval.md).
KERNELPRO_PASS_ENV=FAKE_NVCC_DIR
export KERNELPRO_HOME KERNELPRO_LIBEXEC KERNELPRO_WORKER_DIR KERNELPRO_WORKER_IDLE FAKE_NVCC_DIR XDG_CACHE_HOME \
	KERNELPRO_PASS_ENV
trap 'for s in "$KERNELPRO_WORKER_DIR"/*.sock; do [ -S "$s" ] && python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b\"{\\\"op\\\": \\\"shutdown\\\"}\\n\")" "$s"; done' EXIT
tune() { "$KP" tune --nvcc "$d/fake-nvcc" --arch sm_90a --cache "$KP_TMP/builds" --tune-cache "$KP_TMP/tc" --jobs 4 "$@"; }
task="$d/task"

# A native candidate, every feasible point: the statuses, the best, the speedups, the parallel builds.
expect_exit 0 tune --json "$task" "$d/scale.cu" -o best.cu
cp out first.json
python3 - <<'PY' || fail "native exhaustive run"
import json
r = json.load(open("first.json"))
st = {t["point"]: t["status"] for t in r["trials"]}
assert r["strategy"] == "exhaustive" and r["feasible"] == 14 and len(st) == 14 and r["exhausted"], r
assert r["trials"][r["default"]]["point"] == "BLOCK=256 ITEMS=2" and r["default"] == 0, r["default"]
assert [st["BLOCK=%d ITEMS=4" % b] for b in (64, 128, 256, 512)] == ["build_failed"] * 4, st
assert st["BLOCK=64 ITEMS=1"] == st["BLOCK=64 ITEMS=2"] == "run_failed" and st["BLOCK=1024 ITEMS=2"] == "wrong", st
assert sum(s == "ok" for s in st.values()) == 7, st
assert r["best_point"] == "BLOCK=512 ITEMS=1" and abs(r["best_seconds"] - 1.125e-3) < 1e-12, r["best_point"]
assert abs(r["speedup_vs_untuned"] - 2.0) < 1e-9 and abs(r["speedup_vs_reference"] - 10 / 1.125) < 1e-9, r
assert r["untuned"]["status"] == "correct" and abs(r["reference_seconds"] - 0.01) < 1e-12, r["untuned"]
assert r["cache_hits"] == 0 and r["evaluated"] == 14 and r["gpu"] == "NVIDIA H200", r
assert r["space"]["feasible"] == 14 and [k["name"] for k in r["space"]["knobs"]] == ["BLOCK", "ITEMS"], r["space"]
ranks = sorted(r["trials"], key=lambda t: t["rank"])
assert ranks[0]["point"] == r["best_point"] and ranks[-1]["status"] != "ok", ranks
wrong = next(t for t in r["trials"] if t["status"] == "wrong")
assert wrong["verdict"] == "wrong_output" and "3 of 5 trials differ" in wrong["message"], wrong
nb = next(t for t in r["trials"] if t["status"] == "build_failed")
assert nb["verdict"] == "compile_error", nb
PY
contains best.cu 'KP_TUNE(BLOCK, 512, 256, 64, 128, 1024)'
contains best.cu 'KP_TUNE(ITEMS, 1, 2, 4)'
# The variants were built several at a time; the timed evaluations then found them in the build cache.
sort -n nvcc/concurrency | tail -1 | grep -qv '^1$' || fail "no two builds overlapped: $(cat nvcc/concurrency)"
builds=$(wc -l <nvcc/builds)
[ "$builds" -eq 15 ] || fail "$builds builds for the reference and 14 variants"

# The same again: every variant but the untuned one (checked afresh each time) from the result cache,
# nothing rebuilt, the same answer.
expect_exit 0 tune --json "$task" "$d/scale.cu"
python3 - <<'PY' || fail "second run from the cache"
import json
a, b = json.load(open("first.json")), json.load(open("out"))
assert b["cache_hits"] == 13 and b["evaluated"] == 1, (b["cache_hits"], b["evaluated"])
assert [t["point"] for t in a["trials"]] == [t["point"] for t in b["trials"]]
assert [t["status"] for t in a["trials"]] == [t["status"] for t in b["trials"]]
assert b["best_point"] == a["best_point"] and not b["trials"][0]["cached"] and b["trials"][1]["cached"], b
PY
[ "$(wc -l <nvcc/builds)" -eq "$builds" ] || fail "the second run rebuilt something"

# The table for people: fastest first, the untuned and cached rows marked, why the failures failed.
expect_exit 0 tune "$task" "$d/scale.cu"
contains out "rank  status       time         vs untuned vs ref    BLOCK ITEMS"
contains out "1     ok           1.1250 ms    2.000x     8.889x      512     1  (cached)"
contains out "  (untuned)"
contains out "BLOCK=1024 ITEMS=2: wrong (cached)"
contains out "best BLOCK=512 ITEMS=1: 1.12 ms, 2x the untuned (2.25 ms), 8.89x the reference (10 ms)"
contains out "exhaustive: 14 variants, 1 evaluated and 13 from the cache"

# Overrides: the values to try (the source's own kept), a new space with its own cached results;
# bayes and random within a budget never repeat a point.
expect_exit 0 tune --json --knob BLOCK=512,1024 --knob ITEMS=1 "$task" "$d/scale.cu"
python3 - <<'PY' || fail "overrides"
import json
r = json.load(open("out"))
assert sorted(t["point"] for t in r["trials"]) == ["BLOCK=1024 ITEMS=1", "BLOCK=1024 ITEMS=2", "BLOCK=256 ITEMS=1",
                                                  "BLOCK=256 ITEMS=2", "BLOCK=512 ITEMS=1", "BLOCK=512 ITEMS=2"], r["trials"]
assert r["cache_hits"] == 0 and r["best_point"] == "BLOCK=512 ITEMS=1", r
PY
for s in random bayes; do
	expect_exit 0 tune --json --no-tune-cache --strategy $s --budget 6 --seed 3 "$task" "$d/scale.cu"
	python3 - $s <<'PY' || fail "$s within its budget"
import json, sys
r = json.load(open("out"))
pts = [t["point"] for t in r["trials"]]
assert r["strategy"] == sys.argv[1] and len(pts) == 6 == len(set(pts)) and pts[0] == "BLOCK=256 ITEMS=2", pts
assert r["cache_hits"] == 0 and r["evaluated"] == 6, r
PY
done

# The space alone, without evaluating: text and JSON; a KernelBench candidate's KP_TUNE dict.
expect_exit 0 "$KP" tune --list --hw h200-sxm "$task" "$d/scale.cu"
contains out "2 knobs, 15 points, 1 constraint"
contains out "  BLOCK (declared, line 13, 1 place): 64 128 [256] 512 1024"
contains out "feasible: 14 (the constraints with the limits of h200-sxm)"
expect_exit 0 "$KP" tune --list --json "$KP_ROOT/examples/kernelbench/swish_scale.py" "$d/swish_tunable.py"
contains out '"name": "WAVES"'

# Errors: each says what is wrong and what to do, before any GPU work where it can.
cp "$d/plain.cu" plain.cu
expect_exit 1 tune "$task" plain.cu
contains err "'plain.cu' declares no knob and kernelpro derives none from it: declare the values to try with KP_TUNE(NAME, default, v2, ...)"
sed 's|^// fake-wrong: .*|// fake-wrong: BLOCK == 256|' "$d/scale.cu" >wrong_untuned.cu
expect_exit 1 tune "$task" wrong_untuned.cu
contains err "'wrong_untuned.cu' is not correct as given (wrong_output: fake: 3 of 5 trials differ"
# Correct as given, but its own values break a constraint and every other variant is wrong.
sed -e 's|^// fake-wrong: .*|// fake-wrong: BLOCK != 256|' -e 's|^KP_TUNE_CONSTRAINT(.*|KP_TUNE_CONSTRAINT(BLOCK != 256);|' \
	"$d/scale.cu" >all_wrong.cu
expect_exit 1 tune "$task" all_wrong.cu
contains err "none of the 12 variants of 'all_wrong.cu' tried was correct (4 build_failed, 2 run_failed, 6 wrong)"
contains out "rank  status"
expect_exit 1 tune --knob BLOCK=12x "$task" "$d/scale.cu"
contains err "knob override 'BLOCK=12x': '12x' is not an integer"
expect_exit 1 tune --knob WARPS=2 "$task" "$d/scale.cu"
contains err "scale.cu has no knob 'WARPS'; its knobs: BLOCK, ITEMS"
expect_exit 1 tune --strategy exhaustive --budget 4 "$task" "$d/scale.cu"
contains err "has 14 feasible points, more than the budget of 4; raise the budget or use random or bayes"
expect_exit 1 tune --knob BLOCK=256 --knob ITEMS=2 "$task" "$d/scale.cu"
contains err "leave only the untuned point"
expect_exit 2 tune "$task" "$d/swish_tunable.py"
contains err "native tasks take .cu candidates"

# A KernelBench task through the warm worker: the KP_TUNE dict's variants, no build ahead (the fast
# path builds in the harness), the worker's forks doing the evaluations.
expect_exit 0 tune --json "$KP_ROOT/examples/kernelbench/swish_scale.py" "$d/swish_tunable.py" -o best.py
python3 - <<'PY' || fail "KernelBench task"
import json
r = json.load(open("out"))
st = {t["point"]: t["status"] for t in r["trials"]}
assert len(st) == 8 and st["BLOCK=256 WAVES=2"] == st["BLOCK=128 WAVES=2"] == "wrong", st
assert r["best_point"] == "BLOCK=256 WAVES=16" and abs(r["speedup_vs_untuned"] - 1.5) < 1e-9, r
assert "worker_note" not in r, r.get("worker_note")
PY
contains best.py 'KP_TUNE = {"BLOCK": [256, 128], "WAVES": [16, 8, 2, 32]}'
ls "$KERNELPRO_WORKER_DIR"/*.sock >/dev/null 2>&1 || fail "no warm worker was started"

# kp_tune.h is part of a native build's cache key: the same source rebuilds when the header changes,
# and a source that does not include it keeps its key.
cp -r "$KP_ROOT/harness/include" inc2
echo '/* changed */' >>inc2/kp_tune.h
mkdir -p home2/harness && ln -s "$KP_TMP/inc2" home2/harness/include
ev() { "$KP" eval --build-only --json --nvcc "$d/fake-nvcc" --arch sm_90a --cache "$KP_TMP/builds" "$@"; }
expect_exit 0 ev "$task" "$d/scale.cu"
contains out '"build_cached": true'
KERNELPRO_HOME="$KP_TMP/home2" expect_exit 0 ev "$task" "$d/scale.cu"
contains out '"build_cached": false'
KERNELPRO_HOME="$KP_TMP/home2" expect_exit 0 ev "$task" "$task/reference.cu"
contains out '"build_cached": true'
echo ok
