/*
 * The proxy's counts from one ncu launch. Targeted collection (kp_energy_proxy_metrics) gives every
 * count directly; a `--set full` capture lacks some of them, so each count has fallbacks to what
 * that capture does contain.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/energy.h"

static double get(const struct kp_launch *l, const char *name)
{
	double v;
	return kp_launch_get(l, name, &v) == 0 ? v : NAN;
}

/* a + b when both are present, else NAN. */
static double sum2(double a, double b)
{
	return isfinite(a) && isfinite(b) ? a + b : NAN;
}

static double first(double a, double b)
{
	return isfinite(a) ? a : b;
}

void kp_energy_counts_from_launch(const struct kp_launch *l, struct kp_energy_counts *k)
{
	double sectors, needed, total, classes;

	kp_energy_counts_init(k);
	k->v[KP_ENERGY_STATIC] = get(l, "gpu__time_duration.sum") * 1e-9; /* ns in base units */
	k->v[KP_ENERGY_SM_ACTIVE] = first(get(l, "sm__cycles_active.sum"),
					  get(l, "sm__cycles_active.avg") * get(l, "device__attribute_multiprocessor_count"));
	k->v[KP_ENERGY_DRAM] = first(sum2(get(l, "dram__bytes_read.sum"), get(l, "dram__bytes_write.sum")),
				     get(l, "dram__bytes.sum"));
	k->v[KP_ENERGY_L2] = first(get(l, "lts__t_bytes.sum"), get(l, "lts__t_sectors.sum") * 32);

	/* Excess sectors: sectors touched beyond what the requested bytes need (32-byte sectors). */
	sectors = get(l, "smsp__sass_sectors_mem_global.sum");
	needed = get(l, "smsp__sass_data_bytes_mem_global.sum") / 32;
	k->v[KP_ENERGY_EXCESS] = isfinite(sectors) && isfinite(needed)
					 ? fmax(0, sectors - needed)
					 : get(l, "derived__memory_l2_theoretical_sectors_global_excessive");

	k->v[KP_ENERGY_LOCAL] =
		first(sum2(get(l, "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum"),
			   get(l, "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum")),
		      sum2(get(l, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"),
			   get(l, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum")) *
			      32);

	k->v[KP_ENERGY_FP32] = get(l, "smsp__sass_thread_inst_executed_op_fp32_pred_on.sum");
	k->v[KP_ENERGY_FP64] = get(l, "smsp__sass_thread_inst_executed_op_fp64_pred_on.sum");
	k->v[KP_ENERGY_INT] = get(l, "smsp__sass_thread_inst_executed_op_integer_pred_on.sum");
	k->v[KP_ENERGY_MEM] = get(l, "smsp__sass_thread_inst_executed_op_memory_pred_on.sum");
	k->v[KP_ENERGY_SFU] = get(l, "smsp__thread_inst_executed_pipe_xu_pred_on.sum");
	k->v[KP_ENERGY_TENSOR] = get(l, "sm__pipe_tensor_cycles_active.sum");

	/* Everything not in a class above (control, bit, conversion, communication). Without the
	 * classes, every instruction lands here: the total still counts, at the generic rate. */
	total = first(get(l, "smsp__thread_inst_executed_pred_on.sum"), get(l, "thread_inst_executed_true"));
	classes = k->v[KP_ENERGY_FP32] + k->v[KP_ENERGY_FP64] + k->v[KP_ENERGY_INT] + k->v[KP_ENERGY_MEM];
	if (isfinite(total))
		k->v[KP_ENERGY_OTHER] = isfinite(classes) ? fmax(0, total - classes) : total;
}
