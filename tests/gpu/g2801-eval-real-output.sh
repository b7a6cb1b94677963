#!/bin/sh
# Judging real model output fairly (issue 28), on a real GPU: an honest lazy build is built before the
# sandbox's lock and correct, a lazy build that fails is a compile_error with the compiler's reason;
# a content-keyed cache gets no speedup from it (no flop_floor, no excessive_speedup); with the
# kernels' record a decoy kernel is refused from it and an honest candidate's verdict lists the
# kernels it launched, with its own among them; every timed call had inputs of its own.
. "$KP_ROOT/tests/integration/lib.sh"
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
export KERNELPRO_HOME
cache="$KP_TMP/cache"
. "$KP_ROOT/tests/gpu/corpus.sh"

for f in kb_lazy_build.py kb_content_cache.py kb_torch_fallback.py kb_memo_pointer.py; do
	corpus_file "$KP_ROOT/tests/adversarial/kernelbench/$f"
done

# With the kernels' record (KERNELPRO_EVIDENCE=kernels): the decoy is refused, and an honest
# fast-path candidate's verdict names the kernels it ran, its own among them.
export KERNELPRO_EVIDENCE=kernels
corpus_file "$KP_ROOT/tests/adversarial/evidence/kb_decoy_kernel.py"
one "$KP_ROOT/examples/kernelbench/swish_scale_fast.py" examples/kernelbench/swish_scale.py "" correct honest_fast
unset KERNELPRO_EVIDENCE
python3 - honest_fast.json <<'PY' || { echo "    honest_fast: runtime evidence"; bad=$((bad + 1)); }
import json, sys
v = json.load(open(sys.argv[1]))
ev = v["runtime_evidence"]
print("    evidence: recorded %s, own %s, kernels %s, aten %s, timing %s" % (
    ev.get("recorded"), ev.get("own_kernels"), list(ev.get("kernels", {}))[:4], ev.get("aten_ops"),
    ev.get("timing_inputs")))
assert ev["recorded"] is True and ev["aten_ops"] == {}, ev
assert any("swish_scale_kernel" in k for k in ev["own_kernels"]), ev
assert ev["timing_inputs"]["mode"] == "predrawn" and len(ev["timing_inputs"]["checked"]) == 3, ev
PY

# A lazy build that fails: compile_error naming the line that builds, never process_spawn.
sed 's/y\[i\] = scale/y[i] = scale +* /' "$KP_ROOT/tests/adversarial/kernelbench/kb_lazy_build.py" >lazy_broken.py
one "$PWD/lazy_broken.py" examples/kernelbench/swish_scale.py "" compile_error lazy_broken
grep -q "forward() builds" lazy_broken.json || { echo "    lazy_broken: message does not name the build"; bad=$((bad + 1)); }
python3 -c "import json,sys; v=json.load(open('kb_lazy_build.py.json')); print('    lazy build: build %.1f s, lazy %.1f s' % (v['seconds']['build'], v['runtime_evidence']['lazy_build_s']))" || bad=$((bad + 1))

echo "$n cases, $bad wrong"
[ "$bad" -eq 0 ] || fail "$bad of $n verdicts wrong"
