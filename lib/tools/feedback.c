/*
 * Feedback: the one text (and JSON) per candidate that the programmer sees.
 * The roofline position in numbers, what to try first, then the synthesized
 * findings with evidence, cause and recommendations, within a length bound.
 * Also the ablation modes (raw metrics, timing only) and the orchestration
 * entry points (proactive Stage 2, the reactive menu and call).
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/feedback.h"
#include "kernelpro/ncu_metrics.h"
#include "kernelpro/json.h"

#define DEFAULT_MAX_FINDINGS 3 /* what a person acts on first: the rest is named in one line */
#define DEFAULT_MAX_RECS 3
#define DEFAULT_MAX_CHARS 6000

static const char *const mode_names[] = {"tools", "raw", "none"};
static const char *const orch_names[] = {"proactive", "reactive"};
static const char *const bound_names[] = {"unknown", "compute", "memory", "latency", "mixed"};

const char *kp_feedback_mode_name(enum kp_feedback_mode m)
{
	return (unsigned)m < KP_ARRAY_SIZE(mode_names) ? mode_names[m] : "tools";
}

int kp_feedback_mode_parse(const char *s, enum kp_feedback_mode *out)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(mode_names); i++)
		if (s && !strcmp(s, mode_names[i])) {
			*out = (enum kp_feedback_mode)i;
			return 0;
		}
	return KP_EINVAL;
}

const char *kp_orchestration_name(enum kp_orchestration o)
{
	return (unsigned)o < KP_ARRAY_SIZE(orch_names) ? orch_names[o] : "proactive";
}

int kp_orchestration_parse(const char *s, enum kp_orchestration *out)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(orch_names); i++)
		if (s && !strcmp(s, orch_names[i])) {
			*out = (enum kp_orchestration)i;
			return 0;
		}
	return KP_EINVAL;
}

static void resolve_opts(struct kp_feedback_opts *o, const struct kp_feedback_opts *in)
{
	static const struct kp_feedback_opts zero;
	*o = in ? *in : zero;
	if (!o->max_findings)
		o->max_findings = DEFAULT_MAX_FINDINGS;
	if (!o->max_recs)
		o->max_recs = DEFAULT_MAX_RECS;
	if (!o->max_chars)
		o->max_chars = DEFAULT_MAX_CHARS;
}

/* ---- Building ------------------------------------------------------------------------------ */

static double launch_metric(const struct kp_tool_input *in, const char *name)
{
	struct kp_tool_input bare = *in;
	bare.tool = NULL; /* the feedback reads outside any tool's declaration */
	return kp_tool_metric(&bare, name);
}

static void build_position(struct kp_feedback *fb, const struct kp_tool_input *in)
{
	const struct kp_stage1 *s = in->stage1;
	const struct kp_launch *l = in->profile ? in->profile->launch : NULL;
	double ns = l ? launch_metric(in, KP_M_TIME) : NAN;

	fb->kernel = l && l->function ? kp_xstrdup(l->function) : NULL;
	fb->time_s = s && s->time_s > 0 ? s->time_s : ns > 0 ? ns * 1e-9 : NAN;
	fb->sm_sol_pct = l ? launch_metric(in, KP_M_SM_PCT) : NAN;
	fb->mem_sol_pct = l ? launch_metric(in, KP_M_MEM_PCT) : NAN;
	fb->bound = bound_names[s && (unsigned)s->bound < KP_ARRAY_SIZE(bound_names) ? s->bound : 0];
	fb->achieved_bw = fb->memory_peak = fb->memory_frac = NAN;
	fb->achieved_flops = fb->compute_peak = fb->compute_frac = fb->floor_time_s = NAN;
	if (!s)
		return;
	fb->bound_reason = s->reason[0] ? kp_xstrdup(s->reason) : NULL;
	fb->achieved_bw = s->achieved_bw;
	fb->memory_peak = s->memory_peak;
	fb->memory_frac = s->memory_frac;
	fb->achieved_flops = s->achieved_flops;
	fb->compute_peak = s->compute_peak;
	fb->compute_frac = s->compute_frac;
	fb->floor_time_s = s->floor_time_s;
	fb->precision = s->precision;
	fb->peak_source = in->hw ? (in->hw->calibrated ? "measured" : "datasheet") : NULL;
}

static void add_raw(struct kp_feedback *fb, const char *name, double v, const char *unit, int missing)
{
	fb->raw = kp_xrealloc(fb->raw, kp_st_mult(fb->nraw + 1, sizeof(*fb->raw)));
	fb->raw[fb->nraw].name = kp_xstrdup(name);
	fb->raw[fb->nraw].unit = kp_xstrdup(unit ? unit : "");
	fb->raw[fb->nraw].value = v;
	fb->raw[fb->nraw].missing = missing;
	fb->nraw++;
}

#define SASS_NAME(n) #n,
static const char *const sass_names[] = {KP_SASS_CLASSES(SASS_NAME)};
#undef SASS_NAME

/* Raw mode: every metric the selected tools read, then the other sources they read. */
static void build_raw(struct kp_feedback *fb, const struct kp_toolset *ts, const struct kp_strvec *ids,
		      const struct kp_tool_input *in)
{
	struct kp_strvec names = KP_STRVEC_INIT;
	unsigned sources = 0;
	const struct kp_kernel_profile *p = in->profile;
	const struct kp_launch *l = p ? p->launch : NULL;

	if (ts && ids && kp_toolset_metrics(ts, ids, &names, &sources, NULL) == 0)
		for (size_t i = 0; i < names.n; i++) {
			const struct kp_metric *m = NULL;
			for (size_t j = 0; l && j < l->nmetrics && !m; j++)
				if (!strcmp(l->metrics[j].name, names.v[i]))
					m = &l->metrics[j];
			add_raw(fb, names.v[i], m && !m->missing ? m->value : NAN, m ? m->unit : "", !m || m->missing);
		}
	if ((sources & KP_SRC_SASS) && p && p->sass)
		for (size_t c = 0; c < KP_SASS_NCLASSES; c++)
			if (p->sass->counts[c]) {
				char name[64];
				snprintf(name, sizeof(name), "sass.%s", sass_names[c]);
				add_raw(fb, name, p->sass->counts[c], "inst", 0);
			}
	if ((sources & KP_SRC_PTXAS) && p && p->ptxas) {
		add_raw(fb, "ptxas.registers", p->ptxas->registers, "", 0);
		add_raw(fb, "ptxas.stack_frame", (double)p->ptxas->stack_frame, "B", 0);
		add_raw(fb, "ptxas.spill_stores", (double)p->ptxas->spill_stores, "B", 0);
		add_raw(fb, "ptxas.spill_loads", (double)p->ptxas->spill_loads, "B", 0);
		add_raw(fb, "ptxas.smem_bytes", (double)p->ptxas->smem_bytes, "B", 0);
	}
	if ((sources & KP_SRC_TRACE) && p && p->trace) {
		add_raw(fb, "trace.kernels", (double)p->trace->nkernels, "", 0);
		add_raw(fb, "trace.kernel_ns", (double)p->trace->kernel_ns, "ns", 0);
		add_raw(fb, "trace.span_ns", (double)p->trace->span_ns, "ns", 0);
		add_raw(fb, "trace.gap_ns", (double)p->trace->gap_ns, "ns", 0);
		add_raw(fb, "trace.syncs", (double)p->trace->nsyncs, "", 0);
	}
	kp_strvec_release(&names);
}

void kp_feedback_build(struct kp_feedback *fb, const struct kp_toolset *ts, const struct kp_strvec *ids,
		       const struct kp_tool_input *in, const struct kp_diagnosis *d,
		       const struct kp_feedback_opts *o)
{
	struct kp_findings all = KP_FINDINGS_INIT;

	memset(fb, 0, sizeof(*fb));
	resolve_opts(&fb->opts, o);
	fb->mode = fb->opts.mode;
	build_position(fb, in);
	kp_feedback_set_triton(fb, in && in->profile ? in->profile->triton : NULL);
	if (fb->mode == KP_FEEDBACK_RAW)
		build_raw(fb, ts, ids, in);
	if (fb->mode != KP_FEEDBACK_TOOLS || !d)
		return;
	for (size_t i = 0; i < d->nresults; i++) {
		const struct kp_tool_result *r = &d->results[i];
		if (r->status == KP_TOOL_MISSING || r->status == KP_TOOL_FAILED)
			kp_strvec_pushf(&fb->notes, "%s %s: %s", r->tool, kp_tool_status_name(r->status),
					r->message ? r->message : "");
	}
	fb->ndropped = d->ndropped;
	kp_feedback_synthesize(&d->findings, &all, &fb->nfolded);
	for (size_t i = 0; i < all.n; i++) {
		if (i < fb->opts.max_findings)
			kp_findings_push_copy(&fb->findings, &all.v[i]);
		else {
			fb->nomitted++;
			kp_strvec_pushf(&fb->omitted, "%s (%s)", all.v[i].tool ? all.v[i].tool : "?",
			                kp_finding_severity_name(all.v[i].severity));
		}
	}
	kp_findings_release(&all);
}

void kp_feedback_release(struct kp_feedback *fb)
{
	free(fb->kernel);
	free(fb->bound_reason);
	free(fb->triton);
	kp_findings_release(&fb->findings);
	kp_strvec_release(&fb->notes);
	kp_strvec_release(&fb->omitted);
	for (size_t i = 0; i < fb->nraw; i++) {
		free(fb->raw[i].name);
		free(fb->raw[i].unit);
	}
	free(fb->raw);
	memset(fb, 0, sizeof(*fb));
}
