/* A run's summary (best version, the path to it, budget use) from its database, and the files best.* and summary.json. */
#include "base/setup.h"

#include <math.h>
#include <sqlite3.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/search.h"

/* A meta entry parsed as JSON (new reference), or NULL. */
static json_t *meta_json(struct kp_store *s, const char *key)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *v = NULL;
	if (!kp_store_meta_get(s, key, &b, &err))
		v = json_loads(b.buf, 0, NULL);
	kp_buf_release(&b);
	return v;
}

static json_t *meta_str(struct kp_store *s, const char *key)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *v = kp_store_meta_get(s, key, &b, &err) ? json_null() : json_string(b.buf);
	kp_buf_release(&b);
	return v ? v : json_null();
}

/* Loads the tree with the run's own parameters; *params gets them. */
static int load_tree(struct kp_store *s, struct kp_tree *t, struct kp_search_params *params, struct kp_error *err)
{
	struct kp_node_row *rows = NULL;
	size_t n = 0;
	json_t *pj = meta_json(s, "params");
	int rc;

	kp_search_params_default(params);
	if (pj) {
		rc = kp_search_params_from_json(params, pj, err);
		json_decref(pj);
		if (rc)
			return rc;
	}
	rc = kp_store_nodes_load(s, &rows, &n, err);
	if (rc)
		return rc;
	kp_tree_init(t);
	for (size_t i = 0; i < n; i++)
		kp_tree_add(t, &rows[i]);
	free(rows);
	kp_tree_update_best(t, params);
	return 0;
}

static json_t *node_brief(struct kp_store *s, const struct kp_tree *t, int idx)
{
	const struct kp_tnode *n = &t->n[idx];
	struct kp_node_row row;
	struct kp_error err = KP_ERROR_INIT;
	json_t *o = json_object();
	kp_json_set(o, "node", json_integer(n->id));
	kp_json_set(o, "kind", json_string(kp_node_kind_name(n->kind)));
	kp_json_set(o, "outcome", json_string(n->evaluated ? kp_outcome_name(n->outcome) : "pending"));
	kp_json_set(o, "speedup", kp_json_real(n->parent < 0 && n->evaluated ? 1.0 : n->speedup));
	if (!kp_store_node_get(s, n->id, &row, &err)) {
		kp_json_set(o, "time_ms", kp_json_real(row.time_ms));
		kp_json_set(o, "summary", json_string(row.summary));
	}
	kp_json_set(o, "energy_j", kp_json_real(n->energy_j));
	return o;
}

/* time_ms is not part of the tree: fetch the evaluation figures for the nodes the summary names. */
static void fill_times(struct kp_store *s, json_t *o)
{
	sqlite3 *db = kp_store_sqlite(s);
	sqlite3_stmt *st;
	long long node = kp_json_int(o, "node", 0);
	if (sqlite3_prepare_v2(db, "SELECT time_ms, ref_time_ms FROM evaluations WHERE node_id = ?1 ORDER BY id DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, node);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			kp_json_set(o, "time_ms", json_real(sqlite3_column_double(st, 0)));
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			kp_json_set(o, "ref_time_ms", json_real(sqlite3_column_double(st, 1)));
	}
	sqlite3_finalize(st);
}

int kp_search_summary(struct kp_store *s, json_t **out, struct kp_error *err)
{
	struct kp_tree t;
	struct kp_search_params params;
	json_t *o, *used, *outcomes, *best, *path;
	long counts[KP_OUTCOME_COUNT] = {0}, pending = 0;
	json_t *orch;
	int rc = load_tree(s, &t, &params, err);

	*out = NULL;
	if (rc)
		return rc;
	o = json_object();
	kp_json_set(o, "run", meta_str(s, "run_name"));
	kp_json_set(o, "status", meta_str(s, "status"));
	kp_json_set(o, "end_reason", meta_str(s, "end_reason"));
	kp_json_set(o, "schema_version", json_integer(kp_store_schema_version(s)));
	kp_json_set(o, "task", meta_json(s, "task"));
	kp_json_set(o, "search", kp_search_params_to_json(&params));
	/* How the tools reached the model (kernelpro optimize records it; runs from before did proactive). */
	orch = meta_json(s, "orchestration");
	kp_json_set(o, "orchestration", orch ? orch : json_pack("{s:s}", "mode", "proactive"));
	kp_json_set(o, "budget", meta_json(s, "budget"));
	used = json_object();
	kp_json_set(used, "evaluations", json_integer((json_int_t)kp_store_counter(s, "evaluations")));
	kp_json_set(used, "generations", json_integer((json_int_t)kp_store_counter(s, "generations")));
	kp_json_set(used, "generation_failures", json_integer((json_int_t)kp_store_counter(s, "generation_failures")));
	kp_json_set(used, "tool_calls", json_integer((json_int_t)kp_store_counter(s, "tool_calls")));
	kp_json_set(used, "tokens_in", json_integer((json_int_t)kp_store_counter(s, "tokens_in")));
	kp_json_set(used, "tokens_out", json_integer((json_int_t)kp_store_counter(s, "tokens_out")));
	kp_json_set(used, "cost_usd", json_real(kp_store_counter(s, "cost_usd")));
	kp_json_set(used, "elapsed_s", json_real(kp_store_elapsed_total(s)));
	kp_json_set(used, "sessions", json_integer(kp_store_session_count(s)));
	kp_json_set(o, "used", used);
	for (size_t i = 1; i < t.count; i++) {
		if (!t.n[i].evaluated)
			pending++;
		else if (t.n[i].outcome >= 0 && t.n[i].outcome < KP_OUTCOME_COUNT)
			counts[t.n[i].outcome]++;
	}
	outcomes = json_object();
	for (int i = 0; i < KP_OUTCOME_COUNT; i++)
		kp_json_set(outcomes, kp_outcome_name((enum kp_outcome)i), json_integer(counts[i]));
	kp_json_set(outcomes, "pending", json_integer(pending));
	kp_json_set(o, "nodes", json_integer((json_int_t)t.count));
	kp_json_set(o, "outcomes", outcomes);
	if (t.count) {
		json_t *ref = node_brief(s, &t, 0);
		fill_times(s, ref);
		kp_json_set(o, "reference", ref);
	}
	if (t.best >= 0) {
		best = node_brief(s, &t, t.best);
		fill_times(s, best);
		kp_json_set(best, "improved", json_boolean(t.best > 0));
		path = json_array();
		for (int i = t.best; i >= 0; i = t.n[i].parent)
			json_array_insert_new(path, 0, node_brief(s, &t, i));
		kp_json_set(best, "path", path);
		kp_json_set(o, "best", best);
	} else {
		kp_json_set(o, "best", json_null());
	}
	kp_tree_release(&t);
	*out = o;
	return 0;
}

int kp_search_write_outputs(struct kp_store *s, const char *run_dir, struct kp_error *err)
{
	json_t *sum = NULL, *best;
	struct kp_buf path = KP_BUF_INIT, src = KP_BUF_INIT;
	char lang[16];
	int rc = kp_search_summary(s, &sum, err);

	if (rc)
		return rc;
	best = json_object_get(sum, "best");
	if (json_is_object(best) && json_is_true(json_object_get(best, "improved"))) {
		long node = (long)kp_json_int(best, "node", 0);
		rc = kp_store_candidate_get(s, node, &src, lang, err);
		if (!rc) {
			const char *name = !strcmp(lang, "python") ? "best.py" : "best.cu";
			struct kp_buf old = KP_BUF_INIT;
			struct kp_error ignore = KP_ERROR_INIT;
			kp_path_join(&path, run_dir, name);
			kp_json_set(best, "file", json_string(name));
			/* Rewritten (and synced) only when the best changed. */
			if (kp_read_file(path.buf, src.len + 1, &old, &ignore) || old.len != src.len ||
			    memcmp(old.buf, src.buf, src.len))
				rc = kp_write_file_atomic(path.buf, src.buf, src.len, err);
			kp_buf_release(&old);
		}
	}
	if (!rc) {
		kp_buf_reset(&path);
		kp_path_join(&path, run_dir, "summary.json");
		rc = kp_json_write_file(path.buf, sum, err);
	}
	json_decref(sum);
	kp_buf_release(&path);
	kp_buf_release(&src);
	return rc;
}
