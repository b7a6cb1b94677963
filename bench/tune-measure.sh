#!/bin/sh
# Tuning measured on the GPU (issue 18, Measure): `kernelpro tune`, every point, on a native task
# (examples/native/row_sum with candidates/tunable.cu: THREADS x VEC x UNROLL, 48 variants) and a
# KernelBench-format task (examples/optimize/rmsnorm/rmsnorm.py with examples/kernelbench/
# rmsnorm_tunable.py: THREADS x VEC, 12 variants, through the warm worker), with empty build and
# result caches. Reports the speedup of the tuned variant over the untuned candidate and over the
# reference, variants per minute (builds and the worker's start included), and the same run again
# from the result cache.
#
#   there:  OUT=$OUT KP=dist/gpu/bin/kernelpro sh bench/tune-measure.sh   (or through tools/gpu-run.sh)
#
# TUNE_MEASURE_NATIVE_KNOBS trims the native space (e.g. "--knob UNROLL=1": 12 variants).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
KP=${KP:-$root/build/bin/kernelpro}
[ -x "$KP" ] || KP="$root/dist/gpu/bin/kernelpro"
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tune-measure-XXXXXX")}
mkdir -p "$out"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skip: no GPU here (run it on the GPU machine)"
	exit 0
fi
export KERNELPRO_HOME=${KERNELPRO_HOME:-$root}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/tune-measure-scratch-XXXXXX")
export KERNELPRO_WORKER_DIR="$scratch/workers"
mkdir -m 700 "$KERNELPRO_WORKER_DIR"
trap 'for s in "$KERNELPRO_WORKER_DIR"/*.sock; do [ -S "$s" ] && python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b\"{\\\"op\\\": \\\"shutdown\\\"}\\n\")" "$s"; done; rm -rf "$scratch"' EXIT
ex="$root/examples"

one() { # NAME TASK CANDIDATE [tune options...]
	name=$1 task=$2 cand=$3
	shift 3
	set -- "$KP" tune --json --strategy exhaustive --budget 200 --cache "$scratch/builds" --tune-cache "$scratch/tc" \
		"$task" "$cand" "$@"
	echo "== $name: $*"
	"$@" >"$out/$name.json" 2>"$out/$name.err" || { echo "FAIL: $(tail -3 "$out/$name.err")"; return 1; }
	"$@" >"$out/$name.again.json" 2>>"$out/$name.err" || { echo "FAIL (again): $(tail -3 "$out/$name.err")"; return 1; }
	python3 - "$out/$name.json" "$out/$name.again.json" <<'PY'
import json, sys
r, again = (json.load(open(p)) for p in sys.argv[1:3])
ok = [t for t in r["trials"] if t["status"] == "ok"]
fails = {}
for t in r["trials"]:
    if t["status"] != "ok":
        fails[t["status"]] = fails.get(t["status"], 0) + 1
print("  %d variants (%d correct%s) on %s" % (len(r["trials"]), len(ok),
      "".join(", %d %s" % (n, s) for s, n in sorted(fails.items())), r["gpu"]))
print("  untuned %.4g ms; best %s %.4g ms: %.2fx the untuned, %.2fx the reference (%.4g ms)" % (
      r["untuned"]["seconds"] * 1e3, r["best_point"], r["best_seconds"] * 1e3, r["speedup_vs_untuned"],
      r["speedup_vs_reference"], r["reference_seconds"] * 1e3))
print("  %d evaluated in %.1f s: %.1f variants per minute (fresh builds and caches)" % (
      r["evaluated"], r["wall_s"], r["variants_per_minute"]))
print("  again: %d from the cache, %d evaluated, %.1f s" % (again["cache_hits"], again["evaluated"], again["wall_s"]))
print("  table by speed: " + ", ".join("%s %.4g ms" % (t["point"], t["seconds"] * 1e3)
                                       for t in sorted(ok, key=lambda t: t["seconds"])[:5]) + (", ..." if len(ok) > 5 else ""))
PY
}

rc=0
# shellcheck disable=SC2086
one native-row_sum "$ex/native/row_sum" "$ex/native/row_sum/candidates/tunable.cu" ${TUNE_MEASURE_NATIVE_KNOBS:-} || rc=1
one kb-rmsnorm "$ex/optimize/rmsnorm/rmsnorm.py" "$ex/kernelbench/rmsnorm_tunable.py" || rc=1
exit $rc
