#!/usr/bin/env python3
"""Diagnosis benchmark: do the tools name each kernel's planted bottleneck, and does Nsight Compute?

For every labelled kernel of a corpus (labels.json beside an ncu capture) it prints our two
highest-ranked findings, the planted bottleneck, hit or miss; the same for Nsight Compute's own
rules (ncu_details.csv, ranked by their Estimated Speedup, each rule mapped to the tool id that
covers it); and the number of findings each side reports. Kernels labelled near_roofline must get
no high or critical finding; 'expect_any_with_energy' kernels are checked with --energy.

    python3 bench/diagnosis.py                       # the shared H200 probe corpus (tests/golden/h200-probe)
    python3 bench/diagnosis.py --corpus bench/corpus --capture bench/corpus/h200

Our side runs `kernelpro diagnose --json`, once with the tools the Stage-1 class selects
(proactive, what the optimizer does) and once with every tool (--all-tools).
"""
import argparse
import csv
import json
import os
import subprocess
import sys

# Nsight Compute rule -> the canonical tool id that covers the same ground (DESIGN.md section 5).
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


def ncu_rules(details_path):
    """{launch id: [(speedup or None, rule, tool, type)]} for the OPT/WRN rule results (INF is information)."""
    out = {}
    with open(details_path, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    ix = {k: i for i, k in enumerate(head)}
    for r in rows[1:]:
        if len(r) <= ix["Rule Name"] or not r[ix["Rule Name"]]:
            continue
        typ = r[ix["Rule Type"]]
        if typ == "INF":
            continue
        sp = r[ix["Estimated Speedup"]] if len(r) > ix["Estimated Speedup"] else ""
        try:
            sp = float(sp.replace(",", ""))
        except ValueError:
            sp = None
        name = r[ix["Rule Name"]]
        out.setdefault(int(r[0]), []).append((sp, name, rule_tool(name, r[ix["Rule Description"]]), typ))
    for k in out:  # ncu's ranking: estimated speedup, rules without one last (stable: file order)
        out[k].sort(key=lambda x: -(x[0] if x[0] is not None else -1))
    return out


def diagnose(kp, capture, extra):
    files = {"ncu-csv": "ncu_raw.csv", "sass": "sass.txt", "ptxas": "ptxas.txt"}
    argv = [kp, "diagnose", "--json"]
    for opt, name in files.items():
        p = os.path.join(capture, name)
        if os.path.exists(p):
            argv += ["--" + opt, p]
    res = subprocess.run(argv + extra, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit("diagnosis.py: %s failed (%d): %s" % (" ".join(argv + extra), res.returncode, res.stderr))
    doc = json.loads(res.stdout)
    return {l["launch_id"]: l for l in doc["launches"]}


def top2(findings):
    return [f["tool"] for f in findings[:2]]


def fmt_list(xs):
    return ", ".join(xs) if xs else "-"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kp", default=os.path.join(root, "build", "bin", "kernelpro"))
    ap.add_argument("--corpus", default=os.path.join(root, "tests", "golden", "h200-probe"),
                    help="folder with labels.json (and the capture, unless --capture)")
    ap.add_argument("--capture", help="folder with ncu_raw.csv, ncu_details.csv, sass.txt, ptxas.txt")
    ap.add_argument("--trace", default=os.path.join(root, "tests", "golden", "tools", "tiny_trace.json"),
                    help="launch trace for the labels' not_in_ncu_csv kernels")
    a = ap.parse_args()
    capture = a.capture or a.corpus
    labels = json.load(open(os.path.join(a.corpus, "labels.json")))
    rules = ncu_rules(os.path.join(capture, "ncu_details.csv"))
    pro = diagnose(a.kp, capture, [])
    allt = diagnose(a.kp, capture, ["--all-tools"])
    energy = diagnose(a.kp, capture, ["--energy"])

    w = 22
    print("Diagnosis benchmark: %s (capture %s)" % (a.corpus, capture))
    print("%-*s %-9s %-34s %-5s %-34s %-5s %-30s %-5s %4s %4s" % (
        w, "kernel", "class", "ours: top 2 (proactive)", "hit", "ours: top 2 (all tools)", "hit",
        "ncu rules: top 2 by speedup", "hit", "#us", "#ncu"))
    tally = {"labelled": 0, "pro": 0, "all": 0, "ncu": 0, "ours_n": 0, "ncu_n": 0, "kernels": 0,
             "near": 0, "near_bad": 0, "fewer": 0, "energy": 0, "energy_hit": 0}
    notes = []
    for k in labels["kernels"]:
        lid = k["id"]
        if lid not in pro:
            notes.append("%s: launch %d not in the capture" % (k["name"], lid))
            continue
        p, al = pro[lid], allt[lid]
        cls = p["stage1"]["class"] if p.get("stage1") else "?"
        ours_p, ours_a = top2(p["findings"]), top2(al["findings"])
        nr = rules.get(lid, [])
        ncu_top = [t for _, _, t, _ in nr[:2]]
        expect = k.get("expect_top2", [])
        hit = lambda tops: ("HIT" if set(expect) & set(tops) else "miss") if expect else ""
        name = k["name"] if len(k["name"]) <= w else k["name"][: w - 2] + ".."
        print("%-*s %-9s %-34s %-5s %-34s %-5s %-30s %-5s %4d %4d" % (
            w, name, cls, fmt_list(ours_p), hit(ours_p), fmt_list(ours_a), hit(ours_a),
            fmt_list(ncu_top), hit(ncu_top), len(p["findings"]), len(nr)))
        tally["kernels"] += 1
        tally["ours_n"] += len(p["findings"])
        tally["ncu_n"] += len(nr)
        tally["fewer"] += len(p["findings"]) < len(nr)
        if expect:
            tally["labelled"] += 1
            tally["pro"] += hit(ours_p) == "HIT"
            tally["all"] += hit(ours_a) == "HIT"
            tally["ncu"] += hit(ncu_top) == "HIT"
            if hit(ours_p) != "HIT":
                notes.append("%s: planted %s; proactive top 2: %s" % (k["name"], fmt_list(expect), fmt_list(ours_p)))
        if k.get("near_roofline"):
            tally["near"] += 1
            bad = [f for f in p["findings"] if f["severity"] in ("high", "critical")]
            tally["near_bad"] += bool(bad)
            if bad:
                notes.append("%s is near the roofline but got: %s" % (
                    k["name"], "; ".join("%s %s" % (f["severity"], f["tool"]) for f in bad)))
        if k.get("expect_any_with_energy"):
            tally["energy"] += 1
            got = [f["tool"] for f in energy[lid]["findings"]]
            ok = bool(set(k["expect_any_with_energy"]) & set(got))
            tally["energy_hit"] += ok
            notes.append("%s with --energy: %s (%s)" % (k["name"], "HIT" if ok else "miss", fmt_list(got)))

    for k in labels.get("not_in_ncu_csv", []):
        if not os.path.exists(a.trace):
            notes.append("%s: no trace at %s" % (k["name"], a.trace))
            continue
        res = subprocess.run([a.kp, "diagnose", "--json", "--trace", a.trace], capture_output=True, text=True)
        if res.returncode != 0:
            notes.append("%s: diagnose --trace failed: %s" % (k["name"], res.stderr.strip()))
            continue
        got = top2(json.loads(res.stdout).get("findings", []))
        ok = bool(set(k["expect"]) & set(got))
        tally["labelled"] += 1
        tally["pro"] += ok
        tally["all"] += ok
        print("%-*s %-9s %-34s %-5s %-34s %-5s %-30s %-5s %4d %4s" % (
            w, k["name"] + " (trace)", "-", fmt_list(got), "HIT" if ok else "miss", fmt_list(got),
            "HIT" if ok else "miss", "(ncu does not see launches)", "miss", len(got), "-"))

    n = max(tally["kernels"], 1)
    print()
    print("planted bottleneck in our top 2: %d/%d proactive, %d/%d all tools; Nsight Compute's top 2: %d/%d" % (
        tally["pro"], tally["labelled"], tally["all"], tally["labelled"], tally["ncu"], tally["labelled"]))
    print("near-roofline kernels with a high/critical finding: %d of %d" % (tally["near_bad"], tally["near"]))
    if tally["energy"]:
        print("energy-labelled kernels named with --energy: %d of %d" % (tally["energy_hit"], tally["energy"]))
    print("findings per kernel: ours %.2f, Nsight Compute %.2f (OPT/WRN rule results); ours fewer on %d of %d kernels" % (
        tally["ours_n"] / n, tally["ncu_n"] / n, tally["fewer"], tally["kernels"]))
    for line in notes:
        print("note: " + line)


if __name__ == "__main__":
    main()
