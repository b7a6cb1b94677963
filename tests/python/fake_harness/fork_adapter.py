#!/usr/bin/env python3
"""A stand-in adapter for the warm worker's fork-safety tests (tests/python/test_worker.py), on the
stand-in torch of tests/python/fake_torch: its preload() imports torch and does what $FAKE_PRELOAD
says (device_count, is_available, init: each a way real code reaches torch._C), its warm() is the real
adapter's (harness/kp_torch.py), and each job's child reports whether torch would give it CUDA and
how often the FLOP counter was used in its process before it: {"bad_fork": ..., "flop_uses": n,
"status": "correct" or the fork error}."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "harness"))
import kp_torch  # noqa: E402


def preload():
    import torch

    what = os.environ.get("FAKE_PRELOAD", "")
    if what == "device_count":
        torch.cuda.device_count()
    elif what == "is_available":
        torch.cuda.is_available()
    elif what == "init":
        torch.cuda._lazy_init()
    return {"imported": ["torch"], "failed": {}, "torch": torch.__version__,
            "cuda_initialized": bool(torch.cuda.is_initialized())}


def warm():
    return kp_torch.warm()


def main(t_start=None):
    import torch
    import torch.utils.flop_counter

    uses = torch.utils.flop_counter.uses

    json.load(sys.stdin)
    try:
        torch.cuda.set_device(0)
        r = {"status": "correct", "message": "cuda usable"}
    except RuntimeError as e:
        r = {"status": "runtime_error", "message": "RuntimeError during build: %s" % e}
    r["bad_fork"] = torch._C._cuda_isInBadFork()
    r["flop_uses"] = uses
    sys.stdout.write(json.dumps({"result": r}) + "\n")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
