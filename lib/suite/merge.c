/*
 * A suite's results from its databases and run directories: every shard database under
 * SUITE/shards/ (whatever M it was run with; a task's final row wins), each task's run (through
 * the run view of lib/report), in the order of the suite's frozen list. Also the shards' status.
 */
#include "base/setup.h"

#include <dirent.h>
#include <math.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/rejudge.h"
#include "kernelpro/run.h"
#include "kernelpro/str.h"
#include "suite/bench_int.h"

/* ---- the shard databases --------------------------------------------------------------------------- */

/* "K-of-M.db" -> k, m; 0 when the name is not a shard database's. */
static int shard_name(const char *name, int *k, int *m)
{
	char tail[8];
	return sscanf(name, "%d-of-%d.%7s", k, m, tail) == 3 && !strcmp(tail, "db") && *m >= 1 && *k >= 0 &&
	       *k < *m;
}

static int state_rank(const char *state)
{
	/* The row that says most: final over started over untouched. */
	if (!strcmp(state, "finished") || !strcmp(state, "failed"))
		return 3;
	if (!strcmp(state, "running") || !strcmp(state, "stopped"))
		return 2;
	return 1;
}

/* Whether row a should stand for its task rather than b (NULL: none yet). */
static int better_row(const struct kp_suitedb_progress *a, const struct kp_suitedb_progress *b)
{
	int ra, rb;
	if (!b)
		return 1;
	ra = state_rank(a->state);
	rb = state_rank(b->state);
	if (ra != rb)
		return ra > rb;
	return a->updated > b->updated;
}

struct rows {
	struct kp_suitedb_progress *best; /* per task: the standing row (owned copies) */
	size_t n;
	double wall_s; /* the longest shard's sessions, end to end: shards run side by side */
	struct kp_bench_collected *c;
};

static void take_row(struct kp_suitedb_progress *dst, struct kp_suitedb_progress *src)
{
	kp_suitedb_progress_release(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

static int read_shard(struct rows *R, const char *path, int k, int m, struct kp_error *err)
{
	struct kp_store *s = NULL;
	struct kp_suitedb_progress *v = NULL;
	struct kp_bench_shard_info info = {.k = k, .m = m};
	size_t n = 0;
	int rc;

	if ((rc = kp_suitedb_open(&s, path, KP_STORE_READONLY, err)) ||
	    (rc = kp_suitedb_progress_load(s, &v, &n, err)))
		goto out;
	if (kp_store_elapsed_total(s) > R->wall_s)
		R->wall_s = kp_store_elapsed_total(s);
	for (size_t i = 0; i < n; i++) {
		long idx = v[i].idx;
		info.tasks++;
		info.final += state_rank(v[i].state) == 3;
		info.running += !strcmp(v[i].state, "running");
		if (idx < 0 || (size_t)idx >= R->n)
			continue; /* not in this suite's list: ignored */
		if (better_row(&v[i], R->best[idx].state ? &R->best[idx] : NULL))
			take_row(&R->best[idx], &v[i]);
	}
	if (R->c) {
		R->c->shards = kp_xrealloc(R->c->shards, (R->c->nshards + 1) * sizeof(*R->c->shards));
		R->c->shards[R->c->nshards++] = info;
	}
out:
	if (rc)
		kp_error_prefix(err, "shard database '%s'", path);
	kp_suitedb_progress_free(v, n);
	kp_store_close(s);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every SUITE/shards/K-of-M.db, sorted by name. */
static int read_shards(struct rows *R, const char *dir, struct kp_error *err)
{
	struct kp_buf p = KP_BUF_INIT;
	struct kp_strvec names = KP_STRVEC_INIT;
	struct dirent *e;
	DIR *d;
	int rc = 0;

	kp_path_join(&p, dir, "shards");
	if (!(d = opendir(p.buf))) {
		rc = errno == ENOENT
		         ? 0
		         : kp_error_set(err, KP_EIO, "cannot read '%s': %s", p.buf, strerror(errno));
		kp_buf_release(&p);
		return rc;
	}
	while ((e = readdir(d))) {
		int k, m;
		if (shard_name(e->d_name, &k, &m))
			kp_strvec_push(&names, e->d_name);
	}
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n && !rc; i++) {
		struct kp_buf f = KP_BUF_INIT;
		int k, m;
		shard_name(names.v[i], &k, &m);
		kp_path_join(&f, p.buf, names.v[i]);
		rc = read_shard(R, f.buf, k, m, err);
		kp_buf_release(&f);
	}
	kp_strvec_release(&names);
	kp_buf_release(&p);
	return rc;
}

static int load_rows(struct kp_bench *b, struct rows *R, struct kp_bench_collected *c, struct kp_error *err)
{
	R->n = b->ntasks;
	R->c = c;
	R->best = kp_xcalloc(R->n, sizeof(*R->best));
	for (size_t i = 0; i < R->n; i++) {
		kp_suitedb_progress_init(&R->best[i], (long)i);
		free(R->best[i].state);
		R->best[i].state = NULL; /* no row yet */
	}
	return read_shards(R, b->dir, err);
}

static void rows_release(struct rows *R)
{
	kp_suitedb_progress_free(R->best, R->n);
	memset(R, 0, sizeof(*R));
}

/* ---- the records ------------------------------------------------------------------------------------ */

static enum kp_suite_state state_of(const char *s)
{
	int i = s ? kp_suite_state_parse(s) : -1;
	return i < 0 ? KP_SUITE_PENDING : (enum kp_suite_state)i;
}

/* A task that has no run (not started, or failed before its run began): its name, state and baseline. */
static void record_without_run(const struct kp_suitedb_task *t, const struct kp_suitedb_progress *p,
                               struct kp_suite_task *r)
{
	json_t *bl = p->baseline ? json_loads(p->baseline, 0, NULL) : NULL;
	r->name = kp_xstrdup(t->name);
	r->kind = kp_xstrdup(t->kind);
	if (bl) {
		r->base_ms[KP_SUITE_EAGER] = kp__bench_baseline_ms(bl, "eager");
		r->base_ms[KP_SUITE_COMPILE] = kp__bench_baseline_ms(bl, "torch_compile");
		if (!isnan(r->base_ms[KP_SUITE_EAGER]))
			r->eager_from = kp_xstrdup("baseline");
	}
	json_decref(bl);
}

static int task_record(struct kp_bench *b, size_t i, const struct kp_suitedb_progress *p,
                       struct kp_suite_task *r, struct kp_error *err)
{
	const struct kp_suitedb_task *t = &b->tasks[i];
	struct kp_buf dir = KP_BUF_INIT, rel = KP_BUF_INIT;
	int rc = 0;

	kp__bench_run_dir(&dir, b->dir, t->name);
	if (kp_run_exists(dir.buf)) {
		if ((rc = kp_suite_task_from_run(dir.buf, r, err)))
			goto out;
		free(r->run);
		kp_buf_addf(&rel, "runs/%s", t->name);
		r->run = kp_buf_detach(&rel, NULL);
	} else {
		record_without_run(t, p, r);
	}
	/* The bench's word on where the task stands wins over the run's own (a failed task's run may
	 * say running; a run killed after its last evaluation is finished once the bench says so). */
	if (p->state)
		r->state = state_of(p->state);
	else if (r->state != KP_SUITE_FINISHED)
		r->state = kp_run_exists(dir.buf) ? KP_SUITE_RUNNING : KP_SUITE_PENDING;
	if (p->reason) {
		free(r->reason);
		r->reason = kp_xstrdup(p->reason);
	}
out:
	if (rc)
		kp_error_prefix(err, "task '%s'", t->name);
	kp_buf_release(&dir);
	kp_buf_release(&rel);
	return rc;
}

void kp_bench_collected_release(struct kp_bench_collected *c)
{
	if (!c)
		return;
	free(c->shards);
	memset(c, 0, sizeof(*c));
}

int kp_bench_collect(const char *dir, struct kp_suite *s, struct kp_bench_collected *c, struct kp_error *err)
{
	struct kp_bench *b = NULL;
	struct rows R = {0};
	int rc;

	if (c)
		memset(c, 0, sizeof(*c));
	if ((rc = kp_bench_open(&b, dir, err)) || (rc = load_rows(b, &R, c, err)))
		goto out;
	free(s->name);
	s->name = kp_xstrdup(b->name);
	s->ctx.wall_s = R.wall_s > 0 ? R.wall_s : NAN;
	free(s->ctx.created);
	s->ctx.created = kp_json_str(b->context, "created", NULL)
	                     ? kp_xstrdup(kp_json_str(b->context, "created", ""))
	                     : NULL;
	json_decref(s->ctx.settings);
	s->ctx.settings = json_incref(b->context);
	for (size_t i = 0; i < b->ntasks && !rc; i++) {
		struct kp_suite_task t;
		kp_suite_task_init(&t);
		if (!(rc = task_record(b, i, &R.best[i], &t, err))) {
			if (c && t.state != KP_SUITE_FINISHED && t.state != KP_SUITE_FAILED)
				c->incomplete++;
			kp_suite_add(s, &t);
		}
		kp_suite_task_release(&t);
	}
	if (!rc)
		rc = kp_suite_compute(s, err);
	if (!rc && !s->rejudge) /* bench --kernels: the recorded verdicts beside kernelpro's */
		rc = kp_rejudge_table(dir, s, &s->rejudge, err);
out:
	rows_release(&R);
	kp_bench_close(b);
	return rc;
}

/* ---- status ------------------------------------------------------------------------------------------ */

/* Unix time in whole milliseconds (exact in JSON, where a real would be printed to 10 digits). */
static json_t *unix_ms_or_null(double t)
{
	return isfinite(t) ? json_integer((json_int_t)llround(t * 1000)) : json_null();
}

int kp_bench_status(const char *dir, json_t **out, struct kp_error *err)
{
	struct kp_bench *b = NULL;
	struct kp_bench_collected c = {0};
	struct rows R = {0};
	json_t *doc = NULL, *tasks, *shards;
	int rc;

	*out = NULL;
	if ((rc = kp_bench_open(&b, dir, err)) || (rc = load_rows(b, &R, &c, err)))
		goto out;
	doc = json_object();
	kp_json_set(doc, "suite", json_string(b->name));
	kp_json_set(doc, "dir", json_string(b->dir));
	shards = json_array();
	for (size_t i = 0; i < c.nshards; i++) {
		json_t *o = json_object();
		kp_json_set(o, "shard", json_integer(c.shards[i].k));
		kp_json_set(o, "shards", json_integer(c.shards[i].m));
		kp_json_set(o, "rows", json_integer(c.shards[i].tasks));
		kp_json_set(o, "ended", json_integer(c.shards[i].final));
		kp_json_set(o, "running", json_integer(c.shards[i].running));
		json_array_append_new(shards, o);
	}
	kp_json_set(doc, "shard_databases", shards);
	tasks = json_array();
	for (size_t i = 0; i < b->ntasks; i++) {
		const struct kp_suitedb_progress *p = &R.best[i];
		json_t *o = json_object();
		kp_json_set(o, "index", json_integer((json_int_t)i));
		kp_json_set(o, "name", json_string(b->tasks[i].name));
		kp_json_set(o, "path", json_string(b->tasks[i].path));
		kp_json_set(o, "state", json_string(p->state ? p->state : "pending"));
		kp_json_set(o, "attempts", json_integer(p->attempts));
		kp_json_set(o, "gpu", p->gpu >= 0 ? json_integer(p->gpu) : json_null());
		kp_json_set(o, "order", json_integer(p->order));
		kp_json_set(o, "started_unix_ms", unix_ms_or_null(p->started));
		kp_json_set(o, "ended_unix_ms", unix_ms_or_null(p->ended));
		kp_json_set(o, "est_ms", isfinite(p->est_ms) ? json_real(p->est_ms) : json_null());
		kp_json_set(o, "reason", p->reason ? json_string(p->reason) : json_null());
		kp_json_set(o, "baseline_error",
		            p->baseline_error ? json_string(p->baseline_error) : json_null());
		json_array_append_new(tasks, o);
	}
	kp_json_set(doc, "tasks", tasks);
	*out = doc;
out:
	kp_bench_collected_release(&c);
	rows_release(&R);
	kp_bench_close(b);
	return rc;
}
