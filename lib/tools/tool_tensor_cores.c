/*
 * tensor_cores: matrix-multiply-shaped FP32 work (dot-product loops that
 * stream operands from memory with high reuse) running on the FMA pipe while
 * the tensor cores idle; or legacy mma.sync (HMMA) on Hopper instead of wgmma.
 * The shape comes from the SASS when it was read (kp_sass_shape: the hot loop's
 * FFMAs accumulate products of two loaded streams), so a chain of dependent
 * FMAs (a recurrence, a polynomial, a stencil with constant weights) never
 * counts however many FLOPs per byte it does; without SASS text, from counters.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_MAX_TENSOR, T_MIN_AI, T_MIN_LOADS };

static const struct kp_threshold thresholds[] = {
	{"max_tensor_pct", 10, "%", "tensor pipe busier than this: the kernel already uses tensor cores"},
	{"min_ai", 16, "FLOP/B", "FP32 FLOPs per DRAM byte at or above this: the operands are reused like a matrix product's"},
	{"min_loads_per_ffma", 0.02, "", "operand loads (global+shared) per FFMA at or above this: a dot-product loop, not register-only math"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{KP_M_PIPE_TENSOR, KP_TM_OPTIONAL},
	{KP_M_PIPE_FMA, KP_TM_OPTIONAL},
	{KP_M_OP_FFMA, KP_TM_OPTIONAL},
	{KP_M_OP_FADD, KP_TM_OPTIONAL},
	{KP_M_OP_FMUL, KP_TM_OPTIONAL},
	{KP_M_GLD_INST, KP_TM_OPTIONAL},
	{KP_M_SLD_INST, KP_TM_OPTIONAL},
	{KP_M_DRAM_RD, KP_TM_OPTIONAL},
	{KP_M_DRAM_WR, KP_TM_OPTIONAL},
	KP_TM_SOL,
	{NULL, 0},
};

struct mm {
	double flops32, flops_tc, dram, ai, loads_per_ffma, tensor_pct;
	int hmma_only; /* SASS: mma.sync on an sm_90 kernel without wgmma */
	const struct kp_sass_shape *shape; /* the hot loop from the SASS text; NULL: counters only */
};

static void measure(const struct kp_tool_input *m, struct mm *x)
{
	const struct kp_stage1 *s = m->stage1;
	const struct kp_sass_func *sass = m->profile->sass;
	double ffma = kp_tool_metric(m, KP_M_OP_FFMA), gi = kp_tool_metric(m, KP_M_GLD_INST);
	double si = kp_tool_metric(m, KP_M_SLD_INST), ffma_inst;

	x->flops32 = s && !isnan(s->flops_fp32) ? s->flops_fp32 : NAN;
	if (isnan(x->flops32) && !isnan(ffma))
		x->flops32 = 2 * ffma + kp_nz(kp_tool_metric(m, KP_M_OP_FADD)) + kp_nz(kp_tool_metric(m, KP_M_OP_FMUL));
	x->flops_tc = s && s->flops_tensor > 0 ? s->flops_tensor : 0;
	x->dram = s && s->dram_bytes > 0 ? s->dram_bytes
					 : kp_tool_metric(m, KP_M_DRAM_RD) + kp_nz(kp_tool_metric(m, KP_M_DRAM_WR));
	x->ai = x->dram > 0 ? x->flops32 / x->dram : NAN;
	/* Warp-level FFMAs from thread FLOPs (2 per FMA, 32 threads); operand loads from ncu, else the SASS. */
	ffma_inst = x->flops32 / 64.0;
	if (!isnan(gi) && ffma_inst > 0)
		x->loads_per_ffma = (gi + kp_nz(si)) / ffma_inst;
	else if (sass && sass->counts[KP_SASS_FFMA])
		x->loads_per_ffma = (double)(sass->counts[KP_SASS_LDG_32] + sass->counts[KP_SASS_LDG_64] +
					     sass->counts[KP_SASS_LDG_128] + sass->counts[KP_SASS_LDS] +
					     sass->counts[KP_SASS_LDSM]) /
				    sass->counts[KP_SASS_FFMA];
	else
		x->loads_per_ffma = NAN;
	x->tensor_pct = kp_tool_metric(m, KP_M_PIPE_TENSOR);
	x->shape = m->shape && m->shape->found && m->shape->ffma ? m->shape : NULL;
	x->hmma_only = sass && sass->counts[KP_SASS_HMMA] > 0 && !sass->counts[KP_SASS_HGMMA] && sass->arch &&
		       !strncmp(sass->arch, "sm_90", 5);
}

static int matrix_on_ffma(const struct mm *x, const double *t)
{
	if (x->tensor_pct > t[T_MAX_TENSOR] || x->flops_tc > x->flops32 || !(x->ai >= t[T_MIN_AI]))
		return 0;
	if (x->shape) /* the SASS shows what the FFMAs do: only a product's belong on tensor cores */
		return kp_sass_shape_is_product(x->shape);
	return isnan(x->loads_per_ffma) || x->loads_per_ffma >= t[T_MIN_LOADS];
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	struct mm x;
	measure(m, &x);
	if (x.hmma_only)
		return 1;
	if (isnan(x.flops32))
		return x.tensor_pct > t[T_MAX_TENSOR] ? 0 : KP_EMISSING;
	return matrix_on_ffma(&x, t);
}

static double tc_peak(const struct kp_hw *hw)
{
	if (!hw)
		return 0;
	return hw->tf32_tc > 0 ? hw->tf32_tc : hw->spec.tf32_tc;
}

static void analyze_ffma(const struct kp_tool_input *m, const struct mm *x, const double *t, struct kp_findings *out)
{
	double time = kp_tool_time_s(m), peak = tc_peak(m->hw), bw = m->hw ? m->hw->dram_bw : 0;
	const char *faster = peak > 0 && m->hw->fp32 > 0 ? "several times faster in TF32 and faster still in BF16"
							  : "several times faster";
	struct kp_finding *f = kp_finding_new(out, KP_SEV_NONE, "Matrix-multiply-shaped FP32 work runs on FFMA, not tensor cores (%.3g GFLOP at %.3g TFLOP/s)",
					      x->flops32 / 1e9, time > 0 ? x->flops32 / time / 1e12 : NAN);
	if (x->shape)
		kp_finding_cause(f, "The kernel's hot %s is a dot product: %u of its %u FFMAs add the product of two "
				    "values loaded by different loads to a running sum (each loaded value feeds %.1f "
				    "FFMAs), and the data is reused heavily (%.0f FLOP per DRAM byte); it runs one FMA "
				    "per thread per cycle on the FP32 pipe, where the tensor cores run the same product %s.",
				 x->shape->in_loop ? "loop" : "code", x->shape->dot_ffma, x->shape->ffma, x->shape->reuse,
				 x->ai, faster);
	else
		kp_finding_cause(f, "The kernel looks like a dot-product loop: operands streamed from memory (%.2f loads "
				    "per FFMA) and reused heavily (%.0f FLOP per DRAM byte), computed one FMA per thread per "
				    "cycle on the FP32 pipe; on this GPU the tensor cores run the same product %s. (No SASS "
				    "text was read, so the loop's shape is not confirmed.)",
				 x->loads_per_ffma, x->ai, faster);
	kp_finding_evidence(f, "FP32 FLOPs per DRAM byte", x->ai, t[T_MIN_AI], "FLOP/B");
	if (x->shape) {
		kp_finding_evidence(f, "dot-product FFMAs in the hot loop (SASS)", 100.0 * x->shape->dot_ffma / x->shape->ffma,
				    50, "%");
		kp_finding_evidence(f, "FFMAs per loaded multiplicand (SASS)", x->shape->reuse, NAN, "");
	}
	kp_tool_evidence(f, "operand loads per FFMA", x->loads_per_ffma, t[T_MIN_LOADS], "");
	kp_tool_evidence(f, KP_M_PIPE_TENSOR, x->tensor_pct, t[T_MAX_TENSOR], "%");
	kp_tool_evidence(f, KP_M_PIPE_FMA, kp_tool_metric(m, KP_M_PIPE_FMA), NAN, "%");
	kp_finding_rec(f, "Compute the product with tensor cores: on sm_90 use WGMMA (wgmma.mma_async, via CUTLASS 3 / "
			  "CuTe's SM90 TiledMMA with TMA loads) and accumulate in FP32");
	kp_finding_rec(f, "Simpler first step: nvcuda::wmma fragments (16x16x8 TF32, or 16x16x16 BF16) over tiles "
			  "staged in shared memory; each warp computes a 16x16 output tile");
	kp_finding_rec(f, "TF32 keeps a 10-bit mantissa (~1e-3 relative error) and BF16 an 8-bit one: check the task's "
			  "tolerance; if a library call is allowed, cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32");
	if (time > 0 && peak > 0) {
		double floor = fmax(x->flops32 / peak, bw > 0 ? x->dram / bw : 0);
		kp_finding_gain(f, 1.0 - floor / time, "if the FLOPs ran at the TF32 tensor-core peak (%.0f TFLOP/s)",
				peak / 1e12);
	} else {
		f->severity = KP_SEV_HIGH; /* no hardware model for a number; the judgement stands */
	}
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	struct mm x;
	measure(m, &x);
	if (!isnan(x.flops32) && matrix_on_ffma(&x, t)) {
		analyze_ffma(m, &x, t, out);
		return 0;
	}
	if (x.hmma_only) {
		struct kp_finding *f = kp_finding_new(out, KP_SEV_MEDIUM, "Tensor cores used through legacy mma.sync (HMMA) on sm_90, not wgmma");
		kp_finding_cause(f, "HMMA issues warp-level matrix ops synchronously; Hopper's warpgroup MMA (HGMMA) "
				    "reads operands from shared memory asynchronously and runs at a higher rate.");
		kp_finding_evidence(f, "HMMA instructions (SASS)", m->profile->sass->counts[KP_SASS_HMMA], NAN, "");
		kp_finding_evidence(f, "HGMMA instructions (SASS)", 0, NAN, "");
		kp_finding_rec(f, "Compile for sm_90a and use wgmma.mma_async (CUTLASS 3 / CuTe SM90 MMA atoms) fed by "
				  "TMA, with a multi-stage mbarrier pipeline");
		kp_finding_rec(f, "Keep 128-thread warpgroups per MMA and accumulate in registers across the K loop");
	}
	return 0;
}

const struct kp_tool kp_tool_tensor_cores = {
	.name = "tensor_cores",
	.description = "Matrix-shaped FLOPs on FFMA (or HMMA) instead of Hopper's wgmma tensor cores",
	.details = "Finds dot-product loops on the FP32 pipe: FP32 FLOPs (Stage 1, or ncu's thread-level FFMA/FADD/FMUL "
		   "counts) per DRAM byte at or above min_ai, the tensor pipe below max_tensor_pct, and the shape of a "
		   "product: when the SASS text was read, at least half the FFMAs of the hot inner loop add the product "
		   "of two values loaded in the loop by different loads to a running sum (a recurrence, a polynomial "
		   "or a stencil with constant weights does not); without it, at least min_loads_per_ffma operand "
		   "loads (global + shared) per FFMA (so register-only math such as sinf polynomials does not "
		   "count). The gain compares the kernel's time with the FLOPs at the TF32 "
		   "tensor-core peak of the hardware model (or the DRAM floor if higher). On sm_90 it also flags "
		   "kernels that use only legacy HMMA (mma.sync) without HGMMA (wgmma).",
	.sources = KP_SRC_NCU | KP_SRC_SASS,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
