/*
 * The run view: a run directory read into one JSON document for the reports and the suite metrics,
 * through the run's summary and the run database's public queries.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/run.h"
#include "kernelpro/store.h"
#include "kernelpro/strvec.h"

#define BASELINE_FILE "baseline.json" /* `kernelpro baseline --json` of the run's task, when measured */
#define BASELINE_CAP  (1u << 20)

static json_t *text_or_null(const struct kp_buf *b)
{
	return b->len ? json_string(b->buf) : NULL; /* json_string refuses invalid UTF-8: null then */
}

/* A stored JSON text, parsed; NULL when empty or not JSON (a report shows what it can). */
static json_t *parsed_or_null(const struct kp_buf *b)
{
	return b->len ? json_loadb(b->buf, b->len, JSON_DECODE_ANY, NULL) : NULL;
}

static json_t *meta_text(struct kp_store *s, const char *key)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *v = NULL;
	if (!kp_store_meta_get(s, key, &b, &err))
		v = text_or_null(&b);
	kp_buf_release(&b);
	return v;
}

static int node_json(struct kp_store *s, const struct kp_node_row *r, json_t **out, struct kp_error *err)
{
	struct kp_buf log = KP_BUF_INIT, fb = KP_BUF_INIT, fj = KP_BUF_INIT, prof = KP_BUF_INIT;
	json_t *o;
	int rc;

	*out = NULL;
	if ((rc = kp_store_eval_text(s, r->id, &log, &fb, &fj, err)) ||
	    (rc = kp_store_profile_get(s, r->id, &prof, err)))
		goto out;
	o = json_object();
	kp_json_set(o, "node", json_integer(r->id));
	kp_json_set(o, "parent", r->parent ? json_integer(r->parent) : NULL);
	kp_json_set(o, "kind", json_string(kp_node_kind_name(r->kind)));
	kp_json_set(o, "depth", json_integer(r->depth));
	kp_json_set(o, "outcome", json_string(r->evaluated ? kp_outcome_name(r->outcome) : "pending"));
	/* The root is the reference: 1.0 by definition once it is timed. */
	kp_json_set(o, "speedup", kp_json_real(!r->parent && r->evaluated ? 1.0 : r->speedup));
	kp_json_set(o, "time_ms", kp_json_real(r->time_ms));
	kp_json_set(o, "energy_j", kp_json_real(r->energy_j));
	kp_json_set(o, "reward", kp_json_real(r->reward));
	kp_json_set(o, "visits", json_integer(r->visits));
	kp_json_set(o, "closed", r->dead ? json_string(kp_dead_reason_text(r->dead)) : NULL);
	kp_json_set(o, "created", kp_json_real(r->created));
	kp_json_set(o, "summary", json_string(r->summary));
	kp_json_set(o, "log", text_or_null(&log));
	kp_json_set(o, "feedback", text_or_null(&fb));
	kp_json_set(o, "findings", parsed_or_null(&fj));
	kp_json_set(o, "profile", parsed_or_null(&prof));
	/* A correct version is profiled when the search expands it: false for one it never did. */
	kp_json_set(o, "profiled",
	            r->evaluated && r->outcome == KP_OUTCOME_CORRECT ? json_boolean(prof.len > 0) : NULL);
	*out = o;
out:
	kp_buf_release(&log);
	kp_buf_release(&fb);
	kp_buf_release(&fj);
	kp_buf_release(&prof);
	return rc;
}

int kp_run_view(const char *run_dir, json_t **out, struct kp_error *err)
{
	struct kp_run *r = NULL;
	struct kp_store *s = NULL;
	struct kp_node_row *rows = NULL;
	struct kp_buf path = KP_BUF_INIT;
	size_t n = 0;
	json_t *v = NULL, *sum = NULL, *nodes, *base = NULL;
	int rc;

	*out = NULL;
	if ((rc = kp_run_open(&r, run_dir, KP_RUN_READONLY, err)) || (rc = kp_run_summary(r, &sum, err)) ||
	    (rc = kp_store_nodes_load(s = kp_run_store(r), &rows, &n, err)))
		goto out;
	json_object_del(sum, "dir"); /* the view's own "dir" says where it is */
	kp_path_join(&path, run_dir, BASELINE_FILE);
	if (kp_path_exists(path.buf) && (rc = kp_json_load_file(path.buf, BASELINE_CAP, &base, err)))
		goto out;
	v = json_object();
	kp_json_set(v, "schema", json_string(KP_RUN_VIEW_SCHEMA));
	kp_json_set(v, "dir", json_string(run_dir));
	kp_json_set(v, "summary", sum);
	sum = NULL;
	kp_json_set(v, "hardware", meta_text(s, "hardware"));
	kp_json_set(v, "stage1", meta_text(s, "stage1"));
	kp_json_set(v, "baseline", base);
	base = NULL;
	nodes = json_array();
	kp_json_set(v, "nodes", nodes);
	for (size_t i = 0; i < n && !rc; i++) {
		json_t *o;
		if (!(rc = node_json(s, &rows[i], &o, err)))
			json_array_append_new(nodes, o);
	}
	if (!rc) {
		*out = v;
		v = NULL;
	} else {
		kp_error_prefix(err, "reading run '%s': ", run_dir);
	}
out:
	json_decref(v);
	json_decref(sum);
	json_decref(base);
	free(rows);
	kp_buf_release(&path);
	kp_run_close(r);
	return rc;
}

int kp_run_read_source(const char *run_dir, long node, struct kp_buf *src, char lang[16],
                       struct kp_error *err)
{
	struct kp_run *r = NULL;
	int rc = kp_run_open(&r, run_dir, KP_RUN_READONLY, err);
	if (!rc)
		rc = kp_store_candidate_get(kp_run_store(r), node, src, lang, err);
	kp_run_close(r);
	return rc;
}
