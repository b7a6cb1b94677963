#!/usr/bin/env python3
"""Stand-ins for both harnesses in the tune tests (t1801), no GPU: the candidate's knob values (the first
value of each KP_TUNE(...) marker or KP_TUNE dict list) go into the expressions of its "fake-cost:",
"fake-wrong:", "fake-crash:" and "fake-nobuild:" comments, which decide the verdict and the time (ms) (the
fake nvcc asks `fake-harness.py --builds SOURCE` whether a variant builds). As kp-native-harness
it reads the native spec on stdin (the fake nvcc's "library" is the source); as kp_torch.py (the worker
calls main(), `python3 kp_torch.py` runs it) it reads the adapter's JSON config. As an exec evaluator
(`fake-harness.py --exec FILE`, optimize --evaluator exec:..., t1802) it prints the `kernelpro eval --json`
verdict: the reference (KP_EVAL_ROLE=reference) at its "fake-cost:" or 10 ms, a candidate by its rules;
KP_FAKE_SLEEP=SECONDS slows each one (the kill tests)."""

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
    """In the warm worker (t1201): $KP_FAKE_PRELOAD_MARK gets the worker's pid when its import begins; then
    $KP_FAKE_PRELOAD_SLEEP seconds of "importing"; $KP_FAKE_PRELOAD_FAIL=1 fails it."""
    if os.environ.get("KP_FAKE_PRELOAD_MARK"):
        with open(os.environ["KP_FAKE_PRELOAD_MARK"], "w") as f:
            f.write(str(os.getpid()))
    time.sleep(float(os.environ.get("KP_FAKE_PRELOAD_SLEEP", "0")))
    if os.environ.get("KP_FAKE_PRELOAD_FAIL") == "1":
        raise ImportError("fake: torch cannot be imported")
    return {"imported": [], "failed": {}, "torch": None, "cuda_initialized": False}


def baseline():
    """The reference timed alone (optimize's harness evaluator, t1802): 10 ms. With $KP_FAKE_REF_WAIT
    (t1201) it first waits up to that many seconds for $KP_FAKE_PRELOAD_MARK (a worker importing while the
    reference is evaluated) and says in the trace whether it saw one; $KP_FAKE_REF_FAIL=1 then fails."""
    if os.environ.get("KP_FAKE_REF_WAIT"):
        mark, end = os.environ["KP_FAKE_PRELOAD_MARK"], time.monotonic() + float(os.environ["KP_FAKE_REF_WAIT"])
        while not os.path.exists(mark) and time.monotonic() < end:
            time.sleep(0.02)
        with open(os.environ["KP_FAKE_TRACE"], "a") as f:
            f.write("reference: %s\n" % ("the worker was starting" if os.path.exists(mark) else "no worker yet"))
    if os.environ.get("KP_FAKE_REF_FAIL") == "1":
        return {"gpu_name": "NVIDIA H200", "status": "runtime_error", "message": "fake: the reference crashed",
                "flags": []}
    return {"gpu_name": "NVIDIA H200", "status": "correct", "message": "fake: the reference",
            "ref_runtime": timing(10.0), "flags": []}


def main(t_start=None, cold=False):
    cfg = json.load(sys.stdin)
    if os.environ.get("KP_FAKE_TRACE"):  # how each KernelBench evaluation ran: in the warm worker or cold
        with open(os.environ["KP_FAKE_TRACE"], "a") as f:
            f.write("cold\n" if cold else "warm\n")
    if cfg.get("mode") == "baseline":
        emit(baseline())
    src = open(cfg["candidate"]).read()
    emit(verdict(src, cfg.get("time_reference", True), cfg.get("build_only", False)))


def native():
    spec = dict(line.split(" ", 1) for line in sys.stdin.read().splitlines() if " " in line)
    if spec.get("mode") == "baseline":
        emit(baseline())
    src = open(spec["cand"]).read()
    emit(verdict(src, spec.get("time_reference", "1") == "1", False))


def exec_verdict(path):
    src = open(path).read()
    if os.environ.get("KP_FAKE_SLEEP"):
        time.sleep(float(os.environ["KP_FAKE_SLEEP"]))
    vals = knob_values(src)
    ref = {"median_ms": 10.0}
    if os.environ.get("KP_EVAL_ROLE") == "reference":
        ms = float(rule(src, "cost", vals, 10.0))
        return {"status": "correct", "runtime": {"median_ms": ms}, "ref_runtime": {"median_ms": ms}, "speedup": 1.0}
    if rule(src, "nobuild", vals, False):
        return {"status": "compile_error", "log": "fake: this variant does not build"}
    if rule(src, "crash", vals, False):
        return {"status": "runtime_error", "message": "fake: illegal address at %s" % vals}
    if rule(src, "wrong", vals, False):
        return {"status": "wrong_output", "message": "fake: 3 of 5 trials differ at %s" % vals}
    ms = float(rule(src, "cost", vals, 10.0))
    return {"status": "correct", "runtime": {"median_ms": ms}, "ref_runtime": ref, "speedup": 10.0 / ms}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--exec"]:
        print(json.dumps(exec_verdict(sys.argv[2])))
        sys.exit(0)
    if sys.argv[1:2] == ["--builds"]:
        src = open(sys.argv[2]).read()
        sys.exit(1 if rule(src, "nobuild", knob_values(src), False) else 0)
    native() if os.path.basename(sys.argv[0]) == "kp-native-harness" else main(cold=True)
