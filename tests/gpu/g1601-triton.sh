#!/bin/sh
# Triton on a real GPU (docs/triton.md), in about four minutes:
#  1. Triton candidates of our own evaluated correct and timed: an elementwise (swish_scale), a
#     reduction (rmsnorm), a matmul (linear_relu: the worked example of prompts/format-triton.txt), and
#     a Triton task (softmax.py, whose reference is a Triton kernel) optimized in Triton and in CUDA;
#     the Triton cache is the candidate's own and a second evaluation compiles nothing.
#  2. every Triton hack of tests/adversarial/triton gets the verdict its header names (the static
#     refusals, and the Triton IR check after a run for the precision no static check can see).
#  3. optimize --format triton end to end with recorded replies (examples/triton/optimize/rmsnorm):
#     a wrong first version, its repair, an optimization; the tools' feedback carries Triton's launch
#     metadata (num_warps, num_stages, shared memory) into the next prompt.
#  4. the tools on a Triton kernel with a planted bottleneck (examples/triton/optimize/strided: the
#     reference walks the matrix column by column): coalescing is among the first two findings, its
#     "Do" lines are phrased for Triton, and the recorded fix is faster.
#  5. kernelpro tune on a Triton candidate whose meta-parameters are KP_TUNE knobs
#     (examples/triton/linear_relu_tunable.py, prompts/knobs-triton.txt): a correct best variant.
# Every evaluation runs in the sandbox: the Triton kernels compile before its lock (the adapter's
# warm_triton), so no candidate here may have a process refused. LLVM's first compile replaces the
# SIGSYS handler (with every fatal signal's): the sandbox answers it without effect (sandbox.ignored),
# which is no refusal; step 0 checks that with this machine's Triton before any GPU evaluation.
. "$KP_ROOT/tests/integration/lib.sh"
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
export KERNELPRO_HOME
cache="$KP_TMP/cache"
keep=${KP_GPU_LOGS:-$KP_TMP}/g1601
mkdir -p "$keep"
. "$KP_ROOT/tests/gpu/corpus.sh"
T="$KP_ROOT/examples/triton"

# --- 0. the sandbox's tests with this machine's Triton (tests/python/test_sandbox.py) ---------------
for py in "${KERNELPRO_PYTHON:-}" /opt/torch/.venv/bin/python3 python3; do
	[ -n "$py" ] && "$py" -c "import triton.compiler" 2>/dev/null && break
	py=
done
if [ -n "$py" ]; then
	(cd "$KP_ROOT" && KP_TRITON_PYTHON="$py" python3 -B -m unittest -v tests.python.test_sandbox) >sandbox-py.log 2>&1 ||
		{ cat sandbox-py.log; bad=$((bad + 1)); }
	grep -E "triton|llvm" sandbox-py.log
	cp sandbox-py.log "$keep/" 2>/dev/null
else
	echo "no python3 with triton: the sandbox's Triton tests not run"
fi

# --- 1. honest candidates ------------------------------------------------------------------------
for c in "kernelbench/swish_scale.py triton/swish_scale_triton.py" \
	 "optimize/rmsnorm/rmsnorm.py triton/rmsnorm_triton.py" \
	 "triton/linear_relu.py triton/linear_relu_triton.py" \
	 "triton/softmax.py triton/softmax_triton.py" \
	 "triton/softmax.py triton/softmax_cuda.py" \
	 "triton/linear_relu.py triton/linear_relu_tunable.py"; do
	set -- $c
	n=$((n + 1))
	name=$(basename "$2" .py)
	"$KP" eval --json --cache "$cache" "$KP_ROOT/examples/$1" "$KP_ROOT/examples/$2" >"$name.json" 2>"$name.err"
	rc=$?
	python3 - "$name.json" "$name" "$rc" <<'PY' || { bad=$((bad + 1)); cat "$name.err"; }
import json, sys
try:
    v = json.load(open(sys.argv[1]))
except ValueError:
    print("%-24s no verdict: kernelpro exited %s (its stderr below)" % (sys.argv[2], sys.argv[3]))
    sys.exit(1)
rt, ref = (v.get("runtime") or {}).get("median_ms"), (v.get("ref_runtime") or {}).get("median_ms")
print("%-24s %-10s %s ms (reference %s ms)%s" % (sys.argv[2], v["status"], rt, ref,
      "" if v["status"] == "correct" else "\n    " + (v.get("message") or "") + "\n    " + (v.get("log") or "")[:1500]))
bad = [f for f in v["flags"] if f["check"] in ("host_compute", "precision", "process_spawn")]
sb = v.get("sandbox") or {}
py = sb.get("python") or {}
print("    sandbox: processes blocked %s, refused for the candidate %s, build spawns %s" % (
      (sb.get("processes") or {}).get("blocked"), (sb.get("attempts") or {}).get("candidate"),
      len(py.get("build_spawns") or [])))
# What the filter answered, call by call (LLVM's SIGSYS handler in Triton's first compile is ignored,
# not refused), and what the audit hook refused, with the line that tried.
print("    refused %s, ignored %s, first refused calls %s, python refused %s" % (
      sb.get("refused"), sb.get("ignored"), sb.get("refused_calls"),
      ["%s (%s) at %s" % (r["event"], r["what"], r["where"]) for r in py.get("refused") or []]))
ok = v["status"] == "correct" and rt and ref and not bad and not sb.get("refused") and not py.get("refused")
sys.exit(0 if ok else 1)
PY
done
# The Triton cache is the candidate's own, and a second evaluation of it compiles nothing new.
sha=$(sha256sum "$T/linear_relu_triton.py" | cut -c1-16)
ls "$cache/triton/$sha"/*/linear_relu_kernel.cubin >/dev/null 2>&1 || { echo "no cubin in $cache/triton/$sha"; bad=$((bad + 1)); }
before=$(ls "$cache/triton/$sha" | wc -l)
"$KP" eval --json --cache "$cache" "$T/linear_relu.py" "$T/linear_relu_triton.py" >again.json 2>&1
[ "$(ls "$cache/triton/$sha" | wc -l)" -eq "$before" ] || { echo "the second evaluation compiled again"; bad=$((bad + 1)); }
grep -q '"status": "correct"' again.json || { echo "second evaluation:"; cat again.json; bad=$((bad + 1)); }

# --- 2. the hacks ----------------------------------------------------------------------------------
for f in "$KP_ROOT"/tests/adversarial/triton/*.py; do
	corpus_file "$f"
done
cp ./*.json ./*.err "$keep/" 2>/dev/null
echo "$n evaluations, $bad wrong"
[ "$bad" -eq 0 ] || fail "$bad evaluation(s) gave the wrong verdict (above)"

# --- 3. optimize --format triton with recorded replies --------------------------------------------
R="$T/optimize/rmsnorm/replies"
"$KP" optimize "$KP_ROOT/examples/optimize/rmsnorm/rmsnorm.py" --format triton --llm "replay:$R" --evals 3 \
	--cache "$cache" --runs-dir runs --name rms >rms.out 2>rms.err
rc=$?
cat rms.out rms.err
[ $rc -eq 0 ] || fail "optimize --format triton exited $rc"
"$KP" show runs/rms --tree --json >rms.json || fail "show rms"
"$KP" show runs/rms --tree
for i in 1 2 3 4; do "$KP" show runs/rms --node "$i" >"rms-node$i.txt"; done
cp -r runs/rms rms.* rms-node*.txt "$keep/" 2>/dev/null
python3 - rms.json <<'PY' || fail "rmsnorm: the story did not hold (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
tree = {t["node"]: t for t in d["tree"]}
assert tree[2]["outcome"] == "wrong_output", tree[2]
assert any(t["outcome"] == "correct" and t["parent"] for t in tree.values()), "no correct version"
assert all(t["language"] == "triton" for t in tree.values() if t["parent"]), "a version not in Triton"
best = d["best"]
print("rmsnorm: best #%d at %.2fx" % (best["node"], best["speedup"]))
PY
grep -l "Triton kernel rmsnorm_kernel: num_warps" rms-node*.txt >/dev/null ||
	fail "no feedback carries the Triton kernel's metadata (runs/rms/profiles/*/triton.json?)"

# --- 4. the tools on a planted bottleneck ----------------------------------------------------------
S="$T/optimize/strided"
"$KP" optimize "$S/strided_scale.py" --llm "replay:$S/replies" --evals 1 --cache "$cache" --runs-dir runs \
	--name strided >strided.out 2>strided.err
rc=$?
cat strided.out strided.err
[ $rc -eq 0 ] || fail "optimize strided exited $rc"
"$KP" show runs/strided --node 1 --json >ref.json || fail "show strided --node 1"
"$KP" show runs/strided --tree --json >strided.json || fail "show strided"
cp -r runs/strided ref.json strided.* "$keep/" 2>/dev/null
python3 - ref.json strided.json <<'PY' || fail "the planted bottleneck was not named (see above)"
import json, re, sys
fb = json.load(open(sys.argv[1]))["feedback"] or ""
print(fb)
tools = re.findall(r"^Tool: (\w+)", fb, re.M)
assert "coalescing" in tools[:2], ("coalescing not in the top two findings", tools)
assert "Triton kernel scale_kernel" in fb, "no Triton metadata in the reference's feedback"
assert "threadIdx" not in fb and "contiguous (stride-1) axis" in fb, "the Do lines are not phrased for Triton"
tree = {t["node"]: t for t in json.load(open(sys.argv[2]))["tree"]}
assert tree[2]["outcome"] == "correct" and tree[2]["speedup"] > 1.0, tree[2]
print("strided: top findings %s; the coalesced version %.2fx" % (tools[:2], tree[2]["speedup"]))
PY

# --- 5. tune a Triton candidate's KP_TUNE knobs ------------------------------------------------------
"$KP" tune --json --strategy random --budget 4 --seed 1 --cache "$cache" --no-tune-cache \
	"$T/linear_relu.py" "$T/linear_relu_tunable.py" -o best_tuned.py >tune.json 2>tune.err
rc=$?
cp tune.json tune.err best_tuned.py "$keep/" 2>/dev/null
[ $rc -eq 0 ] || { cat tune.err; fail "kernelpro tune on the Triton candidate exited $rc"; }
python3 - tune.json <<'PY' || fail "tune: no correct Triton variant (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
ok = [t for t in d["trials"] if t["status"] == "ok"]
print("tune: %d of %d variants correct; best %s at %s" % (len(ok), len(d["trials"]), d.get("best_point"),
      d.get("speedup_vs_untuned")))
assert d["untuned"]["status"] == "correct" and ok and d.get("best_point"), "no correct variant"
PY
"$KP" eval --cache "$cache" "$T/linear_relu.py" best_tuned.py >/dev/null 2>&1 || fail "the best variant is not correct"
exit 0
