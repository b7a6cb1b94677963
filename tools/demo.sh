#!/bin/sh
# The README's first command: the main job on a bundled example, as far as this machine allows.
# With a GPU: kernelpro optimize on examples/optimize/softmax with its recorded replies (the replay
# backend: no API key, no network), then the tree and one saved prompt. Without a GPU: the offline
# parts (Stage 1 and the tools on real H200 profiler data, the first prompt, the recorded replies
# built with nvcc), a list of what it skipped, and the report pages of real H200 runs shipped with
# the project (tools/demo-report.sh).
set -u
KP=${KP:-build/bin/kernelpro}
root=$(cd "$(dirname "$0")/.." && pwd)
export KERNELPRO_HOME=${KERNELPRO_HOME:-$root}
ex="$root/examples/optimize/softmax"
runs=${KERNELPRO_RUNS:-$root/build/demo-runs}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-demo-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

section() { printf '\n== %s\n' "$*"; }

section "kernelpro doctor"
"$KP" doctor
rc=$?
[ $rc -le 1 ] || exit $rc

if "$KP" doctor --json --no-counters --no-python 2>/dev/null | tr -d '\n ' | grep -q '"name":"gpu","status":"ok"'; then
	name=demo-$(date +%Y%m%d-%H%M%S)
	section "kernelpro optimize examples/optimize/softmax (GPU; recorded LLM replies)"
	"$KP" optimize "$ex" --llm "replay:$ex/replies" --evals "$(ls "$ex/replies" | wc -l)" \
		--runs-dir "$runs" --name "$name" || exit $?
	section "kernelpro show $name --tree"
	"$KP" show "$runs/$name" --tree
	section "the prompt that made version #4: the tools' feedback on #3 is in it"
	"$KP" show "$runs/$name" --node 4 | sed -n '/^## Profiling diagnosis/,/^## What earlier/p'
	echo
	echo "demo: done; the run is in $runs/$name (kernelpro show $runs/$name --node N for any version)"
	exit 0
fi

section "Stage 1 and the tools on real H200 profiler data (tests/golden/h200-probe, launch 0)"
g="$root/tests/golden/h200-probe"
"$KP" diagnose --ncu-csv "$g/ncu_raw.csv" --ncu-details "$g/ncu_details.csv" --sass "$g/sass.txt" \
	--ptxas "$g/ptxas.txt" --gpu h200-sxm --launch 0 --feedback-text || exit $?

section "the first prompt the programmer sends for examples/optimize/softmax (first 40 lines)"
python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["description"])' "$ex/task.json" >"$tmp/task.txt"
"$KP" ask --mode initial --dry-run --format cuda --task-name softmax --task-text "$tmp/task.txt" \
	--reference "$ex/reference.cu" >"$tmp/prompt.txt" || exit $?
sed -n 1,40p "$tmp/prompt.txt"
echo "[... $(wc -l <"$tmp/prompt.txt") lines in all]"

section "the recorded replies, extracted by the programmer and built with nvcc"
for r in "$ex"/replies/*.md; do
	mkdir -p "$tmp/one" && rm -f "$tmp/one"/* && cp "$r" "$tmp/one/"
	printf '%-22s ' "$(basename "$r")"
	if ! "$KP" ask --mode optimize --format cuda --reference "$ex/reference.cu" --parent "$ex/reference.cu" \
		--llm "replay:$tmp/one" >"$tmp/cand.cu" 2>"$tmp/ask.err"; then
		echo "no usable code: $(cat "$tmp/ask.err")"
		continue
	fi
	"$KP" eval --build-only "$ex" "$tmp/cand.cu" >"$tmp/eval.out" 2>&1
	head -1 "$tmp/eval.out"
	grep -m1 'error: ' "$tmp/eval.out" | sed 's/^ */    /'
done

cat <<EOF

demo: no usable GPU here, so this skipped what needs one: timing the reference and the candidates,
the ncu profiles and the tools' findings on them, and the search itself (every candidate it keeps
must be measured). On a machine with a GPU, the same command runs
  kernelpro optimize examples/optimize/softmax --llm replay:examples/optimize/softmax/replies
EOF
KP=$KP sh "$root/tools/demo-report.sh"
