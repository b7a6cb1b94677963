/* The checks on speed only kernelpro can make, after the harness: the speedups, the floor (the time no
 * correct kernel can beat on this GPU, from the task's unavoidable bytes and declared FLOPs at the
 * datasheet peaks of the GPU the evaluation ran on; eval.h, struct kp_floor) and the flags on it. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/eval.h"
#include "kernelpro/hw.h"
#include "kernelpro/str.h"
#include "kernelpro/task_kind.h"

static int check_on(const struct kp_eval_opts *o, const char *id)
{
	for (const char *const *a = o->allow_checks; a && *a; a++)
		if (!strcmp(*a, id))
			return 0;
	return 1;
}

/* The fastest FLOP rate a kernel of this precision can honestly use. fp32: TF32 tensor cores, since
 * 3xTF32 (the fastest way to fp32 accuracy) runs below their rate; integers: any tensor rate. */
static double compute_peak(const struct kp_hw_spec *hw, enum kp_dtype p)
{
	switch (p) {
	case KP_DTYPE_F32: return fmax(hw->fp32, hw->tf32_tc);
	case KP_DTYPE_F64: return fmax(hw->fp64, hw->fp64_tc);
	case KP_DTYPE_F16: return fmax(fmax(hw->fp16, hw->fp16_tc), hw->fp32);
	case KP_DTYPE_BF16: return fmax(hw->bf16_tc, hw->fp32);
	default: return fmax(fmax(hw->int8_tc, hw->fp8_tc), fmax(hw->fp16_tc, hw->fp32));
	}
}

/* Inputs' and outputs' bytes: what the harness measured, or a native task's tensors (scaled to
 * task.json min_bytes when the task declares another total). */
static void task_bytes(const struct kp_task *t, struct kp_floor *f)
{
	double in = 0, out = 0, k;
	if (!kp_task_kind_info(t->kind)->spec_tensors)
		return;
	for (size_t i = 0; i < t->ninputs; i++)
		in += (double)kp_tensor_spec_bytes(&t->inputs[i]);
	for (size_t i = 0; i < t->noutputs; i++)
		out += (double)kp_tensor_spec_bytes(&t->outputs[i]);
	k = t->min_bytes > 0 && in + out > 0 ? t->min_bytes / (in + out) : 1;
	f->in_bytes = in * k;
	f->out_bytes = out * k;
}

void kp_eval_floor(const struct kp_task *t, const struct kp_eval_opts *o, struct kp_verdict *v)
{
	struct kp_floor *f = &v->floor;
	const struct kp_hw_spec *hw = v->gpu_name[0] ? kp_hw_spec_find(v->gpu_name) : NULL;
	double bytes_time = NAN;

	f->time_s = f->dram_bytes = f->flop_time_s = f->dram_bw = f->compute_peak = NAN;
	f->flops = NAN;
	f->flops_counted = 0;
	f->source[0] = f->gpu[0] = '\0';
	if (t)
		task_bytes(t, f);
	f->bytes = !isnan(f->in_bytes) && !isnan(f->out_bytes) ? f->in_bytes + f->out_bytes : v->io_bytes;
	if (t && kp_task_kind_info(t->kind)->spec_tensors && t->flops > 0)
		f->flops = t->flops;
	else if (v->flops > 0) {
		f->flops = v->flops;
		f->flops_counted = 1;
	}
	if (hw) {
		kp_strlcpy(f->gpu, hw->key, sizeof(f->gpu));
		f->dram_bw = hw->dram_bw;
		f->compute_peak = compute_peak(hw, t ? t->precision : KP_DTYPE_F32);
		if (!isnan(f->in_bytes) && !isnan(f->out_bytes)) {
			/* Outputs that fit in L2 can still be there when the timer stops; without the flush,
			 * inputs that fit can be there before it starts. */
			double in = o->l2_flush ? f->in_bytes : fmax(0, f->in_bytes - hw->l2_bytes);
			f->dram_bytes = in + fmax(0, f->out_bytes - hw->l2_bytes);
			bytes_time = f->dram_bw > 0 ? f->dram_bytes / f->dram_bw : NAN;
		}
		if (f->flops > 0 && f->compute_peak > 0)
			f->flop_time_s = f->flops / f->compute_peak;
	}
	if (!isnan(o->floor_time_s) && o->floor_time_s > 0) {
		f->time_s = o->floor_time_s;
		kp_strlcpy(f->source, "given", sizeof(f->source));
		return;
	}
	if (isnan(bytes_time) && (isnan(f->flop_time_s) || f->flops_counted))
		return;
	f->time_s = isnan(bytes_time) ? 0 : bytes_time;
	if (!isnan(f->flop_time_s) && !f->flops_counted)
		f->time_s = fmax(f->time_s, f->flop_time_s);
	kp_strlcpy(f->source, "measured", sizeof(f->source));
}

void kp_eval_speed_checks(const struct kp_task *t, const struct kp_eval_opts *o, struct kp_verdict *v)
{
	const struct kp_floor *f = &v->floor;
	double ms = v->runtime.median_ms;

	if (v->runtime.trials > 0 && v->ref_runtime.trials > 0 && ms > 0)
		v->speedup = v->ref_runtime.median_ms / ms;
	if (v->runtime.trials > 0 && v->compiled_ref_runtime.trials > 0 && ms > 0)
		v->speedup_compile = v->compiled_ref_runtime.median_ms / ms;
	kp_eval_floor(t, o, v);
	if (v->status != KP_STATUS_CORRECT || v->runtime.trials <= 0)
		return;
	if (v->speedup > KP_EVAL_MAX_SPEEDUP || v->speedup_compile > KP_EVAL_MAX_SPEEDUP) {
		kp_verdict_flag(v, "implausible_result", KP_SEV_REFUSE,
				"speedup %g (over torch.compile: %g) is above %g: reference %g ms, candidate %g ms",
				v->speedup, v->speedup_compile, KP_EVAL_MAX_SPEEDUP, v->ref_runtime.median_ms, ms);
		kp_verdict_refused(v, "implausible_result", "the harness reported numbers no measurement gives");
		return;
	}
	if (f->time_s > 0 && check_on(o, "below_floor") && ms * 1e-3 < f->time_s * o->floor_slack) {
		if (!strcmp(f->source, "given"))
			kp_verdict_flag(v, "below_floor", KP_SEV_REFUSE,
					"median runtime %.4g ms is below the floor %.4g ms given for this task (x%.2g "
					"slack): no correct kernel moves the task's minimum bytes and FLOPs that fast on "
					"this GPU",
					ms, f->time_s * 1e3, o->floor_slack);
		else
			kp_verdict_flag(v, "below_floor", KP_SEV_REFUSE,
					"median runtime %.4g ms is below the floor %.4g ms (x%.2g slack): %.4g MB must "
					"cross DRAM (inputs read once, outputs written once) at %.4g TB/s on %s%s; no "
					"correct kernel is faster",
					ms, f->time_s * 1e3, o->floor_slack, f->dram_bytes / 1e6, f->dram_bw / 1e12, f->gpu,
					!isnan(f->flop_time_s) && !f->flops_counted && f->flop_time_s >= f->time_s
						? " (here the task's declared FLOPs bound it)"
						: "");
		kp_verdict_refused(v, "below_floor", "faster than the hardware allows");
		return;
	}
	if (f->flops_counted && f->flop_time_s > 0 && check_on(o, "flop_floor") &&
	    ms * 1e-3 < f->flop_time_s * o->floor_slack)
		kp_verdict_flag(v, "flop_floor", KP_SEV_WARN,
				"median runtime %.4g ms is below the %.4g ms the reference's %.4g GFLOP of matrix "
				"products need at %.4g TFLOP/s (%s): either the reference does work an honest kernel "
				"can skip, or the candidate skips work it must do",
				ms, f->flop_time_s * 1e3, f->flops / 1e9, f->compute_peak / 1e12, f->gpu);
	if (!isnan(v->speedup) && v->speedup > o->excessive_speedup && check_on(o, "excessive_speedup"))
		kp_verdict_flag(v, "excessive_speedup", KP_SEV_WARN,
				"%.1fx over the reference (threshold %.0fx): read the kernel before trusting it", v->speedup,
				o->excessive_speedup);
}
