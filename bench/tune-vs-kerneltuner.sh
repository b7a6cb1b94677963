#!/bin/sh
# kernelpro's tuner against Kernel Tuner's brute force (issue 18, Measure): the same kernel
# (examples/native/sgemm_tune/candidates/tunable.cu), the same space (kernelpro's reading of its KP_TUNE
# markers and constraints, handed to Kernel Tuner as tune_params and restrictions), and the check that
# each tool's best is within 2% of the other's best as the other measures it.
#
#   here:   sh bench/tune-vs-kerneltuner.sh prepare
#           builds tune-sim, writes dist/tune-kt/ (space.json and the Kernel Tuner wheels, ~9.6 MB),
#           prints the device command
#   there:  sh bench/tune-vs-kerneltuner.sh            (carry dist/tune-kt and dist/gpu; writes to $OUT)
#           or through tools/gpu-run.sh bench/tune-vs-kerneltuner.sh
#
# Kernel Tuner 1.5.0 compiles with NVRTC through CuPy (lang="cupy"), which the H200 image has
# (cupy-cuda13x); the image lacks kernel_tuner, python-constraint2, jsonschema (with
# jsonschema-specifications, referencing, rpds-py) and xmltodict: they travel as wheels. Its other
# needs (numpy, scipy, pandas, scikit-learn, packaging, attrs) are on the image; pymoo is only imported
# by strategies this script does not use.
#
# The kernelpro side is `kernelpro tune --strategy exhaustive` on the same file, timed like Kernel Tuner
# times (KT_ITERATIONS back-to-back runs per variant, default 20, no L2 flush between them), with empty
# build and result caches; each variant is still checked for correctness first, as `eval` does. The space
# both sides search is written on the GPU machine by the kernelpro that tunes (`kernelpro tune --list
# --json --hw h200-sxm`), so it is the same by construction; TUNE_KT_KNOBS trims it for both sides, e.g.
# TUNE_KT_KNOBS="--knob BK=16" (81 of the 242 points) when device time is short.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
task="$root/examples/native/sgemm_tune"
cand="$task/candidates/tunable.cu"
kt="$root/dist/tune-kt"
py=${KERNELPRO_PYTHON:-python3}
# The wheels, pinned: what `prepare` downloads and `run` installs.
wheels="kernel_tuner==1.5.0 python-constraint2==2.9.0 jsonschema==4.26.0 jsonschema-specifications==2025.9.1 \
referencing==0.37.0 rpds-py==2026.9.1 xmltodict==1.0.4"

prepare() {
	set -e
	make -s -C "$root" build/bench/tune-sim
	mkdir -p "$kt/whl"
	"$root/build/bench/tune-sim" space "$cand" --task "$task" --hw h200-sxm >"$kt/space.json"
	# shellcheck disable=SC2086
	$py -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
		--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
		--platform any -d "$kt/whl" $wheels
	echo "prepared $kt: $(du -sh "$kt" | cut -f1) ($(ls "$kt/whl" | wc -l) wheels; space $(grep -c '"name"' "$kt/space.json") knobs)"
	echo "device run: carry [\"dist/gpu\", \"dist/tune-kt\"], command: make gpu-bundle first, then"
	echo "  OUT=\$OUT KP=dist/gpu/bin/kernelpro sh bench/tune-vs-kerneltuner.sh"
}

kt_side() { # SPACE SOURCE INCLUDE OUTJSON ITERATIONS
	PYTHONUNBUFFERED=1 $py - "$@" <<'PY'
import json, sys, time

import numpy as np

import kernel_tuner
from kernel_tuner import tune_kernel

space_file, src_file, inc, out, iters = sys.argv[1:6]
space = json.load(open(space_file))
src = open(src_file).read()
names = [k["name"] for k in space["knobs"]]
tune_params = {k["name"]: k["values"] for k in space["knobs"]}
restrictions = [c["python"] for c in space["constraints"]]
# Kernel Tuner defines each knob as KP_TUNE_<NAME> (the form kp_tune.h takes from -D), and drops the
# host code: the same file kernelpro builds, compiled by NVRTC.
defines = {"KP_TUNE_" + n: "(%s)" % n for n in names}
defines["KP_KERNEL_ONLY"] = "1"

M = N = K = 2048  # examples/native/sgemm_tune/task.json
rng = np.random.default_rng(42)
A = rng.uniform(-1, 1, (M, K)).astype(np.float32)
B = rng.uniform(-1, 1, (K, N)).astype(np.float32)
C = np.zeros((M, N), np.float32)
ref = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32)
args = [A, B, C, np.int32(M), np.int32(N), np.int32(K)]

t0 = time.time()
results, env = tune_kernel(
    "sgemm_tuned", src, (N, M), args, tune_params,
    grid_div_x=["BX", "TN"], grid_div_y=["BY", "TM"], block_size_names=["BX", "BY"],
    restrictions=restrictions, answer=[None, None, ref, None, None, None], atol=1e-2,
    lang="cupy", compiler_options=["-I" + inc, "--std=c++17"], defines=defines,
    strategy="brute_force", iterations=int(iters), quiet=True)
elapsed = time.time() - t0

configs = []
for r in results:
    t = r.get("time")
    ok = isinstance(t, (int, float)) and not isinstance(t, str)
    configs.append({"point": " ".join("%s=%d" % (n, r[n]) for n in names),
                    "time_ms": float(t) if ok else None, "error": None if ok else str(t)})
good = [c for c in configs if c["time_ms"] is not None]
best = min(good, key=lambda c: c["time_ms"]) if good else None
default = " ".join("%s=%d" % (k["name"], k["default"]) for k in space["knobs"])
dflt = next((c for c in good if c["point"] == default), None)
doc = {"tool": "kernel_tuner " + kernel_tuner.__version__, "backend": "cupy (NVRTC)",
       "device": env.get("device_name"), "iterations": int(iters), "seconds": elapsed,
       "space_size": space["size"], "feasible_kernelpro": space.get("feasible"),
       "configs": configs, "best": best, "default": dflt}
json.dump(doc, open(out, "w"), indent=1)
print("kernel tuner %s on %s: %d configurations (kernelpro's space: %s feasible of %s), %d failed, %.0f s "
      "(%.1f variants/min)" % (kernel_tuner.__version__, doc["device"], len(configs), space.get("feasible"),
                              space["size"], len(configs) - len(good), elapsed, 60 * len(configs) / elapsed))
if best:
    print("best: %s  %.4f ms" % (best["point"], best["time_ms"]))
if best and dflt:
    print("untuned (the source's values): %s  %.4f ms; tuned over untuned %.2fx" %
          (default, dflt["time_ms"], dflt["time_ms"] / best["time_ms"]))
PY
}

compare() { # KT.json KP.json
	$py - "$@" <<'PY'
import json, sys

kt = json.load(open(sys.argv[1]))
kp = json.load(open(sys.argv[2]))
kt_t = {c["point"]: c["time_ms"] for c in kt["configs"] if c["time_ms"] is not None}
kp_t = {t["point"]: t["seconds"] * 1e3 for t in kp["trials"] if t["status"] == "ok"}
kt_all = {c["point"] for c in kt["configs"]}
kp_all = {t["point"] for t in kp["trials"]}
kt_best = kt["best"]["point"]
kp_best = kp["trials"][kp["best"]]["point"]
same_space = kt_all == kp_all
print("same points tried: %s (kernel tuner %d, kernelpro %d)" % (same_space, len(kt_all), len(kp_all)))
print("kernel tuner's best: %s; kernelpro's best: %s" % (kt_best, kp_best))
ok = same_space
for what, mine, other, times in (("kernelpro's pick as Kernel Tuner times it", kp_best, kt_best, kt_t),
                                 ("Kernel Tuner's pick as kernelpro times it", kt_best, kp_best, kp_t)):
    if mine in times and other in times:
        r = times[mine] / times[other]
        print("%s: %.4f ms vs best %.4f ms (%+.2f%%)" % (what, times[mine], times[other], 100 * (r - 1)))
        ok = ok and r <= 1.02
    else:
        print("%s: not measured (failed there)" % what)
        ok = False
print("RESULT: %s (same space, and each best within 2%% of the other's)" % ("PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
}

run() {
	out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tune-kt-XXXXXX")}
	mkdir -p "$out"
	KP=${KP:-$root/build/bin/kernelpro}
	[ -x "$KP" ] || KP="$root/dist/gpu/bin/kernelpro"
	if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
		echo "skip: no GPU here (run it on the GPU machine; 'prepare' runs here)"
		return 0
	fi
	if ! ls "$kt"/whl/*.whl >/dev/null 2>&1; then
		echo "skip: $kt is missing; run 'sh bench/tune-vs-kerneltuner.sh prepare' where pip works and carry dist/tune-kt"
		return 0
	fi
	if ! $py -c 'import cupy' >/dev/null 2>&1; then
		echo "skip: $py has no cupy, which Kernel Tuner's NVRTC backend needs"
		return 0
	fi
	site="${TMPDIR:-/tmp}/tune-kt-site"
	$py -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" \
		"$kt"/whl/*.whl || return 1
	# shellcheck disable=SC2086
	"$KP" tune --list --json --hw h200-sxm ${TUNE_KT_KNOBS:-} "$task" "$cand" >"$out/space.json" ||
		{ echo "FAIL: kernelpro cannot read the space"; return 1; }
	echo "space: $($py -c 'import json,sys; s=json.load(open(sys.argv[1])); print("%d knobs, %s points, %s feasible" % (len(s["knobs"]), s["size"], s["feasible"]))' "$out/space.json")${TUNE_KT_KNOBS:+ (trimmed: $TUNE_KT_KNOBS)}"
	echo "== Kernel Tuner, brute force"
	PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" kt_side "$out/space.json" "$cand" "$root/harness/include" \
		"$out/kt.json" "${KT_ITERATIONS:-20}" 2>&1 | tee "$out/kt.txt"
	[ -f "$out/kt.json" ] || { echo "FAIL: Kernel Tuner wrote no results"; return 1; }

	echo "== kernelpro"
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/tune-kt-scratch-XXXXXX")
	# shellcheck disable=SC2086
	set -- "$KP" tune "$task" "$cand" --strategy exhaustive --budget 1000 --json --trials "${KT_ITERATIONS:-20}" \
		--no-l2-flush --cache "$scratch/builds" --tune-cache "$scratch/tc" ${TUNE_KT_KNOBS:-}
	t0=$(date +%s)
	"$@" >"$out/kp.json" 2>"$out/kp.err" || { echo "FAIL: kernelpro tune: $(tail -3 "$out/kp.err")"; rm -rf "$scratch"; return 1; }
	rm -rf "$scratch"
	$py - "$out/kp.json" "$(( $(date +%s) - t0 ))" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ok = [t for t in r["trials"] if t["status"] == "ok"]
print("kernelpro tune on %s: %d variants, %d correct, %s s (%.1f variants/min, builds included)" % (
      r["gpu"], len(r["trials"]), len(ok), sys.argv[2], r["variants_per_minute"]))
print("best: %s  %.4f ms; untuned %.4f ms; tuned over untuned %.2fx" % (
      r["best_point"], r["best_seconds"] * 1e3, r["untuned"]["seconds"] * 1e3, r["speedup_vs_untuned"]))
PY
	echo "== comparison"
	compare "$out/kt.json" "$out/kp.json" | tee "$out/compare.txt"
}

case "${1:-run}" in
prepare) prepare ;;
run) run ;;
*)
	echo "usage: sh bench/tune-vs-kerneltuner.sh [prepare|run]" >&2
	exit 2
	;;
esac
