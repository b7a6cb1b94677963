"""bench/diagnosis.py: the scoring logic of the diagnosis benchmark, on synthetic inputs (no GPU)."""

import importlib.util
import json
import os
import stat
import sys
import tempfile
import textwrap
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("diagnosis", os.path.join(ROOT, "bench", "diagnosis.py"))
diagnosis = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(diagnosis)

HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
        '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type",'
        '"Rule Description","Estimated Speedup Type","Estimated Speedup"')


def detail(lid, section="", metric="", value="", rule="", typ="", desc="", speedup=""):
    pre = '"%d","1","k","h","kern","1","7","(256, 1, 1)","(4, 1, 1)","0","9.0"' % lid
    return pre + ',"%s","%s","","%s","%s","%s","%s","global","%s"' % (section, metric, value, rule, typ, desc, speedup)


def write(dirpath, name, text):
    p = os.path.join(dirpath, name)
    with open(p, "w") as f:
        f.write(text)
    return p


class NcuDetailsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        lines = [
            "==PROF== noise that is not CSV",
            HEAD,
            detail(0, "GPU Speed Of Light Throughput", "Compute (SM) Throughput", "13.68"),
            detail(0, "GPU Speed Of Light Throughput", "Memory Throughput", "89.68"),
            # the same label in another section must not count (it once overwrote the SOL value)
            detail(0, "Memory Workload Analysis", "Memory Throughput", "4.31"),
            detail(0, "SpeedOfLight", rule="SOLBottleneck", typ="INF",
                   desc="This workload is utilizing greater than 80.0% of the available compute or memory performance"),
            detail(0, "Occupancy", rule="AchievedOccupancy", typ="OPT", desc="x", speedup="12.5"),
            detail(0, "LaunchStats", rule="LaunchConfiguration", typ="OPT", desc="tail", speedup="50"),
            detail(0, "WarpStateStats", rule="CPIStall", typ="WRN", desc="no estimate"),
            detail(0, "X", rule="Info", typ="INF", desc="information only", speedup="99"),
            detail(1, "SpeedOfLight", rule="SOLBottleneck", typ="OPT", desc="Compute is more heavily utilized than Memory"),
            detail(2, "SpeedOfLight", rule="SOLBottleneck", typ="OPT",
                   desc="This workload exhibits low compute throughput and memory bandwidth utilization"),
            detail(3, "SpeedOfLight", rule="SOLBottleneck", typ="OPT",
                   desc="This kernel grid is too small to fill the available resources"),
            detail(4, "MemoryWorkloadAnalysis_Tables", rule="MemoryCacheAccessPattern", typ="OPT",
                   desc="The memory access pattern for local loads", speedup="30"),
            detail(5, "SpeedOfLight", rule="SOLBottleneck", typ="OPT", desc="Memory is more heavily utilized than Compute"),
        ]
        self.rows = diagnosis.read_details(write(self.tmp.name, "d.csv", "\n".join(lines) + "\n"))

    def tearDown(self):
        self.tmp.cleanup()

    def test_rules_ranked_by_speedup_without_information(self):
        r = diagnosis.ncu_rules(self.rows)
        self.assertEqual([(sp, tool) for sp, _, tool, _ in r[0]],
                         [(50.0, "grid_waves"), (12.5, "occupancy"), (None, "warp_stalls")])
        self.assertEqual(r[1][0][2], "sol_gap")  # SOLBottleneck OPT maps to sol_gap
        self.assertEqual(r[3][0][2], "grid_waves")  # ... unless the grid is too small
        self.assertEqual(r[4][0][2], "local_memory")

    def test_classes(self):
        c = diagnosis.ncu_classes(self.rows)
        self.assertEqual(c, {0: "memory", 1: "compute", 2: "latency", 3: "latency", 5: "memory"})


class RoleAndLaunchTest(unittest.TestCase):
    def test_first_matching_role_wins(self):
        roles = [{"role": "gelu", "match": "(?i)gelu"}, {"role": "gemm", "match": "(?i)gemm|nvjet"},
                 {"role": "rest", "match": "(?i)elementwise"}]
        self.assertEqual(diagnosis.match_role(roles, "void at::native::vectorized_elementwise_kernel<4, "
                                                      "GeluCUDAKernelImpl>")["role"], "gelu")
        self.assertEqual(diagnosis.match_role(roles, "nvjet_sss_128x64")["role"], "gemm")
        self.assertIsNone(diagnosis.match_role(roles, "spin_kernel"))
        self.assertIsNone(diagnosis.match_role(roles, None))

    def test_pick_by_function_then_id(self):
        launches = {0: {"launch_id": 0, "function": "a"}, 1: {"launch_id": 1, "function": "b"}}
        self.assertEqual(diagnosis.pick_launch({"name": "b", "id": 0}, launches)["launch_id"], 1)
        self.assertEqual(diagnosis.pick_launch({"name": "cuBLAS SGEMM (library)", "id": 0}, launches)["launch_id"], 0)
        # one of our kernels missing from the capture is missing, not whatever ran at its id
        self.assertIsNone(diagnosis.pick_launch({"name": "zzz", "id": 0}, launches))


def finding(tool, severity="medium", also=()):
    return {"tool": tool, "severity": severity, "also": list(also)}


def launch(lid, cls, findings, kernel="k", function=None, time_s=1e-3):
    return {"launch_id": lid, "kernel": kernel, "function": function or kernel,
            "stage1": {"class": cls, "time_s": time_s}, "findings": findings}


class ScoreTest(unittest.TestCase):
    def test_hit_class_near_and_forbid(self):
        label = {"name": "k", "class": "compute", "expect_top2": ["instruction_mix", "pipe_balance"]}
        pro = launch(0, "memory", [finding("sol_gap"), finding("instruction_mix"), finding("occupancy")])
        allt = launch(0, "memory", [finding("vector_width"), finding("sol_gap")])
        rules = [(50.0, "HighPipeUtilization", "pipe_balance", "OPT"), (10.0, "CPIStall", "warp_stalls", "OPT")]
        row = diagnosis.score_item(label, pro, allt, rules, "compute")
        self.assertEqual((row["hit_pro"], row["hit_all"], row["hit_ncu"]), (True, False, True))
        self.assertEqual((row["class_ours"], row["class_ncu"], row["n_ours"], row["n_ncu"]), ("memory", "compute", 3, 2))
        self.assertEqual(row["near_bad_ours"], [])

        near = {"name": "k", "class": "compute", "near_roofline": True, "forbid": ["tensor_cores"]}
        pro = launch(0, "compute", [finding("sol_gap", "high", also=["tensor_cores"]), finding("occupancy", "low")])
        row = diagnosis.score_item(near, pro, launch(0, "compute", []), [(45.0, "X", "y", "OPT"), (None, "Z", "z", "WRN")],
                                   None)
        self.assertIsNone(row["hit_pro"])  # nothing planted: not counted as a miss
        self.assertEqual(row["near_bad_ours"], ["high sol_gap"])
        self.assertEqual(row["near_bad_ncu"], ["X 45%"])
        self.assertEqual(row["forbid_fired"], ["tensor_cores"])  # folded into another finding still counts
        self.assertEqual(row["class_ncu"], "?")

    def test_summary(self):
        mk = lambda **kw: dict({"class_label": "memory", "class_ours": "memory", "class_ncu": "memory",
                                "hit_pro": None, "hit_all": None, "hit_ncu": None, "n_ours": 1, "n_ncu": 5,
                                "near": False, "near_bad_ours": [], "near_bad_ncu": [], "forbid": [],
                                "forbid_fired": []}, **kw)
        rows = [mk(hit_pro=True, hit_all=True, hit_ncu=False, n_ours=4),
                mk(class_ours="latency", near=True, near_bad_ours=["high x"], forbid=["tensor_cores"]),
                mk(class_label=None, near=True, near_bad_ncu=["R 50%"], forbid=["tensor_cores"],
                   forbid_fired=["tensor_cores"]),
                {"item": "tiny", "trace_only": True, "hit_pro": True, "hit_all": True}]
        s = diagnosis.summarize(rows)
        self.assertEqual((s["scored"], s["planted"], s["hit_pro"], s["hit_all"], s["hit_ncu"]), (3, 2, 2, 2, 0))
        self.assertEqual((s["classed"], s["class_ours"], s["class_ncu"]), (2, 1, 2))
        self.assertEqual((s["n_ours"], s["n_ncu"], s["over3"]), (6, 15, 1))
        self.assertEqual((s["near"], s["near_bad_ours"], s["near_bad_ncu"]), (2, 1, 1))
        self.assertEqual((s["forbid"], s["forbid_fired"]), (2, 1))


FAKE_KP = r'''#!%s
# Plays `kernelpro analyze --json DIR [...]`: prints DIR/fake.json, the same for every flag.
import sys
d = [a for a in sys.argv[2:] if not a.startswith("-")][0]
sys.stdout.write(open(d + "/fake.json").read())
'''


class CorpusTest(unittest.TestCase):
    """score_corpus end to end over a fake kernelpro: kernels and a module whose launches take roles."""

    def test_kernels_and_module(self):
        with tempfile.TemporaryDirectory() as tmp:
            kp = write(tmp, "kp", FAKE_KP % sys.executable)
            os.chmod(kp, os.stat(kp).st_mode | stat.S_IXUSR)
            labels = {"kernels": [{"id": 0, "name": "axpy", "class": "memory", "near_roofline": True},
                                  {"id": 1, "name": "gone", "class": "memory"}],
                      "modules": [{"name": "mlp", "task": {"min_bytes": 4e9}, "attack_first": ["gemm"],
                                   "roles": [{"role": "gemm", "match": "gemm", "class": "compute",
                                              "expect_top2": ["tensor_cores"]},
                                             {"role": "act", "match": "gelu", "class": "memory"},
                                             {"role": "norm", "match": "norm", "class": "memory"}]}]}
            write(tmp, "labels.json", json.dumps(labels))
            kdir, mdir = os.path.join(tmp, "set"), os.path.join(tmp, "set-mlp")
            os.makedirs(kdir)
            os.makedirs(mdir)
            for d in (kdir, mdir):
                write(d, "ncu_raw.csv", "")
                write(d, "ncu_details.csv", HEAD + "\n" + detail(0, "SpeedOfLight", rule="SOLBottleneck", typ="OPT",
                                                             desc="Memory is more heavily utilized than Compute") + "\n")
            write(kdir, "fake.json", json.dumps({"gpu": {"dram_bw": 4e12}, "launches": [
                launch(0, "memory", [finding("sol_gap", "high")], function="axpy")]}))
            task = {"kernels": [{"kernel": "sgemm_128", "share": 0.6, "saving_share": 0.5, "tools": True},
                                {"kernel": "vectorized_elementwise_kernel<geluimpl>", "share": 0.2,
                                 "saving_share": 0.01, "tools": False}]}
            write(mdir, "fake.json", json.dumps({"gpu": {"dram_bw": 4e12}, "task": task, "launches": [
                launch(0, "compute", [finding("tensor_cores", "critical")], kernel="sgemm_128", time_s=3e-3),
                launch(1, "memory", [], kernel="vectorized_elementwise_kernel<GeluImpl>".lower(), time_s=1e-3),
                launch(2, "memory", [], kernel="spin_kernel")]}))
            corpus = diagnosis.Corpus("t", os.path.join(tmp, "labels.json"), kdir,
                                      module_dir=lambda m: os.path.join(tmp, "set-" + m))
            out = open(os.devnull, "w")
            rows, notes = diagnosis.score_corpus(kp, corpus, out)
            out.close()
        self.assertEqual([r["item"] for r in rows], ["axpy", "mlp:gemm#0", "mlp:act#1"])
        self.assertEqual(rows[0]["near_bad_ours"], ["high sol_gap"])
        self.assertEqual((rows[0]["class_ncu"], rows[1]["hit_pro"], rows[1]["class_ours"]), ("memory", True, "compute"))
        text = "\n".join(notes)
        self.assertIn("gone: not in the capture", text)
        self.assertIn("launch 2 (spin_kernel) matches no role", text)
        self.assertIn("no launch took role norm", text)
        self.assertIn("3 launches, 5000.0 us of kernel time; the task's DRAM floor is 1000.0 us (5.0x); "
                      "longest launch: role gemm", text)
        self.assertIn("whole-task ranking: gemm 60% of the time, saves 50%; act (no tools) 20% of the time, "
                      "saves 1%; attack first (label): gemm: HIT", text)


if __name__ == "__main__":
    unittest.main()
