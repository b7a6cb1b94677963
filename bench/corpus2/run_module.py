#!/usr/bin/env python3
"""Runs one multi-kernel PyTorch module of a labelled corpus as a whole task (issue 19).

    python3 run_module.py MODULES.py NAME [--warmup N] [--iters N] [--range]
    python3 run_module.py MODULES.py --list

The model and its inputs are built on the CPU with a fixed seed and copied to the GPU, so the only
kernels are the forward passes' (no initialisation kernels). --warmup forwards run first (cuDNN and
cuBLAS choose their kernels, modules load); then --iters forwards. With --range the measured
forwards are bracketed by cudaProfilerStart/Stop, so `ncu --profile-from-start off` profiles
exactly one whole task and nothing else.
"""
import argparse
import importlib.util
import sys


def load_modules(path):
    spec = importlib.util.spec_from_file_location("corpus_modules", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.MODULES


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("modules", help="a modules.py file with a MODULES dict")
    ap.add_argument("name", nargs="?")
    ap.add_argument("--list", action="store_true", help="print the module names")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--iters", type=int, default=1)
    ap.add_argument("--range", action="store_true", help="profile range around the measured forwards")
    a = ap.parse_args(argv)
    table = load_modules(a.modules)
    if a.list:
        print("\n".join(table))
        return 0
    if a.name not in table:
        ap.error("no module %r in %s (have: %s)" % (a.name, a.modules, ", ".join(table)))

    import torch

    torch.manual_seed(0)
    model, inputs = table[a.name](torch)
    model = model.cuda()
    inputs = tuple(x.cuda() for x in inputs)
    with torch.inference_mode():
        for _ in range(a.warmup):
            model(*inputs)
        torch.cuda.synchronize()
        if a.range:
            torch.cuda.profiler.start()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(a.iters):
            out = model(*inputs)
        end.record()
        torch.cuda.synchronize()
        if a.range:
            torch.cuda.profiler.stop()
    # For the log only; ncu's replay gives the figures the benchmark uses.
    print("%s: %d forward(s) in %.3f ms, output %s %s" % (
        a.name, a.iters, start.elapsed_time(end), tuple(out.shape), out.dtype))
    return 0


if __name__ == "__main__":
    sys.exit(main())
