#!/usr/bin/env python3
"""Recomputes a suite's fast_p and geometric-mean speedups from its per-task results, independently.

Reads a results.json (kernelpro.bench-results/1) and uses only the per-task fields (correct,
best_ms and the baseline times); it shares no code with kernelpro. The definitions follow
KernelBench (src/kernelbench/score.py and scripts/benchmark_eval_analysis.py, HEAD 423217d9):

  speedup  = baseline_ms / best_ms, for a task whose fastest correct version was timed
  n        = tasks with that baseline measured (KernelBench leaves tasks without one out)
  fast_p   = (tasks correct with speedup > p) / n            (strictly greater)
  geomean  = geometric mean over the correct tasks, and over all n with 1.0 for the others
  levels   = the same figures over each KernelBench level's tasks alone (its "level" field > 0)

With --check, compares with the summary the file carries and exits 1 on any disagreement
beyond a relative 1e-9. NaN and Infinity in the file are refused (JSON has neither).

usage: suite_metrics.py RESULTS.json [--check] [--json]
"""
import argparse
import json
import math
import sys

P = [0.0, 0.5, 0.8, 1.0, 1.5, 2.0]  # the thresholds KernelBench's analysis prints
BASELINES = [("eager", "eager_ms"), ("torch_compile", "torch_compile_ms")]
TOLERANCE = 1e-9


def refuse_constant(name):
    raise ValueError("the file holds %s, which is not JSON; a value not measured is null" % name)


def time_ms(task, key):
    v = task.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise ValueError("task %r: %s = %r is not a positive time" % (task.get("name"), key, v))
    return float(v)


def geomean(values):
    return math.exp(math.fsum(math.log(v) for v in values) / len(values)) if values else None


def recompute(tasks):
    out = {"tasks": len(tasks), "correct": sum(1 for t in tasks if t["correct"] is True), "baselines": {}}
    for name, key in BASELINES:
        n, speedups = 0, []
        for t in tasks:
            base = time_ms(t, key)
            if base is None:
                continue
            n += 1
            if t["correct"] is True:
                best = time_ms(t, "best_ms")
                if best is None:
                    raise ValueError("task %r is correct but has no best_ms" % t.get("name"))
                speedups.append(base / best)
        out["baselines"][name] = {
            "tasks": n,
            "correct": len(speedups),
            "fast_p": {str(p): (sum(1 for s in speedups if s > p) / n if n else None) for p in P},
            "geomean_speedup_correct": geomean(speedups),
            "geomean_speedup_all": geomean(speedups + [1.0] * (n - len(speedups))) if n else None,
        }
    return out


def recompute_levels(tasks):
    levels = sorted({t.get("level") or 0 for t in tasks} - {0})
    out = []
    for lv in levels:
        m = recompute([t for t in tasks if (t.get("level") or 0) == lv])
        m["level"] = lv
        out.append(m)
    return out


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


def compare_levels(mine, summary):
    theirs = {lv.get("level"): lv for lv in summary.get("levels") or []}
    bad = []
    if sorted(theirs) != [m["level"] for m in mine]:
        return ["levels: recomputed %r, file says %r" % ([m["level"] for m in mine], sorted(theirs))]
    for m in mine:
        bad += ["level %d: %s" % (m["level"], line) for line in compare(m, theirs[m["level"]])]
    return bad


def compare(mine, summary):
    bad = []
    for key in ("tasks", "correct"):
        if mine[key] != summary.get(key):
            bad.append("%s: recomputed %r, file says %r" % (key, mine[key], summary.get(key)))
    for name, _ in BASELINES:
        m, s = mine["baselines"][name], summary.get("baselines", {}).get(name, {})
        for key in ("tasks", "correct"):
            if m[key] != s.get(key):
                bad.append("%s.%s: recomputed %r, file says %r" % (name, key, m[key], s.get(key)))
        for p, v in m["fast_p"].items():
            if not same(v, s.get("fast_p", {}).get(p)):
                bad.append("%s fast_%s: recomputed %r, file says %r" % (name, p, v, s.get("fast_p", {}).get(p)))
        for key in ("geomean_speedup_correct", "geomean_speedup_all"):
            if not same(m[key], s.get(key)):
                bad.append("%s %s: recomputed %r, file says %r" % (name, key, m[key], s.get(key)))
    return bad


def fmt(v, pct=False):
    if v is None:
        return "-"
    return "%.1f%%" % (100 * v) if pct else "%.4fx" % v


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--check", action="store_true", help="compare with the file's own summary")
    ap.add_argument("--json", action="store_true", help="print the recomputed figures as JSON")
    a = ap.parse_args()
    try:
        with open(a.results, encoding="utf-8") as f:
            doc = json.load(f, parse_constant=refuse_constant)
        if doc.get("schema") != "kernelpro.bench-results/1":
            raise ValueError("schema is %r, expected kernelpro.bench-results/1" % doc.get("schema"))
        tasks = doc["tasks"]
        for t in tasks:
            if not isinstance(t.get("correct"), bool):
                raise ValueError("task %r: correct must be true or false" % t.get("name"))
        mine = recompute(tasks)
        mine["levels"] = recompute_levels(tasks)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("suite_metrics: %s: %s" % (a.results, e), file=sys.stderr)
        return 2
    if a.json:
        print(json.dumps(mine, indent=1, sort_keys=True))
    else:
        print("%d tasks, %d correct" % (mine["tasks"], mine["correct"]))
        for name, _ in BASELINES:
            m = mine["baselines"][name]
            print("vs %-13s n=%-4d %s  geomean correct %s, all %s" % (
                name, m["tasks"], "  ".join("fast_%s %s" % (p, fmt(v, True)) for p, v in m["fast_p"].items()),
                fmt(m["geomean_speedup_correct"]), fmt(m["geomean_speedup_all"])))
    if a.check:
        bad = compare(mine, doc.get("summary", {})) + compare_levels(mine["levels"], doc.get("summary", {}))
        for line in bad:
            print("DISAGREE " + line, file=sys.stderr)
        if bad:
            return 1
        print("agree: the file's summary matches the recomputation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
