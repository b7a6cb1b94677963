# The example suite's recorded replies (examples/suite) through bench, the real programmer and nvcc:
# every reply of all ten tasks yields code, builds (CUDA, and the CUDA inside a fast-path .py), and
# every Python candidate compiles; the first softmax reply fails to build as recorded. Runs where
# nvcc is present; the GPU run is tests/gpu/g1402.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/bench/lib.sh"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || skip "no nvcc"
export NVCC KP_ROOT
E="$KP_ROOT/examples/suite"

expect_exit 0 "$KP" bench "$E/suite.txt" --suites-dir suites --name ex --gpus 0,1 --no-baselines \
	--evaluator "exec:sh $KP_ROOT/tests/integration/search/compile-check.sh"
contains out "suite ex: 10 tasks, 10 finished, 0 failed, 0 not done"
for r in suites/ex/runs/*; do
	"$KP" show "$r" --json >s.json || fail "show $r"
	python3 - s.json "$(basename "$r")" <<'PY' || fail "$r: a reply held no code or did not build"
import json, sys
d, name = json.load(open(sys.argv[1])), sys.argv[2]
u, o = d["used"], d["outcomes"]
want_ce = 1 if name == "softmax" else 0
assert u["generation_failures"] == 0, u
assert o["compile_error"] == want_ce and o["correct"] == u["evaluations"] - want_ce, (name, o, u)
print(name, u["evaluations"], "evaluations,", o["correct"], "built")
PY
done
# The Python candidates are valid Python (their CUDA was built above).
for f in suites/ex/runs/*/candidates/*.py; do
	python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f" || fail "$f does not parse"
done
[ "$(ls suites/ex/runs/*/candidates/*.py | wc -l)" = 8 ] || fail "expected 8 Python candidates"
exit 0
