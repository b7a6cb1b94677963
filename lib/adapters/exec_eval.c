/*
 * The exec evaluator: judges each candidate by running an outside program (PROGRAM ARGS... FILE)
 * that prints one verdict as JSON (the `kernelpro eval --json` schema), so any harness — a
 * remote GPU, a site's own benchmark script, a test fake — can sit behind the search.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/child.h"
#include "kernelpro/eval.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/search_backends.h"
#include "kernelpro/str.h"

/* The verdict document is small; anything past this is a broken evaluator. */
#define EXEC_OUT_CAP (8u << 20)
/* How much of the evaluator's stderr an error message quotes. */
#define EXEC_ERR_QUOTE 600

struct exec_eval {
	struct kp_search_evaluator base;
	struct kp_strvec argv;
	char *reference;   /* file holding the reference source */
	char *work_dir;
	char *ext;
	double timeout_s;
	int gpu; /* passed as KP_GPU; -1: none */
};

static char *dump_or_null(const json_t *v)
{
	if (!v || json_is_null(v))
		return NULL;
	return json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
}

static char *str_or_null(const json_t *o, const char *key)
{
	const char *s = kp_json_str(o, key, NULL);
	return s ? kp_xstrdup(s) : NULL;
}

int kp_exec_verdict_parse(const char *what, const char *text, size_t len, struct kp_search_eval *out,
			  struct kp_error *err)
{
	json_t *v = NULL;
	const char *status;
	int rc = kp_json_load_mem(what, text, len, &v, err);

	if (rc)
		return rc;
	if (!json_is_object(v)) {
		rc = kp_error_set(err, KP_EPARSE, "%s: expected a JSON object with a \"status\"", what);
		goto out;
	}
	status = kp_json_str(v, "status", NULL);
	out->outcome = kp_outcome_parse(status);
	if (out->outcome == KP_OUTCOME_NONE) {
		rc = kp_error_set(err, KP_EPARSE, "%s: status '%s' is not a verdict (one of correct, compile_error, "
						  "runtime_error, timeout, wrong_output, cheat_suspected)",
				  what, status ? status : "(missing)");
		goto out;
	}
	out->time_ms = kp_json_num(json_object_get(v, "runtime"), "median_ms", NAN);
	out->time_std_ms = kp_json_num(json_object_get(v, "runtime"), "std_ms", NAN);
	out->ref_time_ms = kp_json_num(json_object_get(v, "ref_runtime"), "median_ms", NAN);
	out->speedup = kp_json_num(v, "speedup", NAN);
	if (!isfinite(out->speedup) && out->time_ms > 0 && out->ref_time_ms > 0)
		out->speedup = out->ref_time_ms / out->time_ms;
	out->energy_j = kp_json_num(v, "energy_j", NAN);
	out->log = str_or_null(v, "log");
	if (!out->log)
		out->log = str_or_null(v, "message");
	out->feedback = str_or_null(v, "feedback");
	out->stage1 = str_or_null(v, "stage1");
	out->hardware = str_or_null(v, "hardware");
	out->findings_json = dump_or_null(json_object_get(v, "findings"));
	out->profile_json = dump_or_null(json_object_get(v, "profile"));
	out->verdict_json = kp_xstrndup(text, len);
	if (out->outcome == KP_OUTCOME_CORRECT) {
		struct kp_error why = KP_ERROR_INIT;
		if (kp_eval_numbers_check(what, out->time_ms, out->time_std_ms, out->ref_time_ms, out->speedup,
					  out->energy_j, &why))
			kp_search_eval_implausible(out, &why); /* this candidate fails; the run goes on */
	}
	if (!rc && out->outcome == KP_OUTCOME_CORRECT && !(out->speedup > 0))
		rc = kp_error_set(err, KP_EPARSE, "%s: a correct verdict needs \"speedup\" (or runtime and ref_runtime "
						  "median_ms)", what);
out:
	json_decref(v);
	return rc;
}

static int run_one(struct exec_eval *e, const char *file, const char *role, long node,
		   struct kp_search_eval *out, struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	char what[64], how[128];
	double t0 = kp_now();
	int rc;

	kp_strvec_pushv(&c.args, (const char *const *)e->argv.v);
	kp_strvec_push(&c.args, file);
	kp_strvec_pushf(&c.env, "KP_EVAL_ROLE=%s", role);
	kp_strvec_pushf(&c.env, "KP_NODE_ID=%ld", node);
	if (e->gpu >= 0)
		kp_strvec_pushf(&c.env, "KP_GPU=%d", e->gpu);
	c.timeout_ms = e->timeout_s > 0 ? (long)(e->timeout_s * 1000) : 0;
	c.out_cap = EXEC_OUT_CAP;
	c.err_cap = 64 << 10;
	rc = kp_child_run(&c, err);
	if (rc) {
		kp_error_prefix(err, "exec evaluator");
		goto out;
	}
	snprintf(what, sizeof(what), "exec evaluator (%s #%ld)", role, node);
	if (c.timed_out || c.out_truncated || !c.out.len) {
		kp_buf_rtrim(&c.err);
		rc = kp_error_set(err, KP_ECHILD, "exec evaluator '%s' %s%s%s%.*s", e->argv.v[0],
				  kp_child_describe(&c, how, sizeof(how)),
				  c.out_truncated ? " (its output passed 8 MiB)" : !c.out.len ? " without printing a verdict" : "",
				  c.err.len ? ": " : "", EXEC_ERR_QUOTE,
				  c.err.len > EXEC_ERR_QUOTE ? c.err.buf + c.err.len - EXEC_ERR_QUOTE : c.err.buf);
		goto out;
	}
	/* The verdict is what it printed, whatever its exit status (a failing candidate may exit 1). */
	rc = kp_exec_verdict_parse(what, c.out.buf, c.out.len, out, err);
	out->wall_s = kp_now() - t0;
out:
	kp_child_release(&c);
	return rc;
}

static int exec_reference(struct kp_search_evaluator *base, struct kp_search_eval *out, struct kp_error *err)
{
	struct exec_eval *e = (struct exec_eval *)base;
	return run_one(e, e->reference, "reference", 0, out, err);
}

static int exec_evaluate(struct kp_search_evaluator *base, long node, const char *source, const char *lang,
			 struct kp_search_eval *out, struct kp_error *err)
{
	struct exec_eval *e = (struct exec_eval *)base;
	struct kp_buf path = KP_BUF_INIT;
	int rc;

	kp_buf_addf(&path, "%s/cand-%ld.%s", e->work_dir, node, e->ext);
	rc = kp_write_file_atomic(path.buf, source, strlen(source), err);
	if (!rc)
		rc = run_one(e, path.buf, "candidate", node, out, err);
	kp_buf_release(&path);
	return rc;
}

/* One variant of a tuning: written to exec-eval/tune-<node>.<ext> and judged as a candidate. */
struct exec_tune {
	struct exec_eval *e;
	long node;
	struct kp_buf path;
};

static int exec_variant(void *ctx, const char *source, struct kp_search_eval *out, struct kp_error *err)
{
	struct exec_tune *x = ctx;
	int rc = kp_write_file_atomic(x->path.buf, source, strlen(source), err);
	return rc ? rc : run_one(x->e, x->path.buf, "candidate", x->node, out, err);
}

/* The tune action: each variant through the program, as any candidate is (kp_search_tune_each). */
static int exec_tune(struct kp_search_evaluator *base, const struct kp_search_tune_req *req,
                     struct kp_search_tuning *out, struct kp_error *err)
{
	struct exec_tune x = {(struct exec_eval *)base, req->node_id, KP_BUF_INIT};
	struct kp_search_tune_req r = *req;
	int rc;

	r.tune.gpu = "exec"; /* the program's GPU is its own: the key only has to stay the same in the run */
	kp_buf_addf(&x.path, "%s/tune-%ld.%s", x.e->work_dir, req->node_id, x.e->ext);
	rc = kp_search_tune_each(&r, exec_variant, &x, out, err);
	kp_buf_release(&x.path);
	return rc;
}

static void exec_free(struct kp_search_evaluator *base)
{
	struct exec_eval *e = (struct exec_eval *)base;
	kp_strvec_release(&e->argv);
	free(e->reference);
	free(e->work_dir);
	free(e->ext);
	free(e);
}

int kp_exec_evaluator_new(struct kp_search_evaluator **out, const char *const *argv, const char *reference_file,
			  const char *work_dir, const char *ext, double timeout_s, struct kp_error *err)
{
	struct exec_eval *e;
	char *prog;
	int rc;

	*out = NULL;
	if (!argv || !argv[0] || !argv[0][0])
		return kp_error_set(err, KP_EINVAL, "exec evaluator: no program given (--evaluator exec:PROGRAM ARGS...)");
	prog = kp_which(argv[0]);
	if (!prog)
		return kp_error_set(err, KP_ENOTOOL, "exec evaluator: program '%s' not found", argv[0]);
	free(prog);
	rc = kp_mkdir_p(work_dir, 0755, err);
	if (rc)
		return rc;
	e = kp_xcalloc(1, sizeof(*e));
	e->base.name = "exec";
	e->base.reference = exec_reference;
	e->base.evaluate = exec_evaluate;
	e->base.tune = exec_tune;
	e->base.free = exec_free;
	e->base.priv = e;
	kp_strvec_pushv(&e->argv, argv);
	e->reference = kp_xstrdup(reference_file);
	e->work_dir = kp_xstrdup(work_dir);
	e->ext = kp_xstrdup(ext ? ext : "cu");
	e->timeout_s = timeout_s;
	e->gpu = -1;
	*out = &e->base;
	return 0;
}

void kp_exec_evaluator_set_gpu(struct kp_search_evaluator *ev, int gpu)
{
	if (ev && ev->evaluate == exec_evaluate)
		((struct exec_eval *)ev)->gpu = gpu;
}
