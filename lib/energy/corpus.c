/* The energy benchmark's join: NVML measurements of the corpus and ncu counts of the same kernels. */
#include "base/setup.h"

#include <math.h>

#include "energy/jsonl.h"
#include "kernelpro/energy.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

#define MARKER "kp_corpus_marker"
#define MAX_ENTRIES 4096

struct group {
	int seen;
	int launches;
	struct kp_energy_counts counts;
};

/* Sums the counts of every launch after marker i (grid size i + 1) into groups[i]. */
static int group_launches(const struct kp_ncu_report *r, struct group *g, struct kp_buf *warnings)
{
	int cur = -1, markers = 0;
	for (size_t i = 0; i < r->nlaunches; i++) {
		const struct kp_launch *l = &r->launches[i];
		struct kp_energy_counts k;
		if (l->function && !strcmp(l->function, MARKER)) {
			cur = (int)l->grid[0] - 1;
			if (cur < 0 || cur >= MAX_ENTRIES) {
				kp_buf_addf(warnings, "ncu launch %d: marker with grid size %u is out of range\n", l->id,
					    l->grid[0]);
				cur = -1;
			}
			markers++;
			continue;
		}
		if (cur < 0) {
			kp_buf_addf(warnings, "ncu launch %d (%s) comes before any marker: ignored\n", l->id,
				    l->function ? l->function : "?");
			continue;
		}
		kp_energy_counts_from_launch(l, &k);
		if (!g[cur].seen) {
			g[cur].counts = k;
			g[cur].seen = 1;
		} else {
			kp_energy_counts_add(&g[cur].counts, &k);
		}
		g[cur].launches++;
	}
	return markers;
}

int kp_energy_corpus_join(const char *measured, size_t len, const char *what, const struct kp_ncu_report *r,
			  struct kp_energy_sample **s, size_t *n, size_t *alloc, struct kp_buf *warnings,
			  struct kp_error *err)
{
	struct group *g = kp_xcalloc(MAX_ENTRIES, sizeof(*g));
	char *text = kp_xstrndup(measured, len);
	unsigned char *used = kp_xcalloc(MAX_ENTRIES, 1);
	struct kp_jsonl it;
	json_t *v = NULL;
	int rc = 0;

	if (group_launches(r, g, warnings) == 0) {
		rc = kp_error_set(err, KP_EPARSE,
				  "the ncu report has no %s launches: profile 'kp-energy-corpus profile' with "
				  "--profile-from-start off",
				  MARKER);
		goto out;
	}
	kp_jsonl_init(&it, text, what);
	while ((rc = kp_jsonl_next(&it, &v, err)) == 1) {
		const char *name;
		long long idx;
		idx = kp_json_int(v, "index", -1);
		name = kp_json_str(v, "name", NULL);
		if (idx < 0 || idx >= MAX_ENTRIES || !name || !*name) {
			json_decref(v);
			rc = kp_error_set(err, KP_EPARSE, "%s: a measurement needs \"index\" (0..%d) and \"name\"", it.where,
					  MAX_ENTRIES - 1);
			goto out;
		}
		if (!g[idx].seen) {
			kp_buf_addf(warnings, "%s: '%s' (entry %lld) has no ncu launches: left out\n", it.where, name, idx);
			json_decref(v);
			continue;
		}
		{
			struct kp_energy_measurement m;
			struct kp_energy_sample *smp;
			char nm[sizeof(smp->name)];
			kp_strlcpy(nm, name, sizeof(nm)); /* name lives in v */
			rc = kp_energy_measurement_from_json(json_object_get(v, "measurement"), it.where, &m, err);
			json_decref(v);
			if (rc)
				goto out;
			if (!(m.energy_j > 0)) {
				kp_buf_addf(warnings, "%s: '%s' has no positive energy: left out\n", it.where, nm);
				continue;
			}
			KP_ALLOC_GROW(*s, *n + 1, *alloc);
			smp = &(*s)[(*n)++];
			memset(smp, 0, sizeof(*smp));
			kp_strlcpy(smp->name, nm, sizeof(smp->name));
			kp_strlcpy(smp->device, m.device, sizeof(smp->device));
			smp->counts = g[idx].counts;
			smp->energy_j = m.energy_j;
			smp->dynamic_j = m.dynamic_j;
			smp->time_s = m.time_s;
			smp->power_w = m.power_w;
			smp->idle_power_w = m.idle_power_w;
			smp->energy_spread = m.energy_spread;
			used[idx] = 1;
		}
	}
	if (rc < 0)
		goto out;
	rc = 0;
	for (int i = 0; i < MAX_ENTRIES; i++)
		if (g[i].seen && !used[i])
			kp_buf_addf(warnings, "ncu entry %d (%d launch%s) has no measurement: left out\n", i, g[i].launches,
				    g[i].launches == 1 ? "" : "es");
out:
	free(g);
	free(used);
	free(text);
	return rc;
}
