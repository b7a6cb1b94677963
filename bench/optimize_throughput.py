#!/usr/bin/env python3
"""`kernelpro optimize` on the large task with recorded replies, measured from the run's own records
(run.db, summary.json). Run through bench/optimize-throughput.sh, which sets the paths.

What each number is:
  one evaluation     median of the candidates' verdict `seconds.total` (static checks to verdict,
                     as `kernelpro eval` reports it), and `seconds.run` (the harness run alone)
  iteration          (the session's wall time - the reference's evaluation - the LLM's own time -
                     the final profile of the best version) / candidates: everything the loop
                     spends per version outside the model; "with the final profile" adds that
                     one profile per run back, spread over the candidates
  first candidate    the first candidate's evaluation wall time (run.db evaluations.wall_s), which
                     waits for whatever is left of the warm worker's start (launched as the run
                     begins, its import overlapping the reference's evaluation), and the later ones'
  overhead ratio     iteration / one evaluation (target <= 1.5x): what profiling, builds, the
                     database and the loop add to the evaluation itself
  profiles           versions profiled (on demand) / speculative / final, per candidate: a version
                     is profiled before its first child is asked for, while the GPU would wait on
                     the model (never with the replay backend: one request at a time), and the
                     best before the run ends (summary.json used.profiles)
  profile share      sum of the profiles' `profile_s` (prepared run, ncu, page exports, diagnosis) /
                     the candidates' share of the wall time; `ncu_s` is ncu's run alone (for a held
                     run, started ahead while the GPU evaluated, from the moment it got its input)
  GPU busy share     summary.json used.gpu_busy_share: the time the GPU slot was evaluating or
                     profiling (reference included) / the run's wall time
  reference, cached  the reference's evaluation wall time in a second run of the same task with
                     the same cache directory (timed and profiled once per task, GPU and harness)
"""

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

TASK = "examples/kernelbench/large_swish.py"


def say(log, line=""):
    print(line, flush=True)
    log.write(line + "\n")
    log.flush()


def optimize(a, env, runs, name, evals, limit):
    argv = [a.kp, "optimize", os.path.join(a.root, TASK), "--llm", "replay:" + os.path.join(a.root, "bench", "optimize-replies"),
            "--evals", str(evals), "--runs-dir", runs, "--name", name]
    t0 = time.monotonic()
    with open(os.path.join(a.out, name + ".out"), "w") as out, open(os.path.join(a.out, name + ".err"), "w") as err:
        try:
            rc = subprocess.run(argv, stdout=out, stderr=err, env=env, timeout=limit).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return rc, time.monotonic() - t0


def measure(run_dir):
    db = sqlite3.connect(os.path.join(run_dir, "run.db"))
    q = lambda sql: db.execute(sql).fetchall()  # noqa: E731
    elapsed = sum(r[0] or 0 for r in q("SELECT elapsed_s FROM sessions"))
    evals = q("SELECT node_id, wall_s, verdict_json, outcome FROM evaluations ORDER BY id")
    profiles = {r[0]: json.loads(r[1]) for r in q("SELECT node_id, json FROM profiles")}
    llm = sum(r[0] or 0 for r in q("SELECT latency_s FROM responses"))
    db.close()
    with open(os.path.join(run_dir, "summary.json")) as f:
        used = json.load(f).get("used", {})
    ref = [e for e in evals if e[0] == 1]
    cands = [e for e in evals if e[0] != 1]
    m = {"elapsed": elapsed, "llm": llm, "ref_wall": ref[0][1] if ref else None, "n": len(cands),
         "gpu_busy_s": used.get("gpu_busy_s"), "gpu_busy_share": used.get("gpu_busy_share"),
         "ref_cached": bool(profiles.get(1, {}).get("cached")), "profiles": used.get("profiles") or {}}
    best = summary_best(run_dir)
    totals, runs, statuses, prof, ncu, held = [], [], [], [], [], []
    for node, wall, vj, _ in cands:
        v = json.loads(vj) if vj else {}
        sec = v.get("seconds") or {}
        statuses.append(v.get("status", "?"))
        if sec.get("total") is not None:
            totals.append(sec["total"])
        if sec.get("run") is not None:
            runs.append(sec["run"])
        p = profiles.get(node, {})
        if p.get("profile_s") is not None:
            prof.append(p["profile_s"])
        if p.get("ncu_s") is not None:
            ncu.append(p["ncu_s"])
            held.append(bool(p.get("held")))
    # The first candidate's evaluation pays whatever is left of the warm worker's start (launched as the
    # run begins, so its import overlaps the reference's evaluation); the later ones do not.
    m["first_wall"] = cands[0][1] if cands else None
    m["later_wall"] = statistics.median(e[1] for e in cands[1:]) if len(cands) > 1 else None
    m.update(statuses=statuses, one_eval=statistics.median(totals) if totals else None,
             one_run=statistics.median(runs) if runs else None, profile_s=prof, ncu_s=ncu, held=held)
    # The final profile (the best version, once per run) is not part of an iteration.
    final = profiles.get(best, {}).get("profile_s") if m["profiles"].get("final") else None
    m["final_s"] = final or 0.0
    if cands and m["ref_wall"] is not None:
        m["cand_time"] = elapsed - m["ref_wall"] - llm
        m["iteration"] = (m["cand_time"] - m["final_s"]) / len(cands)
        m["iteration_final"] = m["cand_time"] / len(cands)
    return m


def summary_best(run_dir):
    with open(os.path.join(run_dir, "summary.json")) as f:
        return (json.load(f).get("best") or {}).get("node")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kp", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--evals", type=int, default=3)
    ap.add_argument("--budget", type=float, default=240)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    log = open(os.path.join(a.out, "optimize-throughput.txt"), "w")
    tmp = tempfile.mkdtemp(prefix="kp-otput-")
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"),  # the reference not cached yet
               KERNELPRO_WORKER_DIR=os.path.join(tmp, "workers"))
    os.makedirs(env["KERNELPRO_WORKER_DIR"], mode=0o700)
    runs = os.path.join(a.out, "runs")
    deadline = time.monotonic() + a.budget
    say(log, "optimize throughput on %s (%d recorded replies, replay backend), %s" % (
        TASK, a.evals, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())))
    rc, wall = optimize(a, env, runs, "first", a.evals, max(60, a.budget))
    say(log, "run 1: `optimize --evals %d`: exit %s in %.1f s" % (a.evals, rc, wall))
    if rc != 0:
        with open(os.path.join(a.out, "first.err")) as f:
            say(log, "".join(f.readlines()[-15:]))
        return 1
    m = measure(os.path.join(runs, "first"))
    say(log, "  verdicts: %s" % ", ".join(m["statuses"]))
    say(log, "  session wall %.1f s; reference %.1f s; LLM %.2f s; %d candidates" % (
        m["elapsed"], m["ref_wall"] or 0, m["llm"], m["n"]))
    if m["first_wall"] is not None:
        say(log, "  first candidate's evaluation %.1f s (worker start included); later ones %s s (median)" % (
            m["first_wall"], "%.1f" % m["later_wall"] if m["later_wall"] is not None else "-"))
    fmt = lambda xs: " ".join("%.1f" % x for x in xs) or "-"  # noqa: E731
    ok = True
    if m.get("iteration") and m.get("one_eval"):
        ratio = m["iteration"] / m["one_eval"]
        say(log, "  one evaluation %.2f s (harness run %.2f s); iteration outside the LLM %.2f s: %.2fx  [target <= 1.5x: %s]" % (
            m["one_eval"], m["one_run"] or 0, m["iteration"], ratio, "met" if ratio <= 1.5 else "NOT met"))
        ok = ratio <= 1.5
        say(log, "  with the final profile of the best version (%.1f s, once per run): %.2f s per candidate: %.2fx" % (
            m["final_s"], m["iteration_final"], m["iteration_final"] / m["one_eval"]))
        pr = m["profiles"]
        say(log, "  profiles: %d on demand, %d speculative, %d final for %d candidates (%.2f per candidate)" % (
            pr.get("on_demand", 0), pr.get("speculative", 0), pr.get("final", 0), m["n"],
            sum(pr.get(k, 0) for k in ("on_demand", "speculative", "final")) / max(1, m["n"])))
        if m["profile_s"]:
            say(log, "  profile step per candidate: %s s (ncu alone %s s): %.0f%% of the candidates' time" % (
                fmt(m["profile_s"]), fmt(m["ncu_s"]), 100 * sum(m["profile_s"]) / m["cand_time"]))
            say(log, "  profiles through a held ncu (started ahead, during an evaluation): %d of %d" % (
                sum(m["held"]), len(m["held"])))
    if m.get("gpu_busy_share") is not None:
        say(log, "  GPU busy %.1f s of %.1f s: %.0f%% of the run's wall time" % (
            m["gpu_busy_s"], m["elapsed"], 100 * m["gpu_busy_share"]))
    left = deadline - time.monotonic()
    if left > 45:
        rc, wall = optimize(a, env, runs, "second", 1, left)
        m2 = measure(os.path.join(runs, "second")) if rc == 0 else {}
        say(log, "run 2 (same task, same cache, --evals 1): exit %s in %.1f s; reference %s s (from the cache: %s; run 1: %.1f s)" % (
            rc, wall, "%.2f" % m2["ref_wall"] if m2.get("ref_wall") is not None else "?", m2.get("ref_cached"),
            m["ref_wall"] or 0))
    else:
        say(log, "run 2 skipped: %.0f s of the budget left" % left)
    say(log, __doc__.split("What each number is:")[1].rstrip())
    return 0 if ok else 2


if __name__ == "__main__":
    sys.exit(main())
