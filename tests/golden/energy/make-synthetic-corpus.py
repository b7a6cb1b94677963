#!/usr/bin/env python3
"""Writes the synthetic energy corpus used by tests/integration/t0803-energy-validate.sh:
corpus-ncu.csv (an ncu raw page in the shape `kp-energy-corpus profile` produces under ncu,
marker launches included) and corpus-measured.jsonl (what `kp-energy-corpus measure` prints).
Energies come from known coefficients, so calibration must find them again. Not measured data.
Run from the repository root: python3 tests/golden/energy/make-synthetic-corpus.py"""
import json, os, random

here = os.path.dirname(os.path.abspath(__file__))
random.seed(8)

# The proxy's metric columns (kernelpro energy metrics) and the per-launch counts behind them.
metrics = ["gpu__time_duration.sum", "sm__cycles_active.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "lts__t_bytes.sum", "smsp__sass_sectors_mem_global.sum", "smsp__sass_data_bytes_mem_global.sum",
           "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum",
           "smsp__sass_thread_inst_executed_op_fp32_pred_on.sum", "smsp__sass_thread_inst_executed_op_fp64_pred_on.sum",
           "smsp__sass_thread_inst_executed_op_integer_pred_on.sum", "smsp__sass_thread_inst_executed_op_memory_pred_on.sum",
           "smsp__thread_inst_executed_pipe_xu_pred_on.sum", "smsp__thread_inst_executed_pred_on.sum",
           "sm__pipe_tensor_cycles_active.sum"]
units = ["nsecond", "cycle", "byte", "byte", "byte", "sector", "byte", "byte", "byte",
         "inst", "inst", "inst", "inst", "inst", "inst", "cycle"]
# True coefficients: the defaults times a factor per term (J per unit, as the proxy uses them).
true = {"static": 150 * 1.2, "sm_active": 3.8e-10 * 0.7, "dram": 6e-11 * 1.3, "l2": 1e-11 * 0.9,
        "excess_sectors": 3e-10 * 1.5, "local": 1e-11 * 2.0, "fp32": 8e-12 * 0.8, "fp64": 2e-11 * 1.1,
        "sfu": 1.5e-11 * 1.2, "tensor": 1e-9 * 0.6, "int": 6e-12 * 1.4, "mem": 1.2e-11 * 0.9, "other": 6e-12 * 1.0}

def kernel(i):
    t = random.uniform(5e-5, 5e-3)
    r = lambda p: random.uniform(0, p) if random.random() < 0.7 else 0.0
    dram_r, dram_w = r(2e9) * t / 1e-3, r(1e9) * t / 1e-3
    data = random.uniform(1e8, 1e9)
    c = {"gpu__time_duration.sum": t * 1e9, "sm__cycles_active.sum": random.uniform(0.2, 1.0) * t * 132 * 1.98e9,
         "dram__bytes_read.sum": dram_r, "dram__bytes_write.sum": dram_w, "lts__t_bytes.sum": r(4e9) * t / 1e-3,
         "smsp__sass_sectors_mem_global.sum": data / 32 + r(3e7), "smsp__sass_data_bytes_mem_global.sum": data,
         "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum": r(2e9), "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum": r(1e9),
         "smsp__sass_thread_inst_executed_op_fp32_pred_on.sum": r(5e9),
         "smsp__sass_thread_inst_executed_op_fp64_pred_on.sum": r(1e9),
         "smsp__sass_thread_inst_executed_op_integer_pred_on.sum": r(3e9),
         "smsp__sass_thread_inst_executed_op_memory_pred_on.sum": r(1e9),
         "smsp__thread_inst_executed_pipe_xu_pred_on.sum": r(5e8), "sm__pipe_tensor_cycles_active.sum": r(1e7)}
    classes = sum(c[m] for m in metrics[9:13])
    c["smsp__thread_inst_executed_pred_on.sum"] = classes + r(1e9)
    return c

def energy(launches):
    s = lambda m: sum(l[m] for l in launches)
    e = true["static"] * s("gpu__time_duration.sum") * 1e-9 + true["sm_active"] * s("sm__cycles_active.sum")
    e += true["dram"] * (s("dram__bytes_read.sum") + s("dram__bytes_write.sum")) + true["l2"] * s("lts__t_bytes.sum")
    e += true["excess_sectors"] * sum(max(0, l["smsp__sass_sectors_mem_global.sum"] - l["smsp__sass_data_bytes_mem_global.sum"] / 32) for l in launches)
    e += true["local"] * (s("l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum") + s("l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum"))
    for term, m in [("fp32", 9), ("fp64", 10), ("int", 11), ("mem", 12)]:
        e += true[term] * s(metrics[m])
    e += true["sfu"] * s("smsp__thread_inst_executed_pipe_xu_pred_on.sum") + true["tensor"] * s("sm__pipe_tensor_cycles_active.sum")
    e += true["other"] * sum(l["smsp__thread_inst_executed_pred_on.sum"] - sum(l[m] for m in metrics[9:13]) for l in launches)
    return e

head = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size", "Grid Size",
        "Device", "CC"] + metrics
rows, launch_id, measured = [], 0, []

def row(name, grid, vals):
    global launch_id
    rows.append([str(launch_id), "1", "kp-energy-corpus", "127.0.0.1", name, "1", "7", "(256, 1, 1)",
                 "(%d, 1, 1)" % grid, "0", "9.0"] + ["%.0f" % vals.get(m, 0) for m in metrics])
    launch_id += 1

# A stray launch before any marker (warm-up that escaped the profiling range): ignored with a warning.
row("stray_kernel(float *)", 4, kernel(99))
names = ["k%02d" % i for i in range(16)]
for i, name in enumerate(names):
    row("kp_corpus_marker(int *)", i + 1, {})
    launches = [kernel(i)] + ([kernel(100 + i)] if i % 5 == 0 else [])  # some entries launch two kernels
    for l in launches:
        row("%s(const float *, float *, int)" % name, 1024, l)
    e = energy(launches)
    t = sum(l["gpu__time_duration.sum"] for l in launches) * 1e-9
    idle = 133.0
    m = {"name": name, "device": "Synthetic H200", "energy_j": e, "dynamic_j": e - idle * t, "time_s": t,
         "power_w": e / t, "idle_power_w": idle, "idle_s": 0, "energy_spread": 0.01,
         "windows": [{"launches": 1000, "seconds": 1000 * t, "energy_j": 1000 * e}]}
    measured.append({"index": i, "name": name, "what": "synthetic", "measurement": m})
# A measurement with no ncu launches (the profile run skipped it): left out with a warning.
measured.append({"index": 40, "name": "not_profiled", "measurement": {"energy_j": 1.0, "time_s": 1e-3}})

with open(os.path.join(here, "corpus-ncu.csv"), "w") as f:
    q = lambda v: '"%s"' % v
    f.write(",".join(q(h) for h in head) + "\n")
    f.write(",".join(q(u) for u in [""] * 11 + units) + "\n")
    for r in rows:
        f.write(",".join(q(v) for v in r) + "\n")
with open(os.path.join(here, "corpus-measured.jsonl"), "w") as f:
    for m in measured:
        f.write(json.dumps(m, sort_keys=True) + "\n")
with open(os.path.join(here, "corpus-true-coefficients.json"), "w") as f:
    json.dump(true, f, indent=2, sort_keys=True)
    f.write("\n")
