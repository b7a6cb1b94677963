#!/bin/sh
# load_inline candidates with and without the build cache (issue 29: main.cpp with the shared precompiled
# torch/extension.h, cuda.cu with ATen's Tensor and the operators it calls where it builds so): the same
# candidates (the example, and a variant that computes the wrong thing) evaluated both ways through the
# warm worker, each build uncached, give the same verdict (status, trials, refusing checks); the build
# with the header used it (the adapter's inline_cache record). A re-judge (bench --kernels) of the two
# on the GPU agrees with their recorded verdicts.
. "$KP_ROOT/tests/integration/lib.sh"
export KERNELPRO_HOME="$KP_ROOT" KERNELPRO_WORKER_DIR="$KP_TMP/workers"
mkdir -m 700 "$KERNELPRO_WORKER_DIR"
task="$KP_ROOT/examples/kernelbench/swish_scale.py"
mkdir -p run kb/level1
cp "$task" kb/level1/2_SwishScale.py
cp "$KP_ROOT/examples/kernelbench/swish_scale_inline.py" run/level_1_problem_2_sample_0_kernel.py
sed 's|y\[i\] = scale \* x\[i\]|y[i] = 0.5f * scale * x[i]|' "$KP_ROOT/examples/kernelbench/swish_scale_inline.py" \
	>run/level_1_problem_2_sample_1_kernel.py
# run_eval FILE WANT COMMAND...: COMMAND's stdout into FILE; its exit must be WANT and FILE a verdict.
# `kernelpro eval` exits 0 for a correct verdict and 1 for any other (the job failed): the wrong variant,
# sample 1, exits 1. Any other exit, or no verdict on stdout, is a failure.
run_eval() {
	out=$1 want=$2
	shift 2
	rc=0
	"$@" >"$out" || rc=$?
	[ "$rc" -eq "$want" ] || { echo "    exit $rc, expected $want"; return 1; }
	python3 -c 'import json, sys; assert "status" in json.load(open(sys.argv[1]))' "$out" ||
		{ echo "    no verdict on stdout"; return 1; }
}
for s in 0 1; do
	k=run/level_1_problem_2_sample_${s}_kernel.py
	want=$s # 0: correct, exit 0; 1: wrong_output, exit 1
	run_eval plain$s.json "$want" env XDG_CACHE_HOME="$KP_TMP/plain" KERNELPRO_INLINE_CACHE=0 \
		"$KP" eval "$task" $k --worker --json || fail "plain eval of $k"
	run_eval pch$s.json "$want" env XDG_CACHE_HOME="$KP_TMP/shared" "$KP" eval "$task" $k --worker --json ||
		fail "eval of $k"
	python3 - plain$s.json pch$s.json <<'PY' || fail "$k: verdicts differ with the precompiled header"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda v: (v["status"], v["correctness"]["trials_run"], v["correctness"]["trials_passed"],
                 sorted(f["check"] for f in v.get("flags", []) if f["severity"] != "warn"))
assert key(a) == key(b), (key(a), key(b))
assert not a.get("build_note"), a.get("build_note")  # KERNELPRO_INLINE_CACHE=0: load_inline untouched
assert "main.cpp with the shared precompiled header" in (b.get("build_note") or ""), b.get("build_note")
assert "cuda.cu min: " in b["build_note"], b["build_note"]  # the example's wrapper needs only ATen's Tensor
assert "nvcc's host and device halves side by side" in b["build_note"], b["build_note"]  # kp_nvcc.py ran
print("   ", b["build_note"])
print(sys.argv[1], key(a), "build %s s plain, %s s with the header" % ((a.get("seconds") or {}).get("build"),
      (b.get("seconds") or {}).get("build")))
PY
	[ "$s" = 0 ] || continue # the light cuda.cu (KERNELPRO_INLINE_MIN=0) for the correct example
	run_eval light$s.json "$want" env XDG_CACHE_HOME="$KP_TMP/shared" KERNELPRO_INLINE_MIN=0 "$KP" eval "$task" $k \
		--worker --json || fail "eval of $k with KERNELPRO_INLINE_MIN=0"
	python3 - plain$s.json light$s.json <<'PY' || fail "$k: verdicts differ with the light cuda.cu"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda v: (v["status"], v["correctness"]["trials_run"], v["correctness"]["trials_passed"],
                 sorted(f["check"] for f in v.get("flags", []) if f["severity"] != "warn"))
assert key(a) == key(b), (key(a), key(b))
assert "cuda.cu light: " in (b.get("build_note") or ""), b.get("build_note")
print("   ", b["build_note"])
PY
done
grep -q '"status": *"correct"' plain0.json || fail "the example is not correct"
grep -q '"status": *"wrong_output"' plain1.json || fail "the wrong variant is not wrong_output"
ls "$KP_TMP"/shared/kernelpro/builds/inline/pch/*/kp_torch_extension.h.gch >/dev/null 2>&1 ||
	ls "$KP_TMP"/shared/*/builds/inline/pch/*/kp_torch_extension.h.gch >/dev/null 2>&1 ||
	fail "no precompiled header in the shared cache: $(find "$KP_TMP/shared" -maxdepth 4 | head)"
printf '{"2": [{"sample_id": 0, "compiled": true, "correctness": true, "runtime": 1.0},
 {"sample_id": 1, "compiled": true, "correctness": true, "runtime": 1.0}]}\n' >run/eval_results.json
XDG_CACHE_HOME="$KP_TMP/shared" "$KP" bench --kernels run --tasks kb --suites-dir suites --name g2901 --no-compile \
	>bench.out 2>bench.err || { cat bench.err; fail "bench --kernels"; }
cat bench.out
grep -qE '^level_1_problem_2_sample_0 +correct +correct +yes' bench.out || fail "sample 0"
grep -qE '^level_1_problem_2_sample_1 +correct +wrong_output +NO' bench.out || fail "sample 1"
echo ok
