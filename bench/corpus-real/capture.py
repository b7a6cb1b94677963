#!/usr/bin/env python3
"""The GPU side of the real-kernel corpus (issue 31): builds, checks and runs the model-written
kernels that bench/corpus-real/prepare.py put in .real/kernels/, for bench/gpu-capture-real.sh.

    capture.py build-all OUT [--jobs N] [--deadline S] [ID ...]   # parallel builds + checks, one process each
    capture.py build OUT ID                                       # one (what build-all runs)
    capture.py profile OUT ID ...                                 # under ncu --profile-from-start off

build: imports the kernel's Python file with torch's load_inline wrapped so that the extension gets a
name of its own (two kernels may both call theirs "gelu"), its own build directory OUT/ID/ext, sm_90
only, -lineinfo and ptxas -v (the build log keeps ptxas's register and shared-memory lines); then runs
the task's reference Model and the kernel's ModelNew on the task's inputs (the selection's size
overrides applied, same seed for both, as KernelBench does) and records in OUT/ID/build.json whether
the outputs agree within KernelBench's fp32 tolerance (atol = rtol = 1e-2).

profile: for each ID whose build passed, imports the built extension (no rebuild), makes the models and
inputs again, times the task's Model and ModelNew (printed as KPREAL-TIME, outside the profiler
range), then runs one forward of ModelNew between cudaProfilerStart/Stop inside an
NVTX range named after the ID, printing "KPREAL-BEGIN ID" and "KPREAL-END ID" around it, so ncu's
launch IDs can be split per kernel afterwards (bench/corpus-real/split.py).
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KERNELS = os.path.join(ROOT, ".real", "kernels")
sys.path.insert(0, os.path.join(ROOT, "harness"))
from kernelpro import inline_cache  # noqa: E402
TOL = 1e-2  # KernelBench's fp32 atol and rtol
_ORIG_LOAD_INLINE = None  # torch's own, kept once: wrap_load_inline runs once per kernel


def selection_ids():
    with open(os.path.join(HERE, "selection.json")) as f:
        return [k["id"] for k in json.load(f)["kernels"]]


def load_file(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def wrap_load_inline(kid, build_dir, prebuilt):
    """Replaces torch.utils.cpp_extension.load_inline (the kernel files import it by name) with one
    that builds into build_dir under a unique name, or, with prebuilt, imports what is there."""
    import torch.utils.cpp_extension as cpp

    global _ORIG_LOAD_INLINE
    if _ORIG_LOAD_INLINE is None:
        _ORIG_LOAD_INLINE = cpp.load_inline
    orig = _ORIG_LOAD_INLINE

    def load_inline(*args, **kw):
        args = list(args)
        name = kw.pop("name", None) if "name" in kw else args.pop(0)
        name = "%s_%s" % (name, kid)
        if prebuilt:
            try:
                return cpp._import_module_from_library(name, build_dir, True)
            except (ImportError, OSError, AttributeError, TypeError):
                pass  # then load_inline itself: ninja finds everything up to date
        flags = list(kw.get("extra_cuda_cflags") or [])
        kw["extra_cuda_cflags"] = flags + ["-lineinfo", "--ptxas-options=-v"]
        kw["build_directory"] = build_dir
        kw["verbose"] = True  # ninja's output, ptxas's lines included, goes to our stdout (the build log)
        # cuda.cu with torch/types.h alone where that builds (the harness's rule, kernelpro.inline_cache):
        # the kernels and their ptxas lines are the same, the build about half as long.
        if len(args) >= 2 and "cuda_sources" not in kw:
            kw["cuda_sources"] = args.pop(1)
        light, what = inline_cache.lighten(kw.get("cuda_sources"))
        print("capture: cuda.cu %s" % ("light: " + what if light is not None else "as written: " + what), flush=True)
        if light is not None:
            try:
                return orig(name, *args, **dict(kw, cuda_sources=light))
            except Exception as e:  # noqa: BLE001 (built again as written, as the harness does)
                print("capture: the light build failed (%s); building as written" % type(e).__name__, flush=True)
        return orig(name, *args, **kw)

    cpp.load_inline = load_inline
    return load_inline


def make_case(kid, torch):
    """(task module, ModelNew class module) with the size overrides applied to the task."""
    d = os.path.join(KERNELS, kid)
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    task = load_file("kpreal_task_" + kid, os.path.join(d, "task.py"))
    for k, v in meta["overrides"].items():
        if not hasattr(task, k):
            raise RuntimeError("override %s: the task has no such module-level name" % k)
        setattr(task, k, v)
    return meta, task


def build_models(task, new_mod, torch, seed=42):
    init = task.get_init_inputs()
    torch.manual_seed(seed)
    inputs = task.get_inputs()
    torch.manual_seed(seed)
    ref = task.Model(*init)
    torch.manual_seed(seed)
    new = new_mod.ModelNew(*init)
    return ref, new, inputs


def flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def cmd_build(out, kid):
    t0 = time.monotonic()
    res = {"id": kid, "built": False, "correct": False}
    rdir = os.path.join(out, kid)
    os.makedirs(os.path.join(rdir, "ext"), exist_ok=True)
    try:
        import torch

        torch.set_default_device("cuda")
        meta, task = make_case(kid, torch)
        wrap_load_inline(kid, os.path.join(rdir, "ext"), prebuilt=False)
        new_mod = load_file("kpreal_kernel_" + kid, os.path.join(KERNELS, kid, "kernel.py"))
        res["built"] = True
        res["build_s"] = round(time.monotonic() - t0, 1)
        ref, new, inputs = build_models(task, new_mod, torch)
        with torch.no_grad():
            want = flat(ref(*inputs))
            got = flat(new(*inputs))
        torch.cuda.synchronize()
        if len(want) != len(got):
            raise RuntimeError("ModelNew returned %d outputs, Model %d" % (len(got), len(want)))
        worst, ok = 0.0, True
        for w, g in zip(want, got):
            if tuple(w.shape) != tuple(g.shape):
                raise RuntimeError("output shape %s, reference %s" % (tuple(g.shape), tuple(w.shape)))
            w, g = w.float(), g.float()
            worst = max(worst, float((w - g).abs().max()))
            ok = ok and bool(torch.allclose(g, w, atol=TOL, rtol=TOL)) and not bool(torch.isnan(g).any())
        res.update(correct=ok, max_abs_err=worst, inputs=[list(x.shape) for x in inputs if hasattr(x, "shape")])
    except BaseException as e:  # a model's kernel may fail in any way; the record says how
        res["error"] = "%s: %s" % (type(e).__name__, str(e)[:2000])
    res["total_s"] = round(time.monotonic() - t0, 1)
    with open(os.path.join(rdir, "build.json"), "w") as f:
        json.dump(res, f, indent=1)
    print("build %s: built %s correct %s %s" % (kid, res["built"], res["correct"], res.get("error", "")), flush=True)
    return 0 if res["correct"] else 1


def cmd_build_all(out, ids, jobs, deadline):
    """Runs `build` for every ID, `jobs` at a time, each in its own process with its output in
    OUT/ID/build.log; what has not started by the deadline is skipped, what runs past it is killed."""
    end = time.monotonic() + deadline
    env = dict(os.environ, TORCH_CUDA_ARCH_LIST="9.0", MAX_JOBS="2")
    todo, running, done = list(ids), {}, {}
    while todo or running:
        while todo and len(running) < jobs and time.monotonic() < end - 20:
            kid = todo.pop(0)
            os.makedirs(os.path.join(out, kid), exist_ok=True)
            log = open(os.path.join(out, kid, "build.log"), "w")
            running[kid] = (subprocess.Popen([sys.executable, __file__, "build", out, kid], stdout=log,
                                             stderr=subprocess.STDOUT, env=env, start_new_session=True), log)
        for kid, (p, log) in list(running.items()):
            rc = p.poll()
            if rc is None and time.monotonic() > end:
                os.killpg(p.pid, 9)
                rc = p.wait()
                done[kid] = "killed at the deadline"
            if rc is not None:
                log.close()
                done.setdefault(kid, "exit %d" % rc)
                del running[kid]
        if todo and time.monotonic() >= end - 20:
            for kid in todo:
                done[kid] = "skipped (deadline)"
            todo = []
        time.sleep(0.5)
    ok = []
    for kid in ids:
        try:
            with open(os.path.join(out, kid, "build.json")) as f:
                rec = json.load(f)
        except (OSError, ValueError):
            rec = {}
        if rec.get("correct"):
            ok.append(kid)
        print("%s: %s%s" % (kid, done.get(kid), "" if rec.get("correct") else " (not profiled: %s)" % (
            rec.get("error") or ("wrong output, max abs error %s" % rec.get("max_abs_err") if rec else "no record"))))
    with open(os.path.join(out, "ok.txt"), "w") as f:
        f.write("\n".join(ok) + ("\n" if ok else ""))
    return 0


def forward_ms(model, inputs, torch, n=3):
    model(*inputs)
    times = []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        model(*inputs)
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return sorted(times)[n // 2]


def cmd_profile(out, ids):
    import torch

    torch.set_default_device("cuda")
    for kid in ids:
        try:
            meta, task = make_case(kid, torch)
            wrap_load_inline(kid, os.path.join(out, kid, "ext"), prebuilt=True)
            new_mod = load_file("kpreal_kernel_" + kid, os.path.join(KERNELS, kid, "kernel.py"))
            ref, model, inputs = build_models(task, new_mod, torch)
            with torch.no_grad():
                # Outside the profiler range, so ncu does not replay them: the times of the task's
                # Model and of ModelNew (median of 3 forwards after one warm-up; context for the labels).
                print("KPREAL-TIME %s model_ms %.4f modelnew_ms %.4f" % (
                    kid, forward_ms(ref, inputs, torch), forward_ms(model, inputs, torch)), flush=True)
                del ref
                print("KPREAL-BEGIN %s" % kid, flush=True)
                torch.cuda.nvtx.range_push(kid)
                torch.cuda.profiler.start()
                model(*inputs)
                torch.cuda.synchronize()
                torch.cuda.profiler.stop()
                torch.cuda.nvtx.range_pop()
                print("KPREAL-END %s" % kid, flush=True)
            del model, inputs
            torch.cuda.empty_cache()
        except BaseException as e:  # one kernel's failure must not lose the others
            print("KPREAL-FAILED %s %s: %s" % (kid, type(e).__name__, str(e)[:500]), flush=True)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("build-all", "build", "profile"))
    ap.add_argument("out")
    ap.add_argument("ids", nargs="*")
    ap.add_argument("--jobs", type=int, default=12)
    ap.add_argument("--deadline", type=float, default=170.0)
    a = ap.parse_args(argv)
    ids = a.ids or selection_ids()
    if a.mode == "build":
        return cmd_build(a.out, ids[0])
    if a.mode == "build-all":
        return cmd_build_all(a.out, ids, a.jobs, a.deadline)
    return cmd_profile(a.out, ids)


if __name__ == "__main__":
    sys.exit(main())
