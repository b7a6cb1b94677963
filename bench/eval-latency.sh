#!/bin/sh
# Per-candidate latency from source to verdict, side by side with KernelBench's own harness: now part
# of bench/eval-throughput.sh (the same small-task cases, the warm worker, and the 6 GiB task).
#   bench/eval-latency.sh [REPEATS]
exec sh "$(dirname "$0")/eval-throughput.sh" "$@"
