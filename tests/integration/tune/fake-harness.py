#!/usr/bin/env python3
"""Stand-ins for both harnesses in the tune tests (t1801), no GPU: the candidate's knob values (the first
value of each KP_TUNE(...) marker or KP_TUNE dict list) go into the expressions of its "fake-cost:",
"fake-wrong:", "fake-crash:" and "fake-nobuild:" comments, which decide the verdict and the time (ms) (the
fake nvcc asks `fake-harness.py --builds SOURCE` whether a variant builds). As kp-native-harness
it reads the native spec on stdin (the fake nvcc's "library" is the source); as kp_torch.py (the worker
calls main(), `python3 kp_torch.py` runs it) it reads the adapter's JSON config."""

import ast
import json
import os
import re
import signal
import sys
import time


def knob_values(src):
    vals = {}
    for m in re.finditer(r"KP_(?:TUNE|UNROLL)\(\s*([A-Z][A-Za-z0-9_]*)\s*,\s*(-?\d+)", src):
        vals.setdefault(m.group(1), int(m.group(2)))
    m = re.search(r"^KP_TUNE\s*=\s*(\{.*?\})\s*$", src, re.S | re.M)
    if m:
        for k, v in ast.literal_eval(m.group(1)).items():
            vals.setdefault(k, int(v[0]))
    return vals


def rule(src, name, vals, default):
    m = re.search(r"fake-%s:\s*(.+)$" % name, src, re.M)
    return eval(m.group(1), {"__builtins__": {"abs": abs}}, dict(vals)) if m else default


def timing(ms):
    return {"median_ms": ms, "mean_ms": ms, "std_ms": 0.0, "min_ms": ms, "max_ms": ms, "trials": 100,
            "host_median_ms": ms}


def verdict(src, time_ref, build_only):
    out = {"gpu_name": "NVIDIA H200", "compiled": True, "flags": []}
    if build_only:
        return dict(out, status="compiled", message="built")
    vals = knob_values(src)
    if rule(src, "crash", vals, False):
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    if rule(src, "wrong", vals, False):
        return dict(out, status="wrong_output", message="fake: 3 of 5 trials differ at %s" % vals,
                    trials_run=5, trials_passed=2)
    out.update(status="correct", message="fake: correct %s" % vals, trials_run=5, trials_passed=5,
               runtime=timing(float(rule(src, "cost", vals, 1.0))))
    if time_ref:
        out["ref_runtime"] = timing(10.0)
    return out


def emit(result):
    sys.stdout.write(json.dumps({"phase": "correctness", "limit_s": 9, "t": time.monotonic()}) + "\n")
    sys.stdout.write(json.dumps({"result": result}) + "\n")
    sys.stdout.flush()
    os._exit(0)


def preload():
    return {"imported": [], "failed": {}, "torch": None, "cuda_initialized": False}


def main(t_start=None, cold=False):
    cfg = json.load(sys.stdin)
    src = open(cfg["candidate"]).read()
    emit(verdict(src, cfg.get("time_reference", True), cfg.get("build_only", False)))


def native():
    spec = dict(line.split(" ", 1) for line in sys.stdin.read().splitlines() if " " in line)
    src = open(spec["cand"]).read()
    emit(verdict(src, spec.get("time_reference", "1") == "1", False))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--builds"]:
        src = open(sys.argv[2]).read()
        sys.exit(1 if rule(src, "nobuild", knob_values(src), False) else 0)
    native() if os.path.basename(sys.argv[0]) == "kp-native-harness" else main(cold=True)
