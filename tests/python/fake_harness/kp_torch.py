#!/usr/bin/env python3
"""A stand-in for harness/kp_torch.py in tests of the warm worker (tests/python/test_worker.py,
tests/unit/t_eval_worker.c): the same protocol (a JSON config on stdin, JSON lines on stdout, the
process ends with os._exit), no torch. The config's "do" (else $FAKE_DO) says what the job does;
"hang_in_worker" hangs only when the worker runs it in-process, and answers when started cold;
"fork_error_in_worker" answers as the adapter does in a child where torch refuses CUDA (a bad fork)."""

import json
import os
import signal
import subprocess
import sys
import time


def secrets_seen():
    """The names in our environment that look like an API key (kernelpro passes none to a harness)."""
    return sorted(k for k in os.environ if "KEY" in k.upper())


def preload():
    """$FAKE_PRELOAD_PIDFILE: the worker writes its pid there; $FAKE_PRELOAD_GATE: then waits (up to 60 s)
    until that file exists, as a worker still importing torch would (the early start's tests)."""
    if os.environ.get("FAKE_PRELOAD_PIDFILE"):
        with open(os.environ["FAKE_PRELOAD_PIDFILE"], "w") as f:
            f.write(str(os.getpid()))
    gate = os.environ.get("FAKE_PRELOAD_GATE")
    end = time.monotonic() + 60
    while gate and not os.path.exists(gate) and time.monotonic() < end:
        time.sleep(0.02)
    return {"imported": [], "failed": {}, "torch": None,
            "cuda_initialized": os.environ.get("FAKE_CUDA_INIT") == "1", "secrets_seen": secrets_seen()}


def result(obj):
    sys.stdout.write(json.dumps({"result": obj}) + "\n")
    sys.stdout.flush()


def main(t_start=None, cold=False):
    cfg = json.load(sys.stdin)
    do = cfg.get("do", os.environ.get("FAKE_DO", "ok"))
    if do == "hang_in_worker":
        do = "ok" if cold else "hang"
    if do == "fork_error_in_worker" and not cold:
        result({"status": "runtime_error", "flags": [], "phase": "build",
                "message": "RuntimeError during build: Cannot re-initialize CUDA in forked subprocess. To use CUDA "
                           "with multiprocessing, you must use the 'spawn' start method"})
        os._exit(0)
    sys.stdout.write(json.dumps({"phase": "correctness", "limit_s": 9, "t": time.monotonic()}) + "\n")
    sys.stdout.flush()
    if do == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif do == "hang":
        time.sleep(1000)
    elif do == "hang_hard":  # ignores SIGTERM: only SIGKILL ends it
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(1000)
    elif do == "flood":
        sys.stderr.write("x" * int(cfg.get("n", 1 << 20)))
        sys.stderr.flush()
    elif do == "grandchild":
        p = subprocess.Popen(["sleep", "100"])
        with open(cfg["pidfile"], "w") as f:
            f.write(str(p.pid))
    elif do == "exit":
        sys.stdout.flush()
        os._exit(int(cfg.get("code", 3)))
    seen = secrets_seen()
    result({"status": "correct",
            "message": "fake pid=%d ppid=%d%s%s" % (os.getpid(), os.getppid(), " cold" if cold else "",
                                                    " secrets=" + ",".join(seen) if seen else ""),
            "flags": [], "trials_run": 1, "trials_passed": 1,
            "pid": os.getpid(), "pgid": os.getpgid(0), "ppid": os.getppid(), "cwd": os.getcwd(),
            "foo": os.environ.get("FOO"), "argv": sys.argv,
            "timeline": "start %.3f" % (time.monotonic() - (t_start or time.monotonic())),
            "correctness_parts": {"candidate": {"seconds": 0.25, "calls": 3, "longest": 0.2},
                                  "other": {"seconds": 0.5, "calls": 0, "longest": 0.0}}})
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main(cold=True)
