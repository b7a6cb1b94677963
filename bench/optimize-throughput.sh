#!/bin/sh
# `kernelpro optimize` on the large task (examples/kernelbench/large_swish.py: a 6 GiB fp32 input,
# our own task) with recorded replies (bench/optimize-replies: four fast-path Swish variants, replay
# backend), timed from the run's own records (issue 12, item 3 and 4): the iteration overhead outside
# the LLM's own time against one evaluation (target <= 1.5x), the GPU busy share, the profiles done
# per candidate (on demand, speculative, final) and the profile step's share of an iteration, and a second run that takes the reference from the cache. About 3-4 minutes
# on the H200 (KP_BENCH_EVALS candidates, default 3; KP_BENCH_BUDGET seconds, default 240).
#   bench/optimize-throughput.sh
# Writes the table to stdout and, with both runs, under $OUT (default: a temporary directory).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/env.sh"
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "optimize-throughput: skipped: no GPU here (nvidia-smi -L failed)"
	exit 0
fi
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/kp-otput-XXXXXX")}
exec python3 "$root/bench/optimize_throughput.py" --kp "$KP" --root "$root" --out "$out" \
	--evals "${KP_BENCH_EVALS:-3}" --budget "${KP_BENCH_BUDGET:-240}"
