# Sourced by the report tests: CPU runs made with recorded replies and a fake harness that also
# reports Stage-1 profiles (fake-harness.sh here), gathered as one suite.
. "$KP_ROOT/tests/integration/search/lib.sh"
R="$KP_ROOT/tests/integration/report"
RFAKE="exec:sh $R/fake-harness.sh"

# make_suite DIR: DIR/gelu (native, 2.6x, profiles), DIR/kb (KernelBench layout, 2.0x vs eager exactly,
# a cached baseline with torch.compile at 1.6 ms), DIR/fail (a compile error only: no correct version).
make_suite() {
	mkdir -p "$KP_TMP/KB/level1"
	cp "$KP_ROOT/examples/kernelbench/swish_scale.py" "$KP_TMP/KB/level1/2_Swish_scale.py"
	"$KP" optimize "$KP_ROOT/examples/native/gelu" --llm "replay:$S/replay" --evaluator "$RFAKE" --evals 8 \
		--name gelu --runs-dir "$1" >/dev/null 2>&1 || fail "optimize gelu"
	"$KP" optimize "$KP_TMP/KB/level1/2_Swish_scale.py" --llm "replay:$R/replay-kb" --evaluator "$RFAKE" \
		--evals 2 --name kb --runs-dir "$1" >/dev/null 2>&1 || fail "optimize kb"
	printf '{"schema":"kernelpro.baseline/1","eager":{"median_ms":2.0,"trials":100},"torch_compile":{"median_ms":1.6,"trials":100}}\n' \
		>"$1/kb/baseline.json"
	"$KP" optimize "$KP_ROOT/examples/native/row_sum" --llm "replay:$S/replay" --evaluator "$RFAKE" --evals 1 \
		--name fail --runs-dir "$1" >/dev/null 2>&1 || fail "optimize fail"
}

# make_hostile DIR: one run whose task name, version summary, feedback and findings carry markup.
make_hostile() {
	cp -r "$KP_ROOT/examples/native/gelu" "$KP_TMP/hostile-task"
	python3 - "$KP_TMP/hostile-task/task.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["name"] = "<script>window.__kp_pwned=1</script>&amp;\"q\"'s"
json.dump(t, open(sys.argv[1], "w"))
PY
	KP_FAKE_HOSTILE=1 "$KP" optimize "$KP_TMP/hostile-task" --llm "replay:$R/replay-hostile" --evaluator "$RFAKE" \
		--evals 1 --name hostile --runs-dir "$1" >/dev/null 2>&1 || fail "optimize hostile"
}
