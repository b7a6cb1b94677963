"""torch.utils.flop_counter stand-in: FlopCounterMode counts torch.mm (2 m n k FLOPs, as torch does).
$FAKE_FLOP_WARM says what its first use does besides: "fail" raises, "cuda" counts devices through
torch._C (which poisons fork, as a lazy import that asked torch.cuda.is_available() would), "init"
initialises CUDA. `uses` counts the modes entered in this process (a forked child inherits it)."""

import os

import torch

uses = 0
_active = []


class FlopCounterMode:
    def __init__(self, display=True):
        self.counts = {}

    def __enter__(self):
        global uses
        what = os.environ.get("FAKE_FLOP_WARM", "")
        if uses == 0 and what == "fail":
            raise RuntimeError("stand-in first use failed")
        if uses == 0 and what == "cuda":
            torch.cuda.device_count()
        if uses == 0 and what == "init":
            torch.cuda._lazy_init()
        uses += 1
        _active.append(self)
        return self

    def __exit__(self, *exc):
        _active.remove(self)
        return False

    def add(self, op, n):
        self.counts[op] = self.counts.get(op, 0) + n

    def get_flop_counts(self):
        return {"Global": dict(self.counts)} if self.counts else {}
