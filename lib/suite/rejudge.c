/*
 * bench --kernels: existing kernel files paired with their KernelBench tasks (by the file's name, or
 * a list file), each with the verdict its own run recorded, into a suite's task list
 * (include/kernelpro/rejudge.h).
 */
#include "base/setup.h"

#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/recorded.h"
#include "kernelpro/rejudge.h"
#include "kernelpro/str.h"
#include "kernelpro/strvec.h"
#include "suite/bench_int.h"

#define LIST_CAP (4u << 20)

/* ---- the settings as suite.db keeps them ------------------------------------------------------------- */

void kp__bench_kernel_settings_to_json(const struct kp_bench_task_settings *set, json_t *o)
{
	json_t *rec;
	if (!set->kernel)
		return;
	kp_json_set(o, "kernel", json_string(set->kernel));
	kp_json_set(o, "kernel_source", json_string(set->kernel_source ? set->kernel_source : ""));
	rec = set->recorded ? json_loads(set->recorded, 0, NULL) : NULL;
	kp_json_set(o, "recorded", rec);
}

void kp__bench_kernel_settings_from_json(struct kp_bench_task_settings *set, const json_t *o)
{
	const json_t *rec = json_object_get(o, "recorded");
	if (!kp_json_str(o, "kernel", NULL))
		return;
	set->kernel = kp_xstrdup(kp_json_str(o, "kernel", NULL));
	set->kernel_source = kp_xstrdup(kp_json_str(o, "kernel_source", ""));
	set->recorded = json_is_object(rec) ? json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
}

/* ---- names ----------------------------------------------------------------------------------------------
 */

static int digits(const char **p, int *out)
{
	long v = 0;
	const char *s = *p;
	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s) && v < 10000000)
		v = v * 10 + (*s++ - '0');
	if (isdigit((unsigned char)*s))
		return -1;
	*out = (int)v;
	*p = s;
	return 0;
}

int kp_rejudge_parse_name(const char *file, int *level, int *problem, int *epoch, int *sample)
{
	const char *p = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	*epoch = 0;
	if (strncmp(p, "level_", 6))
		return -1;
	p += 6;
	if (digits(&p, level) || strncmp(p, "_problem_", 9))
		return -1;
	p += 9;
	if (digits(&p, problem))
		return -1;
	if (!strncmp(p, "_epoch_", 7)) {
		p += 7;
		if (digits(&p, epoch) || strncmp(p, "_sample_", 8))
			return -1;
	}
	if (!strncmp(p, "_sample_", 8))
		p += 8;
	else if (!strncmp(p, "_solution_", 10))
		p += 10;
	else
		return -1;
	if (digits(&p, sample) || strcmp(p, "_kernel.py") || *level < 1 || *problem < 1)
		return -1;
	return 0;
}

/* ---- one kernel -----------------------------------------------------------------------------------------
 */

/* A kernel found, before it becomes a task. */
struct found {
	char *kernel, *task, *name;
	int level, problem, epoch, sample;
	struct kp_recorded rec;
	int have_rec;
};

struct found_list {
	struct found *v;
	size_t n, alloc;
};

static void found_release(struct found_list *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].kernel);
		free(f->v[i].task);
		free(f->v[i].name);
		kp_recorded_release(&f->v[i].rec);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}

static struct found *found_push(struct found_list *f)
{
	struct found *e;
	if (f->n == f->alloc) {
		f->alloc = f->alloc ? f->alloc * 2 : 32;
		f->v = kp_xrealloc(f->v, f->alloc * sizeof(*f->v));
	}
	e = &f->v[f->n++];
	memset(e, 0, sizeof(*e));
	kp_recorded_init(&e->rec);
	return e;
}

/* The task file of problem P of level L: TASKS/levelL/P_*.py, TASKS/KernelBench/levelL/P_*.py, or
 * TASKS/P_*.py when TASKS is the levelL folder itself. */
static int find_task(const char *tasks, int level, int problem, struct kp_buf *out, struct kp_error *err)
{
	struct kp_buf dir = KP_BUF_INIT, pat = KP_BUF_INIT, lv = KP_BUF_INIT;
	const char *base = strrchr(tasks, '/') ? strrchr(tasks, '/') + 1 : tasks;
	int rc = KP_ENOENT;

	kp_buf_addf(&lv, "level%d", level);
	for (int i = 0; i < 3 && rc; i++) {
		glob_t g;
		kp_buf_reset(&dir);
		if (i == 0)
			kp_path_join(&dir, tasks, lv.buf);
		else if (i == 1) {
			kp_path_join(&dir, tasks, "KernelBench");
			kp_buf_addf(&dir, "/%s", lv.buf);
		} else if (!strcmp(base, lv.buf))
			kp_buf_adds(&dir, tasks);
		else
			break;
		kp_buf_reset(&pat);
		kp_buf_addf(&pat, "%s/%d_*.py", dir.buf, problem);
		if (glob(pat.buf, 0, NULL, &g) == 0) {
			if (g.gl_pathc > 1)
				rc = kp_error_set(err, KP_EINVAL,
				                  "level %d problem %d: %zu task files match '%s'", level,
				                  problem, (size_t)g.gl_pathc, pat.buf);
			else {
				char real[PATH_MAX];
				kp_buf_adds(out, realpath(g.gl_pathv[0], real) ? real : g.gl_pathv[0]);
				rc = 0;
			}
			globfree(&g);
			if (rc && rc != KP_ENOENT)
				break;
		}
	}
	if (rc == KP_ENOENT)
		rc = kp_error_set(err, KP_ENOENT,
		                  "no task for level %d problem %d under '%s' (looked for %s/%d_*.py); give "
		                  "--tasks a KernelBench checkout or its level folder",
		                  level, problem, tasks, lv.buf, problem);
	kp_buf_release(&dir);
	kp_buf_release(&pat);
	kp_buf_release(&lv);
	return rc;
}

static void set_name_from_file(struct found *e)
{
	const char *b = strrchr(e->kernel, '/') ? strrchr(e->kernel, '/') + 1 : e->kernel;
	size_t n = strlen(b);
	if (n > 10 && !strcmp(b + n - 10, "_kernel.py"))
		n -= 10;
	else if (strrchr(b, '.'))
		n = (size_t)(strrchr(b, '.') - b);
	e->name = kp_xstrndup(b, n);
}

/* A kernel named by KernelBench's convention: its task and its recorded verdict. */
static int add_named(struct found_list *f, const char *path, const struct kp_recorded_set *rs,
                     const struct kp_rejudge_opts *o, struct kp_error *err)
{
	struct kp_buf task = KP_BUF_INIT;
	char real[PATH_MAX];
	int level, problem, epoch, sample, rc;
	struct found *e;

	if (kp_rejudge_parse_name(path, &level, &problem, &epoch, &sample))
		return 0;
	if ((rc = find_task(o->tasks, level, problem, &task, err)))
		goto out;
	e = found_push(f);
	e->kernel = kp_xstrdup(realpath(path, real) ? real : path);
	e->task = kp_buf_detach(&task, NULL);
	e->level = level;
	e->problem = problem;
	e->epoch = epoch;
	e->sample = sample;
	set_name_from_file(e);
	if (rs) {
		const struct kp_recorded *r = kp_recorded_find(rs, level, problem, epoch, sample);
		if (r) {
			json_t *j = kp_recorded_to_json(r);
			kp_recorded_from_json(&e->rec, j, err);
			e->rec.level = level;
			json_decref(j);
			e->have_rec = 1;
		}
	}
out:
	kp_buf_release(&task);
	return rc;
}

/* ---- recorded verdicts ------------------------------------------------------------------------------------
 */

static int load_results(const char *path, struct kp_recorded_set *rs, int *have, struct kp_error *err)
{
	struct kp_buf text = KP_BUF_INIT;
	int rc;
	*have = 0;
	if (!kp_path_exists(path))
		return 0;
	if (!(rc = kp_read_file(path, KP_REJUDGE_RESULTS_CAP, &text, err)))
		rc = kp_recorded_parse(rs, text.buf ? text.buf : "", text.len, 0, path, err);
	if (rc == KP_EPARSE)
		kp_error_prefix(err, "the recorded verdicts are malformed (nothing was made; fix or move the "
		                     "file, or name another with --recorded)");
	*have = !rc;
	kp_buf_release(&text);
	return rc;
}

int kp_rejudge_load_refs(const char *path, struct kp_recorded_refs *refs, struct kp_error *err)
{
	struct kp_buf text = KP_BUF_INIT;
	int rc;
	if (!kp_path_exists(path))
		return kp_error_set(err, KP_ENOENT, "--recorded-baseline '%s' not found", path);
	if (!(rc = kp_read_file(path, KP_REJUDGE_RESULTS_CAP, &text, err)))
		rc = kp_recorded_refs_parse(refs, text.buf ? text.buf : "", text.len, path, err);
	if (rc == KP_EPARSE)
		kp_error_prefix(err, "the reference times are malformed (nothing was made; fix the file or leave out "
		                     "--recorded-baseline)");
	kp_buf_release(&text);
	return rc;
}

/* The results file for kernels in `dir`: the option's, else DIR/eval_results.json when there is one. */
static int results_for(const char *dir, const struct kp_rejudge_opts *o, struct kp_recorded_set *rs,
                       int *have, struct kp_error *err)
{
	struct kp_buf p = KP_BUF_INIT;
	int rc;
	if (o->results) {
		if (!kp_path_exists(o->results))
			return kp_error_set(err, KP_ENOENT, "recorded verdicts '%s' not found", o->results);
		return load_results(o->results, rs, have, err);
	}
	kp_path_join(&p, dir, "eval_results.json");
	rc = load_results(p.buf, rs, have, err);
	kp_buf_release(&p);
	return rc;
}

/* ---- sources ----------------------------------------------------------------------------------------------
 */

static int add_dir(struct found_list *f, const char *dir, const struct kp_rejudge_opts *o,
                   struct kp_error *err)
{
	struct kp_recorded_set rs;
	struct kp_buf p = KP_BUF_INIT;
	struct dirent *de;
	DIR *d;
	int have, rc;

	kp_recorded_set_init(&rs);
	if ((rc = results_for(dir, o, &rs, &have, err)))
		return rc;
	if (!(d = opendir(dir))) {
		kp_recorded_set_release(&rs);
		return kp_error_set(err, KP_EIO, "cannot read '%s': %s", dir, strerror(errno));
	}
	while (!rc && (de = readdir(d))) {
		kp_buf_reset(&p);
		kp_path_join(&p, dir, de->d_name);
		rc = add_named(f, p.buf, have ? &rs : NULL, o, err);
	}
	closedir(d);
	kp_buf_release(&p);
	kp_recorded_set_release(&rs);
	return rc;
}

static int add_glob(struct found_list *f, const char *pattern, const struct kp_rejudge_opts *o,
                    struct kp_error *err)
{
	glob_t g;
	int rc = 0, gr = glob(pattern, 0, NULL, &g);
	struct kp_buf last = KP_BUF_INIT;
	struct kp_recorded_set rs;
	int have = 0;

	kp_recorded_set_init(&rs);
	if (gr == GLOB_NOMATCH)
		return kp_error_set(err, KP_ENOENT, "no kernel matches '%s'", pattern);
	for (size_t i = 0; !rc && gr == 0 && i < g.gl_pathc; i++) {
		const char *path = g.gl_pathv[i];
		const char *slash = strrchr(path, '/');
		size_t dl = slash ? (size_t)(slash - path) : 1;
		if (!last.len || last.len != dl || strncmp(last.buf, slash ? path : ".", dl)) {
			kp_buf_reset(&last);
			kp_buf_add(&last, slash ? path : ".", dl);
			rc = results_for(last.buf, o, &rs, &have, err);
		}
		if (!rc)
			rc = add_named(f, path, have ? &rs : NULL, o, err);
	}
	if (gr == 0)
		globfree(&g);
	kp_buf_release(&last);
	kp_recorded_set_release(&rs);
	return rc;
}

static void abs_path(struct kp_buf *out, const char *base, const char *p)
{
	char real[PATH_MAX];
	struct kp_buf j = KP_BUF_INIT;
	if (p[0] == '/')
		kp_buf_adds(&j, p);
	else
		kp_path_join(&j, base, p);
	kp_buf_adds(out, realpath(j.buf, real) ? real : j.buf);
	kp_buf_release(&j);
}

/* --recorded for a list file: the verdicts of its kernels named by KernelBench's convention. */
static int list_recorded(struct found_list *f, size_t from, const struct kp_rejudge_opts *o,
                         struct kp_error *err)
{
	struct kp_recorded_set rs;
	int have = 0, rc;
	if (!o->results)
		return 0;
	kp_recorded_set_init(&rs);
	if (!(rc = results_for(".", o, &rs, &have, err)) && have)
		for (size_t i = from; i < f->n; i++) {
			const struct kp_recorded *r =
			    f->v[i].level ? kp_recorded_find(&rs, f->v[i].level, f->v[i].problem,
			                                     f->v[i].epoch, f->v[i].sample)
			                  : NULL;
			json_t *j = r ? kp_recorded_to_json(r) : NULL;
			if (j && !kp_recorded_from_json(&f->v[i].rec, j, err))
				f->v[i].have_rec = 1;
			json_decref(j);
		}
	kp_recorded_set_release(&rs);
	return rc;
}

/* A list file: `KERNEL TASK [name=NAME]` per line. */
static int add_list(struct found_list *f, const char *file, struct kp_error *err)
{
	struct kp_buf text = KP_BUF_INIT, base = KP_BUF_INIT;
	struct kp_strvec lines = KP_STRVEC_INIT;
	const char *slash = strrchr(file, '/');
	int rc;

	if ((rc = kp_read_file(file, LIST_CAP, &text, err)))
		return rc;
	kp_buf_add(&base, slash ? file : ".", slash ? (size_t)(slash - file) : 1);
	kp_strvec_split(&lines, text.buf ? text.buf : "", '\n');
	for (size_t i = 0; i < lines.n && !rc; i++) {
		struct kp_strvec w = KP_STRVEC_INIT;
		char *line = lines.v[i], *hash = strchr(line, '#');
		struct kp_strvec words = KP_STRVEC_INIT;
		if (hash)
			*hash = 0;
		for (char *c = line; *c; c++)
			if (*c == '\t' || *c == '\r')
				*c = ' ';
		kp_strvec_split(&w, line, ' ');
		for (size_t k = 0; k < w.n; k++)
			if (*w.v[k])
				kp_strvec_push(&words, w.v[k]);
		kp_strvec_release(&w);
		if (!words.n) {
			kp_strvec_release(&words);
			continue;
		}
		if (words.n < 2 || words.n > 3 || (words.n == 3 && strncmp(words.v[2], "name=", 5)) ||
		    (words.n == 3 && !words.v[2][5])) {
			rc = kp_error_set(err, KP_EPARSE, "%s:%zu: expected 'KERNEL TASK [name=NAME]'", file,
			                  i + 1);
		} else {
			struct found *e = found_push(f);
			struct kp_buf k = KP_BUF_INIT, t = KP_BUF_INIT;
			abs_path(&k, base.buf, words.v[0]);
			abs_path(&t, base.buf, words.v[1]);
			e->kernel = kp_buf_detach(&k, NULL);
			e->task = kp_buf_detach(&t, NULL);
			if (words.n == 3)
				e->name = kp_xstrdup(words.v[2] + 5);
			else
				set_name_from_file(e);
			if (kp_rejudge_parse_name(e->kernel, &e->level, &e->problem, &e->epoch, &e->sample))
				e->level = e->problem = e->epoch = e->sample = 0;
			if (!kp_path_exists(e->kernel) || !kp_path_exists(e->task))
				rc = kp_error_set(err, KP_ENOENT, "%s:%zu: '%s' not found", file, i + 1,
				                  kp_path_exists(e->kernel) ? e->task : e->kernel);
		}
		kp_strvec_release(&words);
	}
	kp_strvec_release(&lines);
	kp_buf_release(&text);
	kp_buf_release(&base);
	return rc;
}

/* ---- into the task list
 * ------------------------------------------------------------------------------------ */

static int found_cmp(const void *pa, const void *pb)
{
	const struct found *a = pa, *b = pb;
	if (a->level != b->level)
		return a->level < b->level ? -1 : 1;
	if (a->problem != b->problem)
		return a->problem < b->problem ? -1 : 1;
	if (a->epoch != b->epoch)
		return a->epoch < b->epoch ? -1 : 1;
	if (a->sample != b->sample)
		return a->sample < b->sample ? -1 : 1;
	return strcmp(a->kernel, b->kernel);
}

/* Whether a is a better sample than b by their recorded verdicts (correct, then faster, then lower id). */
static int better(const struct found *a, const struct found *b)
{
	int ca = a->have_rec && a->rec.correct, cb = b->have_rec && b->rec.correct;
	double ta = a->have_rec ? a->rec.runtime_ms : NAN, tb = b->have_rec ? b->rec.runtime_ms : NAN;
	if (ca != cb)
		return ca;
	if (ca && !isnan(ta) && (isnan(tb) || ta < tb))
		return 1;
	return 0;
}

/* KP_REJUDGE_BEST: keep one sample per (level, problem) of a sorted list. */
static void keep_best(struct found_list *f)
{
	size_t w = 0;
	for (size_t i = 0; i < f->n;) {
		size_t j = i, best = i;
		while (j < f->n && f->v[j].level == f->v[i].level && f->v[j].problem == f->v[i].problem &&
		       f->v[i].level) {
			if (better(&f->v[j], &f->v[best]))
				best = j;
			j++;
		}
		if (j == i)
			j = i + 1; /* a list file's kernel without ids: kept */
		for (size_t k = i; k < j; k++) {
			if (k == best)
				continue;
			free(f->v[k].kernel);
			free(f->v[k].task);
			free(f->v[k].name);
			kp_recorded_release(&f->v[k].rec);
		}
		f->v[w++] = f->v[best];
		i = j;
	}
	f->n = w;
}

static int push_tasks(struct kp_bench_list *l, struct found_list *f, const struct kp_rejudge_opts *o,
                      struct kp_error *err)
{
	size_t n0 = l->n;
	int rc = 0;
	for (size_t i = 0; i < f->n && !rc; i++) {
		struct kp_bench_task_settings set;
		struct kp_buf src = KP_BUF_INIT;
		memset(&set, 0, sizeof(set));
		if (f->v[i].have_rec && isnan(f->v[i].rec.ref_ms) && f->v[i].level)
			f->v[i].rec.ref_ms = kp_recorded_ref_ms(o->refs, f->v[i].level, f->v[i].problem);
		if (!(rc = kp_read_file(f->v[i].kernel, KP_REJUDGE_KERNEL_CAP, &src, err))) {
			set.name = f->v[i].name;
			set.kernel = f->v[i].kernel;
			set.kernel_source = src.buf ? src.buf : (char *)"";
			set.recorded =
			    f->v[i].have_rec ? kp_json_text(kp_recorded_to_json(&f->v[i].rec)) : NULL;
			kp_bench_list_push(l, f->v[i].task, &set);
			free(set.recorded);
		}
		kp_buf_release(&src);
	}
	if (rc) { /* nothing is added */
		struct kp_bench_list tail = {l->v + n0, l->n - n0, 0};
		for (size_t i = 0; i < tail.n; i++) {
			free(tail.v[i].path);
			free(tail.v[i].set.name);
			free(tail.v[i].set.kernel);
			free(tail.v[i].set.kernel_source);
			free(tail.v[i].set.recorded);
		}
		l->n = n0;
	}
	return rc;
}

static int is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

int kp_rejudge_add_source(struct kp_bench_list *l, const char *source, const struct kp_rejudge_opts *o,
                          struct kp_error *err)
{
	struct found_list f = {0};
	struct stat st;
	int rc;

	if (is_glob(source) && stat(source, &st) != 0)
		rc = add_glob(&f, source, o, err);
	else if (stat(source, &st) != 0)
		rc = kp_error_set(err, KP_ENOENT, "kernels '%s' not found", source);
	else if (S_ISDIR(st.st_mode))
		rc = add_dir(&f, source, o, err);
	else if (!kp_rejudge_parse_name(source, &(int){0}, &(int){0}, &(int){0}, &(int){0}))
		rc = add_glob(&f, source, o, err); /* one kernel: a glob of itself */
	else if (!(rc = add_list(&f, source, err)))
		rc = list_recorded(&f, 0, o, err);
	if (!rc && !f.n)
		rc = kp_error_set(err, KP_ENOENT,
		                  "no kernel in '%s': kernels are named level_L_problem_P_sample_S_kernel.py "
		                  "(or give a list file of 'KERNEL TASK' lines)",
		                  source);
	if (!rc) {
		qsort(f.v, f.n, sizeof(*f.v), found_cmp);
		if (o->samples == KP_REJUDGE_BEST)
			keep_best(&f);
		rc = push_tasks(l, &f, o, err);
	}
	found_release(&f);
	return rc;
}
