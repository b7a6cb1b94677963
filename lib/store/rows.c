/* The run database's rows: nodes and their candidates, evaluations, prompts and replies, search memory. */
#include "base/setup.h"

#include <jansson.h>
#include <math.h>

#include "kernelpro/fault.h"
#include "kernelpro/hash.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/store.h"
#include "kernelpro/str.h"
#include "store/store_int.h"

void kp_node_row_init(struct kp_node_row *r)
{
	memset(r, 0, sizeof(*r));
	r->outcome = KP_OUTCOME_NONE;
	r->speedup = r->time_ms = r->energy_j = r->reward = r->max_r = NAN;
}

/* ---- nodes ----------------------------------------------------------------------------------- */

int kp_store_node_insert(struct kp_store *s, struct kp_node_row *r, const char *lang, const char *source,
			 struct kp_error *err)
{
	sqlite3_stmt *st;
	char hex[KP_SHA256_HEX_LEN + 1];
	int rc;

	if (!r->created)
		r->created = kp_wall_time();
	rc = kp__store_prepare(s, "INSERT INTO nodes(parent, kind, depth, fail_depth, created, summary) "
				  "VALUES(?1, ?2, ?3, ?4, ?5, ?6)", &st, err);
	if (rc)
		return rc;
	if (r->parent > 0)
		sqlite3_bind_int64(st, 1, r->parent);
	else
		sqlite3_bind_null(st, 1);
	sqlite3_bind_int(st, 2, r->kind);
	sqlite3_bind_int(st, 3, r->depth);
	sqlite3_bind_int(st, 4, r->fail_depth);
	sqlite3_bind_double(st, 5, r->created);
	kp__store_bind_text(st, 6, r->summary[0] ? r->summary : NULL);
	rc = kp__store_step_done(s, st, "adding a node", err);
	if (rc)
		return rc;
	r->id = (long)sqlite3_last_insert_rowid(s->db);
	if (!source)
		return 0;
	kp_sha256_hex(source, strlen(source), hex);
	rc = kp__store_prepare(s, "INSERT INTO candidates(node_id, lang, sha256, source, format) "
				  "VALUES(?1, ?2, ?3, ?4, ?5)",
			       &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, r->id);
	sqlite3_bind_text(st, 2, lang ? lang : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, hex, -1, SQLITE_TRANSIENT);
	kp__store_bind_text(st, 4, source ? source : "");
	kp__store_bind_text(st, 5, r->format[0] ? r->format : NULL);
	return kp__store_step_done(s, st, "saving a candidate", err);
}

int kp_store_node_update(struct kp_store *s, const struct kp_node_row *r, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "UPDATE nodes SET evaluated = ?2, outcome = ?3, speedup = ?4, time_ms = ?5, "
				      "energy_j = ?6, reward = ?7, visits = ?8, sum_r = ?9, max_r = ?10, "
				      "expansions = ?11, dead = ?12, fail_depth = ?13 WHERE id = ?1", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, r->id);
	sqlite3_bind_int(st, 2, r->evaluated);
	sqlite3_bind_int(st, 3, r->outcome);
	kp__store_bind_real(st, 4, r->speedup);
	kp__store_bind_real(st, 5, r->time_ms);
	kp__store_bind_real(st, 6, r->energy_j);
	kp__store_bind_real(st, 7, r->reward);
	sqlite3_bind_int64(st, 8, r->visits);
	sqlite3_bind_double(st, 9, r->sum_r);
	kp__store_bind_real(st, 10, r->max_r);
	sqlite3_bind_int(st, 11, r->expansions);
	sqlite3_bind_int(st, 12, r->dead);
	sqlite3_bind_int(st, 13, r->fail_depth);
	rc = kp__store_step_done(s, st, "updating a node", err);
	if (!rc && sqlite3_changes(s->db) != 1)
		rc = kp_error_set(err, KP_ENOENT, "run database '%s': no node #%ld", s->path, r->id);
	return rc;
}

#define NODE_COLUMNS(format)                                                                       \
	"id, IFNULL(parent, 0), kind, depth, evaluated, outcome, speedup, time_ms, energy_j, reward, " \
	"visits, sum_r, max_r, fail_depth, expansions, dead, created, IFNULL(summary, ''), " format
#define FORMAT_COLUMN "IFNULL((SELECT format FROM candidates c WHERE c.node_id = nodes.id), '')"

/* The schema that added candidates.format. */
#define SCHEMA_FORMAT 3

/*
 * The node reads, [0] for a schema without candidates.format (a read-only open of an older run),
 * whose versions read as having no format, as rows written before it do.
 */
#define NODE_SELECTS(tail)                                                                         \
	{"SELECT " NODE_COLUMNS("''") " FROM nodes " tail,                                         \
	 "SELECT " NODE_COLUMNS(FORMAT_COLUMN) " FROM nodes " tail}
static const char *const node_by_id[2] = NODE_SELECTS("WHERE id = ?1");
static const char *const nodes_all[2] = NODE_SELECTS("ORDER BY id");

static void node_from_row(sqlite3_stmt *st, struct kp_node_row *r)
{
	kp_node_row_init(r);
	r->id = (long)sqlite3_column_int64(st, 0);
	r->parent = (long)sqlite3_column_int64(st, 1);
	r->kind = (enum kp_node_kind)sqlite3_column_int(st, 2);
	r->depth = sqlite3_column_int(st, 3);
	r->evaluated = sqlite3_column_int(st, 4);
	r->outcome = (enum kp_outcome)sqlite3_column_int(st, 5);
	r->speedup = kp__store_col_real(st, 6);
	r->time_ms = kp__store_col_real(st, 7);
	r->energy_j = kp__store_col_real(st, 8);
	r->reward = kp__store_col_real(st, 9);
	r->visits = (long)sqlite3_column_int64(st, 10);
	r->sum_r = sqlite3_column_double(st, 11);
	r->max_r = kp__store_col_real(st, 12);
	r->fail_depth = sqlite3_column_int(st, 13);
	r->expansions = sqlite3_column_int(st, 14);
	r->dead = (enum kp_dead_reason)sqlite3_column_int(st, 15);
	r->created = sqlite3_column_double(st, 16);
	kp_strlcpy(r->summary, (const char *)sqlite3_column_text(st, 17), sizeof(r->summary));
	kp_strlcpy(r->format, (const char *)sqlite3_column_text(st, 18), sizeof(r->format));
}

int kp_store_node_get(struct kp_store *s, long id, struct kp_node_row *r, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, node_by_id[s->version >= SCHEMA_FORMAT], &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		node_from_row(st, r);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = kp_error_set(err, KP_ENOENT, "run database '%s': no node #%ld", s->path, id);
	} else {
		rc = kp__store_fail(s, "reading a node", err);
	}
	sqlite3_finalize(st);
	return rc;
}

int kp_store_nodes_load(struct kp_store *s, struct kp_node_row **rows, size_t *n, struct kp_error *err)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc = kp__store_prepare(s, nodes_all[s->version >= SCHEMA_FORMAT], &st, err);

	*rows = NULL;
	*n = 0;
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		KP_ALLOC_GROW(*rows, *n + 1, alloc);
		node_from_row(st, &(*rows)[(*n)++]);
	}
	if (rc != SQLITE_DONE) {
		rc = kp__store_fail(s, "reading the nodes", err);
		free(*rows);
		*rows = NULL;
		*n = 0;
	} else {
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int kp_store_candidate_get(struct kp_store *s, long node, struct kp_buf *out, char lang[16], struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "SELECT source, lang FROM candidates WHERE node_id = ?1", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, node);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		kp_buf_add(out, sqlite3_column_text(st, 0), (size_t)sqlite3_column_bytes(st, 0));
		if (lang)
			snprintf(lang, 16, "%s", (const char *)sqlite3_column_text(st, 1));
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = kp_error_set(err, KP_ENOENT, "run database '%s': node #%ld has no candidate source", s->path,
				  node);
	} else {
		rc = kp__store_fail(s, "reading a candidate", err);
	}
	sqlite3_finalize(st);
	return rc;
}

/* ---- evaluations --------------------------------------------------------------------------------- */

/* One findings row per element of the tools' findings array; anything else is kept as one raw row. */
static int insert_findings(struct kp_store *s, long node, const char *findings_json, struct kp_error *err)
{
	json_t *arr = json_loads(findings_json, 0, NULL);
	sqlite3_stmt *st = NULL;
	size_t count = json_is_array(arr) ? json_array_size(arr) : 1;
	int rc = 0;

	for (size_t i = 0; i < count && !rc; i++) {
		json_t *f = json_is_array(arr) ? json_array_get(arr, i) : NULL;
		char *text = f ? json_dumps(f, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
		rc = kp__store_prepare(s, "INSERT INTO findings(node_id, seq, tool, severity, title, json) "
					  "VALUES(?1, ?2, ?3, ?4, ?5, ?6)", &st, err);
		if (!rc) {
			const char *tool = kp_json_str(f, "tool", NULL);
			sqlite3_bind_int64(st, 1, node);
			sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
			kp__store_bind_text(st, 3, tool ? tool : kp_json_str(f, "id", NULL));
			kp__store_bind_text(st, 4, kp_json_str(f, "severity", NULL));
			kp__store_bind_text(st, 5, kp_json_str(f, "title", NULL));
			kp__store_bind_text(st, 6, text ? text : findings_json);
			rc = kp__store_step_done(s, st, "saving a finding", err);
		}
		free(text);
	}
	json_decref(arr);
	return rc;
}

static int insert_text_row(struct kp_store *s, const char *sql, long node, const char *text, const char *what,
			   struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, sql, &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, node);
	kp__store_bind_text(st, 2, text ? text : "");
	return kp__store_step_done(s, st, what, err);
}

/* A node's profile summary, feedback and findings (each skipped when NULL; profile and feedback replaced). */
static int put_diagnosis(struct kp_store *s, long node, const char *profile_json, const char *feedback,
                         const char *findings_json, struct kp_error *err)
{
	int rc = 0;
	if (profile_json)
		rc = insert_text_row(s, "INSERT OR REPLACE INTO profiles(node_id, json) VALUES(?1, ?2)", node,
		                     profile_json, "saving a profile", err);
	if (!rc && feedback)
		rc = insert_text_row(s, "INSERT OR REPLACE INTO feedback(node_id, text) VALUES(?1, ?2)", node,
		                     feedback, "saving feedback", err);
	if (!rc && findings_json)
		rc = insert_findings(s, node, findings_json, err);
	return rc;
}

int kp_store_eval_insert(struct kp_store *s, const struct kp_eval_row *r, long session, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "INSERT INTO evaluations(node_id, session, outcome, time_ms, time_std_ms, "
				      "ref_time_ms, speedup, energy_j, wall_s, log, verdict_json, created) "
				      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, r->node);
	if (session > 0)
		sqlite3_bind_int64(st, 2, session);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_int(st, 3, r->outcome);
	kp__store_bind_real(st, 4, r->time_ms);
	kp__store_bind_real(st, 5, r->time_std_ms);
	kp__store_bind_real(st, 6, r->ref_time_ms);
	kp__store_bind_real(st, 7, r->speedup);
	kp__store_bind_real(st, 8, r->energy_j);
	kp__store_bind_real(st, 9, r->wall_s);
	kp__store_bind_text(st, 10, r->log);
	kp__store_bind_text(st, 11, r->verdict_json);
	sqlite3_bind_double(st, 12, kp_wall_time());
	rc = kp__store_step_done(s, st, "saving an evaluation", err);
	if (!rc)
		rc = put_diagnosis(s, r->node, r->profile_json, r->feedback, r->findings_json, err);
	return rc;
}

int kp_store_profile_put(struct kp_store *s, long node, const char *profile_json, const char *feedback,
                         const char *findings_json, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = 0;
	if (findings_json &&
	    !(rc = kp__store_prepare(s, "DELETE FROM findings WHERE node_id = ?1", &st, err))) {
		sqlite3_bind_int64(st, 1, node);
		rc = kp__store_step_done(s, st, "replacing findings", err);
	}
	return rc ? rc : put_diagnosis(s, node, profile_json, feedback, findings_json, err);
}

int kp_store_profile_exists(struct kp_store *s, long node, int *yes, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "SELECT 1 FROM profiles WHERE node_id = ?1", &st, err), step;
	*yes = 0;
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, node);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		*yes = 1;
	else if (step != SQLITE_DONE)
		rc = kp__store_fail(s, "reading a profile", err);
	sqlite3_finalize(st);
	return rc;
}

static void add_column_text(struct kp_buf *b, sqlite3_stmt *st, int i)
{
	if (b && sqlite3_column_type(st, i) != SQLITE_NULL)
		kp_buf_add(b, sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
}

int kp_store_eval_text(struct kp_store *s, long node, struct kp_buf *log, struct kp_buf *feedback,
		       struct kp_buf *findings_json, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "SELECT (SELECT log FROM evaluations WHERE node_id = ?1 ORDER BY id DESC LIMIT 1), "
				      "(SELECT text FROM feedback WHERE node_id = ?1), "
				      "(SELECT json_group_array(json(json)) FROM "
				      "  (SELECT json FROM findings WHERE node_id = ?1 ORDER BY seq))",
				   &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, node);
	if (sqlite3_step(st) == SQLITE_ROW) {
		add_column_text(log, st, 0);
		add_column_text(feedback, st, 1);
		add_column_text(findings_json, st, 2);
	} else {
		rc = kp__store_fail(s, "reading an evaluation", err);
	}
	sqlite3_finalize(st);
	return rc;
}

#define EVAL_COLUMNS "node_id, outcome, time_ms, time_std_ms, ref_time_ms, speedup, energy_j, wall_s, log, verdict_json"

/* An evaluations row (EVAL_COLUMNS); the strings live as long as the statement's row. */
static void eval_from_row(sqlite3_stmt *st, struct kp_eval_row *r)
{
	memset(r, 0, sizeof(*r));
	r->node = (long)sqlite3_column_int64(st, 0);
	r->outcome = (enum kp_outcome)sqlite3_column_int(st, 1);
	r->time_ms = kp__store_col_real(st, 2);
	r->time_std_ms = kp__store_col_real(st, 3);
	r->ref_time_ms = kp__store_col_real(st, 4);
	r->speedup = kp__store_col_real(st, 5);
	r->energy_j = kp__store_col_real(st, 6);
	r->wall_s = kp__store_col_real(st, 7);
	r->log = (const char *)sqlite3_column_text(st, 8);
	r->verdict_json = (const char *)sqlite3_column_text(st, 9);
}

int kp_store_eval_last(struct kp_store *s, long node, struct kp_eval_row *r, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "SELECT " EVAL_COLUMNS " FROM evaluations WHERE node_id = ?1 ORDER BY id DESC LIMIT 1",
				   &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, node);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		eval_from_row(st, r);
		r->log = r->verdict_json = NULL; /* gone with the statement: kp_store_eval_text has them */
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = kp_error_set(err, KP_ENOENT, "run database '%s': node #%ld has no evaluation", s->path, node);
	} else {
		rc = kp__store_fail(s, "reading an evaluation", err);
	}
	sqlite3_finalize(st);
	return rc;
}

int kp_store_evals_each(struct kp_store *s, int (*fn)(const struct kp_eval_row *r, void *ud), void *ud,
			struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "SELECT " EVAL_COLUMNS " FROM evaluations ORDER BY id", &st, err);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kp_eval_row r;
		eval_from_row(st, &r);
		if (fn(&r, ud)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	rc = rc == SQLITE_DONE ? 0 : kp__store_fail(s, "reading the evaluations", err);
	sqlite3_finalize(st);
	return rc;
}

/* The text of one column of the latest row `sql` selects for node (?1); nothing when there is none. */
static int node_text(struct kp_store *s, const char *sql, long node, const char *what, struct kp_buf *out,
		     struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, sql, &st, err), step;
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, node);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		add_column_text(out, st, 0);
	else if (step != SQLITE_DONE)
		rc = kp__store_fail(s, what, err);
	sqlite3_finalize(st);
	return rc;
}

int kp_store_verdict_get(struct kp_store *s, long node, struct kp_buf *out, struct kp_error *err)
{
	return node_text(s, "SELECT verdict_json FROM evaluations WHERE node_id = ?1 ORDER BY id DESC LIMIT 1", node,
			 "reading a verdict", out, err);
}

int kp_store_profile_get(struct kp_store *s, long node, struct kp_buf *out, struct kp_error *err)
{
	return node_text(s, "SELECT json FROM profiles WHERE node_id = ?1", node, "reading a profile", out, err);
}

/* ---- prompts and replies ---------------------------------------------------------------------------- */

int kp_store_exchange_insert(struct kp_store *s, const struct kp_exchange_row *r, struct kp_error *err)
{
	sqlite3_stmt *st;
	char hex[KP_SHA256_HEX_LEN + 1];
	double now = kp_wall_time();
	long prompt_id;
	int rc;

	kp_sha256_hex(r->prompt, strlen(r->prompt), hex);
	rc = kp__store_prepare(s, "INSERT INTO prompts(parent_id, node_id, mode, round, sha256, text, created) "
				  "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, r->parent);
	if (r->node > 0)
		sqlite3_bind_int64(st, 2, r->node);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_text(st, 3, r->mode ? r->mode : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, r->round);
	sqlite3_bind_text(st, 5, hex, -1, SQLITE_TRANSIENT);
	kp__store_bind_text(st, 6, r->prompt ? r->prompt : "");
	sqlite3_bind_double(st, 7, now);
	rc = kp__store_step_done(s, st, "saving a prompt", err);
	if (rc)
		return rc;
	prompt_id = (long)sqlite3_last_insert_rowid(s->db);
	rc = kp__store_prepare(s, "INSERT INTO responses(prompt_id, text, error, tokens_in, tokens_out, cost, "
				  "latency_s, created) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, prompt_id);
	kp__store_bind_text(st, 2, r->reply);
	kp__store_bind_text(st, 3, r->error);
	sqlite3_bind_int64(st, 4, r->tokens_in);
	sqlite3_bind_int64(st, 5, r->tokens_out);
	sqlite3_bind_double(st, 6, r->cost);
	kp__store_bind_real(st, 7, r->latency_s);
	sqlite3_bind_double(st, 8, now);
	return kp__store_step_done(s, st, "saving a reply", err);
}

int kp_store_exchanges_each(struct kp_store *s, long node, int (*fn)(const struct kp_exchange_row *r, void *ud),
			    void *ud, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "SELECT p.parent_id, IFNULL(p.node_id, 0), p.mode, p.round, p.text, r.text, r.error, "
				      "r.tokens_in, r.tokens_out, r.cost, r.latency_s FROM prompts p "
				      "JOIN responses r ON r.prompt_id = p.id WHERE ?1 = 0 OR p.node_id = ?1 ORDER BY p.id",
				   &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, node);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kp_exchange_row r = {
			.parent = (long)sqlite3_column_int64(st, 0),
			.node = (long)sqlite3_column_int64(st, 1),
			.mode = (const char *)sqlite3_column_text(st, 2),
			.round = sqlite3_column_int(st, 3),
			.prompt = (const char *)sqlite3_column_text(st, 4),
			.reply = (const char *)sqlite3_column_text(st, 5),
			.error = (const char *)sqlite3_column_text(st, 6),
			.tokens_in = (long)sqlite3_column_int64(st, 7),
			.tokens_out = (long)sqlite3_column_int64(st, 8),
			.cost = sqlite3_column_double(st, 9),
			.latency_s = kp__store_col_real(st, 10),
		};
		if (fn(&r, ud)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	rc = rc == SQLITE_DONE ? 0 : kp__store_fail(s, "reading prompts and replies", err);
	sqlite3_finalize(st);
	return rc;
}

/* ---- search memory ------------------------------------------------------------------------------------ */

int kp_store_memory_add(struct kp_store *s, struct kp_store_memory_row *r, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp_fault(KP_FAULT_SQLITE_WRITE, "saving search memory", err);
	if (rc)
		return rc;
	rc = kp__store_prepare(s, "INSERT INTO memory(family, kind, key, text, outcome, gain, node_id, run, created, wins) "
				      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?5 = 1) "
				      "ON CONFLICT DO UPDATE SET outcome = excluded.outcome, tries = tries + 1, "
				      "wins = wins + excluded.wins, gain = CASE WHEN gain IS NULL OR excluded.gain > gain "
				      "THEN excluded.gain ELSE gain END "
				      "RETURNING id, tries, wins",
				   &st, err);
	if (rc)
		return rc;
	kp__store_bind_text(st, 1, r->family);
	sqlite3_bind_int(st, 2, r->kind);
	sqlite3_bind_text(st, 3, r->key ? r->key : "", -1, SQLITE_TRANSIENT);
	kp__store_bind_text(st, 4, r->text ? r->text : "");
	sqlite3_bind_int(st, 5, r->outcome);
	kp__store_bind_real(st, 6, r->gain);
	if (r->node > 0)
		sqlite3_bind_int64(st, 7, r->node);
	else
		sqlite3_bind_null(st, 7);
	kp__store_bind_text(st, 8, r->run);
	sqlite3_bind_double(st, 9, r->created ? r->created : kp_wall_time());
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		r->id = (long)sqlite3_column_int64(st, 0);
		r->tries = sqlite3_column_int(st, 1);
		r->wins = sqlite3_column_int(st, 2);
		rc = 0;
	} else {
		rc = kp__store_fail(s, "saving search memory", err);
	}
	sqlite3_finalize(st);
	return rc;
}

int kp_store_memory_each(struct kp_store *s, const char *family,
			 int (*fn)(const struct kp_store_memory_row *r, void *ud), void *ud, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "SELECT id, kind, outcome, family, key, text, gain, IFNULL(node_id, 0), run, "
				      "created, tries, wins FROM memory WHERE ?1 IS NULL OR family IS NULL OR family = ?1 ORDER BY id",
				   &st, err);
	if (rc)
		return rc;
	kp__store_bind_text(st, 1, family);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kp_store_memory_row r = {
			.id = (long)sqlite3_column_int64(st, 0),
			.kind = (enum kp_store_memory_kind)sqlite3_column_int(st, 1),
			.outcome = (enum kp_store_memory_outcome)sqlite3_column_int(st, 2),
			.family = (const char *)sqlite3_column_text(st, 3),
			.key = (const char *)sqlite3_column_text(st, 4),
			.text = (const char *)sqlite3_column_text(st, 5),
			.gain = kp__store_col_real(st, 6),
			.node = (long)sqlite3_column_int64(st, 7),
			.run = (const char *)sqlite3_column_text(st, 8),
			.created = sqlite3_column_double(st, 9),
			.tries = sqlite3_column_int(st, 10),
			.wins = sqlite3_column_int(st, 11),
		};
		if (fn(&r, ud)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	rc = rc == SQLITE_DONE ? 0 : kp__store_fail(s, "reading search memory", err);
	sqlite3_finalize(st);
	return rc;
}
