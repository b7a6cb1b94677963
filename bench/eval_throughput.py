#!/usr/bin/env python3
"""Seconds per candidate, source to verdict, side by side in one run (issue 12). Run through
bench/eval-throughput.sh, which sets the paths; prints one table and the targets, and writes them with
every verdict under --out.

Cases (each repeated, median reported):
  small  examples/kernelbench/swish_scale.py (4096 x 4096 fp32) with the fast-path candidate:
         cold (a fresh harness process) and with the warm worker, each with the build uncached (a
         fresh cache) and cached; the load_inline candidate, cold and uncached; KernelBench's own
         eval_kernel_against_ref on the load_inline candidate and on the same fast-path candidate
         (needs .kb/). Two 25x targets: against KernelBench on the same fast-path candidate (the
         issue's "on the same candidate"), and against KernelBench on the load_inline candidate (the
         issue's own 53.8 s baseline was such a candidate; kernelpro's side is the fast-path one).
  native examples/native/swish: the native harness's cold start (kept cold: it is a C program).
  large  examples/kernelbench/large_swish.py (6 GiB fp32 input) with its fast-path candidate, every
         check on: with the worker, and one cold run; the harness's phase timeline.
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def now():
    return time.monotonic()


class Bench:
    def __init__(self, a):
        self.a = a
        self.root = a.root
        self.rows = []       # (case, [wall...], [status...], notes)
        self.tmp = tempfile.mkdtemp(prefix="kp-tput-")
        self.deadline = now() + a.budget
        os.makedirs(a.out, exist_ok=True)
        self.log = open(os.path.join(a.out, "eval-throughput.txt"), "w")
        self.env = dict(os.environ, KERNELPRO_WORKER_DIR=os.path.join(self.tmp, "workers"))
        os.makedirs(self.env["KERNELPRO_WORKER_DIR"], mode=0o700)
        self.n = 0

    def say(self, line=""):
        print(line, flush=True)
        self.log.write(line + "\n")
        self.log.flush()

    def left(self):
        return self.deadline - now()

    def path(self, rel):
        return os.path.join(self.root, rel)

    def kp_eval(self, task, cand, cache, worker=False, extra=()):
        """One `kernelpro eval --json`: (wall seconds, verdict dict or None)."""
        self.n += 1
        base = os.path.join(self.a.out, "v%03d" % self.n)
        argv = [self.a.kp, "eval", "--json", "--cache", cache] + (["--worker"] if worker else []) + list(extra) + \
            [self.path(task), self.path(cand)]
        t0 = now()
        with open(base + ".json", "w") as out, open(base + ".err", "w") as err:
            subprocess.run(argv, stdout=out, stderr=err, env=self.env, timeout=max(30, self.left() + 60))
        wall = now() - t0
        try:
            with open(base + ".json") as f:
                v = json.load(f)
        except ValueError:
            with open(base + ".err") as f:
                v = {"status": "error", "error": (f.read().strip().splitlines() or ["?"])[-1][:160]}
        return wall, v

    def case(self, name, reps, run):
        """Runs `run()` -> (wall, status, note) `reps` times within the budget."""
        walls, stats, notes = [], [], []
        for _ in range(reps):
            if self.left() < 20:
                notes.append("budget spent")
                break
            w, s, n = run()
            walls.append(w)
            stats.append(s)
            notes.append(n)
        self.rows.append((name, walls, stats, notes))
        if walls:
            self.say("  %-50s %s" % (name, " ".join("%.2f" % w for w in walls)))
        return walls

    def verdict_note(self, v):
        if v.get("error"):
            return v["error"]
        sec = v.get("seconds") or {}
        rt = (v.get("runtime") or {}).get("median_ms")
        parts = ["run %.2f" % (sec.get("run") or 0)]
        if sec.get("build") is not None:
            parts.append("build %.2f%s" % (sec["build"], " cached" if v.get("build_cached") else ""))
        if rt:
            parts.append("%.4g ms" % rt)
        if v.get("timeline"):
            parts.append("[%s]" % v["timeline"])
        cp = (sec.get("correctness_parts") or {})
        if cp:  # where the correctness phase went: the largest parts, with their call counts
            top = sorted(cp.items(), key=lambda kv: -(kv[1].get("seconds") or 0))[:6]
            parts.append("correctness: " + "; ".join("%s %.2f/%dx/max %.2f" % (k, p["seconds"], p["calls"], p["longest"])
                                                     for k, p in top))
        return ", ".join(parts)

    def wanted(self, name):
        """--only: the cases whose name holds one of its comma-separated words; the others are left out
        of the table (and their targets say "no correct runs")."""
        return not self.a.only or any(w in name for w in self.a.only.split(","))

    def eval_case(self, name, reps, task, cand, worker, cached, extra=()):
        if not self.wanted(name):
            return []
        warm = os.path.join(self.tmp, "cache-warm-" + os.path.basename(cand))
        if cached and not os.path.isdir(warm):
            self.kp_eval(task, cand, warm, worker=False, extra=("--build-only",))

        def run():
            cache = warm if cached else tempfile.mkdtemp(prefix="cache-", dir=self.tmp)
            w, v = self.kp_eval(task, cand, cache, worker=worker, extra=extra)
            return w, v.get("status", "error"), self.verdict_note(v)
        return self.case(name, reps, run)

    def kb_case(self, name, reps, cand, fast):
        if not self.wanted(name):
            return []
        kbsrc = os.path.join(self.root, ".kb", "KernelBench", "src")
        if not os.path.isdir(os.path.join(kbsrc, "kernelbench")):
            self.rows.append((name, [], [], ["skipped: no .kb/ (bench/kb-prepare.sh, carry .kb)"]))
            return []

        def run():
            self.n += 1
            base = os.path.join(self.a.out, "kb%03d" % self.n)
            env = dict(self.env, CUDA_VISIBLE_DEVICES=os.environ.get("CUDA_VISIBLE_DEVICES", "0"))
            if fast:  # kernelpro.fast for the candidate's import, a fresh build cache
                env["PYTHONPATH"] = os.path.join(self.root, "harness")
                env["KP_BUILD_CACHE"] = tempfile.mkdtemp(prefix="kbcache-", dir=self.tmp)
                env["KP_ARCH"] = self.a.arch
            t0 = now()
            with open(base + ".json", "w") as out, open(base + ".err", "w") as err:
                subprocess.run([self.a.python, self.path("bench/kb_eval_one.py"), kbsrc,
                                self.path("examples/kernelbench/swish_scale.py"), self.path(cand),
                                tempfile.mkdtemp(prefix="kbbuild-", dir=self.tmp)],
                               stdout=out, stderr=err, env=env, timeout=max(30, self.left() + 60))
            wall = now() - t0
            lines = [x for x in open(base + ".json") if x.startswith("{")]
            r = json.loads(lines[-1]) if lines else {}
            status = "correct" if r.get("correctness") else ("error" if not r else "FAILED")
            note = "%.4g ms (KernelBench's mean)" % r["runtime_ms"] if r.get("runtime_ms") else r.get("error", "see .err")
            return wall, status, note
        return self.case(name, reps, run)

    def worker_info(self):
        d = self.env["KERNELPRO_WORKER_DIR"]
        for f in sorted(os.listdir(d)):
            if f.endswith(".log"):
                with open(os.path.join(d, f)) as lf:
                    for line in lf:
                        if "serving" in line:
                            return line.strip()
        return "no worker log"

    def stop_workers(self):
        d = self.env["KERNELPRO_WORKER_DIR"]
        for f in os.listdir(d):
            if f.endswith(".sock"):
                try:
                    s = socket.socket(socket.AF_UNIX)
                    s.connect(os.path.join(d, f))
                    s.sendall(b'{"op": "shutdown"}\n')
                    s.close()
                except OSError:
                    pass

    def table(self):
        self.say()
        self.say("%-50s %3s %8s %7s %7s  %-8s %s" % ("case (seconds per candidate, source to verdict)", "n", "median",
                                                   "min", "max", "status", "median run: kernelpro's account"))
        self.say("-" * 140)
        med = {}
        for name, walls, stats, notes in self.rows:
            if not walls:
                self.say("%-50s %3d %8s %7s %7s  %-8s %s" % (name, 0, "-", "-", "-", "-", notes[0] if notes else ""))
                continue
            m = statistics.median(walls)
            if set(stats) == {"correct"}:  # a time counts toward a target only for a correct verdict
                med[name] = m
            k = min(range(len(walls)), key=lambda i: abs(walls[i] - m))
            st = stats[0] if len(set(stats)) == 1 else "/".join(sorted(set(stats)))
            self.say("%-50s %3d %8.2f %7.2f %7.2f  %-8s %s" % (name, len(walls), m, min(walls), max(walls), st,
                                                            notes[k]))
        return med

    def targets(self, med):
        self.say()
        self.say("targets (issue 12; a case counts only when all its verdicts are correct):")

        def check(label, ok, detail):
            self.say("  %-72s %s  %s" % (label, "yes" if ok else "NO ", detail))
        for label, key in (("small, uncached, with the worker <= 2 s", "small, worker, build uncached"),
                           ("small, cached, with the worker <= 1 s", "small, worker, build cached"),
                           ("large (6 GiB input), per candidate, all checks <= 15 s",
                            "large, worker, build cached, all checks")):
            if key not in med:
                check(label, False, "no correct runs")
        wu, wc = med.get("small, worker, build uncached"), med.get("small, worker, build cached")
        if wu is not None:
            check("small, uncached, with the worker <= 2 s", wu <= 2, "%.2f s" % wu)
        if wc is not None:
            check("small, cached, with the worker <= 1 s", wc <= 1, "%.2f s" % wc)
        # The issue asks for 25x "on the same candidate": the first line. The second sets KernelBench on
        # the load_inline candidate (what the 53.8 s measured) against kernelpro on the fast-path
        # one: two different sources, shown because that was the issue's own baseline.
        for kb, label in (("kernelbench harness, same fast-path candidate",
                           ">= 25x faster than KernelBench, same candidate (fast-path, both sides)"),
                          ("kernelbench harness, load_inline candidate",
                           ">= 25x faster than KernelBench on the load_inline candidate (*)")):
            if kb in med and wu:
                check(label, med[kb] / wu >= 25,
                      "%.1fx (%.2f s / %.2f s, kernelpro worker uncached, fast-path candidate)" % (
                          med[kb] / wu, med[kb], wu))
            elif kb not in med:
                check(label, False, "KernelBench's harness did not run (.kb/ missing?)")
        self.say("  (*) not the same candidate: KernelBench's harness on swish_scale_inline.py (load_inline, its build")
        self.say("      included) against kernelpro on swish_scale_fast.py. The issue's own baseline (53.8 s) was")
        self.say("      KernelBench's harness on a load_inline-built candidate like this one; the comparison on the")
        self.say("      same candidate is the line above it.")
        lw = med.get("large, worker, build cached, all checks")
        if lw is not None:
            check("large (6 GiB input), per candidate, all checks <= 15 s", lw <= 15, "%.2f s" % lw)
        bad = sorted({s for _, _, stats, _ in self.rows for s in stats if s != "correct"})
        check("every verdict correct", not bad, ", ".join(bad))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kp", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--python", default="python3", help="python3 with torch (KernelBench's harness)")
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--kb-reps", type=int, default=2)
    ap.add_argument("--large-reps", type=int, default=3)
    ap.add_argument("--budget", type=float, default=450, help="seconds; later cases are cut short past it")
    ap.add_argument("--only", default="", help="comma-separated words: only the cases whose name holds one")
    a = ap.parse_args()
    b = Bench(a)
    small, fast, inline = ("examples/kernelbench/swish_scale.py", "examples/kernelbench/swish_scale_fast.py",
                           "examples/kernelbench/swish_scale_inline.py")
    large, large_fast = "examples/kernelbench/large_swish.py", "examples/kernelbench/large_swish_fast.py"
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True).stdout.strip().splitlines()[0]
    except (OSError, IndexError):
        gpu = "no GPU seen"
    b.say("kernelpro evaluation throughput, %s, %s" % (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), gpu))
    b.say("runs (wall seconds each):")
    t0 = now()
    b.eval_case("small, cold, build uncached", a.reps, small, fast, worker=False, cached=False)
    b.eval_case("small, cold, build cached", a.reps, small, fast, worker=False, cached=True)
    b.eval_case("small, worker, first call (starts the worker)", 1, small, fast, worker=True, cached=True)
    b.eval_case("small, worker, build uncached", a.reps, small, fast, worker=True, cached=False)
    b.eval_case("small, worker, build cached", a.reps, small, fast, worker=True, cached=True)
    b.eval_case("native swish, cold (C harness), build cached", 3, "examples/native/swish",
                "examples/native/swish/candidates/div_fast.cu", worker=False, cached=True)
    b.eval_case("large, worker, build cached, all checks", a.large_reps, large, large_fast, worker=True, cached=True)
    b.eval_case("large, cold, build cached, all checks", 1, large, large_fast, worker=False, cached=True)
    b.eval_case("small, cold, load_inline candidate, uncached", a.kb_reps, small, inline, worker=False, cached=False)
    b.kb_case("kernelbench harness, same fast-path candidate", a.kb_reps, fast, fast=True)
    b.kb_case("kernelbench harness, load_inline candidate", a.kb_reps, inline, fast=False)
    b.say("worker: %s" % b.worker_info())
    b.stop_workers()
    med = b.table()
    b.targets(med)
    b.say("whole benchmark: %.0f s" % (now() - t0))
    shutil.rmtree(b.tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
