/*
 * The Nsight Compute metric names kernelpro reads (sm_90, Nsight Compute 2025), each written
 * once. Stage 1 (lib/analyze), the tools (lib/tools), the feedback, the energy proxy
 * (lib/energy) and the collection sets refer to them by these names, so a mistyped name is a
 * compile error rather than a metric that is silently never collected. A new metric goes here
 * first.
 *
 * Names are those of the raw page (`ncu --csv --page raw --print-units base`): base units, no
 * section prefix. The family macros at the end of each group build the concrete names from one
 * pattern; code uses the concrete names.
 */
#ifndef KERNELPRO_NCU_METRICS_H
#define KERNELPRO_NCU_METRICS_H

/* ---- Time, throughput as a share of peak (speed of light) ---------------------------------- */

#define KP_M_TIME                 "gpu__time_duration.sum" /* ns */
#define KP_M_SM_PCT               "sm__throughput.avg.pct_of_peak_sustained_elapsed"
#define KP_M_MEM_PCT              "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
#define KP_M_DRAM_PCT             "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
#define KP_M_L1_PCT               "l1tex__throughput.avg.pct_of_peak_sustained_active"
#define KP_M_L2_PCT               "lts__throughput.avg.pct_of_peak_sustained_elapsed"
#define KP_M_L1_PCT_ELAPSED       "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"
#define KP_M_ISSUE_PCT_ELAPSED    "sm__inst_issued.avg.pct_of_peak_sustained_elapsed"
#define KP_M_ISSUE                "smsp__issue_active.avg.per_cycle_active"
#define KP_M_ISSUE_PCT            "smsp__issue_active.avg.pct_of_peak_sustained_active"
#define KP_M_WARPS_ACTIVE         "sm__warps_active.avg.pct_of_peak_sustained_active" /* achieved occupancy */
#define KP_M_WARPS_ELIGIBLE       "smsp__warps_eligible.avg.per_cycle_active"
#define KP_M_SM_CYCLES_ACTIVE     "sm__cycles_active.sum"
#define KP_M_SM_CYCLES_ACTIVE_AVG "sm__cycles_active.avg" /* per SM: a --set full capture */
#define KP_M_SMSP_CYCLES          "smsp__cycles_elapsed.avg"
#define KP_M_SM_CYCLES_ELAPSED    "sm__cycles_elapsed.avg" /* the doctor's counter-access probe */

/* ---- DRAM and L2 ---------------------------------------------------------------------------- */

#define KP_M_DRAM_RD        "dram__bytes_read.sum"
#define KP_M_DRAM_WR        "dram__bytes_write.sum"
#define KP_M_DRAM           "dram__bytes.sum" /* read + write: what a --set full capture has */
#define KP_M_L2_BYTES       "lts__t_bytes.sum"
#define KP_M_L2_SECTORS_ALL "lts__t_sectors.sum"
#define KP_M_L2_HIT         "lts__t_sector_hit_rate.pct"
#define KP_M_L1_HIT         "l1tex__t_sector_hit_rate.pct"
#define KP_M_L2_RED         "lts__t_sectors_srcunit_tex_op_red.sum"
#define KP_M_L2_ATOM        "lts__t_sectors_srcunit_tex_op_atom.sum"

/* ---- Global and local memory accesses -------------------------------------------------------- */

#define KP_M_GLD_INST     "smsp__sass_inst_executed_op_global_ld.sum"
#define KP_M_GLD_SECTORS  "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
#define KP_M_GST_SECTORS  "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
#define KP_M_GLD_REQUESTS "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
#define KP_M_GST_REQUESTS "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
#define KP_M_BPS_LD       "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"
#define KP_M_BPS_ST       "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio"
#define KP_M_G_SECTORS    "smsp__sass_sectors_mem_global.sum"
#define KP_M_G_DATA_BYTES "smsp__sass_data_bytes_mem_global.sum"
/* Source-level (SourceCounters section only, not --metrics). */
#define KP_M_L2_SECTORS        "memory_l2_theoretical_sectors_global"
#define KP_M_L2_SECTORS_IDEAL  "memory_l2_theoretical_sectors_global_ideal"
#define KP_M_L2_SECTORS_EXCESS "derived__memory_l2_theoretical_sectors_global_excessive"
#define KP_M_LLD_SECTORS       "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"
#define KP_M_LST_SECTORS       "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"
#define KP_M_LLD_BYTES         "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum"
#define KP_M_LST_BYTES         "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum"
#define KP_M_LLD_INST          "smsp__sass_inst_executed_op_local_ld.sum"
#define KP_M_LST_INST          "smsp__sass_inst_executed_op_local_st.sum"

/* ---- Shared memory ---------------------------------------------------------------------------- */

#define KP_M_SLD_INST   "smsp__sass_inst_executed_op_shared_ld.sum"
#define KP_M_SST_INST   "smsp__sass_inst_executed_op_shared_st.sum"
#define KP_M_SATOM_INST "smsp__inst_executed_op_shared_atom.sum"
#define KP_M_CONF_LD    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
#define KP_M_CONF_ST    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
#define KP_M_WAVE_LD    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
#define KP_M_WAVE_ST    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
#define KP_M_WAVE_PCT   "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"

/* ---- Executed thread instructions (predicated on), by operation ------------------------------ */

#define KP__M_OP(op)    "smsp__sass_thread_inst_executed_op_" op "_pred_on.sum"
#define KP_M_OP_FADD    KP__M_OP("fadd")
#define KP_M_OP_FMUL    KP__M_OP("fmul")
#define KP_M_OP_FFMA    KP__M_OP("ffma")
#define KP_M_OP_DADD    KP__M_OP("dadd")
#define KP_M_OP_DMUL    KP__M_OP("dmul")
#define KP_M_OP_DFMA    KP__M_OP("dfma")
#define KP_M_OP_HADD    KP__M_OP("hadd")
#define KP_M_OP_HMUL    KP__M_OP("hmul")
#define KP_M_OP_HFMA    KP__M_OP("hfma")
#define KP_M_OP_FP32    KP__M_OP("fp32")
#define KP_M_OP_FP64    KP__M_OP("fp64")
#define KP_M_OP_INTEGER KP__M_OP("integer")
#define KP_M_OP_MEMORY  KP__M_OP("memory")
/* A --set full capture has these only as rates: name ".per_cycle_elapsed", times KP_M_SMSP_CYCLES. */
#define KP_M_PER_CYCLE_ELAPSED     ".per_cycle_elapsed"
#define KP_M_THREAD_INST           "smsp__thread_inst_executed_pred_on.sum"
#define KP_M_THREAD_INST_ALT       "thread_inst_executed_true" /* the same total in a --set full capture */
#define KP_M_XU_THREAD_INST        "smsp__thread_inst_executed_pipe_xu_pred_on.sum"
#define KP_M_THREADS_PER_INST      "smsp__thread_inst_executed_per_inst_executed.ratio"
#define KP_M_THREADS_PRED_PER_INST "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"
#define KP_M_BRANCH_UNIFORM        "smsp__sass_average_branch_targets_threads_uniform.pct"

/* ---- Tensor cores and pipes ------------------------------------------------------------------- */

#define KP__M_TENSOR(src)       "sm__ops_path_tensor_src_" src ".sum"
#define KP_M_TENSOR_FP16        KP__M_TENSOR("fp16")
#define KP_M_TENSOR_BF16        KP__M_TENSOR("bf16_dst_fp32")
#define KP_M_TENSOR_TF32        KP__M_TENSOR("tf32_dst_fp32")
#define KP_M_TENSOR_FP8         KP__M_TENSOR("fp8")
#define KP_M_TENSOR_INT8        KP__M_TENSOR("int8")
#define KP_M_TENSOR_FP64        KP__M_TENSOR("fp64")
#define KP_M_TENSOR_FP8_DENSE   KP__M_TENSOR("fp8_sparsity_off") /* a --set full capture splits FP8 */
#define KP_M_TENSOR_FP8_SPARSE  KP__M_TENSOR("fp8_sparsity_on")
#define KP_M_TENSOR_ANY         KP__M_TENSOR("*") /* display only */
#define KP_M_TENSOR_CYCLES      "sm__pipe_tensor_cycles_active.sum"
#define KP_M_TENSOR_PCT_ELAPSED "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"
#define KP__M_PIPE(p)           "sm__pipe_" p "_cycles_active.avg.pct_of_peak_sustained_active"
#define KP_M_PIPE_TENSOR        KP__M_PIPE("tensor")
#define KP_M_PIPE_FMA           KP__M_PIPE("fma")
#define KP_M_PIPE_ALU           KP__M_PIPE("alu")
#define KP_M_PIPE_FP64          KP__M_PIPE("fp64")
#define KP__M_PIPE_INST(p)      "sm__inst_executed_pipe_" p ".avg.pct_of_peak_sustained_active"
#define KP_M_PIPE_XU            KP__M_PIPE_INST("xu")
#define KP_M_PIPE_LSU           KP__M_PIPE_INST("lsu")
/* The same as shares of elapsed cycles (comparable with DRAM's): what Stage 1 weighs units by. */
#define KP__M_PIPE_E(p)         "sm__pipe_" p "_cycles_active.avg.pct_of_peak_sustained_elapsed"
#define KP_M_PIPE_FMA_E         KP__M_PIPE_E("fma")
#define KP_M_PIPE_ALU_E         KP__M_PIPE_E("alu")
#define KP_M_PIPE_FP64_E        KP__M_PIPE_E("fp64")
#define KP_M_PIPE_XU_E          "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed"

/* ---- Warp stalls: cycles per issued instruction, total and by reason -------------------------- */

#define KP_M_STALL_TOTAL              "smsp__average_warp_latency_per_inst_issued.ratio"
#define KP__M_STALL(reason)           "smsp__average_warps_issue_stalled_" reason "_per_issue_active.ratio"
#define KP_M_STALL_LONG_SCOREBOARD    KP__M_STALL("long_scoreboard")
#define KP_M_STALL_LG_THROTTLE        KP__M_STALL("lg_throttle")
#define KP_M_STALL_SHORT_SCOREBOARD   KP__M_STALL("short_scoreboard")
#define KP_M_STALL_MIO_THROTTLE       KP__M_STALL("mio_throttle")
#define KP_M_STALL_BARRIER            KP__M_STALL("barrier")
#define KP_M_STALL_DRAIN              KP__M_STALL("drain")
#define KP_M_STALL_MATH_PIPE_THROTTLE KP__M_STALL("math_pipe_throttle")
#define KP_M_STALL_WAIT               KP__M_STALL("wait")
#define KP_M_STALL_BRANCH_RESOLVING   KP__M_STALL("branch_resolving")
#define KP_M_STALL_NO_INSTRUCTION     KP__M_STALL("no_instruction")
#define KP_M_STALL_MEMBAR             KP__M_STALL("membar")
#define KP_M_STALL_IMC_MISS           KP__M_STALL("imc_miss")
#define KP_M_STALL_TEX_THROTTLE       KP__M_STALL("tex_throttle")
#define KP_M_STALL_DISPATCH_STALL     KP__M_STALL("dispatch_stall")
#define KP_M_STALL_GMMA               KP__M_STALL("gmma")
#define KP_M_STALL_MISC               KP__M_STALL("misc")
#define KP_M_STALL_SLEEPING           KP__M_STALL("sleeping")

/* ---- Launch configuration and device attributes ----------------------------------------------- */

#define KP_M_GRID_SIZE           "launch__grid_size"
#define KP_M_LAUNCH_SMS          "launch__sm_count"
#define KP_M_WAVES               "launch__waves_per_multiprocessor"
#define KP_M_REGS                "launch__registers_per_thread"
#define KP_M_SMEM_PER_BLOCK      "launch__shared_mem_per_block"
#define KP__M_OCC_LIMIT(r)       "launch__occupancy_limit_" r
#define KP_M_OCC_LIMIT_BLOCKS    KP__M_OCC_LIMIT("blocks")
#define KP_M_OCC_LIMIT_REGISTERS KP__M_OCC_LIMIT("registers")
#define KP_M_OCC_LIMIT_SMEM      KP__M_OCC_LIMIT("shared_mem")
#define KP_M_OCC_LIMIT_WARPS     KP__M_OCC_LIMIT("warps")
#define KP_M_OCC_LIMIT_BARRIERS  KP__M_OCC_LIMIT("barriers")
#define KP_M_DEVICE_NAME         "device__attribute_display_name"
#define KP_M_DEVICE_SMS          "device__attribute_multiprocessor_count"

#endif
