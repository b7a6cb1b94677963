/*
 * Running tools on one kernel: check the inputs each tool declares, call
 * trigger then analyze (C or Lua), record what happened per tool. A tool
 * that lacks an input or fails never stops the others.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/buf.h"
#include "kernelpro/log.h"
#include "tools/toolset_impl.h"

#define MISSING_NAMES_MAX 4

static const char *const status_names[] = {"silent", "fired", "missing", "failed"};

const char *kp_tool_status_name(enum kp_tool_status s)
{
	return (unsigned)s < KP_ARRAY_SIZE(status_names) ? status_names[s] : "unknown";
}

void kp_diagnosis_release(struct kp_diagnosis *d)
{
	kp_findings_release(&d->findings);
	for (size_t i = 0; i < d->nresults; i++) {
		free(d->results[i].tool);
		free(d->results[i].message);
	}
	free(d->results);
	d->results = NULL;
	d->nresults = d->results_alloc = d->ndropped = 0;
	d->elapsed_s = 0;
}

static unsigned sources_present(const struct kp_tool_input *in)
{
	const struct kp_kernel_profile *p = in->profile;
	unsigned s = 0;
	if (!p)
		return 0;
	if (p->launch)
		s |= KP_SRC_NCU;
	if (p->sass)
		s |= KP_SRC_SASS;
	if (p->ptxas)
		s |= KP_SRC_PTXAS;
	if (p->trace)
		s |= KP_SRC_TRACE;
	return s;
}

static const char *source_hint(unsigned bit)
{
	switch (bit) {
	case KP_SRC_NCU:
		return "ncu metrics";
	case KP_SRC_SASS:
		return "SASS (cuobjdump -sass)";
	case KP_SRC_PTXAS:
		return "ptxas -v resources";
	default:
		return "launch trace";
	}
}

/* "missing metric 'a', 'b' and 2 more; no SASS (cuobjdump -sass)"; `all`: optional ones too. */
static void describe_missing(const struct kp_tool_info *t, const struct kp_tool_input *in, unsigned sources,
			     int all, struct kp_buf *msg)
{
	unsigned have = sources_present(in), absent = sources & ~have;
	size_t shown = 0, more = 0;
	double v;

	for (size_t i = 0; i < t->nmetrics; i++) {
		if (!all && (t->metrics[i].flags & KP_TM_OPTIONAL))
			continue;
		if (!(have & KP_SRC_NCU) || kp_tool_metric_get(in, t->metrics[i].name, &v)) {
			if (shown < MISSING_NAMES_MAX)
				kp_buf_addf(msg, "%s'%s'", shown ? ", " : "missing metric ", t->metrics[i].name);
			else
				more++;
			shown++;
		}
	}
	if (more)
		kp_buf_addf(msg, " and %zu more", more);
	for (unsigned bit = 1; bit <= KP_SRC_TRACE; bit <<= 1)
		if (absent & bit)
			kp_buf_addf(msg, "%sno %s", msg->len ? "; " : "", source_hint(bit));
	if (!msg->len)
		kp_buf_adds(msg, "an input the tool needs is missing");
}

static int required_present(const struct kp_tool_info *t, const struct kp_tool_input *in)
{
	double v;
	if (t->needs & ~sources_present(in))
		return 0;
	for (size_t i = 0; i < t->nmetrics; i++)
		if (!(t->metrics[i].flags & KP_TM_OPTIONAL) && kp_tool_metric_get(in, t->metrics[i].name, &v))
			return 0;
	return 1;
}

static enum kp_tool_status run_builtin(const struct kp_tool *tool, const struct kp_tool_input *in,
				       const double *t, struct kp_findings *out, struct kp_buf *msg)
{
	int rc = tool->trigger(in, t);
	if (rc == KP_EMISSING) {
		describe_missing(in->tool, in, in->tool->sources, 1, msg);
		return KP_TOOL_MISSING;
	}
	if (rc < 0) {
		kp_buf_addf(msg, "trigger failed: %s", kp_strerror(rc));
		return KP_TOOL_FAILED;
	}
	if (!rc)
		return KP_TOOL_SILENT;
	rc = tool->analyze(in, t, out);
	if (rc == KP_EMISSING) {
		describe_missing(in->tool, in, in->tool->sources, 1, msg);
		return KP_TOOL_MISSING;
	}
	if (rc < 0) {
		kp_buf_addf(msg, "analyze failed: %s", kp_strerror(rc));
		return KP_TOOL_FAILED;
	}
	return out->n ? KP_TOOL_FIRED : KP_TOOL_SILENT;
}

static void run_entry(struct kp_toolset_entry *e, const struct kp_tool_input *in0, double min_gain,
		      struct kp_diagnosis *d)
{
	struct kp_tool_input in = *in0;
	struct kp_findings found = KP_FINDINGS_INIT;
	struct kp_buf msg = KP_BUF_INIT;
	struct kp_tool_result *r;
	enum kp_tool_status st;
	size_t dropped = 0;
	double t0 = kp_now();

	in.tool = &e->info;
	if (!required_present(&e->info, &in)) {
		describe_missing(&e->info, &in, e->info.needs, 0, &msg);
		st = KP_TOOL_MISSING;
	} else if (e->lua) {
		st = kp_luatool_run(e->lua, &in, e->values, &found, &msg);
	} else {
		st = run_builtin(e->info.builtin, &in, e->values, &found, &msg);
	}
	if (st != KP_TOOL_FIRED && st != KP_TOOL_SILENT)
		kp_findings_release(&found); /* a failed run reports nothing half-made */
	for (size_t i = 0; i < found.n; i++) {
		struct kp_finding *f;
		/* A change estimated to save almost nothing is not a finding. */
		if (min_gain >= 0 && !isnan(found.v[i].gain) && found.v[i].gain < min_gain) {
			dropped++;
			continue;
		}
		f = kp_findings_push_copy(&d->findings, &found.v[i]);
		free(f->tool);
		f->tool = kp_xstrdup(e->info.name);
		if (f->severity == KP_SEV_NONE)
			f->severity = kp_finding_severity_for_gain(f->gain);
	}
	if (st == KP_TOOL_FIRED && dropped == found.n)
		st = KP_TOOL_SILENT;
	KP_ALLOC_GROW(d->results, d->nresults + 1, d->results_alloc);
	r = &d->results[d->nresults++];
	r->tool = kp_xstrdup(e->info.name);
	r->status = st;
	r->message = msg.len ? kp_buf_detach(&msg, NULL) : NULL;
	r->nfindings = found.n - dropped;
	r->ndropped = dropped;
	d->ndropped += dropped;
	r->elapsed_s = kp_now() - t0;
	d->elapsed_s += r->elapsed_s;
	if (st == KP_TOOL_FAILED)
		kp_warn("tool %s failed: %s", e->info.name, r->message ? r->message : "?");
	kp_findings_release(&found);
	kp_buf_release(&msg);
}

int kp_toolset_run(struct kp_toolset *ts, const struct kp_strvec *ids, const struct kp_tool_input *in,
		   struct kp_diagnosis *d, struct kp_error *err)
{
	for (size_t i = 0; i < ids->n; i++)
		if (!kp_toolset_entry(ts, ids->v[i]))
			return kp_error_set(err, KP_ENOENT, "unknown tool '%s'; 'kernelpro tools list' shows the ids",
					    ids->v[i]);
	for (size_t i = 0; i < ids->n; i++)
		run_entry(kp_toolset_entry(ts, ids->v[i]), in, ts->min_gain, d);
	return 0;
}

int kp_toolset_run_one(struct kp_toolset *ts, const char *id, const struct kp_tool_input *in,
		       struct kp_diagnosis *d, struct kp_error *err)
{
	struct kp_toolset_entry *e = kp_toolset_entry(ts, id);
	if (!e)
		return kp_error_set(err, KP_ENOENT, "unknown tool '%s'; 'kernelpro tools list' shows the ids", id);
	run_entry(e, in, ts->min_gain, d);
	return 0;
}
