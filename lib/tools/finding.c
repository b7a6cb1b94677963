/* Findings: building, copying and releasing them; severities; what tools read and how they read it. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/buf.h"
#include "kernelpro/tools.h"

static const char *const severity_names[] = {"none", "low", "medium", "high", "critical"};

const char *kp_finding_severity_name(enum kp_finding_severity s)
{
	return (unsigned)s < KP_ARRAY_SIZE(severity_names) ? severity_names[s] : "none";
}

int kp_finding_severity_parse(const char *s, enum kp_finding_severity *out)
{
	for (size_t i = KP_SEV_LOW; i < KP_ARRAY_SIZE(severity_names); i++)
		if (s && !strcmp(s, severity_names[i])) {
			*out = (enum kp_finding_severity)i;
			return 0;
		}
	return KP_EINVAL;
}

enum kp_finding_severity kp_finding_severity_for_gain(double gain)
{
	if (isnan(gain))
		return KP_SEV_MEDIUM;
	if (gain >= KP_GAIN_CRITICAL)
		return KP_SEV_CRITICAL;
	if (gain >= KP_GAIN_HIGH)
		return KP_SEV_HIGH;
	if (gain >= KP_GAIN_MEDIUM)
		return KP_SEV_MEDIUM;
	return KP_SEV_LOW;
}

static const struct {
	unsigned bit;
	const char *name;
} source_names[] = {
	{KP_SRC_NCU, "ncu"},
	{KP_SRC_SASS, "sass"},
	{KP_SRC_PTXAS, "ptxas"},
	{KP_SRC_TRACE, "trace"},
};

const char *kp_tool_sources_str(unsigned sources, char *buf, size_t n)
{
	size_t len = 0;
	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < KP_ARRAY_SIZE(source_names); i++) {
		if (!(sources & source_names[i].bit))
			continue;
		int w = snprintf(buf + len, n > len ? n - len : 0, "%s%s", len ? "+" : "", source_names[i].name);
		if (w < 0 || (size_t)w >= (n > len ? n - len : 0))
			break;
		len += (size_t)w;
	}
	return buf;
}

unsigned kp_tool_source_parse(const char *s)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(source_names); i++)
		if (s && !strcmp(s, source_names[i].name))
			return source_names[i].bit;
	return 0;
}

/* ---- Findings ---------------------------------------------------------------------------- */

void kp_finding_release(struct kp_finding *f)
{
	free(f->tool);
	free(f->title);
	free(f->cause);
	for (size_t i = 0; i < f->nevidence; i++) {
		free(f->evidence[i].metric);
		free(f->evidence[i].unit);
	}
	free(f->evidence);
	kp_strvec_release(&f->recs);
	free(f->gain_basis);
	kp_strvec_release(&f->explained_by);
	kp_strvec_release(&f->also);
	memset(f, 0, sizeof(*f));
	f->gain = NAN;
}

void kp_findings_release(struct kp_findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		kp_finding_release(&fs->v[i]);
	free(fs->v);
	fs->v = NULL;
	fs->n = fs->alloc = 0;
}

static struct kp_finding *findings_push(struct kp_findings *fs)
{
	KP_ALLOC_GROW(fs->v, fs->n + 1, fs->alloc);
	struct kp_finding *f = &fs->v[fs->n++];
	memset(f, 0, sizeof(*f));
	f->gain = NAN;
	return f;
}

static char *xstrdup_or_null(const char *s)
{
	return s ? kp_xstrdup(s) : NULL;
}

struct kp_finding *kp_findings_push_copy(struct kp_findings *fs, const struct kp_finding *src)
{
	struct kp_finding *f = findings_push(fs);
	f->tool = xstrdup_or_null(src->tool);
	f->severity = src->severity;
	f->title = xstrdup_or_null(src->title);
	f->cause = xstrdup_or_null(src->cause);
	for (size_t i = 0; i < src->nevidence; i++)
		kp_finding_evidence(f, src->evidence[i].metric, src->evidence[i].value, src->evidence[i].threshold,
				    src->evidence[i].unit);
	kp_strvec_pushv(&f->recs, (const char *const *)src->recs.v);
	f->gain = src->gain;
	f->gain_basis = xstrdup_or_null(src->gain_basis);
	kp_strvec_pushv(&f->explained_by, (const char *const *)src->explained_by.v);
	kp_strvec_pushv(&f->also, (const char *const *)src->also.v);
	return f;
}

static char *vformat(const char *fmt, va_list ap)
{
	struct kp_buf b = KP_BUF_INIT;
	kp_buf_vaddf(&b, fmt, ap);
	return kp_buf_detach(&b, NULL);
}

struct kp_finding *kp_finding_new(struct kp_findings *fs, enum kp_finding_severity sev, const char *title_fmt, ...)
{
	struct kp_finding *f = findings_push(fs);
	va_list ap;
	f->severity = sev;
	va_start(ap, title_fmt);
	f->title = vformat(title_fmt, ap);
	va_end(ap);
	return f;
}

void kp_finding_cause(struct kp_finding *f, const char *fmt, ...)
{
	va_list ap;
	free(f->cause);
	va_start(ap, fmt);
	f->cause = vformat(fmt, ap);
	va_end(ap);
}

void kp_finding_evidence(struct kp_finding *f, const char *metric, double value, double threshold,
			 const char *unit)
{
	KP_ALLOC_GROW(f->evidence, f->nevidence + 1, f->evidence_alloc);
	struct kp_evidence *e = &f->evidence[f->nevidence++];
	e->metric = kp_xstrdup(metric ? metric : "");
	e->value = value;
	e->threshold = threshold;
	e->unit = kp_xstrdup(unit ? unit : "");
}

void kp_finding_rec(struct kp_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kp_strvec_push_nodup(&f->recs, vformat(fmt, ap));
	va_end(ap);
}

void kp_finding_gain(struct kp_finding *f, double gain, const char *basis_fmt, ...)
{
	va_list ap;
	if (isnan(gain)) {
		f->gain = NAN;
		return;
	}
	f->gain = gain < 0 ? 0 : gain > 0.99 ? 0.99 : gain;
	free(f->gain_basis);
	f->gain_basis = NULL;
	if (basis_fmt) {
		va_start(ap, basis_fmt);
		f->gain_basis = vformat(basis_fmt, ap);
		va_end(ap);
	}
}

void kp_finding_explained_by(struct kp_finding *f, const char *tool)
{
	if (kp_strvec_find(&f->explained_by, tool) < 0)
		kp_strvec_push(&f->explained_by, tool);
}

/* ---- Reading metrics ------------------------------------------------------------------------ */

static int declared(const struct kp_tool_info *t, const char *name)
{
	for (size_t i = 0; i < t->nmetrics; i++)
		if (!strcmp(t->metrics[i].name, name))
			return 1;
	return 0;
}

int kp_tool_metric_get(const struct kp_tool_input *m, const char *name, double *out)
{
	const struct kp_launch *l = m->profile ? m->profile->launch : NULL;
	size_t lo = 0, hi;

	if (m->tool && m->tool->builtin && !declared(m->tool, name))
		KP_BUG("tool '%s' reads metric '%s' without declaring it", m->tool->name, name);
	if (!l || !l->metrics)
		return KP_EMISSING;
	/* Metrics are sorted by name (profile.h). */
	hi = l->nmetrics;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(l->metrics[mid].name, name);
		if (!c) {
			if (l->metrics[mid].missing || isnan(l->metrics[mid].value))
				return KP_EMISSING;
			*out = l->metrics[mid].value;
			return 0;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return KP_EMISSING;
}

double kp_tool_metric(const struct kp_tool_input *m, const char *name)
{
	double v;
	return kp_tool_metric_get(m, name, &v) ? NAN : v;
}
