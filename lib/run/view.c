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

/* A meta entry as text; NULL when absent, empty or not UTF-8 (json_string refuses it). */
static json_t *meta_text(struct kp_store *s, const char *key)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *v = NULL;
	if (!kp_store_meta_get(s, key, &b, &err) && b.len)
		v = json_string(b.buf);
	kp_buf_release(&b);
	return v;
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
		/* lib/run's one node view, with what the pages show of each version */
		if (!(rc = kp_run_node_json(r, &rows[i],
		                            KP_RUN_NODE_TREE | KP_RUN_NODE_EVAL | KP_RUN_NODE_PROFILE |
		                                KP_RUN_NODE_SOURCE,
		                            &o, err)))
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
