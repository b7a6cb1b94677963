#!/usr/bin/env python3
"""The min cuda.cu on real model output, on the CPU: for load_inline kernels of a run directory
(even-numbered problems only), cuda.cu compiled by nvcc as the light build writes it (torch/types.h
first) and as the min build writes it (kernelpro's header of ATen's Tensor and the operators the
source calls), side by side: whether each compiles, the CPU seconds of each, and whether the device
code (the PTX cicc wrote, comments aside) is the same both ways.

  bench/inline_min_check.py RUN_DIR TORCH_INCLUDE OUT [MAX]     (MAX kernels, default 16; JOBS=2)

TORCH_INCLUDE is a torch wheel's include/ (pip download torch --no-deps, or a venv's site-packages/
torch/include). The cuda_sources are read with Python's ast (a module-level string constant, or
the name of one, passed as load_inline's cuda_sources; other files are skipped and counted). nvcc's
flags are torch's for a load_inline build on sm_90. Prints one line per kernel and a summary; writes
OUT/min-check.json.
"""

import ast
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "harness"))
from kernelpro import inline_cache  # noqa: E402

NAME = re.compile(r"level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py$|level_(\d+)_problem_(\d+)_epoch_\d+_sample_(\d+)")


# nvcc's per-translation-unit names (from the file's path and a hash), which differ between any two builds
MODULE_ID = re.compile(r"_INTERNAL_[0-9a-f]+_\d+_cuda_cu_[0-9a-f]+|_GLOBAL__N__[0-9a-f]+_\d+_cuda_cu_[0-9a-f]+")


def cuda_sources(path):
    """The cuda_sources text of the file's load_inline call, or None."""
    try:
        tree = ast.parse(open(path, encoding="utf-8", errors="replace").read())
    except SyntaxError:
        return None
    strings = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    strings[t.id] = node.value.value
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "load_inline":
            for kw in node.keywords:
                if kw.arg == "cuda_sources":
                    v = kw.value
                    if isinstance(v, ast.Constant) and isinstance(v.value, str):
                        return v.value
                    if isinstance(v, ast.Name) and v.id in strings:
                        return strings[v.id]
    return None


def nvcc(src_text, inc, work, tag):
    """Compiles one cuda.cu; (ok, CPU seconds, sass text or the error's tail)."""
    os.makedirs(os.path.join(work, tag))
    cu = os.path.join(work, tag, "cuda.cu")  # one name both ways: nvcc's module ids are made of it
    keep = os.path.join(work, tag, "keep")
    os.makedirs(keep)
    obj = os.path.join(work, tag, "cuda.o")
    with open(cu, "w") as f:
        f.write(src_text)
    py = subprocess.run([sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"],
                        capture_output=True, text=True).stdout.strip()
    cmd = ["nvcc", "-DTORCH_EXTENSION_NAME=kp_min_check", "-DTORCH_API_INCLUDE_EXTENSION_H", "-isystem", inc,
           "-isystem", os.path.join(inc, "torch/csrc/api/include"), "-isystem", py,
           "-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__", "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
           "-D__CUDA_NO_HALF2_OPERATORS__", "--expt-relaxed-constexpr", "-gencode=arch=compute_90,code=sm_90",
           "--compiler-options", "-fPIC", "-std=c++17", "-c", cu, "-o", obj, "--keep", "--keep-dir", keep]
    log = os.path.join(work, tag, "nvcc.log")
    with open(log, "w") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)  # this child's own CPU (and its children's), not the other thread's
        p.returncode = os.waitstatus_to_exitcode(status)
    cpu = ru.ru_utime + ru.ru_stime
    if p.returncode != 0:
        with open(log, encoding="utf-8", errors="replace") as f:
            return False, cpu, f.read()[-600:]
    ptx = []  # cicc's output: the device code ptxas assembles (no cuobjdump needed)
    for name in sorted(os.listdir(keep)):
        if name.endswith(".ptx"):
            with open(os.path.join(keep, name), encoding="utf-8", errors="replace") as f:
                ptx += [MODULE_ID.sub("_INTERNAL_ID_", line) for line in f if not line.lstrip().startswith("//")]
    return True, cpu, "".join(ptx)


def check(path, inc, ops):
    text = cuda_sources(path)
    if text is None:
        return {"kernel": os.path.basename(path), "skipped": "no cuda_sources constant"}
    light, what = inline_cache.lighten(text)
    if light is None and what != inline_cache.NEITHER:
        return {"kernel": os.path.basename(path), "skipped": "not built light: " + what}
    base = light if light is not None else text
    if inline_cache.MIN_SKIP.search(base):
        return {"kernel": os.path.basename(path), "skipped": "not built min: " + inline_cache.MIN_SKIP.search(base).group(0)}
    header, nops = inline_cache.min_header_text(base, ops)
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "min.h"), "w") as f:
            f.write(header)
        t0 = time.monotonic()
        lok, lcpu, lout = nvcc("#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n" + base, inc, work, "light")
        mok, mcpu, mout = nvcc('#include "%s"\n#include <cuda.h>\n#include <cuda_runtime.h>\n' % os.path.join(work, "min.h") + base,
                               inc, work, "min")
        wall = time.monotonic() - t0
    row = {"kernel": os.path.basename(path), "ops": nops, "light_ok": lok, "light_cpu_s": round(lcpu, 1),
           "min_ok": mok, "min_cpu_s": round(mcpu, 1), "wall_s": round(wall, 1)}
    if lok and mok:
        row["same_ptx"] = lout == mout
    if not mok:
        row["min_error"] = mout
    if not lok:
        row["light_error"] = lout
    return row


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    run, inc, out = sys.argv[1], sys.argv[2], sys.argv[3]
    most = int(sys.argv[4]) if len(sys.argv) > 4 else 16
    ops = os.path.join(inc, "ATen", "ops")
    files = []
    for name in sorted(os.listdir(run)):
        m = NAME.search(name)
        if not m or not name.endswith(".py"):
            continue
        problem = int(m.group(2) or m.group(5))
        if problem % 2 == 0:  # even-numbered problems only: the odd ones are kept for acceptance
            files.append(os.path.join(run, name))
    # one file per problem first, so the sample covers as many problems as it can
    seen, first, rest = set(), [], []
    for f in files:
        m = NAME.search(os.path.basename(f))
        key = (m.group(1) or m.group(4), m.group(2) or m.group(5))
        (rest if key in seen else first).append(f)
        seen.add(key)
    picked = [f for f in first + rest if cuda_sources(f) is not None][:most]
    os.makedirs(out, exist_ok=True)
    rows = []
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("JOBS", "2"))) as ex:
        for row in ex.map(lambda f: check(f, inc, ops), picked):
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if not k.endswith("_error")}), flush=True)
    built = [r for r in rows if "light_ok" in r]
    both = [r for r in built if r["light_ok"] and r["min_ok"]]
    summary = {
        "kernels": len(rows), "compared": len(built),
        "light_ok": sum(r["light_ok"] for r in built), "min_ok": sum(r["min_ok"] for r in built),
        "min_failed_light_ok": [r["kernel"] for r in built if r["light_ok"] and not r["min_ok"]],
        "same_ptx": sum(bool(r.get("same_ptx")) for r in both), "both_ok": len(both),
        "light_cpu_s": round(sum(r["light_cpu_s"] for r in both), 1),
        "min_cpu_s": round(sum(r["min_cpu_s"] for r in both), 1),
    }
    print(json.dumps(summary))
    with open(os.path.join(out, "min-check.json"), "w") as f:
        json.dump({"summary": summary, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
