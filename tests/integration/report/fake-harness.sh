#!/bin/sh
# The optimize tests' fake harness (tests/integration/search/fake-harness.sh) plus what a report
# reads from a real one: the mean beside the median, and a Stage-1 profile for the reference and
# every correct version, placing it on an H200-like fp32 roofline (the faster the version, the more
# FLOP/s at the same intensity).
# A cheat_suspected verdict carries the flags that refused it.
# KP_FAKE_HOSTILE=1: the feedback and a finding's title carry markup that must never run in a page.
out=$(sh "$KP_ROOT/tests/integration/search/fake-harness.sh" "$@")
rc=$?
printf '%s\n' "$out" | python3 -c '
import json, os, sys
v = json.loads(sys.stdin.read())
rt = v.get("runtime") or {}
if rt.get("median_ms"):  # the mean over the same trials, a little above the median as on a GPU
    rt["mean_ms"] = round(rt["median_ms"] * 1.02, 6)
if v.get("status") == "cheat_suspected":  # the flag a real harness refuses with, and a warning beside it
    v["phase"] = "static"
    v["flags"] = [{"check": "flop_floor", "severity": "warn", "message": "above the fp32 peak"},
                  {"check": "reads_reference", "severity": "refuse", "message": "ModelNew calls get_inputs()"}]
if v.get("status") == "correct":
    ms = v.get("runtime", {}).get("median_ms", 2.0)
    flops, dram = 3.0e8, 2.7e8  # GELU over 8192 x 4096 floats: ~9 FLOP per element, in + out once
    v["profile"] = {"launch": {"kernel": "k", "stage1": {
        "class": "memory", "precision": "fp32", "ai": flops / dram, "achieved_flops": flops / (ms * 1e-3),
        "achieved_bw": dram / (ms * 1e-3), "compute_peak": 6.7e13, "memory_peak": 4.8e12}}}
    if os.environ.get("KP_FAKE_HOSTILE"):
        bad = "</pre><script>window.__kp_pwned=1</script><img src=x onerror=\"window.__kp_pwned=1\">"
        v["feedback"] = "occupancy " + bad + " & \x01 done"
        v["findings"] = [{"tool": "occupancy\"><b>", "severity": "high", "title": bad}]
print(json.dumps(v))
'
exit $rc
