/* The run database's rows of the tune action (schema 4): the versions tuned, and each variant's result. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/log.h"
#include "kernelpro/store.h"
#include "kernelpro/str.h"
#include "store/store_int.h"

/* The schema that added the tune action's tables: an older file has none (read-only opens keep it). */
#define SCHEMA_TUNE 4

int kp_store_tuning_begin(struct kp_store *s, const struct kp_tuning_row *r, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc =
	    kp__store_prepare(s,
	                      "INSERT INTO tunings(node_id, session, status, strategy, budget, seed, derive, "
	                      "started) VALUES(?1, ?2, 'running', ?3, ?4, ?5, ?6, ?7) "
	                      "ON CONFLICT(node_id) DO NOTHING",
	                      &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, r->node);
	if (r->session > 0)
		sqlite3_bind_int64(st, 2, r->session);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_text(st, 3, r->strategy ? r->strategy : "auto", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, r->budget);
	sqlite3_bind_int64(st, 5, r->seed);
	kp__store_bind_text(st, 6, r->derive);
	sqlite3_bind_double(st, 7, r->started ? r->started : kp_wall_time());
	rc = kp__store_step_done(s, st, "recording a tune action", err);
	if (!rc && sqlite3_changes(s->db) != 1)
		rc = kp_error_set(err, KP_EEXISTS,
		                  "run database '%s': #%ld was tuned before (a version is tuned once)",
		                  s->path, r->node);
	return rc;
}

int kp_store_tuning_end(struct kp_store *s, const struct kp_tuning_row *r, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(
	    s,
	    "UPDATE tunings SET status = ?2, strategy = ?3, gpu = ?4, space_json = ?5, "
	    "trials_json = ?6, children_json = ?7, untuned_point = ?8, untuned_ms = ?9, "
	    "best_point = ?10, best_ms = ?11, trials = ?12, evaluated = ?13, cache_hits = ?14, "
	    "wall_s = ?15, gpu_s = ?16, note = ?17, ended = ?18 WHERE node_id = ?1",
	    &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, r->node);
	sqlite3_bind_text(st, 2, r->status ? r->status : "done", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, r->strategy ? r->strategy : "auto", -1, SQLITE_TRANSIENT);
	kp__store_bind_text(st, 4, r->gpu);
	kp__store_bind_text(st, 5, r->space_json);
	kp__store_bind_text(st, 6, r->trials_json);
	kp__store_bind_text(st, 7, r->children_json);
	kp__store_bind_text(st, 8, r->untuned_point);
	kp__store_bind_real(st, 9, r->untuned_ms);
	kp__store_bind_text(st, 10, r->best_point);
	kp__store_bind_real(st, 11, r->best_ms);
	sqlite3_bind_int64(st, 12, r->trials);
	sqlite3_bind_int64(st, 13, r->evaluated);
	sqlite3_bind_int64(st, 14, r->cache_hits);
	kp__store_bind_real(st, 15, r->wall_s);
	kp__store_bind_real(st, 16, r->gpu_s);
	kp__store_bind_text(st, 17, r->note);
	kp__store_bind_real(st, 18, r->ended ? r->ended : kp_wall_time());
	rc = kp__store_step_done(s, st, "recording what a tune action found", err);
	if (!rc && sqlite3_changes(s->db) != 1)
		rc = kp_error_set(err, KP_ENOENT, "run database '%s': #%ld has no tune action to finish",
		                  s->path, r->node);
	return rc;
}

int kp_store_tunings_each(struct kp_store *s, int (*fn)(const struct kp_tuning_row *r, void *ud), void *ud,
                          struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (s->version < SCHEMA_TUNE)
		return 0;
	rc = kp__store_prepare(
	    s,
	    "SELECT node_id, IFNULL(session, 0), status, strategy, budget, seed, derive, gpu, "
	    "space_json, trials_json, children_json, untuned_point, untuned_ms, best_point, best_ms, "
	    "trials, evaluated, cache_hits, wall_s, gpu_s, note, started, IFNULL(ended, 0) "
	    "FROM tunings ORDER BY started, node_id",
	    &st, err);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kp_tuning_row r = {
		    .node = (long)sqlite3_column_int64(st, 0),
		    .session = (long)sqlite3_column_int64(st, 1),
		    .status = (const char *)sqlite3_column_text(st, 2),
		    .strategy = (const char *)sqlite3_column_text(st, 3),
		    .budget = (long)sqlite3_column_int64(st, 4),
		    .seed = (long long)sqlite3_column_int64(st, 5),
		    .derive = (const char *)sqlite3_column_text(st, 6),
		    .gpu = (const char *)sqlite3_column_text(st, 7),
		    .space_json = (const char *)sqlite3_column_text(st, 8),
		    .trials_json = (const char *)sqlite3_column_text(st, 9),
		    .children_json = (const char *)sqlite3_column_text(st, 10),
		    .untuned_point = (const char *)sqlite3_column_text(st, 11),
		    .untuned_ms = kp__store_col_real(st, 12),
		    .best_point = (const char *)sqlite3_column_text(st, 13),
		    .best_ms = kp__store_col_real(st, 14),
		    .trials = (long)sqlite3_column_int64(st, 15),
		    .evaluated = (long)sqlite3_column_int64(st, 16),
		    .cache_hits = (long)sqlite3_column_int64(st, 17),
		    .wall_s = kp__store_col_real(st, 18),
		    .gpu_s = kp__store_col_real(st, 19),
		    .note = (const char *)sqlite3_column_text(st, 20),
		    .started = sqlite3_column_double(st, 21),
		    .ended = sqlite3_column_double(st, 22),
		};
		if (fn(&r, ud)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	rc = rc == SQLITE_DONE ? 0 : kp__store_fail(s, "reading the tune actions", err);
	sqlite3_finalize(st);
	return rc;
}

int kp_store_tune_result_put(struct kp_store *s, const char *space, const char *point, const char *gpu,
                             long node, const char *status, double seconds, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(
	    s,
	    "INSERT OR REPLACE INTO tune_results(space, point, gpu, node_id, status, seconds, "
	    "created) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	    &st, err);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, space ? space : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, point ? point : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, gpu ? gpu : "", -1, SQLITE_TRANSIENT);
	if (node > 0)
		sqlite3_bind_int64(st, 4, node);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_text(st, 5, status ? status : "", -1, SQLITE_TRANSIENT);
	kp__store_bind_real(st, 6, seconds);
	sqlite3_bind_double(st, 7, kp_wall_time());
	return kp__store_step_done(s, st, "saving a variant's result", err);
}

int kp_store_tune_result_get(struct kp_store *s, const char *space, const char *point, const char *gpu,
                             char status[16], double *seconds, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (s->version < SCHEMA_TUNE)
		return 0;
	rc = kp__store_prepare(
	    s, "SELECT status, seconds FROM tune_results WHERE space = ?1 AND point = ?2 AND gpu = ?3", &st,
	    err);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, space ? space : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, point ? point : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, gpu ? gpu : "", -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		kp_strlcpy(status, (const char *)sqlite3_column_text(st, 0), 16);
		*seconds = kp__store_col_real(st, 1);
		rc = 1;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = kp__store_fail(s, "reading a variant's result", err);
	}
	sqlite3_finalize(st);
	return rc;
}
