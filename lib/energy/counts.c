/*
 * The proxy's counts from one ncu launch. Targeted collection (kp_energy_proxy_metrics) gives every
 * count directly; a `--set full` capture lacks some of them, so each count has fallbacks to what
 * that capture does contain.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/energy.h"
#include "kernelpro/ncu_metrics.h"

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
	k->v[KP_ENERGY_STATIC] = get(l, KP_M_TIME) * 1e-9; /* ns in base units */
	k->v[KP_ENERGY_SM_ACTIVE] = first(get(l, KP_M_SM_CYCLES_ACTIVE),
					  get(l, KP_M_SM_CYCLES_ACTIVE_AVG) * get(l, KP_M_DEVICE_SMS));
	k->v[KP_ENERGY_DRAM] = first(sum2(get(l, KP_M_DRAM_RD), get(l, KP_M_DRAM_WR)), get(l, KP_M_DRAM));
	k->v[KP_ENERGY_L2] = first(get(l, KP_M_L2_BYTES), get(l, KP_M_L2_SECTORS_ALL) * 32);

	/* Excess sectors: sectors touched beyond what the requested bytes need (32-byte sectors). */
	sectors = get(l, KP_M_G_SECTORS);
	needed = get(l, KP_M_G_DATA_BYTES) / 32;
	k->v[KP_ENERGY_EXCESS] = isfinite(sectors) && isfinite(needed)
					 ? fmax(0, sectors - needed)
					 : get(l, KP_M_L2_SECTORS_EXCESS);

	k->v[KP_ENERGY_LOCAL] = first(sum2(get(l, KP_M_LLD_BYTES), get(l, KP_M_LST_BYTES)),
				      sum2(get(l, KP_M_LLD_SECTORS), get(l, KP_M_LST_SECTORS)) * 32);

	k->v[KP_ENERGY_FP32] = get(l, KP_M_OP_FP32);
	k->v[KP_ENERGY_FP64] = get(l, KP_M_OP_FP64);
	k->v[KP_ENERGY_INT] = get(l, KP_M_OP_INTEGER);
	k->v[KP_ENERGY_MEM] = get(l, KP_M_OP_MEMORY);
	k->v[KP_ENERGY_SFU] = get(l, KP_M_XU_THREAD_INST);
	k->v[KP_ENERGY_TENSOR] = get(l, KP_M_TENSOR_CYCLES);

	/* Everything not in a class above (control, bit, conversion, communication). Without the
	 * classes, every instruction lands here: the total still counts, at the generic rate. */
	total = first(get(l, KP_M_THREAD_INST), get(l, KP_M_THREAD_INST_ALT));
	classes = k->v[KP_ENERGY_FP32] + k->v[KP_ENERGY_FP64] + k->v[KP_ENERGY_INT] + k->v[KP_ENERGY_MEM];
	if (isfinite(total))
		k->v[KP_ENERGY_OTHER] = isfinite(classes) ? fmax(0, total - classes) : total;
}
