/*
 * Unit tests: each built-in tool on hand-built kernels: it fires on the pattern it looks for (numbers
 * taken from the H200 probe kernels), stays silent on a clean kernel, and reports what it lacks.
 */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kp_tools_fixture.h"

#define SM "sm__throughput.avg.pct_of_peak_sustained_elapsed"
#define MEM "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
#define DRAM "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
#define STALL_TOTAL "smsp__average_warp_latency_per_inst_issued.ratio"
#define STALL(r) "smsp__average_warps_issue_stalled_" r "_per_issue_active.ratio"
#define ISSUE "smsp__issue_active.avg.per_cycle_active"

static struct kp_toolset *ts;
static struct kp_fx fx;
static struct kp_diagnosis d;

static int setup(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_toolset_open(&ts, NULL, &err), &err);
	memset(&d, 0, sizeof(d));
	return 0;
}

static int teardown(void **state)
{
	kp_diagnosis_release(&d);
	kp_toolset_free(ts);
	return 0;
}

/* The only finding of the last run, which must have fired. */
static const struct kp_finding *fired(const char *tool)
{
	enum kp_tool_status st = kp_fx_run(ts, tool, &fx, &d);
	if (st != KP_TOOL_FIRED)
		fail_msg("%s: expected to fire, got %s (%s)", tool, kp_tool_status_name(st),
			 d.results[d.nresults - 1].message ? d.results[d.nresults - 1].message : "");
	assert_true(d.findings.n >= 1);
	assert_string_equal(d.findings.v[d.findings.n - 1].tool, tool);
	return &d.findings.v[d.findings.n - 1];
}

static void silent(const char *tool)
{
	size_t before = d.findings.n;
	enum kp_tool_status st = kp_fx_run(ts, tool, &fx, &d);
	if (st != KP_TOOL_SILENT)
		fail_msg("%s: expected silence, got %s", tool, kp_tool_status_name(st));
	assert_int_equal(d.findings.n, before);
}

static const char *missing(const char *tool)
{
	enum kp_tool_status st = kp_fx_run(ts, tool, &fx, &d);
	if (st != KP_TOOL_MISSING)
		fail_msg("%s: expected 'missing', got %s", tool, kp_tool_status_name(st));
	assert_non_null(d.results[d.nresults - 1].message);
	return d.results[d.nresults - 1].message;
}

static int has_explainer(const struct kp_finding *f, const char *tool)
{
	return kp_strvec_find(&f->explained_by, tool) >= 0;
}

/* ---- sol_gap ------------------------------------------------------------------------------------ */

static void test_sol_gap(void **state)
{
	const struct kp_fx_metric at_roof[] = {{SM, 13.7}, {MEM, 89.7}, {DRAM, 89.7}, {NULL, 0}};
	const struct kp_fx_metric latency[] = {{SM, 0.2}, {MEM, 0.9}, {DRAM, 0.05}, {NULL, 0}};
	const struct kp_finding *f;

	kp_fx_init(&fx, at_roof, 65536, 256); /* vec_add_f4 */
	f = fired("sol_gap");
	assert_int_equal(f->severity, KP_SEV_LOW);
	assert_non_null(strstr(f->title, "memory roof"));
	assert_true(isnan(f->gain));

	kp_fx_init(&fx, latency, 262144, 256); /* reduce_atomic */
	f = fired("sol_gap");
	assert_non_null(strstr(f->title, "Latency-bound"));
	assert_true(f->gain > 0.9);
	assert_true(has_explainer(f, "*")); /* a specific finding explains it */

	kp_fx_init(&fx, NULL, 1, 32);
	missing("sol_gap");
}

/* ---- coalescing --------------------------------------------------------------------------------- */

static void test_coalescing(void **state)
{
	const struct kp_fx_metric strided[] = {
		{"memory_l2_theoretical_sectors_global", 134217728}, {"memory_l2_theoretical_sectors_global_ideal", 16777216},
		{"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 4},
		{"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio", 4},
		{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 67108864},
		{"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 67108864},
		{SM, 2.8}, {MEM, 62.9}, {DRAM, 54.9}, {NULL, 0}};
	/* sgemm_naive: broadcast loads use 18 of 32 bytes per sector, but no sector is excess. */
	const struct kp_fx_metric broadcast[] = {
		{"memory_l2_theoretical_sectors_global", 1074266112},
		{"memory_l2_theoretical_sectors_global_ideal", 1074266112},
		{"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 18},
		{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1073741824}, {NULL, 0}};
	const struct kp_finding *f;

	kp_fx_init(&fx, strided, 262144, 256); /* copy_strided */
	f = fired("coalescing");
	assert_int_equal(f->severity, KP_SEV_CRITICAL);
	assert_true(fabs(f->gain - 0.875) < 0.01);
	assert_non_null(strstr(f->title, "loads and stores"));
	assert_true(f->recs.n >= 2 && strstr(f->recs.v[0], "threadIdx.x"));

	kp_fx_init(&fx, broadcast, 16384, 256);
	silent("coalescing");

	/* Without SourceCounters the bytes per sector decide. */
	kp_fx_init(&fx, strided, 262144, 256);
	kp_fx_set(&fx, "memory_l2_theoretical_sectors_global", NAN);
	kp_fx_set(&fx, "memory_l2_theoretical_sectors_global_ideal", NAN);
	f = fired("coalescing");
	assert_true(fabs(f->gain - 0.875) < 0.01);
	kp_fx_set(&fx, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 30);
	kp_fx_set(&fx, "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio", 32);
	silent("coalescing");

	kp_fx_init(&fx, NULL, 1, 32);
	missing("coalescing");
}

/*
 * Without SourceCounters (a targeted run), sectors per request against a coalesced access of the
 * same width estimate the excess; the numbers are the H200 probe kernels' (ncu_raw.csv).
 */
static void test_coalescing_requests(void **state)
{
	/* sgemm_naive_uncoal: 8.5 sectors per 4-byte load request, 4 would do; SourceCounters say 71%. */
	const struct kp_fx_metric uncoal[] = {
		{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 4563402752},
		{"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 536870912},
		{"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 2097874},
		{"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 131072},
		{"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 4.24},
		{"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio", 8},
		{SM, 11.5}, {MEM, 97.6}, {DRAM, 0.05}, {NULL, 0}};
	/* vec_add_f4: 16 sectors per request are what 16-byte loads need. */
	const struct kp_fx_metric f4[] = {
		{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 16777216},
		{"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1048576},
		{"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 32},
		{SM, 13.7}, {MEM, 89.7}, {DRAM, 89.7}, {NULL, 0}};
	/* sgemm_naive: 18 bytes used per sector (broadcasts), but 2 sectors per request: none excess. */
	const struct kp_fx_metric broadcast[] = {
		{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1073741824},
		{"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 536870912},
		{"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 12},
		{SM, 64.7}, {MEM, 97.1}, {DRAM, 0.3}, {NULL, 0}};
	/* sgemm_naive_uncoal's load path for cache_reuse: re-read ~4337x, memory far busier than DRAM. */
	const struct kp_fx_metric reread[] = {
		{"dram__bytes_read.sum", 33669120}, {"smsp__sass_inst_executed_op_global_ld.sum", 536870912},
		{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 4563402752},
		{"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 536870912},
		{"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 4.24},
		{SM, 11.5}, {MEM, 97.6}, {DRAM, 0.05}, {NULL, 0}};
	const struct kp_finding *f, *reuse;
	double coal;

	kp_fx_init(&fx, uncoal, 16384, 256);
	f = fired("coalescing");
	coal = f->gain;
	assert_true(fabs(coal - 0.53) < 0.01); /* a lower bound of the 71%: broadcasts hide some excess */
	assert_non_null(strstr(f->title, "53% of the sectors moved are excess"));
	assert_true(f->nevidence >= 1 && strstr(f->evidence[0].metric, "sectors per request"));

	kp_fx_init(&fx, f4, 65536, 256);
	silent("coalescing");
	kp_fx_init(&fx, broadcast, 16384, 256);
	silent("coalescing"); /* bytes per sector alone (12 < 16) would fire */
	kp_fx_set(&fx, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", NAN);
	fired("coalescing");

	/* cache_reuse counts only the traffic a coalescing fix leaves, so coalescing ranks first. */
	kp_fx_init(&fx, reread, 16384, 256);
	reuse = fired("cache_reuse");
	assert_true(reuse->gain < coal);
	assert_true(fabs(reuse->gain - (1 - 1.0 / 16) * (1 - coal)) < 0.01); /* a 16x tile of the rest */
	/* Bytes per sector alone do not discount it: they count an untiled kernel's broadcasts as waste. */
	kp_fx_set(&fx, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", NAN);
	reuse = fired("cache_reuse");
	assert_true(reuse->gain > 0.9);
}

/* ---- vector_width ------------------------------------------------------------------------------- */

static const struct kp_fx_metric vec_add_naive[] = {
	{SM, 42.2}, {MEM, 70.8}, {DRAM, 70.8}, {STALL_TOTAL, 66.5}, {STALL("long_scoreboard"), 55.5},
	{STALL("lg_throttle"), 0}, {NULL, 0}};

static void test_vector_width(void **state)
{
	const struct kp_finding *f;
	struct kp_sass_func *s;

	kp_fx_init(&fx, vec_add_naive, 262144, 256);
	s = kp_fx_sass(&fx);
	s->counts[KP_SASS_LDG_32] = 2;
	s->counts[KP_SASS_STG_32] = 1;
	f = fired("vector_width");
	assert_int_equal(f->severity, KP_SEV_MEDIUM);
	/* the memory-wait share (83%) of the headroom to the DRAM roof at 90% practical (21%) */
	assert_true(f->gain > 0.15 && f->gain < 0.20);
	assert_non_null(strstr(f->recs.v[0], "float4"));

	s->counts[KP_SASS_LDG_32] = s->counts[KP_SASS_STG_32] = 0;
	s->counts[KP_SASS_LDG_128] = 2;
	s->counts[KP_SASS_STG_128] = 1;
	silent("vector_width"); /* vec_add_f4 */

	s->counts[KP_SASS_LDG_128] = s->counts[KP_SASS_STG_128] = 0;
	s->counts[KP_SASS_LDG_32] = 2;
	kp_fx_set(&fx, STALL("long_scoreboard"), 5); /* warps do not wait on memory */
	silent("vector_width");

	/* With executed counts (ncu's source page) the hot loop decides: a scalar prologue does not count. */
	s->counts[KP_SASS_LDG_32] = 4;
	s->counts[KP_SASS_LDG_128] = 1;
	kp_fx_set(&fx, STALL("long_scoreboard"), 55.5);
	f = fired("vector_width"); /* statically 4 of 5 are scalar */
	s->has_executed = 1;
	s->executed[KP_SASS_LDG_32] = 4 * 1024;
	s->executed[KP_SASS_LDG_128] = 2097152;
	silent("vector_width");

	/* Without the SASS: the width the counters imply (sectors per request x bytes used per sector / 32),
	 * and missing with neither. */
	fx.prof.sass = NULL;
	assert_non_null(missing("vector_width"));
	kp_fx_set(&fx, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 2048);
	kp_fx_set(&fx, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 4 * 2048); /* 4 sectors of 32 used bytes */
	kp_fx_set(&fx, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 32);
	kp_fx_set(&fx, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 1024);
	kp_fx_set(&fx, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 4 * 1024);
	kp_fx_set(&fx, "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio", 32);
	f = fired("vector_width"); /* 4 bytes a thread: scalar */
	assert_non_null(strstr(f->title, "at most 4 bytes a thread"));
	kp_fx_set(&fx, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 16 * 2048); /* float4: 16 bytes a thread */
	kp_fx_set(&fx, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 16 * 1024);
	silent("vector_width");
	/* Scattered 32-bit loads (32 sectors, 4 bytes used of each) are scalar too. */
	kp_fx_set(&fx, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 32 * 2048);
	kp_fx_set(&fx, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 4);
	fired("vector_width"); /* 2048 of 3072 requests: 67% >= 50% */
}

/* ---- cache_reuse -------------------------------------------------------------------------------- */

static void test_cache_reuse(void **state)
{
	const struct kp_fx_metric naive_gemm[] = {
		{"dram__bytes_read.sum", 33562624}, {"dram__bytes_write.sum", 12094208},
		{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1073741824},
		{"smsp__sass_inst_executed_op_global_ld.sum", 536870912}, {"smsp__sass_inst_executed_op_shared_ld.sum", 0},
		{SM, 64.7}, {MEM, 97.1}, {DRAM, 0.3}, {NULL, 0}};
	const struct kp_fx_metric streaming[] = {
		{"dram__bytes_read.sum", 536896000}, {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 16777216},
		{"smsp__sass_inst_executed_op_global_ld.sum", 4194304}, {SM, 42}, {MEM, 70.8}, {DRAM, 70.8}, {NULL, 0}};
	const struct kp_finding *f;
	struct kp_stage1 *s1;

	kp_fx_init(&fx, naive_gemm, 16384, 256);
	f = fired("cache_reuse");
	assert_non_null(strstr(f->title, "re-read"));
	assert_true(f->gain > 0.85);

	kp_fx_init(&fx, streaming, 262144, 256);
	silent("cache_reuse");
	/* DRAM traffic three times the task's minimum. */
	s1 = kp_fx_stage1(&fx, KP_BOUND_MEMORY);
	s1->min_bytes = 536896000.0 / 3;
	f = fired("cache_reuse");
	assert_non_null(strstr(f->title, "3.0x the task's minimum"));
	assert_true(has_explainer(f, "local_memory"));

	kp_fx_init(&fx, NULL, 1, 32);
	assert_non_null(strstr(missing("cache_reuse"), "dram__bytes_read.sum"));
}

/* ---- occupancy ---------------------------------------------------------------------------------- */

static void test_occupancy(void **state)
{
	const struct kp_fx_metric reg_limited[] = {
		{"sm__warps_active.avg.pct_of_peak_sustained_active", 12.4},
		{"launch__occupancy_limit_registers", 1}, {"launch__occupancy_limit_shared_mem", 2},
		{"launch__occupancy_limit_warps", 8}, {"launch__occupancy_limit_blocks", 32},
		{"launch__registers_per_thread", 255}, {STALL_TOTAL, 20}, {STALL("long_scoreboard"), 15},
		{SM, 20}, {MEM, 30}, {DRAM, 25}, {NULL, 0}};
	const struct kp_fx_metric full[] = {
		{"launch__occupancy_limit_warps", 8}, {"launch__occupancy_limit_registers", 16},
		{"sm__warps_active.avg.pct_of_peak_sustained_active", 80}, {NULL, 0}};
	const struct kp_finding *f;

	kp_fx_init(&fx, reg_limited, 1024, 256);
	f = fired("occupancy");
	assert_non_null(strstr(f->title, "limited by registers"));
	/* one more block: 65536 / (2 blocks x 8 warps x 32) = 128 registers */
	assert_non_null(strstr(f->recs.v[0], "Cap registers at 128"));
	assert_non_null(strstr(f->recs.v[0], "__launch_bounds__(256, 2)"));
	assert_non_null(strstr(f->recs.v[1], "will likely spill")); /* 128 is half of 255 */

	/* theoretical occupancy from the block limits: 1 block of 8 warps of the SM's 64 */
	assert_non_null(strstr(f->title, "12% of the SM's warp slots"));
	/* a unit 30% busy: more warps help only up to min_occupancy_pct, within the headroom */
	assert_non_null(strstr(f->gain_basis, "scaled by the occupancy shortfall"));
	assert_true(f->gain < 0.5);
	/* latency-bound (nothing above 12% busy) with the registers capping the warps: more warps keep
	   helping until a unit or the SM fills: 75% of the cycles are latency, 1 - 12.5% of it goes */
	kp_fx_set(&fx, SM, 10);
	kp_fx_set(&fx, MEM, 12);
	kp_fx_set(&fx, DRAM, 8);
	f = fired("occupancy");
	assert_non_null(strstr(f->gain_basis, "until the busiest unit (12%)"));
	assert_true(fabs(f->gain - 0.75 * (1 - 0.125)) < 1e-9);
	assert_int_equal(f->severity, KP_SEV_CRITICAL);

	kp_fx_init(&fx, full, 1024, 256);
	silent("occupancy");
	/* Achieved far below theoretical: the grid's doing, so grid_waves explains it. */
	kp_fx_set(&fx, "sm__warps_active.avg.pct_of_peak_sustained_active", 12.4);
	f = fired("occupancy");
	assert_non_null(strstr(f->title, "Achieved occupancy"));
	assert_true(has_explainer(f, "grid_waves"));

	kp_fx_init(&fx, NULL, 1, 32);
	assert_non_null(strstr(missing("occupancy"), "launch__occupancy_limit"));
}

/* ---- warp_stalls -------------------------------------------------------------------------------- */

static void test_warp_stalls(void **state)
{
	const struct kp_finding *f;
	kp_fx_init(&fx, vec_add_naive, 262144, 256);
	kp_fx_set(&fx, ISSUE, 0.18);
	f = fired("warp_stalls");
	assert_non_null(strstr(f->title, "long scoreboard"));
	assert_true(has_explainer(f, "vector_width") && has_explainer(f, "coalescing"));
	kp_fx_set(&fx, ISSUE, 0.95); /* the schedulers issue almost every cycle: stalls do not matter */
	silent("warp_stalls");
	kp_fx_init(&fx, NULL, 1, 32);
	missing("warp_stalls");
}

/* ---- bank_conflicts ----------------------------------------------------------------------------- */

static void test_bank_conflicts(void **state)
{
	const struct kp_fx_metric transpose[] = {
		{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 16338673},
		{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 16862961},
		{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 41839},
		{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 566127},
		{"smsp__sass_inst_executed_op_shared_ld.sum", 524288}, {STALL_TOTAL, 111.75},
		{STALL("short_scoreboard"), 30.13}, {STALL("mio_throttle"), 11.44}, {SM, 22.8}, {MEM, 60.7}, {NULL, 0}};
	const struct kp_finding *f;

	kp_fx_init(&fx, transpose, 16384, 1024);
	f = fired("bank_conflicts");
	assert_non_null(strstr(f->title, "32-way"));
	assert_int_equal(f->severity, KP_SEV_MEDIUM); /* 94% conflicts x 37% of time waiting on shared memory */
	assert_non_null(strstr(f->recs.v[0], "[32][33]"));
	kp_fx_set(&fx, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 11000);
	kp_fx_set(&fx, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0);
	silent("bank_conflicts");
}

/* ---- tensor_cores ------------------------------------------------------------------------------- */

static void test_tensor_cores(void **state)
{
	const struct kp_fx_metric gemm[] = {
		{"smsp__sass_inst_executed_op_global_ld.sum", 536870912}, {"smsp__sass_inst_executed_op_shared_ld.sum", 0},
		{"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", 0.01}, {SM, 64.7}, {MEM, 97.1},
		{"gpu__time_duration.sum", 3178944}, {NULL, 0}};
	const struct kp_finding *f;
	struct kp_stage1 *s1;
	struct kp_sass_func *s;

	kp_fx_init(&fx, gemm, 16384, 256); /* sgemm_naive */
	s1 = kp_fx_stage1(&fx, KP_BOUND_COMPUTE);
	s1->flops_fp32 = 17179869184.0;
	s1->dram_bytes = 45656832;
	f = fired("tensor_cores");
	assert_int_equal(f->severity, KP_SEV_CRITICAL);
	assert_true(f->gain > 0.95); /* 17.2 GFLOP at the TF32 peak takes ~35 us of 3.18 ms */
	assert_non_null(strstr(f->recs.v[0], "WGMMA"));

	/* Register-only math (sinf polynomials): FLOPs and intensity, but hardly any operand loads. */
	kp_fx_set(&fx, "smsp__sass_inst_executed_op_global_ld.sum", 131072);
	silent("tensor_cores");

	/* Already on tensor cores. */
	kp_fx_set(&fx, "smsp__sass_inst_executed_op_global_ld.sum", 536870912);
	kp_fx_set(&fx, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", 78);
	silent("tensor_cores");

	/* The same counters with the SASS read: a Horner loop (FFMAs multiply the running value) is no
	   product, however many FLOPs per byte; the hot loop of a dot product is. */
	kp_fx_set(&fx, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", 0.01);
	{
		struct kp_sass_shape shape = {.found = 1, .in_loop = 1, .ffma = 128, .loads = 4};
		fx.in.shape = &shape;
		silent("tensor_cores");
		shape = (struct kp_sass_shape){.found = 1, .in_loop = 1, .ffma = 16, .accumulating = 16, .dot_ffma = 16,
					       .loads = 32, .reuse = 1};
		f = fired("tensor_cores");
		assert_non_null(strstr(f->cause, "16 of its 16 FMAs add the product of two values"));
		assert_non_null(strstr(f->title, "FP32 work runs on FFMA"));
		/* the first Do line is about this loop: its SASS range, its loads, the missing reuse */
		assert_non_null(strstr(f->recs.v[0], "the hot loop at SASS 0x"));
		assert_non_null(strstr(f->recs.v[0], "16 of them multiplying two values just loaded from memory"));
		assert_non_null(strstr(f->recs.v[0], "each used once (no reuse in registers)"));
		assert_non_null(strstr(f->recs.v[0], "TF32"));
		/* a dot product whose data is not reused (SpMV, GEMV): the intensity rules it out */
		s1->flops_fp32 = 0.25 * s1->dram_bytes;
		silent("tensor_cores");
		/* a 16x16-tiled GEMM re-reading its inputs from DRAM (8 FLOP/B) while DRAM is 21% busy counts;
		   the same intensity with DRAM busy (a memory-bound product) does not */
		s1->flops_fp32 = 8.0 * s1->dram_bytes;
		kp_fx_set(&fx, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 21);
		fired("tensor_cores");
		kp_fx_set(&fx, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 85);
		silent("tensor_cores");
		s1->flops_fp32 = 17179869184.0;
		/* FP16 on HFMA2: the HFMA FLOPs count, the FP16 MMA is named */
		shape = (struct kp_sass_shape){.found = 1, .in_loop = 1, .ffma = 16, .hfma2 = 16, .accumulating = 16,
					       .dot_ffma = 16, .loads = 32, .ldg = 32, .reuse = 1};
		s1->flops_fp32 = 0;
		kp_fx_set(&fx, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", 17179869184.0 / 4);
		f = fired("tensor_cores");
		assert_non_null(strstr(f->title, "FP16 work runs on HFMA2"));
		assert_non_null(strstr(f->recs.v[0], "16 HFMA2s per pass"));
		assert_non_null(strstr(f->recs.v[0], "m16n8k16.f32.f16.f16.f32"));
		assert_non_null(strstr(f->recs.v[0], "from global memory"));
		/* BF16 widened to FP32 FFMA */
		shape.hfma2 = 0;
		shape.widened = 16;
		s1->flops_fp32 = 17179869184.0;
		kp_fx_set(&fx, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", 0);
		f = fired("tensor_cores");
		assert_non_null(strstr(f->title, "16-bit inputs widened to FP32 FFMA"));
		assert_non_null(strstr(f->recs.v[0], "every 16-bit value widened to FP32 first"));
		assert_non_null(strstr(f->recs.v[0], "F32BF16BF16"));
		fx.in.shape = NULL;
	}

	/* Legacy mma.sync on sm_90. */
	kp_fx_set(&fx, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", 40);
	s = kp_fx_sass(&fx);
	s->counts[KP_SASS_HMMA] = 64;
	f = fired("tensor_cores");
	assert_non_null(strstr(f->title, "HMMA"));

	/* Without FLOP counts it cannot judge. */
	kp_fx_init(&fx, gemm, 16384, 256);
	assert_non_null(missing("tensor_cores"));
}

/* ---- pipe_balance ------------------------------------------------------------------------------- */

static void test_pipe_balance(void **state)
{
	const struct kp_fx_metric busy[] = {
		{"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 85},
		{"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active", 20},
		{"smsp__issue_active.avg.pct_of_peak_sustained_active", 60}, {SM, 85}, {MEM, 10}, {NULL, 0}};
	const struct kp_finding *f;
	struct kp_sass_func *s;

	kp_fx_init(&fx, busy, 128, 256);
	f = fired("pipe_balance");
	assert_non_null(strstr(f->title, "FMA"));
	assert_true(has_explainer(f, "tensor_cores"));

	kp_fx_set(&fx, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 55);
	silent("pipe_balance");
	kp_fx_set(&fx, "smsp__issue_active.avg.pct_of_peak_sustained_active", 95.7); /* divergent */
	f = fired("pipe_balance");
	assert_non_null(strstr(f->title, "Instruction-issue bound"));
	assert_true(has_explainer(f, "divergence"));

	/* FP64 fed by float<->double conversions is promotion; its gain uses the FP64/FP32 rate ratio. */
	kp_fx_set(&fx, "smsp__issue_active.avg.pct_of_peak_sustained_active", 50);
	kp_fx_set(&fx, "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", 60);
	silent("pipe_balance"); /* FP64 by design: no conversions, below saturation */
	s = kp_fx_sass(&fx);
	s->counts[KP_SASS_F2F_F64] = 2;
	s->counts[KP_SASS_DFMA] = 64;
	f = fired("pipe_balance");
	assert_non_null(strstr(f->title, "promoted"));
	assert_false(isnan(f->gain));

	kp_fx_init(&fx, NULL, 1, 32);
	missing("pipe_balance");
}

/* ---- divergence ----------------------------------------------------------------------------------- */

static void test_divergence(void **state)
{
	const struct kp_fx_metric div[] = {
		{"smsp__thread_inst_executed_per_inst_executed.ratio", 16.09},
		{"smsp__thread_inst_executed_pred_on_per_inst_executed.ratio", 15.02}, {SM, 94.7}, {MEM, 0.8}, {NULL, 0}};
	const struct kp_finding *f;

	kp_fx_init(&fx, div, 16384, 256);
	f = fired("divergence");
	assert_int_equal(f->severity, KP_SEV_HIGH);
	assert_true(fabs(f->gain - (1 - 15.02 / 32)) < 0.01);
	kp_fx_set(&fx, "smsp__thread_inst_executed_per_inst_executed.ratio", 32);
	kp_fx_set(&fx, "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio", 30.4);
	silent("divergence");
	/* Blocks of 48 threads: every second warp half empty. */
	kp_fx_init(&fx, div, 16384, 48);
	kp_fx_set(&fx, "smsp__thread_inst_executed_per_inst_executed.ratio", 23.9);
	f = fired("divergence");
	assert_non_null(strstr(f->title, "Partial warps"));
	kp_fx_init(&fx, NULL, 1, 32);
	missing("divergence");
}

/* ---- grid_waves ----------------------------------------------------------------------------------- */

static void test_grid_waves(void **state)
{
	const struct kp_fx_metric one_block[] = {
		{"launch__grid_size", 1}, {"launch__sm_count", 132}, {"launch__occupancy_limit_warps", 8}, {NULL, 0}};
	const struct kp_fx_metric tail[] = {
		{"launch__grid_size", 304}, {"launch__sm_count", 132}, {"launch__occupancy_limit_warps", 2},
		{"launch__occupancy_limit_registers", 4}, {NULL, 0}};
	const struct kp_finding *f;

	kp_fx_init(&fx, one_block, 1, 256); /* tiny_grid */
	f = fired("grid_waves");
	assert_int_equal(f->severity, KP_SEV_CRITICAL);
	assert_non_null(strstr(f->title, "131 SMs idle"));
	assert_non_null(strstr(f->recs.v[0], "grid-stride"));

	kp_fx_init(&fx, tail, 304, 1024); /* 1.15 waves of 264 blocks */
	f = fired("grid_waves");
	assert_non_null(strstr(f->title, "Tail effect"));
	assert_true(fabs(f->gain - (2 - 304.0 / 264) / 2) < 0.01);

	kp_fx_set(&fx, "launch__grid_size", 264 * 16);
	silent("grid_waves");
}

/* ---- local_memory --------------------------------------------------------------------------------- */

static void test_local_memory(void **state)
{
	const struct kp_fx_metric spill[] = {
		{"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 4295108511.0},
		{"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", 536627976},
		{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 654311424},
		{"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 8388608}, {SM, 45.5}, {MEM, 76.8}, {NULL, 0}};
	const struct kp_finding *f;
	struct kp_ptxas_func *p;

	kp_fx_init(&fx, spill, 262144, 256);
	p = kp_fx_ptxas(&fx);
	p->stack_frame = 256;
	f = fired("local_memory");
	assert_non_null(strstr(f->title, "array lives in local memory")); /* stack frame, no spills */
	assert_int_equal(f->severity, KP_SEV_CRITICAL);

	p->spill_stores = 456;
	p->spill_loads = 816;
	f = fired("local_memory");
	assert_non_null(strstr(f->title, "Register spills"));

	kp_fx_set(&fx, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 0);
	kp_fx_set(&fx, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", 0);
	silent("local_memory"); /* measured: no local traffic, whatever ptxas says */

	/* Static evidence alone (no ncu local counters): ptxas spills still count, at a lower severity. */
	kp_fx_init(&fx, NULL, 262144, 256);
	p = kp_fx_ptxas(&fx);
	p->spill_stores = 456;
	f = fired("local_memory");
	assert_int_equal(f->severity, KP_SEV_MEDIUM);

	kp_fx_init(&fx, NULL, 262144, 256);
	missing("local_memory");
}

/* ---- instruction_mix ---------------------------------------------------------------------------- */

static void test_instruction_mix(void **state)
{
	const struct kp_fx_metric mem_bound[] = {{SM, 37.7}, {MEM, 49.4}, {DRAM, 49.4}, {NULL, 0}};
	const struct kp_finding *f;
	struct kp_sass_func *s;

	kp_fx_init(&fx, mem_bound, 262144, 256); /* swish_ieee */
	s = kp_fx_sass(&fx);
	s->counts[KP_SASS_CALL_FDIV_SLOW] = 1;
	s->counts[KP_SASS_MUFU_RCP] = 2;
	f = fired("instruction_mix");
	assert_non_null(strstr(f->title, "division"));
	assert_int_equal(f->severity, KP_SEV_LOW); /* memory-bound, no energy objective */
	fx.in.energy = 1;
	f = fired("instruction_mix");
	assert_int_equal(f->severity, KP_SEV_MEDIUM);
	fx.in.energy = 0;

	/* FP64 on a cold path (sinf's reduction): in the SASS, never executed. */
	s->counts[KP_SASS_CALL_FDIV_SLOW] = 0;
	s->counts[KP_SASS_DMUL] = 2;
	s->counts[KP_SASS_F2F_F64] = 2;
	kp_fx_set(&fx, "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", 0);
	silent("instruction_mix");
	kp_fx_set(&fx, "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", 70);
	f = fired("instruction_mix");
	assert_non_null(strstr(f->title, "Double-precision"));

	s->counts[KP_SASS_DMUL] = s->counts[KP_SASS_F2F_F64] = 0;
	s->counts[KP_SASS_IDIV_SEQ] = 2;
	f = fired("instruction_mix");
	assert_non_null(strstr(f->title, "Integer division"));
	s->has_executed = 1; /* executed counts say that code never ran */
	s->executed_total = 1e9;
	silent("instruction_mix");
	s->executed[KP_SASS_IDIV_SEQ] = 2048; /* a prologue's few divisions among a billion instructions */
	silent("instruction_mix");
	s->executed[KP_SASS_IDIV_SEQ] = 1e7;
	fired("instruction_mix");

	fx.prof.sass = NULL;
	missing("instruction_mix");
}

/* ---- atomics ------------------------------------------------------------------------------------ */

static void test_atomics(void **state)
{
	const struct kp_fx_metric contended[] = {
		{"lts__t_sectors_srcunit_tex_op_red.sum", 67108864}, {"lts__t_sectors_srcunit_tex_op_atom.sum", 0},
		{SM, 0.22}, {MEM, 0.86}, {DRAM, 0.05}, {"gpu__time_duration.sum", 117768480}, {NULL, 0}};
	const struct kp_finding *f;

	kp_fx_init(&fx, contended, 262144, 256); /* reduce_atomic: one atomic per thread */
	f = fired("atomics");
	assert_int_equal(f->severity, KP_SEV_CRITICAL);
	assert_non_null(strstr(f->recs.v[0], "__shfl_down_sync"));
	assert_non_null(strstr(f->recs.v[0], "256x fewer"));

	kp_fx_init(&fx, contended, 1056, 256); /* reduce_shfl: one atomic per block */
	kp_fx_set(&fx, "lts__t_sectors_srcunit_tex_op_red.sum", 1056);
	silent("atomics");

	kp_fx_init(&fx, contended, 262144, 256); /* many atomics, but the GPU is busy: no serialization */
	kp_fx_set(&fx, MEM, 70);
	silent("atomics");

	kp_fx_init(&fx, NULL, 1, 32);
	missing("atomics");
}

/* ---- launch_overhead ----------------------------------------------------------------------------- */

static void test_launch_overhead(void **state)
{
	const struct kp_finding *f;

	kp_fx_init(&fx, NULL, 1, 32);
	fx.launch.function = "tiny_kernel";
	kp_fx_trace(&fx, "_Z11tiny_kernelPf", 200, 2000, 5600);
	f = fired("launch_overhead");
	assert_int_equal(f->severity, KP_SEV_CRITICAL);
	assert_true(fabs(f->gain - 3600.0 / 5600) < 0.01);
	assert_non_null(strstr(f->title, "200 launches of tiny_kernel"));
	assert_non_null(strstr(f->recs.v[1], "CUDA Graph"));

	kp_fx_trace(&fx, "_Z11tiny_kernelPf", 5, 2000, 5600); /* a handful of launches */
	silent("launch_overhead");
	kp_fx_trace(&fx, "_Z11tiny_kernelPf", 200, 900000, 1000000); /* long kernels, short gaps */
	silent("launch_overhead");
	/* The profiled kernel is another one: the trace's tiny kernels are not its finding. */
	fx.launch.function = "vec_add_naive";
	kp_fx_trace(&fx, "_Z11tiny_kernelPf", 200, 2000, 5600);
	silent("launch_overhead");

	fx.prof.trace = NULL;
	assert_non_null(strstr(missing("launch_overhead"), "trace"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sol_gap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coalescing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_coalescing_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vector_width, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_occupancy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_warp_stalls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bank_conflicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tensor_cores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_balance, setup, teardown),
		cmocka_unit_test_setup_teardown(test_divergence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grid_waves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_instruction_mix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_launch_overhead, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
