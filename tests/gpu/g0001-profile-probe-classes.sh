#!/bin/sh
# On the GPU: profile the 17 probe kernels through kernelpro (targeted ncu collection) and get labels.json's classes.
. "$KP_ROOT/tests/integration/lib.sh"
G="$KP_ROOT/tests/golden/h200-probe"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || skip "no nvcc to build kernels.cu"
"$NVCC" -O3 -arch=sm_90 -lineinfo -o kernels "$G/kernels.cu" -lcublas || fail "nvcc kernels.cu"
export XDG_CACHE_HOME="$PWD/cache"
expect_exit 0 "$KP" profile --json --out prof --sass --timeout 600 ./kernels all
cat err
python3 - "$G/labels.json" <<'PY' || fail "classes differ from labels.json (see above)"
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
seen, bad = set(), []
for l in out["launches"]:
    lab = label_for(l)
    s = l["stage1"]
    print("%3d %-28s %-8s %s" % (l["launch_id"], l["function"][:28], s["class"], s["reason"][:90]))
    if lab is None:
        continue
    seen.add(lab["id"])
    if s["class"] != lab["class"] or s["incomplete"]:
        bad.append((lab["name"], s["class"], lab["class"], s["missing_metrics"]))
missing = sorted(set(range(17)) - seen)
assert not missing, "probe kernels not profiled: %s" % missing
assert not bad, bad
assert out["gpu"]["key"] == "h200-sxm", out["gpu"]["key"]
print("all 17 probe kernels classified as labelled")
PY
# the targeted run asked ncu for exactly Stage 1's metrics, and the SASS joined (from ncu's source page)
grep -q '"status": "ok"' prof/profile.json || fail "ncu status"
python3 -c "
import json; o = json.load(open('out'))
assert all(l['sources']['sass'] for l in o['launches']), 'a launch without SASS'
" || fail "SASS join"
echo ok
