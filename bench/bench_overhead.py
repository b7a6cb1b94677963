#!/usr/bin/env python3
"""How much of a `kernelpro bench` suite's GPU time went to evaluations, read from its databases.

For each GPU slot, the bench's wall time is capacity; the evaluations (every row of every run's
`evaluations` table: the reference's and the candidates', their wall_s) and the baselines the bench
measured (`measure_s` in each shard row's baseline document; 0 when it came from the cache) are the
work. The rest is the bench's own overhead: making runs, prompts, database writes, results, and the
time a slot waited for work at the end of the suite.

    overhead = 1 - (sum of evaluation and baseline wall times) / (bench wall time x GPU slots)

The wall time is the sum of the shard sessions' elapsed_s (each shard database's `sessions`); the
slots are the `gpus` the latest session of each shard used. Uses only Python's sqlite3: no kernelpro
code. With --max F, exits 1 when the overhead is above F (0.05 for 5%).

usage: bench_overhead.py SUITE_DIR [--json] [--max F]
"""
import argparse
import glob
import json
import os
import sqlite3
import sys


def ro(path):
    return sqlite3.connect("file:%s?mode=ro" % path, uri=True)


def shard_numbers(path):
    db = ro(path)
    try:
        elapsed = db.execute("SELECT COALESCE(SUM(elapsed_s), 0) FROM sessions").fetchone()[0]
        row = db.execute("SELECT value FROM meta WHERE key = 'gpus'").fetchone()
        slots = len(json.loads(row[0])) if row else 1
        baselines = 0.0
        for (doc,) in db.execute("SELECT baseline FROM progress WHERE baseline IS NOT NULL"):
            baselines += float(json.loads(doc).get("measure_s") or 0)
        return elapsed, slots, baselines
    finally:
        db.close()


def run_evaluations(path):
    db = ro(path)
    try:
        n, s = db.execute("SELECT COUNT(*), COALESCE(SUM(wall_s), 0) FROM evaluations").fetchone()
        return n, s
    finally:
        db.close()


def measure(suite):
    shards = sorted(glob.glob(os.path.join(suite, "shards", "*-of-*.db")))
    if not shards:
        raise ValueError("%s has no shard databases (was it run?)" % suite)
    wall = capacity = baselines = 0.0
    for s in shards:
        e, slots, b = shard_numbers(s)
        wall += e
        capacity += e * slots
        baselines += b
    evals = n = 0
    for r in sorted(glob.glob(os.path.join(suite, "runs", "*", "run.db"))):
        k, s = run_evaluations(r)
        n += k
        evals += s
    busy = evals + baselines
    return {
        "suite": suite,
        "wall_s": wall,
        "slot_s": capacity,
        "evaluations": n,
        "evaluation_s": evals,
        "baseline_s": baselines,
        "busy_s": busy,
        "overhead": 1 - busy / capacity if capacity > 0 else None,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("suite")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--max", type=float, default=None)
    a = ap.parse_args()
    try:
        m = measure(a.suite)
    except (ValueError, sqlite3.Error) as e:
        print("bench_overhead.py: %s" % e, file=sys.stderr)
        return 2
    if a.json:
        print(json.dumps(m, indent=2, sort_keys=True))
    else:
        print("bench wall %.1f s over %.1f slot-seconds; %d evaluations %.1f s + baselines %.1f s = %.1f s busy"
              % (m["wall_s"], m["slot_s"], m["evaluations"], m["evaluation_s"], m["baseline_s"], m["busy_s"]))
        print("overhead beyond the evaluations: %.2f%%" % (100 * m["overhead"]) if m["overhead"] is not None
              else "overhead: no bench time recorded")
    if a.max is not None and (m["overhead"] is None or m["overhead"] > a.max):
        print("bench_overhead.py: the overhead is above %.2f%%" % (100 * a.max), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
