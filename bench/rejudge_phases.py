#!/usr/bin/env python3
"""Where a `bench --kernels` suite's time went: one line per kernel from its run's database (when it
started and ended relative to the first, its outcome, the build's wall and CPU seconds and which
cuda.cu it was built with, the GPU wait, correctness and timing), then totals and the candidates
per minute once the first build batch is through.

  bench/rejudge_phases.py SUITE_DIR        (the suite's runs/*/run.db; standard library only)
"""

import glob
import json
import os
import re
import sqlite3
import statistics
import sys

CPU = re.compile(r"([0-9.]+) CPU-s in the build's processes")
TIER = re.compile(r"cuda\.cu (min|light|as written)")


def rows(suite):
    out = []
    for db in sorted(glob.glob(os.path.join(suite, "runs", "*", "run.db"))):
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        try:
            for created, wall, vj in con.execute("SELECT created, wall_s, verdict_json FROM evaluations"):
                v = json.loads(vj) if vj else {}
                if "status" not in v:  # the run's baseline (the reference's timings), not a verdict
                    continue
                s = v.get("seconds") or {}
                note = v.get("build_note") or ""
                tl = v.get("timeline") or ""
                phases: dict = {}
                for k, sec in re.findall(r"(\w+) ([0-9.]+)", tl):  # a phase may come more than once
                    phases[k] = phases.get(k, 0.0) + float(sec)
                m, t = CPU.search(note), TIER.search(note)
                out.append({
                    "kernel": os.path.basename(os.path.dirname(db)), "end": created,
                    "start": created - (wall or 0.0), "status": v.get("status", "?"),
                    "build": s.get("build"), "cpu": float(m.group(1)) if m else None,
                    "tier": t.group(1) if t else "-", "gpu_wait": phases.get("gpu_wait", 0.0),
                    "correctness": phases.get("correctness", 0.0), "timing": phases.get("timing", 0.0), "wall": wall,
                })
        finally:
            con.close()
    return out


def fmt(x):
    return "%6.1f" % x if isinstance(x, (int, float)) else "     -"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    r = rows(sys.argv[1])
    if not r:
        sys.exit("rejudge_phases: no evaluations under %s/runs" % sys.argv[1])
    t0 = min(x["start"] for x in r)
    r.sort(key=lambda x: x["end"])
    print("%-44s %-14s %6s %6s %6s %-10s %6s %6s %6s %6s" % (
        "kernel", "status", "start", "end", "build", "cuda.cu", "CPU-s", "wait", "check", "time"))
    for x in r:
        print("%-44.44s %-14s %s %s %s %-10s %s %s %s %s" % (
            x["kernel"], x["status"], fmt(x["start"] - t0), fmt(x["end"] - t0), fmt(x["build"]), x["tier"],
            fmt(x["cpu"]), fmt(x["gpu_wait"]), fmt(x["correctness"]), fmt(x["timing"])))
    span = max(x["end"] for x in r) - t0
    cpus = [x["cpu"] for x in r if x["cpu"]]
    builds = [x["build"] for x in r if isinstance(x["build"], (int, float)) and x["build"] > 1]
    tiers = {}
    for x in r:
        tiers[x["tier"]] = tiers.get(x["tier"], 0) + 1
    print("verdicts %d in %.1f s: %.2f a minute" % (len(r), span, len(r) * 60 / span if span else 0))
    if len(r) >= 4:
        # after the first quarter has ended: the steady rate, without the first batch's ramp
        q = r[len(r) // 4 - 1]["end"]
        later = [x for x in r if x["end"] > q]
        if later and later[-1]["end"] > q:
            print("after the first quarter: %d verdicts in %.1f s: %.2f a minute" % (
                len(later), later[-1]["end"] - q, len(later) * 60 / (later[-1]["end"] - q)))
    if cpus:
        print("build CPU-s: median %.1f, sum %.0f over %d builds" % (statistics.median(cpus), sum(cpus), len(cpus)))
    if builds:
        print("build wall s: median %.1f over %d builds" % (statistics.median(builds), len(builds)))
    print("cuda.cu: " + ", ".join("%s %d" % kv for kv in sorted(tiers.items())))


if __name__ == "__main__":
    main()
