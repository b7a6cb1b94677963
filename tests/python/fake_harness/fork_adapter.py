#!/usr/bin/env python3
"""A stand-in adapter for the warm worker's fork-safety tests (tests/python/test_worker.py), on the
stand-in torch of tests/python/fake_torch: its preload() imports torch and does what $FAKE_PRELOAD
says (device_count, is_available, init: each a way real code reaches torch._C), and each job's child
reports whether torch would give it CUDA: {"bad_fork": ..., "status": "correct" or the fork error}."""

import json
import os
import sys


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


def main(t_start=None):
    import torch

    json.load(sys.stdin)
    try:
        torch.cuda.set_device(0)
        r = {"status": "correct", "message": "cuda usable"}
    except RuntimeError as e:
        r = {"status": "runtime_error", "message": "RuntimeError during build: %s" % e}
    r["bad_fork"] = torch._C._cuda_isInBadFork()
    sys.stdout.write(json.dumps({"result": r}) + "\n")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
