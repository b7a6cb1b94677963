/* The energy paragraph of a candidate's feedback: where the energy goes and which changes would lower it. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/energy.h"

#define DEFAULT_MAX_LEN 1500
#define MAX_LEVERS 4
/* A lever worth naming saves at least this share of the energy. */
#define MIN_SHARE 0.03

/* "118 mJ", "3.2 uJ": plain ASCII for prompts and logs. */
static void fmt_energy(char *dst, size_t n, double j)
{
	double a = fabs(j);
	if (!isfinite(j))
		snprintf(dst, n, "?");
	else if (a >= 1)
		snprintf(dst, n, "%.3g J", j);
	else if (a >= 1e-3)
		snprintf(dst, n, "%.3g mJ", j * 1e3);
	else if (a >= 1e-6)
		snprintf(dst, n, "%.3g uJ", j * 1e6);
	else
		snprintf(dst, n, "%.3g nJ", j * 1e9);
}

static void fmt_bytes(char *dst, size_t n, double b)
{
	if (b >= 1e9)
		snprintf(dst, n, "%.3g GB", b / 1e9);
	else if (b >= 1e6)
		snprintf(dst, n, "%.3g MB", b / 1e6);
	else if (b >= 1e3)
		snprintf(dst, n, "%.3g kB", b / 1e3);
	else
		snprintf(dst, n, "%.0f B", b);
}

static unsigned sass_count(const struct kp_sass_func *s, enum kp_sass_class c)
{
	return s ? s->counts[c] : 0;
}

struct lever {
	double share;
	char text[480];
};

static int cmp_lever(const void *a, const void *b)
{
	double x = ((const struct lever *)a)->share, y = ((const struct lever *)b)->share;
	return (x < y) - (x > y);
}

/* Time and data movement: running longer, DRAM, L2 re-reads, excess sectors, local memory. */
static int time_memory_lever(int t, const struct kp_energy_breakdown *b, const struct kp_sass_func *sass,
			     struct lever *l)
{
	char num[48];
	double share = l->share;

	switch (t) {
	case KP_ENERGY_STATIC:
		l->share = b->total_j > 0 ? b->static_j / b->total_j : 0;
		snprintf(l->text, sizeof(l->text),
			 "Run faster (%.0f%%): the GPU draws static power for as long as the kernel runs, so every 1%% "
			 "of time saved removes about %.1f%% of the energy.",
			 100 * l->share, l->share);
		return 1;
	case KP_ENERGY_DRAM:
		fmt_bytes(num, sizeof(num), b->count[t]);
		snprintf(l->text, sizeof(l->text),
			 "Move fewer DRAM bytes (%.0f%%, %s): fuse with the neighbouring operation, read each input "
			 "once, keep reused tiles in shared memory, store narrower types if the tolerance allows.",
			 100 * share, num);
		return 1;
	case KP_ENERGY_L2:
		/* Streaming kernels move every DRAM byte through L2 once: only re-reads are a lever. */
		if (!(b->count[t] > 2.0 * b->count[KP_ENERGY_DRAM]))
			return 0;
		snprintf(l->text, sizeof(l->text),
			 "Fewer L2 requests (%.0f%%, %.1fx the DRAM bytes): data re-read through L2 should come from "
			 "registers or shared memory (tiling, register blocking).",
			 100 * share, b->count[t] / b->count[KP_ENERGY_DRAM]);
		return 1;
	case KP_ENERGY_EXCESS:
		snprintf(l->text, sizeof(l->text),
			 "Coalesce global accesses (%.0f%%, %.3g excess sectors): consecutive threads should touch "
			 "consecutive addresses; transpose through shared memory if the pattern needs it.",
			 100 * share, b->count[t]);
		return 1;
	case KP_ENERGY_LOCAL:
		snprintf(l->text, sizeof(l->text),
			 "Remove local-memory traffic (%.0f%%%s): spills and dynamically indexed arrays; index arrays "
			 "with compile-time constants, unroll less, or raise the register limit (__launch_bounds__).",
			 100 * share,
			 sass_count(sass, KP_SASS_LDL) + sass_count(sass, KP_SASS_STL) ? ", LDL/STL in the SASS" : "");
		return 1;
	default:
		return 0;
	}
}

/* Arithmetic: FP32, FP64, special functions, tensor cores. */
static int math_lever(int t, const struct kp_energy_breakdown *b, const struct kp_sass_func *sass,
		      struct lever *l)
{
	double share = l->share;
	unsigned mufu = sass_count(sass, KP_SASS_MUFU_EX2) + sass_count(sass, KP_SASS_MUFU_RCP) +
			sass_count(sass, KP_SASS_MUFU_LG2);

	switch (t) {
	case KP_ENERGY_FP32:
		if (sass && !sass_count(sass, KP_SASS_HGMMA) && !sass_count(sass, KP_SASS_HMMA) &&
		    sass_count(sass, KP_SASS_FFMA) > 16)
			snprintf(l->text, sizeof(l->text),
				 "FP32 arithmetic (%.0f%%) on CUDA cores: if this is matrix-shaped work, tensor cores "
				 "(TF32/BF16 wgmma or mma) do the same math for much less energy per FLOP, if the "
				 "tolerance allows.",
				 100 * share);
		else
			snprintf(l->text, sizeof(l->text),
				 "FP32 arithmetic (%.0f%%): issue fewer instructions (hoist loop invariants, let "
				 "multiply-adds contract into FFMA, avoid recomputation).",
				 100 * share);
		return 1;
	case KP_ENERGY_FP64:
		snprintf(l->text, sizeof(l->text),
			 "FP64 work (%.0f%%%s): use float where precision allows; look for double literals (1.0 "
			 "instead of 1.0f) and double math functions that promote float code.",
			 100 * share, sass_count(sass, KP_SASS_F2F_F64) ? ", with F2F.F64 conversions in the SASS" : "");
		return 1;
	case KP_ENERGY_SFU:
		if (sass_count(sass, KP_SASS_CALL_FDIV_SLOW) || sass_count(sass, KP_SASS_CALL_FRCP_SLOW))
			snprintf(l->text, sizeof(l->text),
				 "Special-function and IEEE-division work (%.0f%%): x/y compiles to a reciprocal, "
				 "Newton steps and a slow-path call; __fdividef(x, y) and __expf(x) are one MUFU each. "
				 "Use them where the tolerance allows (the Swish case: ~10%% less energy).",
				 100 * share);
		else
			snprintf(l->text, sizeof(l->text),
				 "Special-function work (%.0f%%%s): compute transcendental values once, use the "
				 "__expf/__logf/__sinf intrinsics where the tolerance allows, avoid type conversions.",
				 100 * share, mufu ? ", MUFU in the SASS" : "");
		return 1;
	case KP_ENERGY_TENSOR:
		snprintf(l->text, sizeof(l->text),
			 "Tensor-core work (%.0f%%): already the cheapest FLOPs; a lower input precision (BF16, FP8) "
			 "lowers it further if the tolerance allows.",
			 100 * share);
		return 1;
	default:
		return 0;
	}
}

/* The other instructions: integer, memory, the rest. */
static int instruction_lever(int t, const struct kp_energy_breakdown *b, const struct kp_sass_func *sass,
			     struct lever *l)
{
	double share = l->share;
	unsigned ldg32 = sass_count(sass, KP_SASS_LDG_32) + sass_count(sass, KP_SASS_STG_32);
	unsigned ldg128 = sass_count(sass, KP_SASS_LDG_128) + sass_count(sass, KP_SASS_STG_128);

	switch (t) {
	case KP_ENERGY_INT:
		snprintf(l->text, sizeof(l->text),
			 "Integer instructions (%.0f%%%s): index arithmetic; hoist it out of loops, use 32-bit "
			 "indices, replace / and %% by shifts and masks or precomputed values.",
			 100 * share, sass_count(sass, KP_SASS_IDIV_SEQ) ? ", integer division in the SASS" : "");
		return 1;
	case KP_ENERGY_MEM:
		if (ldg32 && !ldg128)
			snprintf(l->text, sizeof(l->text),
				 "Memory instructions (%.0f%%): the loads and stores are 32-bit; float4 (LDG.128) moves "
				 "the same bytes with a quarter of the instructions.",
				 100 * share);
		else
			snprintf(l->text, sizeof(l->text),
				 "Memory instructions (%.0f%%): load once into registers and reuse; wider accesses issue "
				 "fewer instructions.",
				 100 * share);
		return 1;
	case KP_ENERGY_OTHER:
		if (b->missing[KP_ENERGY_FP32]) {
			snprintf(l->text, sizeof(l->text),
				 "Instructions (%.0f%%; this profile does not split them by class): issue fewer: wider "
				 "loads and stores, index math hoisted out of loops, intrinsics where the tolerance allows.",
				 100 * share);
			return 1;
		}
		snprintf(l->text, sizeof(l->text),
			 "Other instructions (%.0f%%: control flow, conversions, shuffles): unroll fixed-trip loops, "
			 "keep warps uniform, avoid conversions in inner loops.",
			 100 * share);
		return 1;
	default:
		return 0;
	}
}

/* Fills `l` with the advice for one group of terms; returns 0 when there is nothing to say. */
static int lever_for(int t, const struct kp_energy_breakdown *b, const struct kp_sass_func *sass, struct lever *l)
{
	l->share = b->total_j > 0 ? b->term_j[t] / b->total_j : 0;
	switch (t) {
	case KP_ENERGY_STATIC: case KP_ENERGY_DRAM: case KP_ENERGY_L2: case KP_ENERGY_EXCESS: case KP_ENERGY_LOCAL:
		return time_memory_lever(t, b, sass, l);
	case KP_ENERGY_FP32: case KP_ENERGY_FP64: case KP_ENERGY_SFU: case KP_ENERGY_TENSOR:
		return math_lever(t, b, sass, l);
	case KP_ENERGY_INT: case KP_ENERGY_MEM: case KP_ENERGY_OTHER:
		return instruction_lever(t, b, sass, l);
	default:
		return 0;
	}
}

/* The first line: the measured figure when there is one, else the proxy's; 0 when there is nothing to say. */
static int headline(struct kp_buf *t, const struct kp_energy_breakdown *b,
		    const struct kp_energy_measurement *measured)
{
	char e1[48], e2[48];
	double total = b->total_j;
	fmt_energy(e1, sizeof(e1), total);
	if (measured && isfinite(measured->energy_j)) {
		fmt_energy(e2, sizeof(e2), measured->energy_j);
		kp_buf_addf(t, "Energy: %s per launch measured (NVML, %.3g ms at %.0f W", e2, measured->time_s * 1e3,
			    measured->power_w);
		if (isfinite(measured->dynamic_j)) {
			char d[48];
			fmt_energy(d, sizeof(d), measured->dynamic_j);
			kp_buf_addf(t, ", %s above idle", d);
		}
		kp_buf_addf(t, "); the counter-based estimate below says %s.\n", e1);
		if (!(total > 0)) {
			kp_buf_adds(t, "No counters to break it down (profile with 'kernelpro energy metrics').\n");
			return 0;
		}
		return 1;
	}
	if (!(total > 0)) {
		kp_buf_adds(t, "Energy: no counters to estimate it from (profile with 'kernelpro energy metrics').\n");
		return 0;
	}
	kp_buf_addf(t, "Energy (estimate from counters): %s per launch", e1);
	if (isfinite(b->time_s) && b->time_s > 0)
		kp_buf_addf(t, ", %.3g ms at ~%.0f W", b->time_s * 1e3, total / b->time_s);
	kp_buf_adds(t, ".\n");
	return 1;
}

/* "Where it goes": the shares of time, DRAM, L2, the optional terms and all instructions. */
static void where_it_goes(struct kp_buf *t, const struct kp_energy_breakdown *b)
{
	double instr = 0, total = b->total_j;
	for (int k = KP_ENERGY_FP32; k < KP_ENERGY_NTERMS; k++)
		if (k != KP_ENERGY_TENSOR)
			instr += b->term_j[k];
	kp_buf_addf(t, "Where it goes: running time %.0f%%, DRAM %.0f%%, L2 %.0f%%", 100 * b->static_j / total,
		    100 * b->term_j[KP_ENERGY_DRAM] / total, 100 * b->term_j[KP_ENERGY_L2] / total);
	if (b->term_j[KP_ENERGY_EXCESS] > 0)
		kp_buf_addf(t, ", uncoalesced sectors %.0f%%", 100 * b->term_j[KP_ENERGY_EXCESS] / total);
	if (b->term_j[KP_ENERGY_LOCAL] > 0)
		kp_buf_addf(t, ", local memory %.0f%%", 100 * b->term_j[KP_ENERGY_LOCAL] / total);
	if (b->term_j[KP_ENERGY_TENSOR] > 0)
		kp_buf_addf(t, ", tensor cores %.0f%%", 100 * b->term_j[KP_ENERGY_TENSOR] / total);
	kp_buf_addf(t, ", instructions %.0f%%.", 100 * instr / total);
	if (b->incomplete)
		kp_buf_adds(t, " (Counters missing: the estimate is a lower bound.)");
	kp_buf_adds(t, "\n");
}

/* "What would lower it": up to MAX_LEVERS levers, largest share first, the IEEE division slow path always. */
static void what_would_lower_it(struct kp_buf *t, const struct kp_energy_breakdown *b,
				const struct kp_sass_func *sass)
{
	struct lever levers[KP_ENERGY_NTERMS];
	int nlev = 0;

	/* SM_ACTIVE is folded into STATIC's "run faster". */
	for (int k = 0; k < KP_ENERGY_NTERMS; k++) {
		if (k == KP_ENERGY_SM_ACTIVE || b->missing[k])
			continue;
		if (lever_for(k, b, sass, &levers[nlev]) && levers[nlev].share >= MIN_SHARE)
			nlev++;
	}
	qsort(levers, (size_t)nlev, sizeof(levers[0]), cmp_lever);
	if (nlev > MAX_LEVERS)
		nlev = MAX_LEVERS;
	/* An IEEE division slow path costs instructions on several pipes: name it even when no single
	 * term is large, in place of the smallest lever when the list is full. */
	if (sass && (sass_count(sass, KP_SASS_CALL_FDIV_SLOW) || sass_count(sass, KP_SASS_CALL_FRCP_SLOW))) {
		int have = 0;
		for (int i = 0; i < nlev; i++)
			have |= strstr(levers[i].text, "__fdividef") != NULL;
		if (!have) {
			struct lever *l = &levers[nlev < MAX_LEVERS ? nlev++ : MAX_LEVERS - 1];
			l->share = 0;
			snprintf(l->text, sizeof(l->text),
				 "IEEE division slow path in the SASS: __fdividef(x, y) (and __expf) replace a "
				 "reciprocal, Newton steps and a call with one MUFU each, where the tolerance allows.");
		}
	}
	if (nlev) {
		kp_buf_adds(t, "What would lower it:\n");
		for (int i = 0; i < nlev; i++)
			kp_buf_addf(t, "- %s\n", levers[i].text);
	}
}

void kp_energy_feedback(struct kp_buf *out, const struct kp_energy_breakdown *b,
			const struct kp_energy_coeffs *c, const struct kp_energy_measurement *measured,
			const struct kp_sass_func *sass, size_t max_len)
{
	struct kp_buf t = KP_BUF_INIT;

	if (!max_len)
		max_len = DEFAULT_MAX_LEN;
	if (headline(&t, b, measured)) {
		where_it_goes(&t, b);
		what_would_lower_it(&t, b, sass);
		if (c && !strstr(c->source, "calibrated"))
			kp_buf_adds(&t, "(Shares use default Hopper coefficients; 'kernelpro energy calibrate' fits them to "
					"this GPU.)\n");
	}
	/* Bounded: cut at the last line that fits. */
	if (t.len > max_len) {
		size_t cut = max_len;
		while (cut > 0 && t.buf[cut - 1] != '\n')
			cut--;
		kp_buf_setlen(&t, cut ? cut : max_len);
	}
	kp_buf_add(out, t.buf, t.len);
	kp_buf_release(&t);
}

int kp_energy_proxy_profile(const struct kp_kernel_profile *p, const struct kp_energy_coeffs *c,
			    struct kp_energy_breakdown *b)
{
	struct kp_energy_counts k;
	kp_energy_counts_init(&k);
	if (!p || !p->launch) {
		kp_energy_proxy(&k, c, b);
		return KP_EMISSING;
	}
	kp_energy_counts_from_launch(p->launch, &k);
	kp_energy_proxy(&k, c, b);
	return 0;
}

void kp_energy_feedback_profile(struct kp_buf *out, const struct kp_kernel_profile *p,
				const struct kp_energy_coeffs *c, const struct kp_energy_measurement *measured,
				size_t max_len)
{
	struct kp_energy_breakdown b;
	kp_energy_proxy_profile(p, c, &b);
	kp_energy_feedback(out, &b, c, measured, p ? p->sass : NULL, max_len);
}
