# The bundled examples' recorded replies (examples/optimize/*/replies) go through the real
# programmer (extraction) and nvcc: the first native reply fails to compile as recorded, the
# repair and every optimization build. Runs where nvcc is present; the GPU run is tests/gpu/g0701.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/search/lib.sh"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || skip "no nvcc"
export NVCC KP_ROOT
E="$KP_ROOT/examples/optimize"
CHECK="exec:sh $KP_ROOT/tests/integration/search/compile-check.sh"

n=$(ls "$E/softmax/replies" | wc -l)
expect_exit 0 "$KP" optimize "$E/softmax" --llm "replay:$E/softmax/replies" --evaluator "$CHECK" --evals "$n" --name softmax
contains err "#2: compile_error"
contains err "#3: repair of #2"
"$KP" show softmax --node 2 >node2 || fail "show node 2"
contains node2 '"__shfl_down" is undefined'
"$KP" show softmax --node 3 >node3 || fail "show node 3"
contains node3 "== prompt (debug, round 0)"
contains node3 '"__shfl_down" is undefined'
"$KP" show softmax --json >sum.json
[ "$(json sum.json 'd["outcomes"]["compile_error"]')" = 1 ] || fail "softmax: not exactly one compile error"
[ "$(json sum.json 'd["outcomes"]["correct"]')" = $((n - 1)) ] || fail "softmax: a later reply did not build"
[ "$(json sum.json 'd["used"]["generation_failures"]')" = 0 ] || fail "softmax: a reply held no usable code"

n=$(ls "$E/rmsnorm/replies" | wc -l)
expect_exit 0 "$KP" optimize "$E/rmsnorm/rmsnorm.py" --llm "replay:$E/rmsnorm/replies" --evaluator "$CHECK" \
	--evals "$n" --name rmsnorm
"$KP" show rmsnorm --json >sum.json
[ "$(json sum.json 'd["outcomes"]["correct"]')" = "$n" ] || fail "rmsnorm: a reply did not build"
[ "$(json sum.json 'd["used"]["generation_failures"]')" = 0 ] || fail "rmsnorm: a reply held no usable code"
"$KP" show rmsnorm --node 2 >node2
contains node2 "class ModelNew"
exit 0
