/*
 * Suite directories: where suites live, making one (its task list frozen in suite.db, the
 * directory appearing whole), opening one, and the small parsers of the bench's options.
 */
#include "base/setup.h"

#include <ctype.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "kernelpro/fs.h"
#include "kernelpro/hash.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "kernelpro/task_kind.h"
#include "suite/bench_int.h"

#define TASK_JSON_CAP (1u << 20)

const char *kp_bench_root(const char *given)
{
	return kp_dir_setting(given, "KERNELPRO_SUITES", "kernelpro-suites");
}

int kp_bench_is_suite(const char *dir)
{
	struct kp_buf p = KP_BUF_INIT;
	int yes;
	kp_path_join(&p, dir, KP_BENCH_DB);
	yes = kp_path_is_dir(dir) && kp_path_exists(p.buf);
	kp_buf_release(&p);
	return yes;
}

int kp_bench_resolve(const char *root, const char *suite, struct kp_buf *dir, struct kp_error *err)
{
	struct kp_buf p = KP_BUF_INIT;
	int found;

	if (kp_bench_is_suite(suite))
		return kp_buf_adds(dir, suite);
	kp_path_join(&p, root, suite);
	found = !strchr(suite, '/') && kp_bench_is_suite(p.buf);
	if (found)
		kp_buf_adds(dir, p.buf);
	kp_buf_release(&p);
	if (found)
		return 0;
	return kp_error_set(err, KP_ENOENT,
	                    "no suite '%s' (neither a directory holding %s nor a suite in '%s'); a new suite "
	                    "is made from tasks: kernelpro bench TASKS",
	                    suite, KP_BENCH_DB, root);
}

void kp__bench_shard_path(struct kp_buf *out, const char *dir, int k, int m, const char *ext)
{
	kp_path_join(out, dir, "shards");
	kp_buf_addf(out, "/%d-of-%d.%s", k, m, ext);
}

void kp__bench_run_dir(struct kp_buf *out, const char *dir, const char *name)
{
	kp_path_join(out, dir, "runs");
	kp_buf_addch(out, '/');
	kp_buf_adds(out, name);
}

/* ---- option parsers ------------------------------------------------------------------------------ */

int kp_bench_shard_parse(const char *text, int *k, int *m, struct kp_error *err)
{
	const char *slash = text ? strchr(text, '/') : NULL;
	char a[24], b[24];
	long kk, mm;

	if (!slash || (size_t)(slash - text) >= sizeof(a) || strlen(slash + 1) >= sizeof(b))
		goto bad;
	memcpy(a, text, (size_t)(slash - text));
	a[slash - text] = '\0';
	kp_strlcpy(b, slash + 1, sizeof(b));
	if (!isdigit((unsigned char)a[0]) || !isdigit((unsigned char)b[0]) || kp_parse_long(a, &kk) ||
	    kp_parse_long(b, &mm) || mm < 1 || mm > 10000 || kk < 0 || kk >= mm)
		goto bad;
	*k = (int)kk;
	*m = (int)mm;
	return 0;
bad:
	return kp_error_set(err, KP_EINVAL,
	                    "--shard expects K/M with 0 <= K < M <= 10000 (e.g. 0/4), not '%s'",
	                    text ? text : "");
}

int kp_bench_gpus_parse(const char *text, int *v, int max, int *n, struct kp_error *err)
{
	struct kp_strvec parts = KP_STRVEC_INIT;
	int rc = 0;

	*n = 0;
	kp_strvec_split(&parts, text ? text : "", ',');
	for (size_t i = 0; i < parts.n && !rc; i++) {
		long g;
		const char *p = kp_str_trim(parts.v[i]);
		if (!isdigit((unsigned char)*p) || kp_parse_long(p, &g) || g < 0 || g > 1023)
			rc = kp_error_set(
			    err, KP_EINVAL,
			    "--gpus expects 'all' or device indices like 0,2,3 (each 0..1023), not '%s'",
			    text ? text : "");
		else if (*n >= max)
			rc = kp_error_set(err, KP_EINVAL, "--gpus lists more than %d GPUs", max);
		for (int j = 0; !rc && j < *n; j++)
			if (v[j] == (int)g)
				rc = kp_error_set(
				    err, KP_EINVAL,
				    "--gpus names GPU %ld twice: one slot per GPU, so no two timings "
				    "share one",
				    g);
		if (!rc)
			v[(*n)++] = (int)g;
	}
	kp_strvec_release(&parts);
	return rc;
}

/* ---- settings as suite.db records them ----------------------------------------------------------- */

void kp__bench_budget_merge(struct kp_search_budget *cur, const struct kp_search_budget *b, unsigned which)
{
	if (which & KP_RUN_LIMIT_EVALS)
		cur->evals = b->evals;
	if (which & KP_RUN_LIMIT_WALL)
		cur->wall_s = b->wall_s;
	if (which & KP_RUN_LIMIT_TOKENS)
		cur->tokens = b->tokens;
	if (which & KP_RUN_LIMIT_COST)
		cur->cost = b->cost;
}

static json_t *settings_json(const struct kp_run_settings *s)
{
	json_t *o = json_object(), *orch = json_object();
	kp_json_set(o, "params", kp_search_params_to_json(&s->params));
	kp_json_set(orch, "mode", json_string(kp_orchestration_name(s->orchestration)));
	kp_json_set(orch, "tool_rounds", json_integer(s->tool_rounds));
	kp_json_set(o, "orchestration", orch);
	kp_json_set(o, "family", s->family ? json_string(s->family) : NULL);
	kp_json_set(o, "llm", s->llm ? json_string(s->llm) : NULL);
	kp_json_set(o, "evaluator", json_string(s->evaluator ? s->evaluator : "harness"));
	return o;
}

static int settings_from_json(struct kp_run_settings *s, const json_t *o, struct kp_error *err)
{
	const json_t *orch = json_object_get(o, "orchestration");
	int rc = kp_search_params_from_json(&s->params, json_object_get(o, "params"), err);
	if (rc)
		return rc;
	if (kp_orchestration_parse(kp_json_str(orch, "mode", "proactive"), &s->orchestration))
		return kp_error_set(err, KP_EPARSE,
		                    "the suite records orchestration '%s', which this kernelpro does "
		                    "not know",
		                    kp_json_str(orch, "mode", ""));
	s->tool_rounds = (int)kp_json_int(orch, "tool_rounds", 3);
	s->family = kp_json_str(o, "family", NULL) ? kp_xstrdup(kp_json_str(o, "family", NULL)) : NULL;
	s->llm = kp_json_str(o, "llm", NULL) ? kp_xstrdup(kp_json_str(o, "llm", NULL)) : NULL;
	s->evaluator = kp_xstrdup(kp_json_str(o, "evaluator", "harness"));
	return 0;
}

/* ---- per-task settings ----------------------------------------------------------------------------- */

static char *task_settings_text(const struct kp_bench_task_settings *set)
{
	json_t *o;
	char *t;
	if (!set->which && !set->llm && !set->kernel)
		return NULL;
	o = json_object();
	if (set->which) {
		struct kp_search_budget b = {0};
		kp__bench_budget_merge(&b, &set->budget, set->which);
		kp_json_set(o, "budget", kp_search_budget_to_json(&b));
	}
	kp_json_set(o, "llm", set->llm ? json_string(set->llm) : NULL);
	kp__bench_kernel_settings_to_json(set, o);
	t = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return t;
}

void kp__bench_task_settings(const struct kp_suitedb_task *t, struct kp_bench_task_settings *set)
{
	json_t *o = t->settings ? json_loads(t->settings, 0, NULL) : NULL, *b;
	memset(set, 0, sizeof(*set));
	if (!o)
		return;
	if ((b = json_object_get(o, "budget"))) {
		kp_search_budget_from_json(b, &set->budget);
		set->which = (set->budget.evals ? KP_RUN_LIMIT_EVALS : 0) |
		             (set->budget.wall_s > 0 ? KP_RUN_LIMIT_WALL : 0) |
		             (set->budget.tokens ? KP_RUN_LIMIT_TOKENS : 0) |
		             (set->budget.cost > 0 ? KP_RUN_LIMIT_COST : 0);
	}
	if (kp_json_str(o, "llm", NULL))
		set->llm = kp_xstrdup(kp_json_str(o, "llm", NULL));
	kp__bench_kernel_settings_from_json(set, o);
	json_decref(o);
}

void kp__bench_task_settings_release(struct kp_bench_task_settings *set)
{
	free(set->llm);
	free(set->name);
	free(set->kernel);
	free(set->kernel_source);
	free(set->recorded);
	memset(set, 0, sizeof(*set));
}

/* ---- creating a suite ------------------------------------------------------------------------------ */

/* What a task's content is: its reference, and its kind's spec file (a native task's task.json: shapes,
 * fills, tolerance). */
static int task_hash(const struct kp_task *t, char hex[KP_SHA256_HEX_LEN + 1], struct kp_error *err)
{
	struct kp_sha256 h;
	struct kp_buf spec = KP_BUF_INIT;
	int rc = 0;

	if (kp_task_kind_info(t->kind)->spec_file) {
		struct kp_buf p = KP_BUF_INIT;
		kp_path_join(&p, t->dir, kp_task_kind_info(t->kind)->spec_file);
		rc = kp_read_file(p.buf, TASK_JSON_CAP, &spec, err);
		kp_buf_release(&p);
		if (rc)
			return rc;
	}
	kp_sha256_init(&h);
	kp_sha256_update_str(&h, kp_task_kind_name(t->kind));
	kp_sha256_update_str(&h, t->source ? t->source : "");
	kp_sha256_update(&h, spec.buf ? spec.buf : "", spec.len);
	kp_sha256_final(&h, hex);
	kp_buf_release(&spec);
	return 0;
}

static double input_bytes(const struct kp_task *t)
{
	double sum = 0;
	if (!t->ninputs)
		return NAN;
	for (size_t i = 0; i < t->ninputs; i++)
		sum += (double)kp_tensor_spec_bytes(&t->inputs[i]);
	return sum;
}

/* A run name from a task name: letters, digits and _ - . + kept, anything else '_'. */
static void safe_run_name(struct kp_buf *b, const char *name)
{
	size_t start = b->len;
	for (const char *p = name; *p && b->len - start < 100; p++)
		kp_buf_addch(b, isalnum((unsigned char)*p) || strchr("_-.+", *p) ? *p : '_');
	if (b->len == start || b->buf[start] == '.')
		kp_buf_adds(b, "task");
}

static int name_used(const struct kp_suitedb_task *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return 1;
	return 0;
}

/* Loads every task once (so a broken one is found now) and names its run. */
static int freeze_tasks(const struct kp_bench_list *l, struct kp_suitedb_task **out, struct kp_error *err)
{
	struct kp_suitedb_task *v = kp_xcalloc(l->n ? l->n : 1, sizeof(*v));
	int rc = 0;

	for (size_t i = 0; i < l->n && !rc; i++) {
		const struct kp_bench_entry *e = &l->v[i];
		struct kp_task task;
		struct kp_buf name = KP_BUF_INIT;
		char hex[KP_SHA256_HEX_LEN + 1];

		kp_task_init(&task);
		if ((rc = kp_task_load(&task, e->path, err)) || (rc = task_hash(&task, hex, err))) {
			kp_error_prefix(err, "task %zu of the suite", i + 1);
			kp_task_release(&task);
			break;
		}
		if (e->set.name && name_used(v, i, e->set.name)) {
			rc = kp_error_set(err, KP_EEXISTS, "two tasks of the suite are named '%s'",
			                  e->set.name);
		} else if (e->set.name) {
			kp_buf_adds(&name, e->set.name);
		} else {
			size_t base;
			safe_run_name(&name, task.name);
			base = name.len;
			for (int k = 2; name_used(v, i, name.buf); k++) {
				kp_buf_setlen(&name, base);
				kp_buf_addf(&name, "-%d", k);
			}
		}
		v[i].idx = (long)i;
		v[i].name = kp_buf_detach(&name, NULL);
		v[i].path = kp_xstrdup(e->path);
		v[i].kind = kp_xstrdup(kp_task_kind_name(task.kind));
		v[i].sha256 = kp_xstrdup(hex);
		v[i].input_bytes = input_bytes(&task);
		v[i].settings = task_settings_text(&e->set);
		kp_task_release(&task);
		kp_buf_release(&name);
	}
	if (rc) {
		kp_suitedb_tasks_free(v, l->n);
		return rc;
	}
	*out = v;
	return 0;
}

static int write_suite_db(const char *path, const struct kp_bench_new *o, const char *name, const char *stamp,
                          const struct kp_suitedb_task *tasks, size_t n, struct kp_error *err)
{
	struct kp_store *s = NULL;
	struct kp_search_budget budget = o->budget ? *o->budget : (struct kp_search_budget){0};
	struct kp_search_budget none = {0};
	json_t *bl = json_object();
	int rc;

	if (!budget.evals && !(budget.wall_s > 0) && !budget.tokens && !(budget.cost > 0))
		budget.evals = KP_RUN_DEFAULT_EVALS;
	kp_json_set(bl, "eager", json_boolean(o->baselines.eager));
	kp_json_set(bl, "compile", json_boolean(o->baselines.eager && o->baselines.compile));
	if ((rc = kp_suitedb_open(&s, path, KP_STORE_CREATE, err)) || (rc = kp_store_begin(s, err)))
		goto out;
	if ((rc = kp_store_meta_set(s, "name", name, err)) ||
	    (rc = kp_store_meta_set(s, "created", stamp, err)) ||
	    (rc = kp_store_meta_set(s, "kernelpro", KP_VERSION " (" KP_GIT_REV ")", err)) ||
	    (rc = kp_store_meta_set(s, "argv", o->argv_text ? o->argv_text : "", err)) ||
	    (rc = kp_store_meta_set_json(s, "settings", settings_json(o->settings), err)) ||
	    (rc = kp_store_meta_set_json(s, "budget", kp_search_budget_to_json(&budget), err)) ||
	    (rc = kp_store_meta_set_json(s, "suite_budget",
	                    kp_search_budget_to_json(o->suite_budget ? o->suite_budget : &none), err)) ||
	    (rc = kp_store_meta_set_json(s, "baselines", json_incref(bl), err)))
		goto out;
	for (size_t i = 0; i < n && !rc; i++)
		rc = kp_suitedb_task_add(s, &tasks[i], err);
	if (!rc)
		rc = kp_store_commit(s, err);
out:
	json_decref(bl);
	kp_store_close(s); /* rolls back an open transaction */
	return rc;
}

int kp_bench_create(const struct kp_bench_new *o, struct kp_buf *dir, struct kp_error *err)
{
	struct kp_suitedb_task *tasks = NULL;
	struct kp_buf name = KP_BUF_INIT, final = KP_BUF_INIT, tmp = KP_BUF_INIT, db = KP_BUF_INIT;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (o->name)
		kp_buf_adds(&name, o->name);
	else
		kp_buf_addf(&name, "%s-%s", o->label && *o->label ? o->label : "suite", stamp);
	/* The run names' rule; shorter by the ".new-PID" of the directory it is built in. */
	if ((rc = kp_run_name_check(name.buf, "suite", KP_RUN_NAME_MAX - 32, err)))
		goto out;
	if (!o->tasks || !o->tasks->n) {
		rc = kp_error_set(err, KP_EINVAL, "a suite needs at least one task");
		goto out;
	}
	kp_path_join(&final, o->root, name.buf);
	if (kp_path_exists(final.buf)) {
		rc = kp_error_set(
		    err, KP_EEXISTS,
		    "suite directory '%s' exists; continue it with: kernelpro bench %s --resume (or "
		    "choose another --name)",
		    final.buf, final.buf);
		goto out;
	}
	if ((rc = freeze_tasks(o->tasks, &tasks, err)) || (rc = kp_mkdir_p(o->root, 0755, err)))
		goto out;
	/* Built beside its final place and renamed: the suite appears whole or not at all. */
	kp_path_join(&tmp, o->root, ".");
	kp_buf_addf(&tmp, "%s.new-%ld", name.buf, (long)getpid());
	kp_rm_rf(tmp.buf, err);
	kp_error_clear(err);
	kp_path_join(&db, tmp.buf, KP_BENCH_DB);
	if ((rc = kp_mkdir_p(tmp.buf, 0755, err)) ||
	    (rc = write_suite_db(db.buf, o, name.buf, stamp, tasks, o->tasks->n, err)))
		goto out;
	if (rename(tmp.buf, final.buf) != 0) {
		rc =
		    errno == EEXIST || errno == ENOTEMPTY
		        ? kp_error_set(
		              err, KP_EEXISTS,
		              "suite directory '%s' appeared meanwhile; continue it with: kernelpro bench %s "
		              "--resume",
		              final.buf, final.buf)
		        : kp_error_set(err, KP_EIO, "cannot create '%s': %s", final.buf, strerror(errno));
		goto out;
	}
	kp_buf_adds(dir, final.buf);
out:
	if (tmp.len && kp_path_exists(tmp.buf)) {
		struct kp_error ignore = KP_ERROR_INIT;
		kp_rm_rf(tmp.buf, &ignore);
	}
	kp_suitedb_tasks_free(tasks, o->tasks ? o->tasks->n : 0);
	kp_buf_release(&name);
	kp_buf_release(&final);
	kp_buf_release(&tmp);
	kp_buf_release(&db);
	return rc;
}

/* ---- opening a suite ------------------------------------------------------------------------------- */

/* A meta entry of the suite database as a JSON string; NULL when absent or empty. */
static json_t *meta_text(struct kp_store *s, const char *key)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error ignore = KP_ERROR_INIT;
	json_t *v = !kp_store_meta_get(s, key, &b, &ignore) && b.len ? json_string(b.buf) : NULL;
	kp_buf_release(&b);
	return v;
}

int kp_bench_open(struct kp_bench **out, const char *dir, struct kp_error *err)
{
	struct kp_bench *b = kp_xcalloc(1, sizeof(*b));
	struct kp_store *s = NULL;
	struct kp_buf db = KP_BUF_INIT, name = KP_BUF_INIT;
	json_t *set = NULL, *bud = NULL, *sbud = NULL, *bl = NULL;
	int rc;

	*out = NULL;
	b->dir = kp_xstrdup(dir);
	kp_run_settings_init(&b->settings);
	kp_path_join(&db, dir, KP_BENCH_DB);
	if ((rc = kp_suitedb_open(&s, db.buf, KP_STORE_READONLY, err)) ||
	    (rc = kp_store_meta_get(s, "name", &name, err)) ||
	    (rc = kp_store_meta_get_json(s, "settings", &set, err)) || (rc = kp_store_meta_get_json(s, "budget", &bud, err)) ||
	    (rc = kp_store_meta_get_json(s, "suite_budget", &sbud, err)) ||
	    (rc = kp_store_meta_get_json(s, "baselines", &bl, err)) ||
	    (rc = settings_from_json(&b->settings, set, err)) ||
	    (rc = kp_suitedb_tasks_load(s, &b->tasks, &b->ntasks, err)))
		goto out;
	b->name = kp_buf_detach(&name, NULL);
	b->context = json_object();
	kp_json_set(b->context, "created", meta_text(s, "created"));
	kp_json_set(b->context, "kernelpro", meta_text(s, "kernelpro"));
	kp_json_set(b->context, "argv", meta_text(s, "argv"));
	kp_json_set(b->context, "settings", json_incref(set));
	kp_json_set(b->context, "budget", json_incref(bud));
	kp_json_set(b->context, "suite_budget", json_incref(sbud));
	kp_json_set(b->context, "baselines", json_incref(bl));
	kp_search_budget_from_json(bud, &b->budget);
	kp_search_budget_from_json(sbud, &b->suite_budget);
	b->baselines.eager = kp_json_bool(bl, "eager", 1);
	b->baselines.compile = kp_json_bool(bl, "compile", 1);
	for (size_t i = 0; i < b->ntasks && !rc; i++)
		if (b->tasks[i].idx != (long)i)
			rc = kp_error_set(err, KP_EDB, "suite database '%s': the task list has a gap at #%zu",
			                  db.buf, i);
	if (!rc && !b->ntasks)
		rc = kp_error_set(err, KP_EDB, "suite database '%s' holds no tasks", db.buf);
out:
	kp_store_close(s);
	json_decref(set);
	json_decref(bud);
	json_decref(sbud);
	json_decref(bl);
	kp_buf_release(&db);
	kp_buf_release(&name);
	if (rc) {
		kp_bench_close(b);
		return rc;
	}
	*out = b;
	return 0;
}

void kp_bench_close(struct kp_bench *b)
{
	if (!b)
		return;
	free(b->dir);
	free(b->name);
	kp_suitedb_tasks_free(b->tasks, b->ntasks);
	kp_run_settings_release(&b->settings);
	json_decref(b->context);
	free(b);
}

const char *kp_bench_dir(const struct kp_bench *b)
{
	return b->dir;
}

const char *kp_bench_name(const struct kp_bench *b)
{
	return b->name;
}

size_t kp_bench_ntasks(const struct kp_bench *b)
{
	return b->ntasks;
}

const struct kp_run_settings *kp_bench_settings(const struct kp_bench *b)
{
	return &b->settings;
}
