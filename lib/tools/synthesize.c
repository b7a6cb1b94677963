/*
 * Feedback synthesis, step one: from every tool's findings to the few that
 * matter. Negligible findings go, symptoms fold into the findings that explain
 * them, duplicates merge, and the rest is ordered by severity then gain.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/feedback.h"

#define FOLDED_EVIDENCE_MAX 3 /* evidence a folded finding brings to the one that explains it */

/* 1 when a finding of tool `tool` (severity `sev`) explains `f`. */
static int explains(const struct kp_finding *f, const char *tool, enum kp_finding_severity sev)
{
	for (size_t i = 0; i < f->explained_by.n; i++) {
		const char *e = f->explained_by.v[i];
		if (!strcmp(e, tool))
			return 1;
		/* "*": any other tool's finding of medium or higher severity. */
		if (!strcmp(e, "*") && strcmp(tool, f->tool ? f->tool : "") && sev >= KP_SEV_MEDIUM)
			return 1;
	}
	return 0;
}

/* Ranking: severity, then estimated gain (unknown last), then input order. */
static int ranks_before(const struct kp_finding *a, size_t ia, const struct kp_finding *b, size_t ib)
{
	if (a->severity != b->severity)
		return a->severity > b->severity;
	if (isnan(a->gain) != isnan(b->gain))
		return !isnan(a->gain);
	if (!isnan(a->gain) && a->gain != b->gain)
		return a->gain > b->gain;
	return ia < ib;
}

static void fold_into(struct kp_finding *dst, const struct kp_finding *src)
{
	size_t n = src->nevidence < FOLDED_EVIDENCE_MAX ? src->nevidence : FOLDED_EVIDENCE_MAX;
	if (src->tool && strcmp(src->tool, dst->tool ? dst->tool : "") && kp_strvec_find(&dst->also, src->tool) < 0)
		kp_strvec_push(&dst->also, src->tool);
	for (size_t i = 0; i < src->also.n; i++)
		if (kp_strvec_find(&dst->also, src->also.v[i]) < 0 && strcmp(src->also.v[i], dst->tool ? dst->tool : ""))
			kp_strvec_push(&dst->also, src->also.v[i]);
	for (size_t i = 0; i < n; i++)
		kp_finding_evidence(dst, src->evidence[i].metric, src->evidence[i].value, src->evidence[i].threshold,
				    src->evidence[i].unit);
}

void kp_feedback_synthesize(const struct kp_findings *in, struct kp_findings *out, size_t *nfolded)
{
	size_t n = in->n, folded = 0, *order;
	char *dead = n ? kp_xcalloc(n, 1) : NULL;
	struct kp_findings work = KP_FINDINGS_INIT;
	int changed = 1;

	for (size_t i = 0; i < n; i++)
		kp_findings_push_copy(&work, &in->v[i]);
	/* Fold symptoms into causes until nothing changes (a cycle stops after one side folds). */
	while (changed) {
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			size_t best = n;
			if (dead[i] || !work.v[i].explained_by.n)
				continue;
			for (size_t j = 0; j < n; j++) {
				if (j == i || dead[j] || !work.v[j].tool)
					continue;
				if (explains(&work.v[i], work.v[j].tool, work.v[j].severity) &&
				    (best == n || ranks_before(&work.v[j], j, &work.v[best], best)))
					best = j;
			}
			if (best < n) {
				fold_into(&work.v[best], &work.v[i]);
				dead[i] = 1;
				folded++;
				changed = 1;
			}
		}
	}
	/* Same title from two tools (a user tool echoing a built-in): keep the better-ranked one. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n && !dead[i]; j++) {
			if (dead[j] || !work.v[i].title || !work.v[j].title || strcasecmp(work.v[i].title, work.v[j].title))
				continue;
			size_t keep = ranks_before(&work.v[i], i, &work.v[j], j) ? i : j, drop = keep == i ? j : i;
			fold_into(&work.v[keep], &work.v[drop]);
			dead[drop] = 1;
			folded++;
		}
	/* Order the survivors (insertion sort: a handful of findings). */
	order = n ? kp_xcalloc(n, sizeof(*order)) : NULL;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (dead[i])
			continue;
		size_t k = m++;
		while (k > 0 && ranks_before(&work.v[i], i, &work.v[order[k - 1]], order[k - 1])) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	for (size_t k = 0; k < m; k++)
		kp_findings_push_copy(out, &work.v[order[k]]);
	if (nfolded)
		*nfolded = folded;
	kp_findings_release(&work);
	free(order);
	free(dead);
}
