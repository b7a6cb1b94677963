#!/usr/bin/env python3
"""One KernelBench evaluation with KernelBench's own eval_kernel_against_ref, as its scripts run it
(5 correctness trials, 100 perf trials, cuda_event timing, fp32, fresh build directory), in this
fresh process. Prints one JSON line. Used by bench/eval-latency.sh for the side-by-side figure.

    python3 bench/kb_eval_one.py KB_SRC_DIR TASK.py CANDIDATE.py BUILD_DIR
"""
import json
import os
import sys
import time

t0 = time.monotonic()
kb_src, task, cand, build_dir = sys.argv[1:5]
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, kb_src)
sys.path.append(os.path.join(here, "kb-stubs"))  # last: real packages win

import torch  # noqa: E402
from kernelbench.eval import eval_kernel_against_ref  # noqa: E402

with open(task) as f:
    ref_src = f.read()
with open(cand) as f:
    cand_src = f.read()
res = eval_kernel_against_ref(ref_src, cand_src, seed_num=42, num_correct_trials=5, num_perf_trials=100,
                              measure_performance=True, timing_method="cuda_event", verbose=False,
                              build_dir=build_dir, device=torch.device("cuda:0"), backend="cuda",
                              precision=torch.float32)
out = {"wall_s": time.monotonic() - t0}
if res is None:
    out["error"] = "eval returned None (lock/retry)"
else:
    out.update(compiled=res.compiled, correctness=res.correctness, runtime_ms=res.runtime,
               ref_runtime_ms=res.ref_runtime)
print(json.dumps(out), flush=True)
