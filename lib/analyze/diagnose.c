/* JSON objects of the diagnosis report: one per launch (Stage 1 now, the tools' findings later) and the GPU model. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/analyze.h"
#include "kernelpro/json.h"

static json_t *dim3(const unsigned d[3])
{
	json_t *a = json_array();
	for (int i = 0; i < 3; i++)
		json_array_append_new(a, json_integer(d[i]));
	return a;
}

json_t *kp_diagnose_launch_json(const struct kp_kernel_profile *p, const struct kp_stage1 *s1)
{
	json_t *o = json_object(), *src = json_object();
	const struct kp_launch *l = p->launch;
	kp_json_set(o, "launch_id", json_integer(l->id));
	kp_json_set(o, "kernel", json_string(l->kernel ? l->kernel : ""));
	kp_json_set(o, "function", json_string(l->function ? l->function : ""));
	kp_json_set(o, "grid", dim3(l->grid));
	kp_json_set(o, "block", dim3(l->block));
	kp_json_set(o, "cc", json_string(l->cc ? l->cc : ""));
	kp_json_set(o, "incomplete", json_boolean(l->incomplete || (s1 && s1->incomplete)));
	kp_json_set(src, "sass", p->sass ? json_string(p->sass->mangled ? p->sass->mangled : p->sass->demangled) : NULL);
	kp_json_set(src, "ptxas", p->ptxas ? json_string(p->ptxas->mangled) : NULL);
	kp_json_set(src, "trace", json_boolean(p->trace != NULL));
	kp_json_set(o, "sources", src);
	if (p->ptxas) {
		json_t *r = json_object();
		kp_json_set(r, "registers", json_integer(p->ptxas->registers));
		kp_json_set(r, "smem_bytes", json_integer(p->ptxas->smem_bytes));
		kp_json_set(r, "stack_frame", json_integer(p->ptxas->stack_frame));
		kp_json_set(r, "spill_stores", json_integer(p->ptxas->spill_stores));
		kp_json_set(r, "spill_loads", json_integer(p->ptxas->spill_loads));
		kp_json_set(o, "resources", r);
	}
	kp_json_set(o, "stage1", s1 ? kp_stage1_to_json(s1) : NULL);
	kp_json_set(o, "findings", json_array());
	return o;
}

json_t *kp_hw_to_json(const struct kp_hw *hw)
{
	json_t *o = json_object();
	const struct kp_hw_spec *s = &hw->spec;
	kp_json_set(o, "key", json_string(s->key));
	kp_json_set(o, "name", json_string(s->name));
	kp_json_set(o, "device", hw->device[0] ? json_string(hw->device) : NULL);
	kp_json_set(o, "source", json_string(hw->source));
	kp_json_set(o, "calibrated", json_boolean(hw->calibrated));
	kp_json_set(o, "calibration_file", hw->calibration[0] ? json_string(hw->calibration) : NULL);
	kp_json_set(o, "compute_capability", json_sprintf("%d.%d", s->cc_major, s->cc_minor));
	kp_json_set(o, "sm_count", json_integer(s->sm_count));
	kp_json_set(o, "boost_clock_hz", kp_json_real(s->boost_clock_hz));
	kp_json_set(o, "dram_bytes", kp_json_real(s->dram_bytes));
	kp_json_set(o, "l2_bytes", kp_json_real(s->l2_bytes));
	kp_json_set(o, "smem_per_sm", kp_json_real(s->smem_per_sm));
	kp_json_set(o, "regs_per_sm", json_integer(s->regs_per_sm));
	kp_json_set(o, "max_threads_per_sm", json_integer(s->max_threads_per_sm));
	kp_json_set(o, "max_blocks_per_sm", json_integer(s->max_blocks_per_sm));
	kp_json_set(o, "tdp_w", kp_json_real(s->tdp_w));
	kp_json_set(o, "dram_bw", kp_json_real(hw->dram_bw));
	kp_json_set(o, "fp32", kp_json_real(hw->fp32));
	kp_json_set(o, "fp64", kp_json_real(hw->fp64));
	kp_json_set(o, "fp16", kp_json_real(hw->fp16));
	kp_json_set(o, "tf32_tc", kp_json_real(hw->tf32_tc));
	kp_json_set(o, "bf16_tc", kp_json_real(hw->bf16_tc));
	kp_json_set(o, "fp16_tc", kp_json_real(hw->fp16_tc));
	kp_json_set(o, "fp8_tc", kp_json_real(hw->fp8_tc));
	kp_json_set(o, "int8_tc", kp_json_real(hw->int8_tc));
	kp_json_set(o, "fp64_tc", kp_json_real(hw->fp64_tc));
	kp_json_set(o, "datasheet_dram_bw", kp_json_real(s->dram_bw));
	kp_json_set(o, "datasheet_fp32", kp_json_real(s->fp32));
	return o;
}

/* 1.23e+09 -> "1.23 G" */
static void si(struct kp_buf *b, double v, const char *unit)
{
	static const char *const pre[] = {"", "k", "M", "G", "T", "P"};
	int i = 0;
	if (isnan(v)) {
		kp_buf_addf(b, "? %s", unit);
		return;
	}
	while (fabs(v) >= 1000 && i < 5) {
		v /= 1000;
		i++;
	}
	kp_buf_addf(b, "%.3g %s%s", v, pre[i], unit);
}

void kp_stage1_describe(const struct kp_stage1 *s, struct kp_buf *out)
{
	kp_buf_addf(out, "  %s: %s\n", kp_bound_name(s->bound), s->reason);
	kp_buf_adds(out, "  FLOPs ");
	si(out, s->flops, "");
	kp_buf_addf(out, " (%s, %s), DRAM ", s->precision, s->flops_source ? s->flops_source : "missing");
	si(out, s->dram_bytes, "B");
	kp_buf_addf(out, ", AI %.3g FLOP/B, ridge %.3g\n  ", s->ai, s->ridge_ai);
	si(out, s->achieved_bw, "B/s");
	kp_buf_addf(out, " = %.0f%% of DRAM roof; ", 100 * s->memory_frac);
	si(out, s->achieved_flops, "FLOP/s");
	kp_buf_addf(out, " = %.1f%% of %s roof", 100 * s->compute_frac, s->precision);
	if (!isnan(s->sm_sol_pct) || !isnan(s->mem_sol_pct))
		kp_buf_addf(out, "; ncu SM %.0f%%, memory %.0f%%", s->sm_sol_pct, s->mem_sol_pct);
	kp_buf_addch(out, '\n');
	if (!isnan(s->min_bytes))
		kp_buf_addf(out, "  minimum traffic %.3g B: AI %.3g, no version can run faster than %.3g ms\n",
			    s->min_bytes, s->ai_min, s->floor_time_s * 1e3);
	if (s->incomplete)
		kp_buf_addf(out, "  incomplete: missing %s\n", s->missing[0] ? s->missing : "some inputs");
}
