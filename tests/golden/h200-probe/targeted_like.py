#!/usr/bin/env python3
"""Derive a targeted-like ncu CSV from the --set full capture, for offline tests of what
`kernelpro profile --tools all` (only Stage 1's and the tools' declared metrics, no SourceCounters
section) gives the tools.

    python3 tests/golden/h200-probe/targeted_like.py build/bin/kernelpro \\
        tests/golden/h200-probe/ncu_raw.csv tests/golden/h200-probe/ncu_raw_targeted.csv

Keeps: the identity columns (ID .. CC); what ncu prints for any --metrics run (device__*, launch__*,
numa__*, nvlink__*, profiler__*, c2clink__*, the maximum-warps columns); and the avg/max/min/sum
rollups of every declared metric except the source-level ones (`kernelpro tools metrics` marks them).
An approximation: the full capture has some Stage-1 FLOP counters only as .sum.per_cycle_elapsed
rates, which Stage 1 multiplies by smsp__cycles_elapsed.avg, so those two are kept where a targeted
run would have the .sum itself; values come from the full run, not from a separate targeted one.
"""
import csv
import re
import subprocess
import sys

# lib/analyze/stage1.c: stage1_metrics[] (always collected by `kernelpro profile`).
STAGE1 = ["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
          "sm__throughput.avg.pct_of_peak_sustained_elapsed",
          "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"]
STAGE1 += ["smsp__sass_thread_inst_executed_op_%s_pred_on.sum" % op
           for op in "fadd fmul ffma dadd dmul dfma hadd hmul hfma".split()]
STAGE1 += ["sm__ops_path_tensor_src_%s.sum" % s for s in "fp16 bf16_dst_fp32 tf32_dst_fp32 fp8 int8 fp64".split()]
# the measured utilization of each unit, occupancy and stalls (lib/analyze/classify.c)
STAGE1 += ["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "lts__throughput.avg.pct_of_peak_sustained_elapsed",
           "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
           "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed",
           "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
           "sm__inst_issued.avg.pct_of_peak_sustained_elapsed", "sm__warps_active.avg.pct_of_peak_sustained_active",
           "smsp__average_warp_latency_per_inst_issued.ratio"]
STAGE1 += ["sm__pipe_%s_cycles_active.avg.pct_of_peak_sustained_elapsed" % p for p in "fma alu fp64".split()]
STAGE1 += ["smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % r for r in (
    "long_scoreboard short_scoreboard wait barrier membar branch_resolving no_instruction drain imc_miss sleeping "
    "math_pipe_throttle mio_throttle lg_throttle tex_throttle dispatch_stall gmma").split()]
ALWAYS = ("device__", "launch__", "numa__", "nvlink__", "profiler__", "c2clink__", "sm__maximum_warps",
          "smsp__maximum_warps")
IDENTITY = 11  # ID, Process ID, Process Name, Host Name, Kernel Name, Context, Stream, Block Size, Grid Size, Device, CC


def norm(metric):
    """The metric with its rollup (avg/max/min/sum) replaced, so every rollup ncu prints matches."""
    return re.sub(r"\.(avg|max|min|sum)(?=\.|$)", ".R", metric, count=1)


def main():
    kp, full, out = sys.argv[1:4]
    listed = subprocess.run([kp, "tools", "metrics"], check=True, capture_output=True, text=True).stdout
    declared = [l.split()[0] for l in listed.splitlines() if l.strip() and "source-level" not in l] + STAGE1
    want = {norm(m) for m in declared}
    want |= {norm(m) + ".per_cycle_elapsed" for m in declared} | {"smsp__cycles_elapsed.R"}
    with open(full, newline="") as f:
        rows = list(csv.reader(f))
    keep = [i for i, h in enumerate(rows[0]) if i < IDENTITY or h.startswith(ALWAYS) or norm(h) in want]
    with open(out, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        for r in rows:
            w.writerow([r[i] if i < len(r) else "" for i in keep])
    print("%s: %d of %d columns" % (out, len(keep), len(rows[0])), file=sys.stderr)


if __name__ == "__main__":
    main()
