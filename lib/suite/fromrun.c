/* Suites read from run directories: one task record from a run (its view and its best version's source),
 * and a whole suite from a directory of runs or its results.json. */
#include "base/setup.h"

#include <dirent.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/run.h"
#include "kernelpro/strvec.h"
#include "kernelpro/suite.h"

static int has_file(const char *dir, const char *name)
{
	struct kp_buf p = KP_BUF_INIT;
	int yes;
	kp_path_join(&p, dir, name);
	yes = kp_path_exists(p.buf);
	kp_buf_release(&p);
	return yes;
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
		if (kp_run_exists(p.buf))
			kp_strvec_push(out, p.buf);
	}
	closedir(d);
	kp_buf_release(&p);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return 0;
}

int kp_suite_is_dir(const char *dir)
{
	struct kp_strvec runs = KP_STRVEC_INIT;
	int yes;
	if (!kp_path_is_dir(dir) || kp_run_exists(dir))
		return 0;
	if (has_file(dir, "results.json"))
		return 1;
	yes = !list_runs(dir, &runs, NULL) && runs.n > 0;
	kp_strvec_release(&runs);
	return yes;
}

int kp_suite_task_from_run(const char *run_dir, struct kp_suite_task *t, struct kp_error *err)
{
	json_t *view = NULL;
	struct kp_buf src = KP_BUF_INIT;
	char lang[16] = "";
	int rc;

	if ((rc = kp_run_view(run_dir, &view, err)) || (rc = kp_suite_task_from_view(t, view, err)))
		goto out;
	if (t->correct && t->best_node) {
		if ((rc = kp_run_read_source(run_dir, t->best_node, &src, lang, err)))
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

int kp_suite_load_dir(const char *dir, struct kp_suite *s, struct kp_error *err)
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
		if ((rc = kp_suite_task_from_run(runs.v[i], &t, err))) {
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
