#!/usr/bin/env python3
"""Diagnosis benchmark: do kernelpro's tools name each kernel's planted bottleneck and class, and does Nsight Compute?

For every labelled kernel of a corpus (labels.json beside a saved capture) it runs `kernelpro
analyze --json` on the saved profile directory, once with the tools the Stage-1 class selects
(proactive, what the optimizer does) and once with every tool (--all-tools), and scores:

* planted bottleneck: one of the label's `expect_top2` tool ids among the two highest-ranked findings;
* class: Stage 1's class against the label's;
* findings per kernel (the issue-19 target is at most 3);
* near-roofline kernels: no finding of severity high or critical;
* `forbid`: tools that must not report anything on the kernel (tensor_cores on FMA chains that
  are not matrix products).

Nsight Compute's own rules (ncu_details.csv) are scored on the same capture: their two results with
the largest Estimated Speedup (each rule mapped to the tool id that covers the same ground), the
class its SOLBottleneck rule states, the number of OPT/WRN results, and on near-roofline kernels any
result estimating 40% or more (our 'high').

Multi-kernel PyTorch modules (labels' "modules") are scored per launch: each launch takes the first
role whose regular expression matches ncu's kernel name, and is scored with that role's labels.

    python3 bench/diagnosis.py                     # the shared H200 probe corpus (tests/golden/h200-probe)
    python3 bench/diagnosis.py --corpus bench/corpus --capture bench/corpus/h200   # one corpus
    python3 bench/diagnosis.py --corpus bench/corpus-dev --capture CAPTURE/dev     # modules: CAPTURE/dev-NAME
    python3 bench/diagnosis.py --corpus bench/corpus-real --capture bench/corpus-real/h200 --sass-root .real/corpus-real
    python3 bench/diagnosis.py --all               # every corpus below, side by side
    python3 bench/diagnosis.py --all --capture-root DIR --json scores.json

--all reads the issue-19 corpora from --capture-root (default bench/corpus2/h200, the unpacked
corpus2-capture of bench/gpu-capture-corpus2.sh): directories heldout, heldout-MODULE, dev,
dev-MODULE; and issue 31's from the repository: bench/corpus-dev31/h200 and bench/corpus-real/h200
(one directory per model-written kernel, labels with a 'dir'; their SASS from .real/corpus-real when
bench/corpus-real/split.py put it there, else the tools run on counters alone and a note says so).
A corpus with no capture yet is listed as such. No GPU is needed.

Top 1: a label's expect_top1, else any of its expect_top2, must be the first finding (ncu: the rule
with the largest estimated speedup).
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
HIGH_SPEEDUP_PCT = 40.0  # an ncu rule estimate this large counts as 'high', as our severities do

# Nsight Compute rule -> the canonical tool id that covers the same ground (docs/internals/design.md, "Tools").
RULE_TOOL = {
    "AchievedOccupancy": "occupancy",
    "TheoreticalOccupancy": "occupancy",
    "IssueSlotUtilization": "warp_stalls",
    "CPIStall": "warp_stalls",
    "HighPipeUtilization": "pipe_balance",
    "SlowPipeLimiter": "pipe_balance",
    "FPInstructions": "instruction_mix",
    "SOLFPRoofline": "instruction_mix",
    "ThreadDivergence": "divergence",
    "SharedMemoryConflicts": "bank_conflicts",
    "UncoalescedSharedAccess": "bank_conflicts",
    "UncoalescedGlobalAccess": "coalescing",
    "LaunchConfiguration": "grid_waves",
    "WorkloadImbalance": "grid_waves",
    "MemoryApertureUsage": "cache_reuse",
    "MemoryL2Compression": "(l2 compression)",
    "PCSamplingData": "(sampling)",
}


def rule_tool(name, desc):
    """The tool id a rule result corresponds to; some rules cover two tools, told apart by their text."""
    if name == "MemoryCacheAccessPattern":
        return "local_memory" if " local " in desc else "coalescing"
    if name == "SOLBottleneck":
        return "grid_waves" if "grid is too small" in desc else "sol_gap"
    return RULE_TOOL.get(name, "(%s)" % name)


def read_details(path):
    """The details page's rows as dicts (ncu prints a header row first; short rows are tolerated)."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(line for line in f if line.startswith('"'))]
    if not rows:
        return []
    head = rows[0]
    return [dict(zip(head, r)) for r in rows[1:] if r and r[0].isdigit()]


def ncu_rules(details):
    """{launch id: [(speedup or None, rule, tool, type)]} for the OPT/WRN rule results, ncu's ranking."""
    out = {}
    for r in details:
        name, typ = r.get("Rule Name", ""), r.get("Rule Type", "")
        if not name or typ == "INF":
            continue
        try:
            sp = float(r.get("Estimated Speedup", "").replace(",", ""))
        except ValueError:
            sp = None
        out.setdefault(int(r["ID"]), []).append((sp, name, rule_tool(name, r.get("Rule Description", "")), typ))
    for k in out:  # by estimated speedup, rules without one last (stable: file order)
        out[k].sort(key=lambda x: -(x[0] if x[0] is not None else -1))
    return out


def _pct(v):
    try:
        return float(v.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def ncu_classes(details):
    """{launch id: class} as Nsight Compute's SOLBottleneck rule states it (its 'memory' includes L1/L2)."""
    sol, text = {}, {}
    for r in details:
        lid = int(r["ID"])
        metric = r.get("Metric Name", "")
        if r.get("Section Name") == "GPU Speed Of Light Throughput" and metric in (
                "Compute (SM) Throughput", "Memory Throughput"):
            sol.setdefault(lid, {})[metric] = _pct(r.get("Metric Value", ""))
        if r.get("Rule Name") == "SOLBottleneck":
            text[lid] = r.get("Rule Description", "").lower()
    out = {}
    for lid, t in text.items():
        if "memory is more heavily utilized" in t:
            out[lid] = "memory"
        elif "compute is more heavily utilized" in t:
            out[lid] = "compute"
        elif "low compute throughput and memory" in t or "grid is too small" in t:
            out[lid] = "latency"
        elif "balanced" in t:
            out[lid] = "mixed"
        else:  # "greater than 80%": the busier side
            s = sol.get(lid, {})
            c, m = s.get("Compute (SM) Throughput"), s.get("Memory Throughput")
            out[lid] = "?" if c is None or m is None else ("compute" if c >= m else "memory")
    return out


def analyze(kp, capture, extra, sass=None):
    """`kernelpro analyze --json` on a saved profile directory: {launch_id: launch}. sass: a SASS file
    kept outside the directory (the real-kernel corpus keeps third-party SASS out of the repository)."""
    argv = [kp, "analyze", "--json", capture]
    if sass:
        argv += ["--sass", sass]
    elif not os.path.exists(os.path.join(capture, "sass.txt")) and os.path.exists(
            os.path.join(capture, "ncu_source_sass.csv")):
        argv += ["--sass", os.path.join(capture, "ncu_source_sass.csv")]  # library kernels: ncu's SASS
    res = subprocess.run(argv + extra, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(argv + extra), res.returncode, res.stderr.strip()))
    doc = json.loads(res.stdout)
    return {lau["launch_id"]: lau for lau in doc.get("launches", [])}, doc


def pick_launch(label, launches):
    """The launch a kernel label means: the one whose function is the label's name when the name is
    an identifier (our own kernels), else the one with the label's id (library kernels, labelled by
    a description such as "cutlass simt sgemm (cuBLAS SGEMM)")."""
    if re.fullmatch(r"[A-Za-z_]\w*", label["name"]):
        named = [lau for lau in launches.values() if lau.get("function") == label["name"]]
        return named[0] if len(named) == 1 else None
    return launches.get(label.get("id"))


def match_role(roles, kernel_name):
    """The first role whose 'match' regular expression is found in the kernel name, or None."""
    for r in roles:
        if re.search(r["match"], kernel_name or ""):
            return r
    return None


def top2(findings):
    return [f["tool"] for f in findings[:2]]


def top1_set(label):
    """What must rank first: the label's expect_top1, else any of its expect_top2 (the one or two
    causes an expert would fix first)."""
    return set(label.get("expect_top1") or label.get("expect_top2") or [])


def score_item(label, pro, allt, rules, ncu_cls, energy=None):
    """One labelled launch: our proactive and all-tools findings and ncu's rules against the label."""
    expect = set(label.get("expect_top2", []))
    cls = (pro.get("stage1") or {}).get("class", "?")
    rl = rules or []
    row = {
        "class_label": label.get("class"),
        "class_ours": cls,
        "class_ncu": ncu_cls or "?",
        "expect": sorted(expect),
        "top2_pro": top2(pro["findings"]),
        "top2_all": top2(allt["findings"]),
        "top2_ncu": [t for _, _, t, _ in rl[:2]],
        "n_ours": len(pro["findings"]),
        "n_ncu": len(rl),
        "near": bool(label.get("near_roofline")),
        "forbid": sorted(label.get("forbid", [])),
    }
    for k in ("pro", "all", "ncu"):
        row["hit_" + k] = bool(expect & set(row["top2_" + k])) if expect else None
    first = top1_set(label)
    for k in ("pro", "all", "ncu"):
        row["hit1_" + k] = bool(row["top2_" + k][:1] and row["top2_" + k][0] in first) if first else None
    row["near_bad_ours"] = ["%s %s" % (f["severity"], f["tool"]) for f in pro["findings"]
                            if row["near"] and f["severity"] in ("high", "critical")]
    row["near_bad_ncu"] = ["%s %.0f%%" % (n, sp) for sp, n, _, _ in rl
                           if row["near"] and sp is not None and sp >= HIGH_SPEEDUP_PCT]
    fired = set()  # reported to the programmer: a finding of its own, or folded into another's 'also'
    for f in pro["findings"] + allt["findings"]:
        fired.add(f["tool"])
        fired.update(f.get("also") or [])
    row["forbid_fired"] = sorted(set(row["forbid"]) & fired)
    if label.get("expect_any_with_energy") and energy is not None:
        got = [f["tool"] for f in energy["findings"]]
        row["energy_hit"] = bool(set(label["expect_any_with_energy"]) & set(got))
    return row


def summarize(rows):
    """Totals of one corpus's scored rows."""
    s = {"items": len(rows), "planted": 0, "hit_pro": 0, "hit_all": 0, "hit_ncu": 0, "hit1_pro": 0, "hit1_all": 0,
         "hit1_ncu": 0, "classed": 0,
         "class_ours": 0, "class_ncu": 0, "n_ours": 0, "n_ncu": 0, "over3": 0, "near": 0, "near_bad_ours": 0,
         "near_bad_ncu": 0, "forbid": 0, "forbid_fired": 0, "energy": 0, "energy_hit": 0}
    for r in rows:
        if r.get("trace_only"):
            s["planted"] += 1
            s["hit_pro"] += r["hit_pro"]
            s["hit_all"] += r["hit_all"]
            s["hit1_pro"] += r.get("hit1_pro", r["hit_pro"])
            s["hit1_all"] += r.get("hit1_all", r["hit_all"])
            continue
        if r["hit_pro"] is not None:
            s["planted"] += 1
            for k in ("pro", "all", "ncu"):
                s["hit_" + k] += r["hit_" + k]
                s["hit1_" + k] += bool(r.get("hit1_" + k))
        if r["class_label"]:
            s["classed"] += 1
            s["class_ours"] += r["class_ours"] == r["class_label"]
            s["class_ncu"] += r["class_ncu"] == r["class_label"]
        s["n_ours"] += r["n_ours"]
        s["n_ncu"] += r["n_ncu"]
        s["over3"] += r["n_ours"] > 3
        if r["near"]:
            s["near"] += 1
            s["near_bad_ours"] += bool(r["near_bad_ours"])
            s["near_bad_ncu"] += bool(r["near_bad_ncu"])
        if r["forbid"]:
            s["forbid"] += 1
            s["forbid_fired"] += bool(r["forbid_fired"])
        if "energy_hit" in r:
            s["energy"] += 1
            s["energy_hit"] += r["energy_hit"]
    s["scored"] = sum(1 for r in rows if not r.get("trace_only"))
    return s


def fmt_list(xs):
    return ", ".join(xs) if xs else "-"


def mark(v):
    return "" if v is None else ("HIT" if v else "miss")


class Corpus:
    """A labels file with where its kernels' capture and its modules' captures are."""

    def __init__(self, name, labels_path, kernels_dir, module_dir=None, trace=None, sass_root=None):
        self.name = name
        self.sass_root = sass_root
        self.labels_path = labels_path
        with open(labels_path) as f:
            self.labels = json.load(f)
        self.kernels_dir = kernels_dir
        self.module_dir = module_dir or (lambda m: None)
        self.trace = trace


W = 30  # width of the kernel column


class Scorer:
    """Scores one corpus: prints its table, collects the scored rows and the notes."""

    def __init__(self, kp, out):
        self.kp, self.out = kp, out
        self.rows, self.notes = [], []

    def emit(self, name, row):
        cls = "%s/%s%s" % (row["class_ours"], row["class_ncu"],
                           "" if not row["class_label"] or row["class_ours"] == row["class_label"]
                           else " (%s)" % row["class_label"])
        name = name if len(name) <= W else name[: W - 2] + ".."
        print("%-*s %-16s %-32s %-4s %-32s %-4s %-30s %-4s %3d %4d" % (
            W, name, cls, fmt_list(row["top2_pro"]), mark(row["hit_pro"]), fmt_list(row["top2_all"]),
            mark(row["hit_all"]), fmt_list(row["top2_ncu"]), mark(row["hit_ncu"]), row["n_ours"], row["n_ncu"]),
            file=self.out)

    def add(self, name, row):
        """Prints a scored row, keeps it, and notes what misses a target."""
        row["item"] = name
        self.emit(name, row)
        self.rows.append(row)
        n = self.notes
        if row["hit_pro"] is False:
            n.append("%s: planted %s; proactive top 2: %s" % (name, fmt_list(row["expect"]), fmt_list(row["top2_pro"])))
        elif row.get("hit1_pro") is False:
            n.append("%s: planted %s in the top 2 but not first: %s" % (
                name, fmt_list(row["expect"]), fmt_list(row["top2_pro"])))
        if row["class_label"] and row["class_ours"] != row["class_label"]:
            n.append("%s: class %s, labelled %s" % (name, row["class_ours"], row["class_label"]))
        if row["near_bad_ours"]:
            n.append("%s is near the roofline but got: %s" % (name, "; ".join(row["near_bad_ours"])))
        if row["forbid_fired"]:
            n.append("%s: %s must not fire but did" % (name, fmt_list(row["forbid_fired"])))
        if row["n_ours"] > 3:
            n.append("%s: %d findings" % (name, row["n_ours"]))
        if "energy_hit" in row:
            n.append("%s with --energy: %s" % (name, mark(row["energy_hit"])))

    def run_dir(self, capture, need_energy, sass=None):
        """Our analyses (proactive, all tools, energy) and ncu's rules and classes for one profile directory."""
        pro, doc = analyze(self.kp, capture, [], sass)
        allt, _ = analyze(self.kp, capture, ["--all-tools"], sass)
        energy = analyze(self.kp, capture, ["--energy"], sass)[0] if need_energy else {}
        details_path = os.path.join(capture, "ncu_details.csv")
        details = read_details(details_path) if os.path.exists(details_path) else []
        if not details:
            self.notes.append("%s: no ncu_details.csv: Nsight Compute's rules not scored there" % capture)
        return pro, allt, energy, ncu_rules(details), ncu_classes(details), doc

    def kernels(self, labels, capture, sass=None):
        if not labels:
            return
        if not os.path.exists(os.path.join(capture or "", "ncu_raw.csv")):
            self.notes.append("kernels: no capture at %s yet" % capture)
            return
        need_energy = any(k.get("expect_any_with_energy") for k in labels)
        pro, allt, energy, rules, ncls, _ = self.run_dir(capture, need_energy, sass)
        for k in labels:
            lau = pick_launch(k, pro)
            if lau is None:
                self.notes.append("%s: not in the capture" % k["name"])
                continue
            lid = lau["launch_id"]
            if "id" in k and k["id"] != lid:
                self.notes.append("%s: labelled id %d, captured as launch %d" % (k["name"], k["id"], lid))
            row = score_item(k, lau, allt[lid], rules.get(lid), ncls.get(lid), energy.get(lid))
            row["family"] = k.get("family")
            self.add(k["name"], row)

    def traced(self, labels, trace):
        """Labels whose kernels ncu does not see (launch overhead): the tracer's view."""
        for k in labels:
            if not trace or not os.path.exists(trace):
                self.notes.append("%s: no trace at %s" % (k["name"], trace))
                continue
            res = subprocess.run([self.kp, "diagnose", "--json", "--trace", trace], capture_output=True, text=True)
            if res.returncode != 0:
                self.notes.append("%s: diagnose --trace failed: %s" % (k["name"], res.stderr.strip()))
                continue
            got = top2(json.loads(res.stdout).get("findings", []))
            ok = bool(set(k["expect"]) & set(got))
            ok1 = bool(got[:1] and got[0] in set(k["expect"]))
            self.rows.append({"item": k["name"], "trace_only": True, "hit_pro": ok, "hit_all": ok, "top2_pro": got,
                              "hit1_pro": ok1, "hit1_all": ok1})
            print("%-*s %-16s %-32s %-4s %-32s %-4s %-30s %-4s" % (
                W, k["name"] + " (trace)", "-", fmt_list(got), mark(ok), fmt_list(got), mark(ok),
                "(ncu does not see launches)", "-"), file=self.out)

    def module(self, m, d):
        """A whole task: each launch scored with the labels of the first role its kernel name matches."""
        if not d or not os.path.exists(os.path.join(d, "ncu_raw.csv")):
            self.notes.append("module %s: no capture at %s yet" % (m["name"], d))
            return
        pro, allt, _, rules, ncls, doc = self.run_dir(d, False)
        total, longest, roles_seen = 0.0, (0.0, None), set()
        for lid in sorted(pro):
            lau = pro[lid]
            t = (lau.get("stage1") or {}).get("time_s") or 0.0
            total += t
            role = match_role(m["roles"], lau.get("kernel"))
            if role is None:
                self.notes.append("module %s: launch %d (%s) matches no role: not scored" % (
                    m["name"], lid, (lau.get("kernel") or "?")[:80]))
                continue
            roles_seen.add(role["role"])
            if t > longest[0]:
                longest = (t, role["role"])
            row = score_item(role, lau, allt[lid], rules.get(lid), ncls.get(lid))
            row.update(family=m.get("family"), module=m["name"], role=role["role"])
            self.add("%s:%s#%d" % (m["name"], role["role"], lid), row)
        for r in m["roles"]:
            if r["role"] not in roles_seen:
                self.notes.append("module %s: no launch took role %s" % (m["name"], r["role"]))
        dram = (doc.get("gpu") or {}).get("dram_bw")
        min_bytes = m.get("task", {}).get("min_bytes")
        if min_bytes and dram and total:
            floor = min_bytes / dram
            self.notes.append("module %s: %d launches, %.1f us of kernel time; the task's DRAM floor is %.1f us "
                              "(%.1fx); longest launch: role %s" % (
                                  m["name"], len(pro), total * 1e6, floor * 1e6, total / floor, longest[1]))
        self.ranking(m, doc.get("task"))

    def ranking(self, m, task):
        """kernelpro's whole-task ranking (time that could be saved, by kernel) by role; against the
        label's attack_first when it has one."""
        if not task or not task.get("kernels"):
            self.notes.append("module %s: no whole-task ranking in the output" % m["name"])
            return
        ranked = []
        for k in task["kernels"][:4]:
            role = match_role(m["roles"], k.get("kernel"))
            ranked.append("%s%s %.0f%% of the time, saves %.0f%%" % (
                role["role"] if role else "?", "" if k.get("tools") else " (no tools)",
                100 * (k.get("share") or 0), 100 * (k.get("saving_share") or 0)))
        top = match_role(m["roles"], task["kernels"][0].get("kernel"))
        verdict = ""
        if m.get("attack_first"):
            verdict = "; attack first (label): %s: %s" % (
                fmt_list(m["attack_first"]), mark(bool(top and top["role"] in m["attack_first"])))
        self.notes.append("module %s: whole-task ranking: %s%s" % (m["name"], "; ".join(ranked), verdict))


def score_corpus(kp, corpus, out):
    """Prints one corpus's table; returns (rows, notes)."""
    print("== %s: %s (capture %s)" % (corpus.name, corpus.labels_path, corpus.kernels_dir), file=out)
    print("%-*s %-16s %-32s %-4s %-32s %-4s %-30s %-4s %3s %4s" % (
        W, "kernel", "class ours/ncu", "ours: top 2 (proactive)", "hit", "ours: top 2 (all tools)", "hit",
        "ncu rules: top 2 by speedup", "hit", "#us", "#ncu"), file=out)
    sc = Scorer(kp, out)
    kernels = corpus.labels.get("kernels", [])
    dirs = []  # labels with a 'dir' (the real-kernel corpus): one profile directory per kernel
    for k in kernels:
        if k.get("dir") and k["dir"] not in dirs:
            dirs.append(k["dir"])
    for d in dirs:
        if not os.path.exists(os.path.join(corpus.kernels_dir, d, "ncu_raw.csv")):
            sc.notes.append("%s: labelled, not captured yet" % d)
            continue
        sass = os.path.join(corpus.sass_root, d, "sass.txt") if corpus.sass_root else None
        if sass and not os.path.exists(sass):
            sc.notes.append("%s: no SASS at %s (bench/corpus-real/prepare.py + split.py): counters only" % (d, sass))
            sass = None
        sc.kernels([k for k in kernels if k.get("dir") == d], os.path.join(corpus.kernels_dir, d), sass)
    sc.kernels([k for k in kernels if not k.get("dir")], corpus.kernels_dir)
    sc.traced(corpus.labels.get("not_in_ncu_csv", []), corpus.trace)
    for m in corpus.labels.get("modules", []):
        sc.module(m, corpus.module_dir(m["name"]))
    return sc.rows, sc.notes


def pct(a, b):
    return "%d/%d (%.0f%%)" % (a, b, 100.0 * a / b) if b else "-"


def print_summary(s, out):
    n = max(s["scored"], 1)
    print("planted bottleneck in our top 2: %s proactive, %s all tools; Nsight Compute's top 2: %s" % (
        pct(s["hit_pro"], s["planted"]), pct(s["hit_all"], s["planted"]), pct(s["hit_ncu"], s["planted"])), file=out)
    print("planted bottleneck ranked first: %s proactive, %s all tools; Nsight Compute's first: %s" % (
        pct(s["hit1_pro"], s["planted"]), pct(s["hit1_all"], s["planted"]), pct(s["hit1_ncu"], s["planted"])), file=out)
    print("class right: ours %s, Nsight Compute (SOLBottleneck) %s" % (
        pct(s["class_ours"], s["classed"]), pct(s["class_ncu"], s["classed"])), file=out)
    print("findings per kernel: ours %.2f (%d kernels with more than 3), Nsight Compute %.2f (OPT/WRN results)" % (
        s["n_ours"] / n, s["over3"], s["n_ncu"] / n), file=out)
    print("near-roofline kernels with a high/critical finding: ours %d of %d, Nsight Compute (a >= %.0f%% estimate) %d"
          % (s["near_bad_ours"], s["near"], HIGH_SPEEDUP_PCT, s["near_bad_ncu"]), file=out)
    if s["forbid"]:
        print("kernels where a forbidden tool fired: %d of %d" % (s["forbid_fired"], s["forbid"]), file=out)
    if s["energy"]:
        print("energy-labelled kernels named with --energy: %d of %d" % (s["energy_hit"], s["energy"]), file=out)


def side_by_side(results, out):
    print("== side by side", file=out)
    head = ("corpus", "scored", "planted: ours pro", "ours all", "ncu", "class: ours", "ncu", "findings ours/ncu",
            ">3", "near-roof high ours/ncu", "forbidden fired", "first: ours pro / ncu")
    print("%-22s %6s %-17s %-17s %-17s %-17s %-17s %-17s %3s %-23s %-15s %s" % head, file=out)
    for name, s, why in results:
        if s is None:
            print("%-22s %6s (%s)" % (name, "-", why), file=out)
            continue
        n = max(s["scored"], 1)
        print("%-22s %6d %-17s %-17s %-17s %-17s %-17s %-17s %3d %-23s %-15s %s" % (
            name, s["scored"], pct(s["hit_pro"], s["planted"]), pct(s["hit_all"], s["planted"]),
            pct(s["hit_ncu"], s["planted"]), pct(s["class_ours"], s["classed"]), pct(s["class_ncu"], s["classed"]),
            "%.2f / %.2f" % (s["n_ours"] / n, s["n_ncu"] / n), s["over3"],
            "%d/%d of %d" % (s["near_bad_ours"], s["near_bad_ncu"], s["near"]),
            "%d of %d" % (s["forbid_fired"], s["forbid"]) if s["forbid"] else "-",
            "%s / %s" % (pct(s["hit1_pro"], s["planted"]), pct(s["hit1_ncu"], s["planted"]))), file=out)
    print("targets (issue 19): planted in top 2 >= 90%, class right >= 90%, <= 3 findings per kernel, "
          "no high/critical on near-roofline kernels", file=out)


def corpora_all(capture_root):
    probe = os.path.join(ROOT, "tests", "golden", "h200-probe")
    own = os.path.join(HERE, "corpus")
    sets = [
        Corpus("h200-probe (shared)", os.path.join(probe, "labels.json"), probe,
               trace=os.path.join(ROOT, "tests", "golden", "tools", "tiny_trace.json")),
        Corpus("own (issue 4)", os.path.join(own, "labels.json"), os.path.join(own, "h200"),
               trace=os.path.join(own, "h200", "tiny_trace.json")),
    ]
    for name, sub, lab in (("held-out (corpus2)", "heldout", "corpus2"), ("dev (corpus-dev)", "dev", "corpus-dev")):
        sets.append(Corpus(name, os.path.join(HERE, lab, "labels.json"), os.path.join(capture_root, sub),
                           module_dir=lambda m, sub=sub: os.path.join(capture_root, "%s-%s" % (sub, m))))
    # issue 31: our development kernels, and the model-written kernels (SASS kept in ignored .real/)
    sets.append(Corpus("dev31 (corpus-dev31)", os.path.join(HERE, "corpus-dev31", "labels.json"),
                       os.path.join(HERE, "corpus-dev31", "h200")))
    sets.append(Corpus("real (corpus-real)", os.path.join(HERE, "corpus-real", "labels.json"),
                       os.path.join(HERE, "corpus-real", "h200"), sass_root=os.path.join(ROOT, ".real", "corpus-real")))
    return sets


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kp", default=os.path.join(ROOT, "build", "bin", "kernelpro"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "tests", "golden", "h200-probe"),
                    help="folder with labels.json (and the capture, unless --capture)")
    ap.add_argument("--capture", help="profile directory: ncu_raw.csv, ncu_details.csv, sass.txt, ptxas.txt")
    ap.add_argument("--trace", default=os.path.join(ROOT, "tests", "golden", "tools", "tiny_trace.json"),
                    help="launch trace for the labels' not_in_ncu_csv kernels")
    ap.add_argument("--all", action="store_true", help="every corpus, side by side")
    ap.add_argument("--capture-root", default=os.path.join(HERE, "corpus2", "h200"),
                    help="with --all: the unpacked corpus2-capture (heldout, dev, heldout-MODULE, dev-MODULE)")
    ap.add_argument("--sass-root", help="SASS kept outside the captures: DIR/<label's dir>/sass.txt "
                    "(the real-kernel corpus: .real/corpus-real)")
    ap.add_argument("--json", help="also write every scored row and the totals to this file")
    a = ap.parse_args(argv)
    out = sys.stdout
    if a.all:
        corpora = corpora_all(a.capture_root)
    else:
        capture = a.capture or a.corpus
        corpora = [Corpus(os.path.basename(os.path.normpath(a.corpus)), os.path.join(a.corpus, "labels.json"),
                          capture, module_dir=lambda m: os.path.normpath(capture) + "-" + m, trace=a.trace,
                          sass_root=a.sass_root)]
    results, dump = [], {}
    for c in corpora:
        try:
            rows, notes = score_corpus(a.kp, c, out)
        except (RuntimeError, OSError, ValueError, KeyError) as e:
            print("%s: could not score: %s" % (c.name, e), file=out)
            results.append((c.name, None, "could not score: see above"))
            continue
        s = summarize(rows) if rows else None
        print(file=out)
        if s:
            print_summary(s, out)
        for line in notes:
            print("note: " + line, file=out)
        print(file=out)
        results.append((c.name, s, "no capture yet" if not rows else ""))
        dump[c.name] = {"totals": s, "rows": rows, "notes": notes}
    if len(corpora) > 1:
        side_by_side(results, out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dump, f, indent=1, sort_keys=True)
    return 0 if any(s for _, s, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
