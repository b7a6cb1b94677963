#!/bin/sh
# KernelBench's verdict vs ours on real model output (issue 28): `kernelpro eval` over every kernel of
# .kb-corpus/ (bench/kb-corpus-prepare.sh; carry it to the GPU machine) that KernelBench judged
# correct, one line per kernel with the check behind each disagreement, then the totals.
#   bench/real-output-judge.sh [-j JOBS] [-p PER_PROBLEM] [-n MAX] [-- EVAL_ARGS...]
# -j: evaluations at once (default 1: timing checks such as host_time need an idle GPU; more is for
#     --no-timing runs, whose builds then overlap), -p: kernels per (level, problem) (default all),
# -n: that many kernels, evenly spaced over the list (every level and run gets its share). EVAL_ARGS go to every `kernelpro eval` (e.g. --no-timing,
#     --tolerance-mode kernelbench-v0.1, --worker). Without a GPU only the static checks give verdicts.
# Writes each verdict and judge.json under $OUT (default: a temporary directory).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/env.sh"
jobs=1 per=0 max=0
while [ $# -gt 0 ]; do
	case "$1" in
	-j) jobs=$2; shift 2 ;;
	-p) per=$2; shift 2 ;;
	-n) max=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: bench/real-output-judge.sh [-j JOBS] [-p PER_PROBLEM] [-n MAX] [-- EVAL_ARGS...]" >&2; exit 2 ;;
	esac
done
corpus="$root/.kb-corpus"
[ -d "$corpus/runs" ] || { echo "real-output-judge: no $corpus: run bench/kb-corpus-prepare.sh first" >&2; exit 2; }
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/kp-judge-XXXXXX")}
exec python3 "$root/bench/real_output_judge.py" --kp "$KP" --corpus "$corpus" --out "$out" --jobs "$jobs" \
	--per-problem "$per" --max "$max" -- "$@"
