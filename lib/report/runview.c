/*
 * The run view: a run directory read into one JSON document for the reports and the suite metrics.
 * The one file of lib/report that reads runs: through lib/run (the summary) and the run database's
 * public queries.
 */
#include "base/setup.h"

#include <dirent.h>
#include <math.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/report.h"
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

int kp_report_run_view(const char *run_dir, json_t **out, struct kp_error *err)
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

int kp_report_run_source(const char *run_dir, long node, struct kp_buf *src, char lang[16],
                         struct kp_error *err)
{
	struct kp_run *r = NULL;
	int rc = kp_run_open(&r, run_dir, KP_RUN_READONLY, err);
	if (!rc)
		rc = kp_store_candidate_get(kp_run_store(r), node, src, lang, err);
	kp_run_close(r);
	return rc;
}

/* ---- suites -------------------------------------------------------------------------------------------- */

static int has_file(const char *dir, const char *name)
{
	struct kp_buf p = KP_BUF_INIT;
	int yes;
	kp_path_join(&p, dir, name);
	yes = kp_path_exists(p.buf);
	kp_buf_release(&p);
	return yes;
}

int kp_report_is_run(const char *dir)
{
	return kp_path_is_dir(dir) && has_file(dir, KP_RUN_DB);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The subdirectories of `dir` that hold runs, sorted by name. */
static int list_runs(const char *dir, struct kp_strvec *out, struct kp_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct kp_buf p = KP_BUF_INIT;

	if (!d)
		return kp_error_set(err, KP_EIO, "cannot read directory '%s': %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		kp_buf_reset(&p);
		kp_path_join(&p, dir, e->d_name);
		if (kp_report_is_run(p.buf))
			kp_strvec_push(out, p.buf);
	}
	closedir(d);
	kp_buf_release(&p);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return 0;
}

int kp_report_is_suite(const char *dir)
{
	struct kp_strvec runs = KP_STRVEC_INIT;
	int yes;
	if (!kp_path_is_dir(dir) || kp_report_is_run(dir))
		return 0;
	if (has_file(dir, "results.json"))
		return 1;
	yes = !list_runs(dir, &runs, NULL) && runs.n > 0;
	kp_strvec_release(&runs);
	return yes;
}

int kp_report_suite_task(const char *run_dir, struct kp_suite_task *t, struct kp_error *err)
{
	json_t *view = NULL;
	struct kp_buf src = KP_BUF_INIT;
	char lang[16] = "";
	int rc;

	if ((rc = kp_report_run_view(run_dir, &view, err)) || (rc = kp_suite_task_from_view(t, view, err)))
		goto out;
	if (t->correct && t->best_node) {
		if ((rc = kp_report_run_source(run_dir, t->best_node, &src, lang, err)))
			goto out;
		t->source = kp_buf_detach(&src, NULL);
		t->lang = kp_xstrdup(lang);
	}
out:
	if (rc)
		kp_error_prefix(err, "run '%s': ", run_dir);
	json_decref(view);
	kp_buf_release(&src);
	return rc;
}

int kp_report_suite_load(const char *dir, struct kp_suite *s, struct kp_error *err)
{
	struct kp_strvec runs = KP_STRVEC_INIT;
	struct kp_buf p = KP_BUF_INIT;
	json_t *doc = NULL;
	int rc;

	if (has_file(dir, "results.json")) {
		kp_path_join(&p, dir, "results.json");
		if (!(rc = kp_json_load_file(p.buf, 256u << 20, &doc, err)))
			rc = kp_suite_from_json(s, doc, err);
		goto out;
	}
	if ((rc = list_runs(dir, &runs, err)))
		goto out;
	if (!runs.n) {
		rc = kp_error_set(err, KP_ENOENT, "'%s' holds neither results.json nor run directories", dir);
		goto out;
	}
	for (size_t i = 0; i < runs.n; i++) {
		struct kp_suite_task t;
		kp_suite_task_init(&t);
		if ((rc = kp_report_suite_task(runs.v[i], &t, err))) {
			kp_suite_task_release(&t);
			goto out;
		}
		/* Relative to the suite's directory, as a bench suite's "runs/NAME": the pages link by it. */
		free(t.run);
		t.run = kp_xstrdup(strrchr(runs.v[i], '/') ? strrchr(runs.v[i], '/') + 1 : runs.v[i]);
		kp_suite_add(s, &t);
	}
	rc = kp_suite_compute(s, err);
out:
	json_decref(doc);
	kp_strvec_release(&runs);
	kp_buf_release(&p);
	return rc;
}
