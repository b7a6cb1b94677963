"""The real-output judge (bench/real-output-judge.sh): `kernelpro eval` over the kernels of
.kb-corpus/ (bench/kb-corpus-prepare.sh) that KernelBench's own harness judged correct, and per kernel
KernelBench's verdict next to ours, with the check behind each disagreement; then the totals.

Every disagreement is listed with the refusing or failing check and its message, so a reader can
judge whether the reason holds up. Without a GPU (or torch) only the static checks give verdicts:
the rest come back as "no verdict", which this counts apart (--static-only says so up front)."""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

PROBLEM = re.compile(r"^level_(\d+)_problem_(\d+)$")


def cases(corpus, per_problem, limit):
    """(label, task path, kernel path) for every KernelBench-correct kernel, at most per_problem per
    (level, problem), in a stable order."""
    tasks = {}
    for level in sorted(os.listdir(os.path.join(corpus, "KernelBench"))):
        for name in os.listdir(os.path.join(corpus, "KernelBench", level)):
            m = re.match(r"^(\d+)_", name)
            if m:
                tasks[(level[len("level"):], m.group(1))] = os.path.join(corpus, "KernelBench", level, name)
    out, seen = [], collections.Counter()
    for run in sorted(os.listdir(os.path.join(corpus, "runs"))):
        with open(os.path.join(corpus, "runs", run, "eval_results.json")) as f:
            entries = json.load(f)
        for e in entries:
            m = PROBLEM.match(e.get("task_id", ""))
            if not e.get("correctness") or not m:
                continue
            key = (m.group(1), m.group(2))
            if key not in tasks or (per_problem and seen[key] >= per_problem):
                continue
            seen[key] += 1
            kernel = os.path.join(corpus, "runs", run, "%s_kernel.py" % e["evaluation_id"])
            out.append(("%s/%s" % (run, e["evaluation_id"]), tasks[key], kernel))
    out.sort(key=lambda c: (c[0].split("/")[1], c[0]))
    if limit and limit < len(out):  # evenly spaced over the sorted list: every level and run has its share
        out = [out[(i * len(out)) // limit] for i in range(limit)]
    return out


def reason(v):
    """The check behind a verdict that is not correct: (check id, message)."""
    for sev in ("refuse", "fail"):
        for f in v.get("flags") or []:
            if f.get("severity") == sev:
                return f["check"], f.get("message") or ""
    return v.get("status"), v.get("message") or ""


def holds_up(check, kernel):
    """Whether a refusal's reason can be confirmed from the file alone: no_kernel on a file with no
    __global__ function and no Triton kernel. Everything else is for a reader to judge ("review")."""
    if check != "no_kernel":
        return "review"
    with open(kernel, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return "review" if "__global__" in text or "triton.jit" in text else "holds up: the file defines no kernel"


def evaluate(kp, args, label, task, kernel, outdir):
    t0 = time.monotonic()
    p = subprocess.run([kp, "eval", "--json"] + args + [task, kernel], capture_output=True, text=True)
    secs = time.monotonic() - t0
    safe = label.replace("/", "__")
    with open(os.path.join(outdir, safe + ".json"), "w") as f:
        f.write(p.stdout)
    try:
        v = json.loads(p.stdout)
    except ValueError:
        err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        return {"label": label, "status": "no_verdict", "check": None, "message": err[:300], "seconds": secs}
    check, msg = reason(v) if v.get("status") != "correct" else (None, "")
    kernels = ((v.get("runtime_evidence") or {}).get("kernels") or [])[:4]
    return {"label": label, "status": v.get("status"), "phase": v.get("phase"), "check": check,
            "holds": holds_up(check, kernel) if check else None,
            "message": " ".join(msg.split())[:300], "speedup": v.get("speedup"), "seconds": secs,
            "kernels": kernels}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kp", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--per-problem", type=int, default=0)
    ap.add_argument("--max", type=int, default=0)
    ap.add_argument("--static-only", action="store_true")
    ap.add_argument("eval_args", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    todo = cases(a.corpus, a.per_problem, a.max)
    print("real-output judge: %d kernels KernelBench judged correct (even problems), %d at a time, "
          "kernelpro eval %s" % (len(todo), a.jobs, " ".join(a.eval_args)))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = [ex.submit(evaluate, a.kp, a.eval_args, *c, a.out) for c in todo]
        rows = []
        for fut in concurrent.futures.as_completed(futs):  # as they finish: a cut run keeps what ended
            r = fut.result()
            rows.append(r)
            with open(os.path.join(a.out, "judge.json"), "w") as f:
                json.dump(rows, f, indent=1)
            tag = "agree" if r["status"] == "correct" else "DISAGREE" if r["status"] != "no_verdict" else "-"
            extra = "" if r["status"] == "correct" else " %s: %s" % (r["check"], r["message"])
            if r.get("holds"):
                extra += " (%s)" % r["holds"]
            sp = " %.2fx" % r["speedup"] if isinstance(r.get("speedup"), (int, float)) else ""
            print("%-8s KernelBench=correct kernelpro=%s%s%s  [%s]" % (tag, r["status"], sp, extra, r["label"]))
            sys.stdout.flush()
    by = collections.Counter(r["status"] for r in rows)
    checks = collections.Counter(r["check"] for r in rows if r["status"] not in ("correct", "no_verdict"))
    static = sum(1 for r in rows if r.get("phase") == "static")
    judged = len(rows) - by["no_verdict"]
    print("\ntotals: %d kernels; kernelpro correct %d, refused or failed %d (%s); statically refused %d; "
          "no verdict %d" % (len(rows), by["correct"], judged - by["correct"],
                            ", ".join("%s %d" % kv for kv in checks.most_common()) or "none", static,
                            by["no_verdict"]))
    print("statically refused: %d of %d (%.1f%%)" % (static, len(rows), 100.0 * static / max(1, len(rows))))
    # The population: files that define a kernel of their own (a pure PyTorch rewrite that
    # KernelBench accepted is refused as no_kernel by design, and that reason holds up from the file).
    own = [r for r in rows if not (r.get("holds") or "").startswith("holds up: the file defines no kernel")]
    own_static = sum(1 for r in own if r.get("phase") == "static")
    print("of the %d that define a kernel of their own: statically refused %d (%.1f%%)"
          % (len(own), own_static, 100.0 * own_static / max(1, len(own))))
    review = [r for r in rows if (r.get("holds") or "").startswith("review")]
    print("refusals or failures to review (not confirmed from the file alone): %d" % len(review))
    if judged:
        print("disagreement rate: %.1f%% of the %d with a verdict"
              % (100.0 * (judged - by["correct"]) / judged, judged))
    with open(os.path.join(a.out, "judge.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
