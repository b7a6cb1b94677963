/* A run's summary from its database, and the files beside it: summary.json, best.*, candidates/. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "run/run_int.h"

/* A meta entry as JSON (new reference), or NULL when absent or unreadable. */
static json_t *meta_json_or_null(struct kp_store *s, const char *key)
{
	struct kp_error ignore = KP_ERROR_INIT;
	json_t *v = NULL;
	if (kp__run_meta_json(s, key, &v, &ignore))
		return NULL;
	return v;
}

static json_t *meta_string(struct kp_store *s, const char *key)
{
	char *v = kp__run_meta_str(s, key);
	json_t *j = v ? json_string(v) : json_null();
	free(v);
	return j;
}

/* The tree with the run's own parameters (the best depends on the objective). */
static int load_tree(struct kp_run *r, struct kp_tree *t, struct kp_error *err)
{
	struct kp_node_row *rows = NULL;
	size_t n = 0;
	int rc = kp_store_nodes_load(r->store, &rows, &n, err);

	kp_tree_init(t);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++)
		kp_tree_add(t, &rows[i]);
	free(rows);
	kp_tree_update_best(t, &r->settings.params);
	return 0;
}

/* A version as the summary names it: the node view's brief, its summary line and energy. */
static json_t *node_brief(struct kp_run *r, const struct kp_tree *t, int idx)
{
	const struct kp_tnode *n = &t->n[idx];
	struct kp_node_row row;
	struct kp_error err = KP_ERROR_INIT;
	json_t *o = NULL;

	if (!kp_store_node_get(r->store, n->id, &row, &err) && !kp_run_node_json(r, &row, 0, &o, &err)) {
		kp_json_set(o, "summary", json_string(row.summary));
		kp_json_set(o, "energy_j", kp_json_real(row.energy_j));
		return o;
	}
	/* The tree was just read from the same database: say what is known. */
	o = json_object();
	kp_json_set(o, "node", json_integer(n->id));
	kp_json_set(o, "error", json_string(kp_error_msg(&err)));
	return o;
}

/* The times of the node's latest evaluation, for the versions the summary names. */
static void fill_times(struct kp_store *s, json_t *o)
{
	struct kp_eval_row e;
	struct kp_error ignore = KP_ERROR_INIT;
	if (kp_store_eval_last(s, (long)kp_json_int(o, "node", 0), &e, &ignore))
		return;
	if (isfinite(e.time_ms))
		kp_json_set(o, "time_ms", json_real(e.time_ms));
	if (isfinite(e.ref_time_ms))
		kp_json_set(o, "ref_time_ms", json_real(e.ref_time_ms));
}

static json_t *used_json(struct kp_store *s)
{
	static const char *const counters[] = {"evaluations",  "generations",     "generation_failures",
	                                       "tool_calls",   "tokens_in",       "tokens_out",
	                                       "tune_actions", "tune_evaluations"};
	json_t *used = json_object();
	for (size_t i = 0; i < KP_ARRAY_SIZE(counters); i++)
		kp_json_set(used, counters[i], json_integer((json_int_t)kp_store_counter(s, counters[i])));
	kp_json_set(used, "cost_usd", json_real(kp_store_counter(s, "cost_usd")));
	kp_json_set(used, "elapsed_s", json_real(kp_store_elapsed_total(s)));
	/* The share of the run's wall time the GPU slot was evaluating (harness runs, profiling). */
	kp_json_set(used, "gpu_busy_s", json_real(kp_store_counter(s, "gpu_busy_s")));
	kp_json_set(used, "gpu_busy_share", kp_store_elapsed_total(s) > 0
						? kp_json_real(kp_store_counter(s, "gpu_busy_s") / kp_store_elapsed_total(s))
						: json_null());
	kp_json_set(used, "sessions", json_integer(kp_store_session_count(s)));
	/* Versions profiled after their evaluation, by why (docs/internals/search.md). */
	kp_json_set(used, "profiles",
	            json_pack("{s:I, s:I, s:I}", "on_demand",
	                      (json_int_t)kp_store_counter(s, "profiles_on_demand"), "speculative",
	                      (json_int_t)kp_store_counter(s, "profiles_speculative"), "final",
	                      (json_int_t)kp_store_counter(s, "profiles_final")));
	return used;
}

static json_t *outcomes_json(const struct kp_tree *t)
{
	long counts[KP_OUTCOME_COUNT] = {0}, pending = 0;
	json_t *o = json_object();
	for (size_t i = 1; i < t->count; i++) {
		if (!t->n[i].evaluated)
			pending++;
		else if (t->n[i].outcome >= 0 && t->n[i].outcome < KP_OUTCOME_COUNT)
			counts[t->n[i].outcome]++;
	}
	for (int i = 0; i < KP_OUTCOME_COUNT; i++)
		kp_json_set(o, kp_outcome_name((enum kp_outcome)i), json_integer(counts[i]));
	kp_json_set(o, "pending", json_integer(pending));
	return o;
}

/* The tune actions: their count, evaluations and share of the run's, speed, and each one. */
struct tunings {
	json_t *list;
	long done, running, evaluated;
	double wall_s;
};

static int add_tuning(const struct kp_tuning_row *r, void *ud)
{
	struct tunings *t = ud;
	json_t *o = kp__run_tuning_json(r);
	if (!strcmp(r->status, "running"))
		t->running++;
	else
		t->done++;
	t->evaluated += r->evaluated;
	t->wall_s += isfinite(r->wall_s) ? r->wall_s : 0;
	json_array_append_new(t->list, o);
	return 0;
}

static json_t *tuning_json(struct kp_store *s)
{
	struct tunings t = {.list = json_array()};
	struct kp_error ignore = KP_ERROR_INIT;
	double evals = kp_store_counter(s, "evaluations"), tune = kp_store_counter(s, "tune_evaluations");
	json_t *o = json_object();

	kp_store_tunings_each(s, add_tuning, &t, &ignore); /* none readable: none shown */
	kp_json_set(o, "actions", json_integer(t.done));
	kp_json_set(o, "running", json_integer(t.running));
	kp_json_set(o, "evaluations", json_integer((json_int_t)tune));
	/* The share of the run's evaluations spent on variants (children are evaluated as versions). */
	kp_json_set(o, "share", evals > 0 ? json_real(tune / evals) : json_null());
	kp_json_set(o, "wall_s", json_real(t.wall_s));
	kp_json_set(o, "variants_per_minute",
	            t.wall_s > 0 && t.evaluated ? json_real(60.0 * (double)t.evaluated / t.wall_s)
	                                        : json_null());
	kp_json_set(o, "tuned", t.list);
	return o;
}

/* The best version, the path of versions that led to it, and its file (when it beats the reference). */
static json_t *best_json(struct kp_run *r, const struct kp_tree *t)
{
	json_t *best, *path;
	char lang[16] = "";
	struct kp_buf src = KP_BUF_INIT;
	struct kp_error ignore = KP_ERROR_INIT;

	if (t->best < 0)
		return json_null();
	best = node_brief(r, t, t->best);
	fill_times(r->store, best);
	kp_json_set(best, "improved", json_boolean(t->best > 0));
	kp_json_set(best, "profiled", json_boolean(kp__run_profiled(r->store, t->n[t->best].id)));
	path = json_array();
	for (int i = t->best; i >= 0; i = t->n[i].parent)
		json_array_insert_new(path, 0, node_brief(r, t, i));
	kp_json_set(best, "path", path);
	if (t->best > 0 && !kp_store_candidate_get(r->store, t->n[t->best].id, &src, lang, &ignore))
		kp_json_set(best, "file", json_string(kp__run_kind(r, lang)->best_file));
	kp_buf_release(&src);
	return best;
}

/*
 * Whether the run's cost is a measured figure: something was charged, or the model costs nothing
 * (none, recorded replies), or the built-in table prices it. A price from a config file is not
 * recorded, so such a run with no charge reads as unknown: a lower bound, never a false zero.
 */
static int cost_known(const char *llm, double cost)
{
	struct kp_llm_price p;
	const char *colon;
	if (cost > 0 || !llm || !*llm || !strcmp(llm, KP_RUN_LLM_NONE) || !strncmp(llm, "replay:", 7))
		return 1;
	if (!strncmp(llm, "exec:", 5))
		return 0;
	colon = strchr(llm, ':');
	return kp_llm_price_lookup(colon ? colon + 1 : llm, &p) != 0;
}

/* Where and how the run ran: the GPU, the model, the kernelpro that made it, when, the evaluator. */
static json_t *context_json(struct kp_store *s)
{
	json_t *o = json_object();
	char *llm = kp__run_meta_str(s, "llm");
	char *hw = kp__run_meta_str(s, "hardware");
	/* The hardware text's first line names the GPU; the rest (clocks, peaks) stays in the view. */
	if (hw)
		hw[strcspn(hw, "\n")] = '\0';
	kp_json_set(o, "gpu", hw && *hw ? json_string(hw) : NULL);
	free(hw);
	kp_json_set(o, "model", llm ? json_string(llm) : NULL);
	kp_json_set(o, "kernelpro", meta_string(s, "kernelpro"));
	kp_json_set(o, "created", meta_string(s, "created"));
	kp_json_set(o, "evaluator", meta_string(s, "evaluator"));
	kp_json_set(o, "cost_known", json_boolean(cost_known(llm, kp_store_counter(s, "cost_usd"))));
	free(llm);
	return o;
}

/* The summary; "dir" only for callers (summary.json stays true when the directory moves). */
static int summary(struct kp_run *r, int with_dir, json_t **out, struct kp_error *err)
{
	struct kp_store *s = r->store;
	struct kp_tree t;
	json_t *o, *orch;
	int rc = load_tree(r, &t, err);

	*out = NULL;
	if (rc) {
		kp_tree_release(&t);
		return rc;
	}
	o = json_object();
	kp_json_set(o, "run", meta_string(s, "run_name"));
	kp_json_set(o, "status", meta_string(s, "status"));
	kp_json_set(o, "end_reason", meta_string(s, "end_reason"));
	kp_json_set(o, "schema_version", json_integer(kp_store_schema_version(s)));
	kp_json_set(o, "task", meta_json_or_null(s, "task"));
	kp_json_set(o, "search", kp_search_params_to_json(&r->settings.params));
	/* How the tools reached the model (runs from before it was recorded did proactive). */
	orch = meta_json_or_null(s, "orchestration");
	kp_json_set(o, "orchestration", orch ? orch : json_pack("{s:s}", "mode", "proactive"));
	kp_json_set(o, "budget", meta_json_or_null(s, "budget"));
	kp_json_set(o, "context", context_json(s));
	kp_json_set(o, "used", used_json(s));
	kp_json_set(o, "nodes", json_integer((json_int_t)t.count));
	kp_json_set(o, "outcomes", outcomes_json(&t));
	if (t.count) {
		json_t *ref = node_brief(r, &t, 0);
		fill_times(s, ref);
		kp_json_set(o, "reference", ref);
	}
	kp_json_set(o, "best", best_json(r, &t));
	kp_json_set(o, "tuning", tuning_json(s));
	if (with_dir)
		kp_json_set(o, "dir", json_string(r->dir));
	kp_tree_release(&t);
	*out = o;
	return 0;
}

int kp_run_summary(struct kp_run *r, json_t **out, struct kp_error *err)
{
	return summary(r, 1, out, err);
}

/* ---- files ----------------------------------------------------------------------------------- */

void kp__run_write_candidate(struct kp_run *r, long id, const char *lang, const char *source)
{
	struct kp_buf path = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_path_join(&path, r->dir, "candidates");
	if (!kp_mkdir_p(path.buf, 0755, &err)) {
		kp_buf_addf(&path, "/%ld.%s", id, kp__run_kind(r, lang)->ext);
		kp_write_file_atomic(path.buf, source, strlen(source), &err);
	}
	if (err.code)
		kp_warn("%s (a copy for reading: the run database keeps the source)", kp_error_msg(&err));
	kp_buf_release(&path);
}

/* candidates/N.* for every version the database holds and the directory lacks (a write failed earlier). */
static void restore_candidates(struct kp_run *r)
{
	struct kp_node_row *rows = NULL;
	size_t n = 0;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf path = KP_BUF_INIT, src = KP_BUF_INIT;
	char lang[16];

	if (kp_store_nodes_load(r->store, &rows, &n, &err))
		return;
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].parent)
			continue;
		kp_buf_reset(&path);
		kp_path_join(&path, r->dir, "candidates");
		kp_buf_addf(&path, "/%ld.%s", rows[i].id, kp__run_kind(r, NULL)->ext);
		if (kp_path_exists(path.buf))
			continue;
		kp_buf_reset(&src);
		if (!kp_store_candidate_get(r->store, rows[i].id, &src, lang, &err))
			kp__run_write_candidate(r, rows[i].id, lang, src.buf);
		kp_error_clear(&err);
	}
	free(rows);
	kp_buf_release(&path);
	kp_buf_release(&src);
}

/* best.*: rewritten (and synced) only when the best changed. */
static int write_best(struct kp_run *r, const json_t *best, struct kp_error *err)
{
	struct kp_buf path = KP_BUF_INIT, src = KP_BUF_INIT, old = KP_BUF_INIT;
	struct kp_error ignore = KP_ERROR_INIT;
	const char *file = kp_json_str(best, "file", NULL);
	int rc;

	if (!file)
		return 0;
	rc = kp_store_candidate_get(r->store, (long)kp_json_int(best, "node", 0), &src, NULL, err);
	if (!rc) {
		kp_path_join(&path, r->dir, file);
		if (kp_read_file(path.buf, src.len + 1, &old, &ignore) || old.len != src.len ||
		    memcmp(old.buf, src.buf, src.len))
			rc = kp_write_file_atomic(path.buf, src.buf, src.len, err);
	}
	kp_buf_release(&path);
	kp_buf_release(&src);
	kp_buf_release(&old);
	return rc;
}

int kp__run_write_outputs(struct kp_run *r, struct kp_error *err)
{
	json_t *sum = NULL;
	struct kp_buf path = KP_BUF_INIT;
	int rc = summary(r, 0, &sum, err);

	if (rc)
		return rc;
	rc = write_best(r, json_object_get(sum, "best"), err);
	if (!rc) {
		kp_path_join(&path, r->dir, "summary.json");
		rc = kp_json_write_file(path.buf, sum, err);
	}
	json_decref(sum);
	kp_buf_release(&path);
	return rc;
}

int kp_run_write_files(struct kp_run *r, struct kp_error *err)
{
	restore_candidates(r);
	return kp__run_write_outputs(r, err);
}
