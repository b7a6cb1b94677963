/*
 * tensor_cores: matrix-multiply-shaped work (dot-product loops that stream
 * operands from memory with high reuse) on the CUDA cores while the tensor
 * cores idle: FP32 on FFMA, FP16 on HFMA2, FP16/BF16 inputs widened to FP32
 * FFMA; or legacy mma.sync (HMMA) on Hopper instead of wgmma. The shape comes
 * from the SASS when it was read (kp_sass_shape: the hot loop's FMAs accumulate
 * products of two loaded streams, through a widening conversion or not), so a
 * chain of dependent FMAs (a recurrence, a polynomial, a stencil with constant
 * weights) never counts however many FLOPs per byte it does; without SASS
 * text, from counters.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_MAX_TENSOR, T_MIN_AI, T_MIN_LOADS, T_MAX_DRAM };

static const struct kp_threshold thresholds[] = {
	{"max_tensor_pct", 10, "%", "tensor pipe busier than this: the kernel already uses tensor cores"},
	{"min_ai", 16, "FLOP/B", "FP32 FLOPs per DRAM byte at or above this: the operands are reused like a matrix product's"},
	{"min_loads_per_ffma", 0.02, "", "operand loads (global+shared) per FFMA at or above this: a dot-product loop, not register-only math"},
	{"max_dram_pct", 50, "%", "a product the SASS confirms also counts at a quarter of min_ai when DRAM is below this busy: "
				  "the traffic is the untiled loop re-reading its inputs, not a memory-bound product"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{KP_M_PIPE_TENSOR, KP_TM_OPTIONAL},
	{KP_M_PIPE_FMA, KP_TM_OPTIONAL},
	{KP_M_OP_FFMA, KP_TM_OPTIONAL},
	{KP_M_OP_FADD, KP_TM_OPTIONAL},
	{KP_M_OP_FMUL, KP_TM_OPTIONAL},
	{KP_M_OP_HFMA, KP_TM_OPTIONAL},
	{KP_M_GLD_INST, KP_TM_OPTIONAL},
	{KP_M_SLD_INST, KP_TM_OPTIONAL},
	{KP_M_DRAM_RD, KP_TM_OPTIONAL},
	{KP_M_DRAM_WR, KP_TM_OPTIONAL},
	KP_TM_SOL,
	{NULL, 0},
};

/* What the CUDA cores compute the product in: FP32 throughout, FP16 on HFMA2, 16-bit inputs widened to FP32. */
enum mm_kind { MM_FP32, MM_HFMA2, MM_WIDENED };

struct mm {
	double flops32, flops16, flops, flops_tc, dram, ai, loads_per_ffma, tensor_pct, dram_pct;
	enum mm_kind kind;
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
	/* HFMA2 FLOPs from the HFMA count alone (4 per thread instruction): Stage 1's FP16 FLOPs also
	   count the HADD2.F32 conversions that widen halves for FFMA. */
	x->flops16 = kp_nz(kp_tool_metric(m, KP_M_OP_HFMA)) * 4;
	x->flops = isnan(x->flops32) ? NAN : x->flops32 + x->flops16;
	x->flops_tc = s && s->flops_tensor > 0 ? s->flops_tensor : 0;
	x->dram = s && s->dram_bytes > 0 ? s->dram_bytes
					 : kp_tool_metric(m, KP_M_DRAM_RD) + kp_nz(kp_tool_metric(m, KP_M_DRAM_WR));
	x->ai = x->dram > 0 ? x->flops / x->dram : NAN;
	/* Warp-level FMA instructions from thread FLOPs (FFMA 2, HFMA2 4 per thread; 32 threads); operand
	   loads from ncu, else the SASS. */
	ffma_inst = (isnan(x->flops32) ? 0 : x->flops32) / 64.0 + x->flops16 / 128.0;
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
	x->dram_pct = kp_tool_metric(m, KP_M_DRAM_PCT);
	if (isnan(x->dram_pct))
		x->dram_pct = 100; /* unknown: only the measured intensity decides */
	x->shape = m->shape && m->shape->found && m->shape->ffma ? m->shape : NULL;
	x->kind = MM_FP32;
	if (x->shape && 2 * x->shape->hfma2 > x->shape->ffma)
		x->kind = MM_HFMA2;
	else if (x->shape && 2 * x->shape->widened > x->shape->dot_ffma && x->shape->dot_ffma)
		x->kind = MM_WIDENED;
	else if (!x->shape && x->flops16 > x->flops32)
		x->kind = MM_HFMA2;
	x->hmma_only = sass && sass->counts[KP_SASS_HMMA] > 0 && !sass->counts[KP_SASS_HGMMA] && sass->arch &&
		       !strncmp(sass->arch, "sm_90", 5);
}

static int matrix_on_ffma(const struct mm *x, const double *t)
{
	int reused = x->ai >= t[T_MIN_AI];
	if (x->tensor_pct > t[T_MAX_TENSOR] || x->flops_tc > x->flops)
		return 0;
	if (x->shape) { /* the SASS shows what the FFMAs do: only a product's belong on tensor cores */
		/* A product tiled only 16x16 re-reads its inputs from DRAM (a few FLOP per byte) while DRAM
		   stays far from busy: the measured intensity undercounts the product's. */
		if (!reused && x->ai >= t[T_MIN_AI] / 4 && x->dram_pct < t[T_MAX_DRAM])
			reused = 1;
		return reused && kp_sass_shape_is_product(x->shape);
	}
	if (!reused)
		return 0;
	return isnan(x->loads_per_ffma) || x->loads_per_ffma >= t[T_MIN_LOADS];
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	struct mm x;
	measure(m, &x);
	if (x.hmma_only)
		return 1;
	if (isnan(x.flops))
		return x.tensor_pct > t[T_MAX_TENSOR] ? 0 : KP_EMISSING;
	return matrix_on_ffma(&x, t);
}

/* The tensor-core peak the product would run at: FP16/BF16 for 16-bit inputs, TF32 for FP32 ones. */
static double tc_peak(const struct kp_hw *hw, enum mm_kind kind)
{
	if (!hw)
		return 0;
	if (kind != MM_FP32) {
		double p = kind == MM_HFMA2 ? hw->fp16_tc : hw->bf16_tc;
		if (p <= 0)
			p = kind == MM_HFMA2 ? hw->spec.fp16_tc : hw->spec.bf16_tc;
		if (p > 0)
			return p;
	}
	return hw->tf32_tc > 0 ? hw->tf32_tc : hw->spec.tf32_tc;
}

static const char *const kind_title[] = {
	[MM_FP32] = "Matrix-multiply-shaped FP32 work runs on FFMA, not tensor cores",
	[MM_HFMA2] = "Matrix-multiply-shaped FP16 work runs on HFMA2, not tensor cores",
	[MM_WIDENED] = "Matrix-multiply-shaped work on 16-bit inputs widened to FP32 FFMA, not tensor cores",
};

/* The first Do line, about this kernel's loop: where it is, what it loads per FMA, what it does not reuse. */
static void rec_loop(struct kp_finding *f, const struct mm *x)
{
	static const char *const atom[] = {
		[MM_FP32] = "nvcuda::wmma 16x16x8 TF32 fragments or mma.sync m16n8k8 TF32, on sm_90 WGMMA (CuTe's "
			    "SM90_64x128x8_F32TF32TF32_SS_TN",
		[MM_HFMA2] = "nvcuda::wmma 16x16x16 half fragments with a float accumulator or mma.sync "
			     "m16n8k16.f32.f16.f16.f32, on sm_90 WGMMA (CuTe's SM90_64x128x16_F32F16F16_SS",
		[MM_WIDENED] = "nvcuda::wmma 16x16x16 fragments of the 16-bit type (half, __nv_bfloat16) with a float "
			       "accumulator or mma.sync m16n8k16.f32.bf16.bf16.f32, on sm_90 WGMMA (CuTe's "
			       "SM90_64x128x16_F32BF16BF16_SS",
	};
	const struct kp_sass_shape *sh = x->shape;
	struct kp_buf use = KP_BUF_INIT;
	const char *from = !sh ? "memory" : sh->ldg && sh->lds ? "global and shared memory"
					     : sh->lds      ? "shared memory"
					     : sh->ldg      ? "global memory"
							    : "memory";
	if (!sh) {
		kp_finding_rec(f, "Compute the product with tensor cores: %s fed by TMA; CUTLASS 3's collective MMA "
				  "and kernelpro's CUTLASS/CuTe code search have worked examples), accumulating in FP32",
			       atom[x->kind]);
		return;
	}
	const char *widen = x->kind == MM_WIDENED ? "; every 16-bit value widened to FP32 first" : "";
	if (sh->reuse < 1.5)
		kp_buf_addf(&use, "each used once (no reuse in registers%s)", widen);
	else
		kp_buf_addf(&use, "each used by %.1f FMAs%s", sh->reuse, widen);
	kp_finding_rec(f, "Compute the product with tensor cores: the hot %s at SASS 0x%lx-0x%lx issues %u %s per pass, "
			  "%u of them multiplying two values just loaded from %s, %s; stage A and B tiles in shared "
			  "memory and replace the %s with %s fed by TMA; CUTLASS 3's collective MMA and kernelpro's "
			  "CUTLASS/CuTe code search have worked examples), accumulating in FP32",
		       sh->in_loop ? "loop" : "code", sh->begin, sh->end, sh->ffma, x->kind == MM_HFMA2 ? "HFMA2s" : "FFMAs",
		       sh->dot_ffma, from, use.buf, x->kind == MM_HFMA2 ? "HFMA2 loop" : "FFMA loop", atom[x->kind]);
	kp_buf_release(&use);
}

static void analyze_ffma(const struct kp_tool_input *m, const struct mm *x, const double *t, struct kp_findings *out)
{
	double time = kp_tool_time_s(m), peak = tc_peak(m->hw, x->kind), bw = m->hw ? m->hw->dram_bw : 0;
	const char *faster = x->kind != MM_FP32 ? "an order of magnitude faster (FP16/BF16 in, FP32 accumulate)"
			     : peak > 0 && m->hw->fp32 > 0 ? "several times faster in TF32 and faster still in BF16"
							   : "several times faster";
	const char *pipe = x->kind == MM_HFMA2 ? "HFMA2 on the FP16 pipe" : "one FMA per thread per cycle on the FP32 pipe";
	struct kp_finding *f = kp_finding_new(out, KP_SEV_NONE, "%s (%.3g GFLOP at %.3g TFLOP/s)", kind_title[x->kind],
					      x->flops / 1e9, time > 0 ? x->flops / time / 1e12 : NAN);
	if (x->shape)
		kp_finding_cause(f, "The kernel's hot %s is a dot product: %u of its %u FMAs add the product of two "
				    "values loaded by different loads to a running sum (each loaded value feeds %.1f "
				    "FMAs)%s, and the data is reused heavily (%.0f FLOP per DRAM byte); it runs %s, "
				    "where the tensor cores run the same product %s.",
				 x->shape->in_loop ? "loop" : "code", x->shape->dot_ffma, x->shape->ffma, x->shape->reuse,
				 x->kind == MM_WIDENED ? " after widening 16-bit inputs to FP32" : "", x->ai, pipe, faster);
	else
		kp_finding_cause(f, "The kernel looks like a dot-product loop: operands streamed from memory (%.2f loads "
				    "per FMA) and reused heavily (%.0f FLOP per DRAM byte), computed %s; on this GPU the "
				    "tensor cores run the same product %s. (No SASS text was read, so the loop's shape is "
				    "not confirmed.)",
				 x->loads_per_ffma, x->ai, pipe, faster);
	kp_finding_evidence(f, "FLOPs per DRAM byte", x->ai, t[T_MIN_AI], "FLOP/B");
	if (x->shape) {
		kp_finding_evidence(f, "dot-product FMAs in the hot loop (SASS)", 100.0 * x->shape->dot_ffma / x->shape->ffma,
				    50, "%");
		kp_finding_evidence(f, "FMAs per loaded multiplicand (SASS)", x->shape->reuse, NAN, "");
	}
	kp_tool_evidence(f, "operand loads per FFMA", x->loads_per_ffma, t[T_MIN_LOADS], "");
	kp_tool_evidence(f, KP_M_PIPE_TENSOR, x->tensor_pct, t[T_MAX_TENSOR], "%");
	kp_tool_evidence(f, KP_M_PIPE_FMA, kp_tool_metric(m, KP_M_PIPE_FMA), NAN, "%");
	rec_loop(f, x);
	kp_finding_rec(f, "Simpler first step: nvcuda::wmma fragments (16x16x8 TF32, or 16x16x16 BF16/FP16) over tiles "
			  "staged in shared memory; each warp computes a 16x16 output tile, several per warp for reuse");
	if (x->kind == MM_FP32)
		kp_finding_rec(f, "TF32 keeps a 10-bit mantissa (~1e-3 relative error) and BF16 an 8-bit one: check the "
				  "task's tolerance; if a library call is allowed, cublasGemmEx with "
				  "CUBLAS_COMPUTE_32F_FAST_TF32");
	else
		kp_finding_rec(f, "Keep the 16-bit inputs and accumulate in FP32 in the MMA (an FP16 running sum also "
				  "loses precision over a long K); if a library call is allowed, cublasGemmEx or "
				  "torch.matmul on the 16-bit tensors does exactly this");
	if (time > 0 && peak > 0) {
		double floor = fmax(x->flops / peak, bw > 0 ? x->dram / bw : 0);
		kp_finding_gain(f, 1.0 - floor / time, "if the FLOPs ran at the %s tensor-core peak (%.0f TFLOP/s)",
				x->kind == MM_FP32 ? "TF32" : x->kind == MM_HFMA2 ? "FP16" : "BF16/FP16", peak / 1e12);
	} else {
		f->severity = KP_SEV_HIGH; /* no hardware model for a number; the judgement stands */
	}
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	struct mm x;
	measure(m, &x);
	if (!isnan(x.flops) && matrix_on_ffma(&x, t)) {
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
	.description = "Matrix-shaped FLOPs on FFMA/HFMA2 (or HMMA) instead of Hopper's wgmma tensor cores",
	.details = "Finds dot-product loops on the CUDA cores: FP32 FLOPs (Stage 1, or ncu's thread-level FFMA/FADD/FMUL "
		   "counts) plus HFMA2 FLOPs (4 per HFMA thread instruction) per DRAM byte at or above min_ai, the tensor "
		   "pipe below max_tensor_pct, and the shape of a product: when the SASS text was read, at least half "
		   "the FFMAs/HFMA2s of the hot inner loop add the product of two values loaded in the loop by "
		   "different loads (directly, or widened from FP16/BF16 by HADD2.F32, PRMT or a 16-bit shift) to a "
		   "running sum (a recurrence, a polynomial or a stencil with constant weights does not); the first Do "
		   "line names that loop's SASS addresses, what it loads per FMA and the missing reuse, and the MMA for "
		   "its precision (TF32, FP16, BF16); without SASS, at least min_loads_per_ffma operand "
		   "loads (global + shared) per FFMA (so register-only math such as sinf polynomials does not "
		   "count). The gain compares the kernel's time with the FLOPs at the tensor-core peak of the "
		   "hardware model for the inputs' precision (TF32 for FP32, FP16/BF16 for 16-bit inputs; or the DRAM "
		   "floor if higher). On sm_90 it also flags "
		   "kernels that use only legacy HMMA (mma.sync) without HGMMA (wgmma).",
	.sources = KP_SRC_NCU | KP_SRC_SASS,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
