#!/usr/bin/env python3
"""The real PyTorch adapter (harness/kp_torch.py: its main(), the sandbox prelude, set-up, run(),
compile_reference/time_compiled, check_intact) on a stand-in for torch, so its order of steps can be
tested on a machine without torch or a GPU. Only what needs real tensors is replaced: the trials
(one call of each model, compared) and the timing (one call, fixed numbers).

Tasks and candidates for it are torch-free Python: Model/ModelNew classes with `to()` and
`__call__`, inputs that are plain numbers (see TASK and CANDIDATE below).

    python3 cpu_adapter.py < config.json      as `python3 harness/kp_torch.py` (cold)
    kp_worker.py --adapter cpu_adapter.py     the warm worker forks a child that calls main()

Config keys beyond the adapter's own: "compile_threads" (how many threads the stand-in torch.compile
leaves running, as inductor's worker pool does; default 2) and "compile_fails" (it raises after
starting them). $KP_STANDIN_MS: the candidate's time (default 1 ms, the reference's). Used by
tests/python/test_compile_threads.py, test_worker.py and tests/integration/t2102."""

import contextlib
import io
import json
import os
import sys
import threading
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "harness"))  # first: a symlink to this file may be named kp_torch.py

import kp_torch  # noqa: E402
from kernelpro.util import Stop  # noqa: E402

TASK = """
class Model:
    def __init__(self, k):
        self.k = k

    def to(self, device=None, dtype=None):
        return self

    def __call__(self, x):
        return x * self.k


def get_inputs():
    return [2.0]


def get_init_inputs():
    return [3.0]
"""

CANDIDATE = """
class ModelNew:
    def __init__(self, k):
        self.k = k

    def to(self, device=None, dtype=None):
        return self

    def __call__(self, x):
        return self.k * x
"""


class _Device:
    def __init__(self, name):
        self.name = getattr(name, "name", name)
        self.type = name.split(":")[0]

    def __eq__(self, other):
        return isinstance(other, _Device) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Event:
    def __init__(self, enable_timing=False):
        pass

    def record(self, stream=None):
        pass

    def elapsed_time(self, other):
        return 1.0


class _Reserved:
    """What the stand-in allocator keeps: 64 MiB until empty_cache() (the GPU lock's release empties it)."""
    mib = 64

    @classmethod
    def now(cls, device=None):
        return cls.mib * 2**20

    @classmethod
    def empty(cls):
        cls.mib = 0


def fake_torch(cfg):
    """A module with the calls the adapter's set-up, compile and checks make. Its compile() starts
    cfg["compile_threads"] threads that stay (until release()), as inductor's pool does."""
    t = types.ModuleType("torch")
    t.__version__ = "0.0-cpu-stand-in"
    t.float32, t.float16, t.bfloat16, t.float64 = "float32", "float16", "bfloat16", "float64"
    t.Tensor = type("Tensor", (), {})
    stream = types.SimpleNamespace(cuda_stream=0)
    t.cuda = types.SimpleNamespace(
        is_available=lambda: True, set_device=lambda i: None, get_device_name=lambda d=None: "CPU stand-in",
        Event=_Event, synchronize=lambda d=None: None, current_stream=lambda d=None: stream,
        manual_seed=lambda s: None, is_initialized=lambda: False,
        memory_reserved=_Reserved.now, empty_cache=_Reserved.empty)
    t.backends = types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=False)),
                                       cudnn=types.SimpleNamespace(allow_tf32=False))
    t.device = _Device
    t.zeros = lambda *a, **k: [0.0]
    t.manual_seed = lambda s: None
    t.no_grad = contextlib.nullcontext
    t._dynamo = types.SimpleNamespace(reset=lambda: None)
    done = threading.Event()
    t.compile_threads = []

    def compile(model, backend=None, mode=None):
        for i in range(int(cfg.get("compile_threads", 2))):
            th = threading.Thread(target=done.wait, name="compile-worker-%d" % i, daemon=True)
            th.start()
            t.compile_threads.append(th)
        if cfg.get("compile_fails"):
            raise RuntimeError("the stand-in compiler failed after starting its pool")
        return model

    t.compile = compile
    t.release = done.set
    return t


class CpuAdapter(kp_torch.Adapter):
    """kp_torch.Adapter with the tensor work replaced; everything else is the adapter's own."""

    def correctness(self):
        seed = int(self.cfg.get("seed", 42))
        x = self.inputs.make(seed)
        ref = self.call(self.ref, x, "the reference")
        out = self.call(self.cand, x, "ModelNew")
        if ref != out:
            raise Stop("wrong_output", "got %r, expected %r" % (out, ref))
        self.result["trials_run"] = self.result["trials_passed"] = 1
        self.check_intact("while running ModelNew")

    def time_model(self, model, args, who, refill=None, check_at=()):
        self.call(model, args, who)
        ms = float(os.environ.get("KP_STANDIN_MS", "1") if who == "ModelNew" else 1.0)
        st = {"median_ms": ms, "mean_ms": ms, "std_ms": 0.0, "min_ms": ms, "max_ms": ms, "trials": 1}
        st["host_median_ms"] = ms
        return st, 0.0

    def timing(self):
        inputs = self.inputs.make(int(self.cfg.get("seed", 42)))
        self.result["runtime"], _ = self.time_model(self.cand, inputs, "ModelNew")
        self.check_intact("during timing")
        self.result["ref_runtime"], _ = self.time_model(self.ref, inputs, "the reference")
        return inputs


    def run_baseline(self):
        """The reference alone, as a suite's baseline measures it: its trial, fixed numbers."""
        self.start_baseline()
        x = self.inputs.make(int(self.cfg.get("seed", 42)))
        self.call(self.ref, x, "the reference")
        self.result["ref_runtime"], _ = self.time_model(self.ref, x, "the reference")
        self.result["in_bytes"] = self.result["out_bytes"] = 8
        self.result["io_bytes"] = 16
        self.result["precision"] = {"reference": "float32", "candidate": None}
        self.finish("correct", "reference timed")


def install(cfg):
    """The stand-in torch as `import torch` sees it; returns it."""
    t = fake_torch(cfg)
    sys.modules["torch"] = t
    return t


def preload():
    """For the warm worker: nothing to import, no CUDA."""
    return {"imported": [], "failed": {}, "torch": None, "cuda_initialized": False}


def main(t_start=None):
    """kp_torch.main() with this adapter: reads the config from stdin (peeked here for the stand-in's
    own keys), never returns."""
    raw = sys.stdin.read()
    install(json.loads(raw))
    sys.stdin = io.StringIO(raw)
    kp_torch.Adapter = CpuAdapter
    kp_torch.main(t_start)


if __name__ == "__main__":
    main()
