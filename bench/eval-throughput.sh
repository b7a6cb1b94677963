#!/bin/sh
# Seconds per candidate, source to verdict, on every task size, side by side in one run (issue 12):
# the small task cold and with the warm worker (build uncached and cached), KernelBench's own harness
# on the same candidates (needs .kb/: bench/kb-prepare.sh, carried to the GPU machine), the native
# harness's cold start, and the large task (6 GiB input) with every check on. One table at the end,
# with the targets; about 6-8 minutes on the H200.
#   bench/eval-throughput.sh [REPEATS]          (default 5; KernelBench's harness runs 2)
# KP_BENCH_KB_REPS sets the runs of the slow load_inline and KernelBench cases (default 2);
# KP_BENCH_ONLY=large (comma-separated words) runs only the cases whose name holds one of them.
# Writes the table to stdout and, with every verdict, under $OUT (default: a temporary directory).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/env.sh"
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/kp-tput-XXXXXX")}
exec python3 "$root/bench/eval_throughput.py" --kp "$KP" --root "$root" --out "$out" --python "$py" \
	--reps "${1:-5}" --kb-reps "${KP_BENCH_KB_REPS:-2}" --budget "${KP_BENCH_BUDGET:-450}" --only "${KP_BENCH_ONLY:-}"
