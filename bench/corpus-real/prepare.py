#!/usr/bin/env python3
"""Prepares .real/ (git-ignored, never committed) for the real-kernel corpus of issue 31: the
model-written kernels that bench/corpus-real/selection.json names, exported from a Kernel-Coder
mirror, each with the KernelBench task it solves, exported from a KernelBench mirror.

    python3 bench/corpus-real/prepare.py KERNEL_CODER_GIT_DIR KERNELBENCH_GIT_DIR

Both arguments are clones or bare mirrors (the search tool's fetch leaves them under /work/.mirror/).
Each kernel must be one that KernelBench's eval_results.json of its run judged correct, of an
even-numbered problem (odd ones are kept for acceptance): anything else is refused, nothing is
written. Writes .real/kernels/ID/{kernel.py,task.py,meta.json} and .real/COMMITS; carry .real to the
GPU machine (bench/gpu-capture-real.sh).
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def git(gitdir, *args):
    res = subprocess.run(["git", "--git-dir", gitdir] + list(args), capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit("prepare: git %s in %s failed: %s" % (" ".join(args), gitdir, res.stderr.strip()))
    return res.stdout


def task_path(kb, commit, level, problem):
    """The KernelBench task file of level/problem at the commit (KernelBench/levelL/P_Name.py)."""
    names = git(kb, "ls-tree", "--name-only", commit, "KernelBench/level%d/" % level).split()
    hit = [n for n in names if os.path.basename(n).startswith("%d_" % problem)]
    if len(hit) != 1:
        raise SystemExit("prepare: level %d problem %d: %d task files at %s" % (level, problem, len(hit), commit[:8]))
    return hit[0]


def correct_solutions(kc, commit, run, cache):
    """{solution id: eval record} of a run's eval_results.json, for the correct ones."""
    if run not in cache:
        doc = json.loads(git(kc, "show", "%s:runs/%s/eval_results.json" % (commit, run)))
        cache[run] = {e["solution_id"]: e for e in doc if e.get("correctness")}
    return cache[run]


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    kc, kb = argv[1], argv[2]
    with open(os.path.join(HERE, "selection.json")) as f:
        sel = json.load(f)
    kc_commit = sel["kernel_coder"]["commit"]
    kb_commit = git(kb, "rev-parse", sel["kernelbench"]["commit"] + "^{commit}").strip()
    evals, plan = {}, []
    for k in sel["kernels"]:
        if k["problem"] % 2:
            raise SystemExit("prepare: %s: problem %d is odd; odd problems are kept for acceptance" % (k["id"], k["problem"]))
        m = re.fullmatch(r"level_(\d+)_problem_(\d+)_\w+", k["solution"])
        if not m or (int(m[1]), int(m[2])) != (k["level"], k["problem"]):
            raise SystemExit("prepare: %s: solution %r is not of level %d problem %d" % (
                k["id"], k["solution"], k["level"], k["problem"]))
        rec = correct_solutions(kc, kc_commit, k["run"], evals).get(k["solution"])
        if rec is None:
            raise SystemExit("prepare: %s: %s is not judged correct in runs/%s/eval_results.json" % (
                k["id"], k["solution"], k["run"]))
        src = git(kc, "show", "%s:runs/%s/%s_kernel.py" % (kc_commit, k["run"], k["solution"]))
        tpath = task_path(kb, kb_commit, k["level"], k["problem"])
        task = git(kb, "show", "%s:%s" % (kb_commit, tpath))
        plan.append((k, rec, src, tpath, task))
    dest = os.path.join(ROOT, ".real")
    shutil.rmtree(os.path.join(dest, "kernels"), ignore_errors=True)
    for k, rec, src, tpath, task in plan:
        d = os.path.join(dest, "kernels", k["id"])
        os.makedirs(d)
        with open(os.path.join(d, "kernel.py"), "w") as f:
            f.write(src)
        with open(os.path.join(d, "task.py"), "w") as f:
            f.write(task)
        meta = {"id": k["id"], "level": k["level"], "problem": k["problem"], "task": tpath,
                "source": "runs/%s/%s_kernel.py" % (k["run"], k["solution"]), "overrides": k["overrides"],
                "kernelbench_runtime_ms": rec.get("runtime"), "kernelbench_hardware": rec.get("metadata", {}).get("hardware")}
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
    with open(os.path.join(dest, "COMMITS"), "w") as f:
        f.write("kernel-coder %s\nkernelbench %s\n" % (kc_commit, kb_commit))
    exclude = subprocess.run(["git", "-C", ROOT, "rev-parse", "--git-path", "info/exclude"],
                             capture_output=True, text=True).stdout.strip()
    if exclude:
        exclude = os.path.join(ROOT, exclude) if not os.path.isabs(exclude) else exclude
        have = open(exclude).read().split("\n") if os.path.exists(exclude) else []
        if "/.real/" not in have:
            with open(exclude, "a") as f:
                f.write("/.real/\n")
    print("prepare: %d kernels in %s (Kernel-Coder %s, KernelBench %s)" % (
        len(plan), os.path.join(dest, "kernels"), kc_commit[:8], kb_commit[:8]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
