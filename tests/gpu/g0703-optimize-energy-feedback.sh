#!/bin/sh
# --objective speed+energy with profiling on the GPU: the diagnosis pipeline's collection set adds
# the energy proxy's counters to the one ncu run per correct version, and the feedback a prompt
# carries ends with the energy paragraph (docs/energy.md), quoting the NVML figure the harness
# measured for that version (native task).
. "$KP_ROOT/tests/integration/lib.sh"
export KERNELPRO_HOME="$KP_ROOT"
E="$KP_ROOT/examples/optimize/softmax"
n=$(ls "$E/replies" | wc -l)
"$KP" optimize "$E" --llm "replay:$E/replies" --evals "$n" --objective speed+energy \
	--runs-dir runs --name energy >out 2>err
rc=$?
cat out err
[ $rc -eq 0 ] || fail "optimize exited $rc"
keep=${KP_GPU_LOGS:-$KP_TMP}/g0703
mkdir -p "$keep" && cp -r runs/energy "$keep/" 2>/dev/null
# The energy proxy's own counts were collected next to Stage 1's and the tools'.
raw=$(ls runs/energy/profiles/*/ncu_raw.csv 2>/dev/null | head -1)
[ -n "$raw" ] || fail "no version was profiled (see runs/energy/profiles/*/ncu.log)"
head -1 "$raw" | grep -q "smsp__sass_thread_inst_executed_op_integer_pred_on.sum" ||
	fail "$raw lacks the energy proxy's counters"
# A prompt made from a correct, profiled version carries the tools' feedback and the energy paragraph.
found=0
for i in $(seq 2 $((n + 1))); do
	"$KP" show runs/energy --node "$i" >node$i.txt 2>/dev/null || continue
	if grep -q "## Profiling diagnosis of this version" node$i.txt && grep -q "^Energy" node$i.txt; then
		found=1
		grep "^Energy" node$i.txt
	fi
done
[ $found -eq 1 ] || fail "no saved prompt carries the energy paragraph"
grep -h "^Energy: .* measured (NVML" node*.txt >/dev/null ||
	echo "note: no prompt quotes an NVML figure (energy measurement unavailable?); the estimate was used"
exit 0
