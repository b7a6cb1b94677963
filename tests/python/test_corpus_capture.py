"""The issue-19 corpora and their capture inputs, checked without a GPU: labels agree with the kernels
and modules they describe, and every metric the capture asks ncu for exists on the H200."""

import csv
import importlib.util
import json
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPORA = [os.path.join(ROOT, "bench", "corpus2"), os.path.join(ROOT, "bench", "corpus-dev")]
# The canonical tool ids (docs/internals/design.md, "Tools"; `kernelpro tools list`).
TOOLS = {"sol_gap", "coalescing", "vector_width", "cache_reuse", "occupancy", "warp_stalls", "bank_conflicts",
         "tensor_cores", "pipe_balance", "divergence", "grid_waves", "local_memory", "instruction_mix", "atomics",
         "launch_overhead"}
CLASSES = {"compute", "memory", "latency", "mixed"}
FAMILIES = {"int_divmod", "mufu", "smem_conflict", "smem_throughput", "few_threads", "row_per_thread", "fma_chain",
            "small_gemm", "near_roofline", "module"}
ROLLUPS = {"sum", "avg", "min", "max"}
COUNTER_SUFFIXES = {"per_second", "per_cycle_active", "per_cycle_elapsed", "pct_of_peak_sustained_active",
                    "pct_of_peak_sustained_elapsed", "peak_sustained"}


def load_json(path):
    with open(path) as f:
        return json.load(f)


def check_label(test, where, lab):
    test.assertIn(lab.get("class"), CLASSES, where)
    for t in lab.get("expect_top2", []) + lab.get("forbid", []):
        test.assertIn(t, TOOLS, where)
    test.assertFalse(set(lab.get("expect_top2", [])) & set(lab.get("forbid", [])), where)
    # a label either plants a bottleneck, or promises a clean kernel, or only states the class
    if lab.get("near_roofline"):
        test.assertFalse(lab.get("expect_top2"), where + ": near the roofline yet a planted bottleneck")


class LabelsTest(unittest.TestCase):
    def test_kernels_match_the_source(self):
        seen = set()
        for d in CORPORA:
            labels = load_json(os.path.join(d, "labels.json"))
            with open(os.path.join(d, "kernels.cu")) as f:
                runs = re.findall(r'RUN\(r, "([a-z0-9_]+)"', f.read())
            names = [k["name"] for k in labels["kernels"]]
            self.assertEqual(names, runs, d)  # ids are the run order
            self.assertEqual([k["id"] for k in labels["kernels"]], list(range(len(names))), d)
            for k in labels["kernels"]:
                check_label(self, "%s %s" % (d, k["name"]), k)
                self.assertIn(k["family"], FAMILIES | {"coalescing", "ridge"}, k["name"])
            self.assertFalse(seen & set(names), "the corpora share kernels")
            seen |= set(names)

    def test_families_of_issue_19(self):
        held = load_json(os.path.join(CORPORA[0], "labels.json"))
        dev = load_json(os.path.join(CORPORA[1], "labels.json"))
        for labels, least in ((held, 15), (dev, 8)):
            fams = {k["family"] for k in labels["kernels"]} | {m["family"] for m in labels["modules"]}
            self.assertTrue(FAMILIES <= fams, FAMILIES - fams)
            self.assertGreaterEqual(len(labels["kernels"]), least)
        near = [k for k in held["kernels"] if k.get("near_roofline")]
        self.assertGreaterEqual(len(near), 2)
        self.assertTrue(any("tensor_cores" in k.get("forbid", []) for k in held["kernels"]))
        self.assertTrue(any("tensor_cores" in k.get("expect_top2", []) for k in held["kernels"]))

    def test_modules_match_their_files(self):
        for d in CORPORA:
            labels = load_json(os.path.join(d, "labels.json"))
            spec = importlib.util.spec_from_file_location("m", os.path.join(d, "modules.py"))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)  # defines builders only: torch is imported when one runs
            self.assertEqual([m["name"] for m in labels["modules"]], list(mod.MODULES), d)
            for m in labels["modules"]:
                self.assertGreater(m["task"]["min_bytes"], 0)
                roles = [r["role"] for r in m["roles"]]
                self.assertEqual(len(roles), len(set(roles)), m["name"])
                self.assertTrue(set(m.get("attack_first", [])) <= set(roles), m["name"])
                for r in m["roles"]:
                    re.compile(r["match"])
                    check_label(self, "%s %s" % (m["name"], r["role"]), r)


def metric_problem(name, types, seen):
    """None when ncu on the H200 knows the name (seen in a real capture, or a base name of the right
    type with a suffix that type takes), else what is wrong."""
    m = name[len("breakdown:"):] if name.startswith("breakdown:") else name
    if m in seen:
        return None
    base, _, suffix = m.partition(".")
    parts = suffix.split(".")
    typ = types.get(base)
    if typ == "Ratio":
        ok = parts in (["ratio"], ["pct"], ["max_rate"])
    elif typ == "Counter":
        ok = parts[0] in ROLLUPS and (len(parts) == 1 or (len(parts) == 2 and parts[1] in COUNTER_SUFFIXES))
    elif typ == "Throughput":
        ok = len(parts) == 2 and parts[0] in ROLLUPS and parts[1].startswith("pct_of_peak_sustained_")
    else:
        return "unknown base name"
    return None if ok else "suffix %r does not fit a %s" % (suffix, typ)


class MetricsTest(unittest.TestCase):
    """bench/corpus2/metrics.txt against the H200's ncu --query-metrics and real --set full captures."""

    @classmethod
    def setUpClass(cls):
        cls.types = {}
        with open(os.path.join(CORPORA[0], "ncu-metric-names.txt")) as f:
            for line in f:
                if not line.startswith("#"):
                    name, typ = line.split()
                    cls.types[name] = typ
        cls.seen = set()
        for p in ("tests/golden/h200-probe/ncu_raw.csv", "bench/corpus/h200/ncu_raw.csv"):
            with open(os.path.join(ROOT, p), newline="") as f:
                cls.seen |= set(next(csv.reader(line for line in f if line.startswith('"'))))

    def test_every_name_exists(self):
        with open(os.path.join(CORPORA[0], "metrics.txt")) as f:
            names = [line.split()[0] for line in f if line.strip() and not line.startswith("#")]
        self.assertEqual(len(names), len(set(names)))
        self.assertGreater(len(names), 50)
        bad = ["%s: %s" % (n, metric_problem(n, self.types, self.seen)) for n in names
               if metric_problem(n, self.types, self.seen)]
        self.assertEqual(bad, [])

    def test_wrong_names_are_caught(self):
        for n in ("sm__throughputt.avg.pct_of_peak_sustained_elapsed",  # misspelt base
                  "smsp__average_warp_latency_per_inst_issued.sum",  # a Ratio with a Counter's rollup
                  "dram__bytes_read.pct",  # a Counter with a Ratio's suffix
                  "lts__throughput.avg",  # a Throughput needs its pct_of_peak
                  "breakdown:sm__inst_executed_pipe_xu.avg.per_warp"):
            self.assertIsNotNone(metric_problem(n, self.types, self.seen), n)
        self.assertIsNone(metric_problem("dram__bytes_read.sum.per_second", self.types, self.seen))


if __name__ == "__main__":
    unittest.main()
