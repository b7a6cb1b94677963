/*
 * The optimize loop and the run database: a session's tree loaded from it, dirty nodes written back
 * with each commit (closed ones recorded in search memory), the root created (with a given version)
 * and the reference evaluated and recorded (Stage 1). On the loop's thread. docs/internals/search.md.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/search.h"
#include "kernelpro/str.h"
#include "search/loop_int.h"

/* ---- persistence helpers ---------------------------------------------------------------------------- */

/* Writes back every dirty node and records newly closed ones in search memory. Inside a transaction. */
static int flush_nodes(struct loop *L, struct kp_error *err)
{
	for (size_t i = 0; i < L->tree.count; i++) {
		struct kp_tnode *n = &L->tree.n[i];
		struct kp_node_row row;
		int rc;
		if (!n->dirty)
			continue;
		rc = kp_store_node_get(L->st, n->id, &row, err);
		if (!rc) {
			kp_tree_to_row(&L->tree, (int)i, &row);
			rc = kp_store_node_update(L->st, &row, err);
		}
		if (!rc && n->dead && !n->dead_noted) {
			struct kp_buf log = KP_BUF_INIT;
			rc = kp_store_eval_text(L->st, n->id, &log, NULL, NULL, err);
			if (!rc)
				rc = kp_memory_dead_end(&L->mem, &L->tree, (int)i, row.summary, log.buf, err);
			kp_buf_release(&log);
			if (!rc) {
				n->dead_noted = 1;
				kp__loop_note(L, "closed #%ld: %s", n->id, kp_dead_reason_text(n->dead));
			}
		}
		if (rc)
			return rc;
	}
	return 0;
}

int kp__loop_commit(struct loop *L, struct kp_error *err)
{
	int rc = flush_nodes(L, err);
	if (!rc)
		rc = kp_store_session_touch(L->st, L->session, kp__loop_session_elapsed(L), err);
	if (!rc)
		rc = kp_store_commit(L->st, err);
	else
		kp_store_rollback(L->st);
	if (!rc)
		kp_tree_clear_dirty(&L->tree);
	return rc;
}

/* Ends the open transaction: commits it (kp__loop_commit) when rc is 0, else rolls it back and returns rc. */
int kp__loop_end_tx(struct loop *L, int rc, struct kp_error *err)
{
	if (rc) {
		kp_store_rollback(L->st);
		return rc;
	}
	return kp__loop_commit(L, err);
}

/* An evaluation was committed (or the session ends): whoever keeps files beside the database hears of it. */
void kp__loop_evaluated(struct loop *L)
{
	if (L->run->evaluated)
		L->run->evaluated(L->run->ud);
}

/* What one evaluation wrote to the database: the evaluator's judgement of node `id`. */
struct kp_eval_row kp__loop_eval_row(long id, const struct kp_search_eval *res, double ref_time_ms,
                                     double speedup)
{
	return (struct kp_eval_row){.node = id, .outcome = res->outcome, .time_ms = res->time_ms,
				    .time_std_ms = res->time_std_ms, .ref_time_ms = ref_time_ms, .speedup = speedup,
				    .energy_j = res->energy_j, .wall_s = res->wall_s, .log = res->log,
				    .verdict_json = res->verdict_json, .profile_json = res->profile_json,
				    .feedback = res->feedback, .findings_json = res->findings_json};
}

/* ---- the reference (root) ---------------------------------------------------------------------------- */

/* A new run's given version (optimize --from): the root's first child, added with the root. */
static int insert_seed(struct loop *L, long root, struct kp_node_row *seed, struct kp_error *err)
{
	const struct kp_search_run *run = L->run;
	kp_node_row_init(seed);
	seed->parent = root;
	seed->kind = KP_NODE_GIVEN;
	seed->depth = 1;
	kp_strlcpy(seed->format, kp_search_version_format(run->task, NULL, run->seed_source),
	           sizeof(seed->format));
	snprintf(seed->summary, sizeof(seed->summary), "given: %s",
	         run->seed_name ? run->seed_name : "a version");
	return kp_store_node_insert(L->st, seed, run->task->kind->lang, run->seed_source, err);
}

int kp__loop_setup_root(struct loop *L, struct kp_error *err)
{
	struct kp_node_row row, seed;
	struct kp_search_eval res;
	struct kp_eval_row er;
	int rc, idx;

	if (!L->tree.count) {
		kp_node_row_init(&row);
		row.kind = KP_NODE_ROOT;
		snprintf(row.summary, sizeof(row.summary), "the reference");
		rc = kp_store_begin(L->st, err);
		if (!rc)
			rc = kp_store_node_insert(L->st, &row, L->run->task->kind->lang, L->run->task->reference_source, err);
		if (!rc && L->run->seed_source)
			rc = insert_seed(L, row.id, &seed, err);
		if (!rc)
			rc = kp_store_commit(L->st, err);
		else
			kp_store_rollback(L->st);
		if (rc)
			return rc;
		kp_tree_add(&L->tree, &row);
		if (L->run->seed_source) {
			kp_tree_add(&L->tree, &seed);
			L->tree.n[0].expansions = 1;
			L->tree.n[0].dirty = 1; /* written with the reference's evaluation */
			kp__loop_queue(L, seed.id, L->run->seed_source);
			kp__loop_note(L, "#%ld: %s", seed.id, seed.summary);
		}
	}
	if (L->tree.n[0].evaluated)
		return 0;
	kp__loop_report(L, "reference");
	kp__loop_note(L, "timing and profiling the reference (Stage 1)");
	kp_search_eval_init(&res);
	rc = L->run->evaluator->reference(L->run->evaluator, &res, err);
	if (rc)
		goto out;
	if (res.outcome != KP_OUTCOME_CORRECT) {
		rc = kp_error_set(err, KP_EINVAL, "the reference itself did not pass its own check (%s)%s%s; fix the task first",
				  kp_outcome_name(res.outcome), res.log ? ": " : "", res.log ? res.log : "");
		goto out;
	}
	idx = 0;
	kp_tree_record(&L->tree, &L->run->params, idx, KP_OUTCOME_CORRECT, 1.0, res.energy_j);
	L->tree.n[idx].time_ms = res.time_ms;
	er = kp__loop_eval_row(L->tree.n[0].id, &res, res.time_ms, 1.0);
	rc = kp_store_begin(L->st, err);
	if (!rc)
		rc = kp_store_eval_insert(L->st, &er, L->session, err);
	if (!rc && isfinite(res.gpu_s))
		rc = kp_store_counter_add(L->st, "gpu_busy_s", res.gpu_s, err);
	if (!rc)
		rc = kp_store_meta_set(L->st, "stage1", res.stage1 ? res.stage1 : "", err);
	if (!rc)
		rc = kp_store_meta_set(L->st, "hardware", res.hardware ? res.hardware : "", err);
	rc = kp__loop_end_tx(L, rc, err);
	if (!rc) {
		free(L->stage1);
		free(L->hardware);
		L->stage1 = res.stage1 ? kp_xstrdup(res.stage1) : NULL;
		L->hardware = res.hardware ? kp_xstrdup(res.hardware) : NULL;
		kp__loop_note(L, "reference: %.4g ms", res.time_ms);
	}
out:
	kp_search_eval_release(&res);
	return rc;
}

/* ---- a session's tree ------------------------------------------------------------------------------ */

int kp__loop_load(struct loop *L, struct kp_error *err)
{
	struct kp_node_row *rows = NULL;
	size_t n = 0;
	struct kp_buf b = KP_BUF_INIT;
	int rc = kp_store_nodes_load(L->st, &rows, &n, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		kp_tree_add(&L->tree, &rows[i]);
		if (rows[i].parent > 0 && !rows[i].evaluated) {
			KP_ALLOC_GROW(L->evalq, L->nevalq + 1, L->evalq_alloc);
			L->evalq[L->nevalq++] = rows[i].id;
		}
	}
	free(rows);
	kp_tree_update_best(&L->tree, &L->run->params);
	/* Which correct versions are profiled: the others are profiled on demand (nothing is lost by a kill).
	 */
	for (size_t i = 1; i < L->tree.count && L->run->evaluator->profile; i++) {
		int yes = 0;
		if (L->tree.n[i].outcome == KP_OUTCOME_CORRECT &&
		    (rc = kp_store_profile_exists(L->st, L->tree.n[i].id, &yes, err)))
			return rc;
		L->tree.n[i].profiled = yes ? 1 : 0;
	}
	if (!kp_store_meta_get(L->st, "stage1", &b, err))
		L->stage1 = kp_buf_detach(&b, NULL);
	kp_error_clear(err);
	if (!kp_store_meta_get(L->st, "hardware", &b, err))
		L->hardware = kp_buf_detach(&b, NULL);
	kp_error_clear(err);
	kp_buf_release(&b);
	if (L->tree.count && !kp_store_candidate_get(L->st, L->tree.n[0].id, &b, NULL, err))
		L->reference = kp_buf_detach(&b, NULL);
	else
		L->reference = kp_xstrdup(L->run->task->reference_source ? L->run->task->reference_source : "");
	kp_error_clear(err);
	kp_buf_release(&b);
	return kp__tune_load(L, err);
}
