#!/bin/sh
# On the GPU: profile the 17 probe kernels with only the metrics Stage 1 and the tools declare
# (kernelpro profile --tools all --sass): ncu must accept every name, and the tools must still put
# each planted bottleneck in the top two, with nothing high or critical on near-roofline kernels.
. "$KP_ROOT/tests/integration/lib.sh"
G="$KP_ROOT/tests/golden/h200-probe"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || skip "no nvcc to build kernels.cu"
"$NVCC" -O3 -arch=sm_90 -lineinfo -o kernels "$G/kernels.cu" -lcublas || fail "nvcc kernels.cu"
export XDG_CACHE_HOME="$PWD/cache"
start=$(date +%s)
expect_exit 0 "$KP" profile --json --tools all --sass --out prof --timeout 600 ./kernels all
echo "targeted collection with the tools' metrics: $(( $(date +%s) - start )) s"
grep -q '"status": "ok"' prof/profile.json || fail "ncu status"
python3 - "$G/labels.json" <<'PY' || fail "tools on the targeted collection (see above)"
import json, sys
out = json.load(open("out"))
labels = json.load(open(sys.argv[1]))["kernels"]
by_name = {k["name"]: k for k in labels}
def label_for(l):
    if l["function"] in by_name:
        return by_name[l["function"]]
    if "simt_sgemm" in l["kernel"]:
        return labels[15]
    if "tf32" in l["kernel"] and "xmma" in l["kernel"]:
        return labels[16]
    return None
bad = []
for l in out["launches"]:
    lab = label_for(l)
    tops = [f["tool"] for f in l["findings"][:2]]
    missing = [r["tool"] for r in l["tool_runs"] if r["status"] == "missing"]
    failed = [r["tool"] + ": " + (r["message"] or "") for r in l["tool_runs"] if r["status"] == "failed"]
    print("%3d %-20s %-8s top2=%-32s missing=%s" % (l["launch_id"], l["function"][:20], l["stage1"]["class"],
                                                   ",".join(tops), ",".join(missing)))
    if failed:
        bad.append((l["function"], "failed", failed))
    if lab is None:
        continue
    if lab.get("expect_top2") and not set(lab["expect_top2"]) & set(tops):
        bad.append((lab["name"], "planted", lab["expect_top2"], tops))
    if lab.get("near_roofline"):
        hi = [f["tool"] for f in l["findings"] if f["severity"] in ("high", "critical")]
        if hi:
            bad.append((lab["name"], "near roofline", hi))
assert not bad, bad
print("every planted bottleneck in the top two from the targeted collection")
PY
echo ok
