/*
 * instruction_mix: expensive instruction sequences the source asked for
 * without meaning to: IEEE division/sqrt slow paths, accidental FP64,
 * integer division by run-time values. Matters for time when compute-bound,
 * and for energy always.
 */
#include "base/setup.h"

#include "tools/tool_util.h"

enum { T_FP64_PCT, T_XU_PCT, T_EXEC_SHARE };

static const struct kp_threshold thresholds[] = {
	{"fp64_pct", 1, "%", "FP64 pipe busier than this (measured) counts as real double-precision work"},
	{"xu_pct", 40, "%", "special-function (XU) pipe busier than this counts as a transcendental-heavy kernel"},
	{"min_exec_share", 0.001, "", "with executed SASS counts: a sequence must start this share of executed instructions"},
	{NULL, 0, NULL, NULL},
};

static const struct kp_tool_metric metrics[] = {
	{KP_M_PIPE_FP64, KP_TM_OPTIONAL},
	{KP_M_PIPE_XU, KP_TM_OPTIONAL},
	KP_TM_SOL,
	{NULL, 0},
};

struct mix {
	unsigned slow_div, slow_sqrt, slow_rcp, ddiv, idiv, f64, mufu, f2f;
	double fp64_pct, xu_pct;
	int fp64_real;
};

static void measure(const struct kp_tool_input *m, const double *t, struct mix *x)
{
	const struct kp_sass_func *s = m->profile->sass;
	const unsigned *c = s->counts;
	/* Static counts for the text. With executed counts known, a class that starts fewer than
	   min_exec_share of the executed instructions (a cold path, a prologue) counts as 0. */
	double floor = s->has_executed ? t[T_EXEC_SHARE] * s->executed_total : 0;
#define N(cls) (kp_sass_n(s, KP_SASS_##cls) > floor ? c[KP_SASS_##cls] : 0)
	x->slow_div = N(CALL_FDIV_SLOW);
	x->slow_sqrt = N(CALL_FSQRT_SLOW);
	x->slow_rcp = N(CALL_FRCP_SLOW);
	x->ddiv = N(CALL_DDIV_SLOW);
	x->idiv = N(IDIV_SEQ);
	x->f64 = N(DFMA) + N(DADD) + N(DMUL) + N(F2F_F64);
	x->mufu = N(MUFU_EX2) + N(MUFU_LG2) + N(MUFU_RCP) + N(MUFU_RSQ) + N(MUFU_SQRT) + N(MUFU_SIN) + N(MUFU_COS) +
		  N(MUFU_TANH) + N(MUFU_OTHER);
	x->f2f = N(F2F_F64);
#undef N
	x->fp64_pct = kp_tool_metric(m, KP_M_PIPE_FP64);
	x->xu_pct = kp_tool_metric(m, KP_M_PIPE_XU);
	/* Promotion shows as float<->double conversions (F2F.F64): a kernel that is FP64 by design loads doubles
	   and converts nothing. FP64 may also sit on a cold path (sinf's huge-argument reduction): trust the
	   pipe when measured. */
	x->fp64_real = x->f64 > 0 && x->f2f > 0 && (isnan(x->fp64_pct) || x->fp64_pct > t[T_FP64_PCT]);
}

static int trigger(const struct kp_tool_input *m, const double *t)
{
	struct mix x;
	measure(m, t, &x);
	return x.slow_div + x.slow_sqrt + x.slow_rcp + x.ddiv + x.idiv > 0 || x.fp64_real || x.xu_pct > t[T_XU_PCT];
}

/*
 * No counter says how much time these sequences take (SASS counts are static), so no gain is claimed:
 * medium when the kernel is compute-bound (they are on the critical path) or energy is an objective
 * (each instruction costs energy), low otherwise.
 */
static void weigh(struct kp_finding *f, const struct kp_tool_input *m)
{
	f->severity = kp_tool_compute_weight(m) >= 0.9 || m->energy ? KP_SEV_MEDIUM : KP_SEV_LOW;
}

static int analyze(const struct kp_tool_input *m, const double *t, struct kp_findings *out)
{
	struct mix x;
	struct kp_finding *f;

	measure(m, t, &x);
	if (x.slow_div + x.slow_sqrt + x.slow_rcp + x.ddiv) {
		f = kp_finding_new(out, KP_SEV_NONE, "IEEE-exact %s compiled to a slow-path subroutine call",
				   x.slow_sqrt && !x.slow_div ? "square root" : "division");
		kp_finding_cause(f, "`x / y` (or sqrtf) on floats must round exactly: the compiler emits a reciprocal "
				    "estimate (MUFU.RCP), Newton refinement FMAs and a CALL to a slow path for special "
				    "cases; every element pays for the extra instructions%s.",
				 m->energy ? " and the energy they burn" : "");
		kp_finding_evidence(f, "slow-path CALLs in SASS (div, sqrt, rcp, double div)",
				    x.slow_div + x.slow_sqrt + x.slow_rcp + x.ddiv, 0, "");
		kp_finding_rec(f, "Use __fdividef(x, y) (or x * __frcp_rn(y)) and __fsqrt_rn / rsqrtf where ~2 ulp error "
				  "is acceptable, or compile with --prec-div=false --prec-sqrt=false (part of "
				  "-use_fast_math)");
		kp_finding_rec(f, "Use __expf / __logf / __sinf intrinsics for the transcendentals next to the division "
				  "when the input range is moderate");
		weigh(f, m);
	}
	if (x.fp64_real) {
		f = kp_finding_new(out, KP_SEV_NONE, "Double-precision instructions in a single-precision kernel (%u FP64 ops in SASS)", x.f64);
		kp_finding_cause(f, "A double literal (1.0 instead of 1.0f), a double math function (exp instead of "
				    "expf) or an implicit promotion turns float math into FP64, which runs at a fraction "
				    "of the FP32 rate.");
		kp_finding_evidence(f, "FP64 instructions in SASS (DFMA/DADD/DMUL/F2F.F64)", x.f64, 0, "");
		kp_tool_evidence(f, KP_M_PIPE_FP64, x.fp64_pct, t[T_FP64_PCT], "%");
		kp_finding_rec(f, "Write float literals (0.5f) and float functions (expf, sqrtf, fabsf); find each "
				  "promotion with -Xptxas -warn-double-usage");
		weigh(f, m);
	}
	if (x.idiv) {
		f = kp_finding_new(out, KP_SEV_NONE, "Integer division or modulo by a run-time value (%u sequences in SASS)", x.idiv);
		kp_finding_cause(f, "GPUs have no integer divide instruction: `/` and `%%` by a variable expand to ~20 "
				    "instructions (a 64-bit one to a subroutine call).");
		kp_finding_evidence(f, "integer division sequences in SASS", x.idiv, 0, "");
		kp_finding_rec(f, "Divide by compile-time constants or powers of two (shifts and masks), or precompute "
				  "the quotient/remainder incrementally across the loop instead of per element: this "
				  "kernel's SASS holds %u run-time division sequences (I2F.RP + MUFU.RCP + F2I, ~20 "
				  "instructions each); a flat index split into (n, c, h, w) by / and %% is the usual source, "
				  "and a 2-D or 3-D grid (blockIdx.y/z for the outer indices) removes it",
			       x.idiv);
		kp_finding_rec(f, "Use 32-bit indices when the sizes fit: 64-bit division is several times costlier");
		weigh(f, m);
	}
	if (x.xu_pct > t[T_XU_PCT]) {
		f = kp_finding_new(out, KP_SEV_NONE, "Transcendental-heavy: the special-function pipe is busy %.0f%% of cycles", x.xu_pct);
		kp_finding_cause(f, "Many MUFU operations (exp, log, sin, rcp) per element (%u in SASS) share a pipe "
				    "with a quarter of the FMA pipe's throughput.",
				 x.mufu);
		kp_finding_evidence(f, KP_M_PIPE_XU, x.xu_pct, t[T_XU_PCT], "%");
		kp_finding_rec(f, "Compute fewer transcendentals: reuse exp/log results, rewrite x/(1+exp(-x)) with one "
				  "exp, or evaluate a short polynomial on the FMA pipe");
		weigh(f, m);
	}
	return 0;
}

const struct kp_tool kp_tool_instruction_mix = {
	.name = "instruction_mix",
	.description = "IEEE div/sqrt slow paths, accidental FP64, integer div/mod, MUFU-heavy code",
	.details = "Reads the SASS for instruction sequences the source requested implicitly: CALLs to the IEEE "
		   "division/sqrt/reciprocal slow paths, FP64 instructions fed by float<->double conversions "
		   "(F2F.F64: promotion, not FP64 by design; confirmed by the FP64 pipe being busier than fp64_pct "
		   "when measured, because such code may sit on a cold path), integer division sequences, and a special-function pipe busier than "
		   "xu_pct. Static counts give no time estimate: findings are medium in a compute-bound kernel or "
		   "when energy is an objective (fewer instructions per element, less energy), low otherwise.",
	.sources = KP_SRC_SASS | KP_SRC_NCU,
	.needs = KP_SRC_SASS,
	.metrics = metrics,
	.thresholds = thresholds,
	.trigger = trigger,
	.analyze = analyze,
};
