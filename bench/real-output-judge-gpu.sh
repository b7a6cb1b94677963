#!/bin/sh
# bench/real-output-judge.sh with its arguments from the environment, for tools/gpu-run.sh and
# tools/gpu-par.sh (which run a benchmark by its path alone):
#   JUDGE_ARGS="-j 4 -p 1 -n 24 -- --no-timing" sh bench/real-output-judge-gpu.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC2086
exec sh "$root/bench/real-output-judge.sh" ${JUDGE_ARGS:-}
