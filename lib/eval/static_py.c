/* The static checks' Python facts: runs harness/kp_pystatic.py (Python's ast over the task and the
 * candidate, nothing executed) through kp_child and reads its one-line JSON reply (static_py.h). */
#include "base/setup.h"

#include <jansson.h>

#include "eval/static_py.h"
#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

#define HELPER "harness/kp_pystatic.py"
#define REPLY_CAP (1u << 20)
#define HELPER_TIMEOUT_MS 30000

static int ops_parse(const json_t *a, const char *key, struct kp_pyop *out, size_t *n, struct kp_error *err)
{
	size_t i;
	json_t *e;
	*n = 0;
	if (!json_is_array(a))
		return kp_error_set(err, KP_EPARSE, "python static facts: '%s' is not a list", key);
	json_array_foreach(a, i, e) {
		const json_t *name = json_array_get(e, 0), *line = json_array_get(e, 1);
		if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_string(name) || !json_is_integer(line))
			return kp_error_set(err, KP_EPARSE, "python static facts: '%s' item %zu is not [name, line]", key, i);
		if (*n == KP_PYFACTS_MAX_OPS)
			continue;
		kp_strlcpy(out[*n].name, json_string_value(name), sizeof(out[*n].name));
		out[*n].line = (int)json_integer_value(line);
		(*n)++;
	}
	return 0;
}

static int ev_parse(const json_t *a, const char *key, struct kp_pyev_list *out, struct kp_error *err)
{
	size_t i;
	json_t *e;
	out->n = 0;
	if (!json_is_array(a))
		return kp_error_set(err, KP_EPARSE, "python static facts: '%s' is not a list", key);
	json_array_foreach(a, i, e) {
		const json_t *line = json_object_get(e, "line"), *what = json_object_get(e, "what"),
			     *text = json_object_get(e, "text");
		struct kp_pyev *ev;
		if (!json_is_object(e) || !json_is_integer(line) || !json_is_string(what) || !json_is_string(text))
			return kp_error_set(err, KP_EPARSE, "python static facts: '%s' item %zu needs line, what, text",
					    key, i);
		if (out->n == KP_PYFACTS_MAX_EV)
			continue;
		ev = &out->ev[out->n++];
		ev->line = (int)json_integer_value(line);
		kp_strlcpy(ev->what, json_string_value(what), sizeof(ev->what));
		kp_strlcpy(ev->text, json_string_value(text), sizeof(ev->text));
	}
	return 0;
}

int kp_pyfacts_parse(struct kp_pyfacts *f, const char *json, size_t len, struct kp_error *err)
{
	json_t *root = NULL;
	int rc;

	memset(f, 0, sizeof(*f));
	if ((rc = kp_json_load_mem("python static facts", json, len, &root, err)))
		return rc;
	if (!json_is_object(root) || !json_is_boolean(json_object_get(root, "ok"))) {
		rc = kp_error_set(err, KP_EPARSE, "python static facts: not an object with 'ok'");
		goto out;
	}
	if (!json_is_true(json_object_get(root, "ok"))) {
		kp_strlcpy(f->error, kp_json_str(root, "error", "the candidate does not parse"), sizeof(f->error));
		goto out;
	}
	f->parsed = 1;
	if ((rc = ops_parse(json_object_get(root, "ref_ops"), "ref_ops", f->ref_ops, &f->nref, err)) ||
	    (rc = ops_parse(json_object_get(root, "cand_ops"), "cand_ops", f->cand_ops, &f->ncand, err)) ||
	    (rc = ev_parse(json_object_get(root, "reads_reference"), "reads_reference", &f->reads, err)) ||
	    (rc = ev_parse(json_object_get(root, "fallback"), "fallback", &f->fallback, err)) ||
	    (rc = ev_parse(json_object_get(root, "lazy_build"), "lazy_build", &f->lazy, err)))
		f->parsed = 0;
	else {
		const json_t *mn = json_object_get(root, "defines_model_new");
		if (mn && !json_is_boolean(mn)) {
			f->parsed = 0;
			rc = kp_error_set(err, KP_EPARSE, "python static facts: 'defines_model_new' must be a boolean");
			goto out;
		}
		f->defines_model_new = mn ? json_is_true(mn) : 1;
	}
out:
	json_decref(root);
	return rc;
}

int kp_pyfacts_run(struct kp_pyfacts *f, const char *python, const char *task_src, const char *cand,
		   size_t cand_len, struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	char *script = kp_find_data(HELPER), *req = NULL;
	json_t *obj = json_object(), *task_j, *cand_j;
	char how[128];
	int rc;

	memset(f, 0, sizeof(*f));
	if (!python || !*python)
		python = getenv("KERNELPRO_PYTHON");
	if (!script) {
		rc = kp_error_set(err, KP_ENOTOOL, HELPER " not found: run kernelpro from its build or install tree, "
						   "or set KERNELPRO_HOME to the directory holding harness/");
		goto out;
	}
	task_j = json_string(task_src ? task_src : "");
	cand_j = json_stringn(cand, cand_len);
	if (!task_j || !cand_j) { /* not UTF-8: Python cannot import it either */
		rc = kp_error_set(err, KP_EPARSE, "the %s is not UTF-8 text", cand_j ? "task" : "candidate");
		json_decref(task_j);
		json_decref(cand_j);
		goto out;
	}
	kp_json_set(obj, "task", task_j);
	kp_json_set(obj, "candidate", cand_j);
	req = json_dumps(obj, JSON_COMPACT);
	if (!req) {
		rc = kp_error_set(err, KP_EPARSE, "the static checks' request could not be written");
		goto out;
	}
	/* -E -s: no PYTHON* variables, no user site; not -I, which since Python 3.11 also leaves the script's
	 * folder off sys.path, where the kernelpro package is (harness/kernelpro). */
	kp_strvec_pushl(&c.args, python && *python ? python : "python3", "-E", "-s", "-B", script, NULL);
	c.stdin_data = req;
	c.stdin_len = strlen(req);
	c.timeout_ms = HELPER_TIMEOUT_MS;
	c.out_cap = REPLY_CAP;
	c.err_cap = 4096;
	if ((rc = kp_child_run(&c, err))) {
		kp_error_prefix(err, "cannot run the static checks' Python parser (python3, or set KERNELPRO_PYTHON / "
				     "--python)");
		goto out;
	}
	if (!kp_child_ok(&c) || c.out_truncated) {
		rc = kp_error_set(err, KP_EIO, "the static checks' Python parser %s: %.200s",
				  c.out_truncated ? "wrote too much" : kp_child_describe(&c, how, sizeof(how)),
				  c.err.len ? c.err.buf : "");
		goto out;
	}
	rc = kp_pyfacts_parse(f, c.out.buf ? c.out.buf : "", c.out.len, err);
out:
	kp_child_release(&c);
	free(req);
	free(script);
	json_decref(obj);
	return rc;
}
