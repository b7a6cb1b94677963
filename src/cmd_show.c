/* kernelpro show RUN: the best result and the path to it; --tree the search tree; --node N one version in full. */
#include "base/setup.h"

#include <math.h>
#include <sqlite3.h>

#include "cli.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/search.h"
#include "runs.h"

static const struct kp_opt show_opts[] = {
	KP_RUNS_DIR_OPT,
	{"tree", 't', KP_OPT_FLAG, NULL, "print the whole search tree", NULL},
	{"node", 'n', KP_OPT_INT, "ID:1..", "print one version: its source, verdict, feedback, and the prompt that made it", NULL},
	KP_OPT_TABLE_END,
};

static void print_summary(struct kp_cli *cli, json_t *sum)
{
	json_t *used = json_object_get(sum, "used"), *best = json_object_get(sum, "best"), *ref = json_object_get(sum, "reference");
	json_t *search = json_object_get(sum, "search"), *oc = json_object_get(sum, "outcomes");
	char el[32];
	const char *key;
	json_t *v;

	fprintf(cli->out, "run:       %s (%s%s%s)\n", kp_json_str(sum, "run", "?"), kp_json_str(sum, "status", "?"),
		kp_json_str(sum, "end_reason", NULL) ? ": " : "", kp_json_str(sum, "end_reason", ""));
	fprintf(cli->out, "task:      %s (%s)\n", kp_json_str(json_object_get(sum, "task"), "name", "?"),
		kp_json_str(json_object_get(sum, "task"), "path", "?"));
	fprintf(cli->out, "search:    %s, objective %s, backup %s, c=%g\n", kp_json_str(search, "search", "?"),
		kp_json_str(search, "objective", "?"), kp_json_str(search, "backup", "?"), kp_json_num(search, "uct_c", NAN));
	if (!strcmp(kp_json_str(json_object_get(sum, "orchestration"), "mode", "proactive"), "reactive"))
		fprintf(cli->out, "tools:     reactive, at most %lld rounds of requests per version; %lld requests answered\n",
			kp_json_int(json_object_get(sum, "orchestration"), "tool_rounds", 0), kp_json_int(used, "tool_calls", 0));
	fprintf(cli->out, "used:      %lld evaluations, %lld generations (%lld unusable), %lld+%lld tokens, $%.2f, %s in %lld "
			  "session(s)\n",
		kp_json_int(used, "evaluations", 0), kp_json_int(used, "generations", 0),
		kp_json_int(used, "generation_failures", 0), kp_json_int(used, "tokens_in", 0),
		kp_json_int(used, "tokens_out", 0), kp_json_num(used, "cost_usd", 0),
		kp_fmt_duration(kp_json_num(used, "elapsed_s", 0), el, sizeof(el)), kp_json_int(used, "sessions", 0));
	fprintf(cli->out, "outcomes: ");
	json_object_foreach(oc, key, v)
		if (json_integer_value(v))
			fprintf(cli->out, " %s %lld", key, (long long)json_integer_value(v));
	fprintf(cli->out, "\nreference: %.4g ms\n", kp_json_num(ref, "time_ms", NAN));
	if (!json_is_true(json_object_get(best, "improved"))) {
		fprintf(cli->out, "best:      no candidate beat the reference yet\n");
		return;
	}
	fprintf(cli->out, "best:      #%lld, %.2fx (%.4g ms), %s\n", kp_json_int(best, "node", 0),
		kp_json_num(best, "speedup", NAN), kp_json_num(best, "time_ms", NAN), kp_json_str(best, "file", "best.cu"));
	fprintf(cli->out, "path:\n");
	for (size_t i = 0; i < json_array_size(json_object_get(best, "path")); i++) {
		kp_print_path_line(cli->out, json_array_get(json_object_get(best, "path"), i));
	}
}

/* ---- the tree ------------------------------------------------------------------------------------------ */

struct tree_view {
	struct kp_node_row *rows;
	size_t n;
	long best;
};

static void print_node_line(struct kp_cli *cli, const struct tree_view *tv, const struct kp_node_row *r,
			    const char *prefix, const char *branch)
{
	char how[48];
	if (!r->evaluated)
		snprintf(how, sizeof(how), "pending");
	else if (r->outcome == KP_OUTCOME_CORRECT)
		snprintf(how, sizeof(how), "%.2fx", r->parent ? r->speedup : 1.0);
	else
		snprintf(how, sizeof(how), "%s", kp_outcome_name(r->outcome));
	fprintf(cli->out, "%s%s%s#%ld%s %s %s%s%s%s%s  %s\n", prefix, branch, r->id == tv->best ? kp_cli_color(cli, "ok") : "",
		r->id, r->id == tv->best ? "*" : "", kp_node_kind_name(r->kind), how, kp_cli_reset(cli),
		r->dead ? " [closed: " : "", r->dead ? kp_dead_reason_text(r->dead) : "", r->dead ? "]" : "", r->summary);
}

static void print_subtree(struct kp_cli *cli, const struct tree_view *tv, size_t idx, struct kp_buf *prefix)
{
	size_t nchild = 0, seen = 0, len = prefix->len;
	for (size_t i = idx + 1; i < tv->n; i++)
		nchild += tv->rows[i].parent == tv->rows[idx].id;
	for (size_t i = idx + 1; i < tv->n; i++) {
		if (tv->rows[i].parent != tv->rows[idx].id)
			continue;
		int last = ++seen == nchild;
		print_node_line(cli, tv, &tv->rows[i], prefix->buf, last ? "`-- " : "|-- ");
		kp_buf_adds(prefix, last ? "    " : "|   ");
		print_subtree(cli, tv, i, prefix);
		kp_buf_setlen(prefix, len);
	}
}

static int show_tree(struct kp_cli *cli, struct kp_store *s, json_t *sum)
{
	struct tree_view tv = {0};
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf prefix = KP_BUF_INIT;

	if (kp_store_nodes_load(s, &tv.rows, &tv.n, &err))
		return kp_cli_fail(cli, &err);
	tv.best = (long)kp_json_int(json_object_get(sum, "best"), "node", 0);
	if (cli->json) {
		json_t *a = json_array();
		for (size_t i = 0; i < tv.n; i++) {
			const struct kp_node_row *r = &tv.rows[i];
			json_t *o = json_object();
			kp_json_set(o, "node", json_integer(r->id));
			kp_json_set(o, "parent", r->parent ? json_integer(r->parent) : NULL);
			kp_json_set(o, "kind", json_string(kp_node_kind_name(r->kind)));
			kp_json_set(o, "outcome", json_string(r->evaluated ? kp_outcome_name(r->outcome) : "pending"));
			kp_json_set(o, "speedup", kp_json_real(r->parent ? r->speedup : 1.0));
			kp_json_set(o, "time_ms", kp_json_real(r->time_ms));
			kp_json_set(o, "energy_j", kp_json_real(r->energy_j));
			kp_json_set(o, "reward", kp_json_real(r->reward));
			kp_json_set(o, "visits", json_integer(r->visits));
			kp_json_set(o, "closed", r->dead ? json_string(kp_dead_reason_text(r->dead)) : NULL);
			kp_json_set(o, "summary", json_string(r->summary));
			json_array_append_new(a, o);
		}
		kp_json_set(sum, "tree", a);
		kp_cli_print_json(cli, sum);
	} else {
		print_summary(cli, sum);
		fprintf(cli->out, "tree (* best):\n");
		if (tv.n) {
			print_node_line(cli, &tv, &tv.rows[0], "", "");
			print_subtree(cli, &tv, 0, &prefix);
		}
	}
	kp_buf_release(&prefix);
	free(tv.rows);
	return KP_EXIT_OK;
}

/* ---- one node -------------------------------------------------------------------------------------------- */

static const char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? s : "";
}

/* Whether the run offered the tools on request (its feedback then went into no prompt). */
static int run_is_reactive(struct kp_store *s)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *o = NULL;
	int reactive = 0;
	if (!kp_store_meta_get(s, "orchestration", &b, &err) && !kp_json_load_mem("orchestration", b.buf, b.len, &o, &err))
		reactive = !strcmp(kp_json_str(o, "mode", ""), "reactive");
	json_decref(o);
	kp_buf_release(&b);
	return reactive;
}

static int show_node(struct kp_cli *cli, struct kp_store *s, long id)
{
	struct kp_node_row r;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf src = KP_BUF_INIT, log = KP_BUF_INIT, fb = KP_BUF_INIT, fj = KP_BUF_INIT;
	sqlite3_stmt *st = NULL;
	json_t *o = json_object(), *ex = json_array();
	char lang[16] = "";
	int rc = KP_EXIT_OK;

	if (kp_store_node_get(s, id, &r, &err) || kp_store_eval_text(s, id, &log, &fb, &fj, &err)) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	kp_store_candidate_get(s, id, &src, lang, &err);
	kp_json_set(o, "node", json_integer(r.id));
	kp_json_set(o, "parent", r.parent ? json_integer(r.parent) : NULL);
	kp_json_set(o, "kind", json_string(kp_node_kind_name(r.kind)));
	kp_json_set(o, "outcome", json_string(r.evaluated ? kp_outcome_name(r.outcome) : "pending"));
	kp_json_set(o, "speedup", kp_json_real(r.parent ? r.speedup : 1.0));
	kp_json_set(o, "time_ms", kp_json_real(r.time_ms));
	kp_json_set(o, "closed", r.dead ? json_string(kp_dead_reason_text(r.dead)) : NULL);
	kp_json_set(o, "summary", json_string(r.summary));
	kp_json_set(o, "lang", json_string(lang));
	kp_json_set(o, "source", json_string(src.buf));
	kp_json_set(o, "log", log.len ? json_string(log.buf) : NULL);
	kp_json_set(o, "feedback", fb.len ? json_string(fb.buf) : NULL);
	if (sqlite3_prepare_v2(kp_store_sqlite(s),
			       "SELECT p.mode, p.round, p.text, r.text, r.error, r.tokens_in, r.tokens_out FROM prompts p "
			       "JOIN responses r ON r.prompt_id = p.id WHERE p.node_id = ?1 ORDER BY p.id",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			json_t *x = json_object();
			kp_json_set(x, "mode", json_string(col(st, 0)));
			kp_json_set(x, "round", json_integer(sqlite3_column_int(st, 1)));
			kp_json_set(x, "prompt", json_string(col(st, 2)));
			kp_json_set(x, "reply", json_string(col(st, 3)));
			kp_json_set(x, "error", sqlite3_column_type(st, 4) == SQLITE_NULL ? NULL : json_string(col(st, 4)));
			kp_json_set(x, "tokens_in", json_integer(sqlite3_column_int64(st, 5)));
			kp_json_set(x, "tokens_out", json_integer(sqlite3_column_int64(st, 6)));
			json_array_append_new(ex, x);
		}
		sqlite3_finalize(st);
	}
	kp_json_set(o, "exchanges", ex);
	ex = NULL;
	if (cli->json) {
		kp_cli_print_json(cli, o);
		goto out;
	}
	fprintf(cli->out, "#%ld: %s of #%ld, %s", r.id, kp_node_kind_name(r.kind), r.parent,
		r.evaluated ? kp_outcome_name(r.outcome) : "not evaluated yet");
	if (r.outcome == KP_OUTCOME_CORRECT)
		fprintf(cli->out, ", %.4g ms, %.2fx", r.time_ms, r.parent ? r.speedup : 1.0);
	fprintf(cli->out, "%s%s\n", r.summary[0] ? "\n  " : "", r.summary);
	if (log.len)
		fprintf(cli->out, "\n== verdict\n%s\n", log.buf);
	if (fb.len)
		fprintf(cli->out, "\n== feedback (%s)\n%s\n",
			run_is_reactive(s) ? "kept, not sent: this run offers the tools on request"
					   : "what the next prompt from this version gets",
			fb.buf);
	for (size_t i = 0; i < json_array_size(json_object_get(o, "exchanges")); i++) {
		json_t *x = json_array_get(json_object_get(o, "exchanges"), i);
		fprintf(cli->out, "\n== prompt (%s, round %lld)\n%s\n\n== reply\n%s\n", kp_json_str(x, "mode", ""),
			kp_json_int(x, "round", 0), kp_json_str(x, "prompt", ""), kp_json_str(x, "reply", ""));
	}
	fprintf(cli->out, "\n== source (%s)\n%s\n", lang, src.buf);
out:
	json_decref(o);
	json_decref(ex);
	kp_buf_release(&src);
	kp_buf_release(&log);
	kp_buf_release(&fb);
	kp_buf_release(&fj);
	return rc;
}

static int run_show(struct kp_cli *cli, const struct kp_args *args)
{
	struct kp_buf dir = KP_BUF_INIT, db = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_store *s = NULL;
	json_t *sum = NULL;
	int rc;

	if ((rc = kp_run_resolve(kp_runs_dir(args), kp_arg_pos(args, 0), &dir, &err)))
		goto fail;
	kp_path_join(&db, dir.buf, KP_RUN_DB);
	if ((rc = kp_store_open(&s, db.buf, KP_STORE_READONLY, &err)))
		goto fail;
	if (kp_arg_given(args, "node")) {
		rc = show_node(cli, s, kp_arg_int(args, "node", 0));
		goto out;
	}
	if ((rc = kp_search_summary(s, &sum, &err)))
		goto fail;
	kp_json_set(sum, "dir", json_string(dir.buf));
	if (kp_arg_flag(args, "tree"))
		rc = show_tree(cli, s, sum);
	else if (cli->json)
		kp_cli_print_json(cli, sum);
	else
		print_summary(cli, sum);
	goto out;
fail:
	rc = kp_cli_fail(cli, &err);
out:
	json_decref(sum);
	kp_store_close(s);
	kp_buf_release(&dir);
	kp_buf_release(&db);
	return rc;
}

const struct kp_cmd kp_cmd_show = {
	.name = "show",
	.summary = "Show a run: the best version and how the search got there (--tree, --node N)",
	.usage = "RUN [--tree] [--node ID] [--json]",
	.description = "RUN is a run directory or a run's name under --runs-dir. Works while the run is going.",
	.flags = KP_CMD_JSON,
	.opts = show_opts,
	.min_args = 1,
	.max_args = 1,
	.run = run_show,
};
