/*
 * Baselines for a suite: each task's reference timed alone (eager, and torch.compile for KernelBench
 * tasks), measured once and cached by content: the task's hash, the GPU's name and the timing
 * protocol. With an exec evaluator its program measures them (KP_EVAL_ROLE=baseline).
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/hash.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "suite/bench_int.h"

#define BASELINE_SCHEMA "kernelpro.baseline/1"
#define CACHE_FILE_CAP  (1u << 20)
#define EXEC_OUT_CAP    (1u << 20)

double kp__bench_baseline_ms(const json_t *doc, const char *which)
{
	double ms = kp_json_num(json_object_get(doc, which), "median_ms", NAN);
	return isfinite(ms) && ms > 0 ? ms : NAN;
}

/* Where cached baselines live: beside the build cache (--cache, $KERNELPRO_CACHE), else the user's. */
static int cache_dir(const struct kp__bench_baseline_req *r, struct kp_buf *out, struct kp_error *err)
{
	const char *env = getenv("KERNELPRO_CACHE");
	int rc = 0;
	if (r->cache_dir)
		kp_buf_adds(out, r->cache_dir);
	else if (r->eval && r->eval->cache_dir)
		kp_path_join(out, r->eval->cache_dir, "baselines");
	else if (env && *env)
		kp_path_join(out, env, "baselines");
	else if (!(rc = kp_cache_dir(out, err)))
		kp_buf_adds(out, "/baselines");
	return rc;
}

/* The cache key: what the numbers depend on. */
static void cache_key(const struct kp__bench_baseline_req *r, char hex[KP_SHA256_HEX_LEN + 1])
{
	const struct kp_eval_opts *o = r->eval;
	struct kp_sha256 h;
	char proto[160];

	snprintf(proto, sizeof(proto), "seed=%ld warmup=%d trials=%d discard=%d l2=%d compile=%d", o->seed,
	         o->warmup, o->timing_trials, o->discard_first, o->l2_flush, r->compile);
	kp_sha256_init(&h);
	kp_sha256_update_str(&h, BASELINE_SCHEMA);
	kp_sha256_update_str(&h, r->sha256);
	kp_sha256_update_str(&h, r->gpu_name ? r->gpu_name : "");
	kp_sha256_update_str(&h, proto);
	kp_sha256_final(&h, hex);
}

static json_t *cache_get(const char *path)
{
	json_t *doc = NULL;
	struct kp_error ignore = KP_ERROR_INIT;
	if (!kp_path_exists(path) || kp_json_load_file(path, CACHE_FILE_CAP, &doc, &ignore))
		return NULL;
	if (!json_is_object(doc) || isnan(kp__bench_baseline_ms(doc, "eager"))) {
		json_decref(doc); /* a damaged entry is measured again */
		return NULL;
	}
	return doc;
}

static int harness_baseline(const struct kp__bench_baseline_req *r, json_t **doc, struct kp_error *err)
{
	struct kp_buf dir = KP_BUF_INIT, path = KP_BUF_INIT;
	struct kp_baseline b;
	struct kp_error cache_err = KP_ERROR_INIT;
	char key[KP_SHA256_HEX_LEN + 1];
	int rc, cached = !cache_dir(r, &dir, &cache_err);

	cache_key(r, key);
	if (cached) {
		kp_path_join(&path, dir.buf, key);
		kp_buf_adds(&path, ".json");
		if ((*doc = cache_get(path.buf))) {
			kp_json_set(*doc, "measure_s", json_real(0)); /* nothing measured here */
			kp_buf_release(&dir);
			kp_buf_release(&path);
			return 0;
		}
	}
	kp_baseline_init(&b);
	rc = kp_eval_baseline(r->task, r->eval, r->compile, &b, err);
	if (!rc) {
		*doc = kp_baseline_to_json(&b);
		kp_json_set(*doc, "task", json_string(r->task->name));
		kp_json_set(*doc, "task_sha256", json_string(r->sha256));
		/* A cache that cannot be written costs a measurement next time, nothing else. */
		if (cached && !kp_mkdir_p(dir.buf, 0755, &cache_err))
			kp_json_write_file(path.buf, *doc, &cache_err);
	}
	kp_baseline_release(&b);
	kp_buf_release(&dir);
	kp_buf_release(&path);
	return rc;
}

/*
 * The exec evaluator's program on the reference with KP_EVAL_ROLE=baseline: it prints a baseline
 * document ({"eager": {"median_ms": ...}, "torch_compile": {...}}) or a verdict whose
 * ref_runtime is the reference's time.
 */
static int exec_baseline(const struct kp__bench_baseline_req *r, json_t **doc, struct kp_error *err)
{
	const struct kp_eval_opts *o = r->eval;
	struct kp_child c = KP_CHILD_INIT;
	json_t *v = NULL, *eager;
	double ms, cms;
	char how[128];
	int rc;

	kp_strvec_split(&c.args, r->exec, ' ');
	while (c.args.n && !*c.args.v[c.args.n - 1])
		kp_strvec_pop(&c.args);
	if (!c.args.n) {
		rc = kp_error_set(err, KP_EINVAL, "exec evaluator: no program given");
		goto out;
	}
	kp_strvec_push(&c.args, r->task->reference);
	kp_strvec_push(&c.env, "KP_EVAL_ROLE=baseline");
	kp_strvec_pushf(&c.env, "KP_GPU=%d", o->gpu);
	c.timeout_ms = (long)((o->build_timeout_s + o->check_timeout_s + o->timing_timeout_s) * 1000);
	c.out_cap = EXEC_OUT_CAP;
	c.err_cap = 16 << 10;
	if ((rc = kp_child_run(&c, err)))
		goto out;
	if (c.timed_out || c.term_signal || !c.out.len) {
		kp_buf_rtrim(&c.err);
		rc = kp_error_set(err, KP_ECHILD, "exec evaluator (baseline) %s%s%s%.300s",
		                  kp_child_describe(&c, how, sizeof(how)),
		                  c.out.len ? "" : " without printing one", c.err.len ? ": " : "",
		                  c.err.buf ? c.err.buf : "");
		goto out;
	}
	if ((rc = kp_json_load_mem("exec evaluator (baseline)", c.out.buf, c.out.len, &v, err)))
		goto out;
	ms = kp__bench_baseline_ms(v, "eager");
	if (isnan(ms))
		ms = kp__bench_baseline_ms(v, "ref_runtime");
	cms = kp__bench_baseline_ms(v, "torch_compile");
	if (isnan(ms)) {
		rc = kp_error_set(
		    err, KP_EPARSE,
		    "exec evaluator (baseline): no eager.median_ms (or ref_runtime.median_ms) above 0 in "
		    "what it printed");
		goto out;
	}
	*doc = json_object();
	eager = json_object();
	kp_json_set(eager, "median_ms", json_real(ms));
	kp_json_set(*doc, "schema", json_string(BASELINE_SCHEMA));
	kp_json_set(*doc, "eager", eager);
	if (!isnan(cms)) {
		json_t *cj = json_object();
		kp_json_set(cj, "median_ms", json_real(cms));
		kp_json_set(*doc, "torch_compile", cj);
	} else {
		kp_json_set(*doc, "torch_compile", json_null());
	}
	kp_json_set(*doc, "task", json_string(r->task->name));
	kp_json_set(*doc, "task_sha256", json_string(r->sha256));
	kp_json_set(*doc, "source", json_string("exec"));
out:
	json_decref(v);
	kp_child_release(&c);
	return rc;
}

int kp__bench_baseline(const struct kp__bench_baseline_req *r, json_t **doc, struct kp_error *err)
{
	double t0 = kp_now();
	int rc;

	*doc = NULL;
	rc = r->exec ? exec_baseline(r, doc, err) : harness_baseline(r, doc, err);
	/* How long the GPU was busy for it here (0: from the cache), for bench/bench_overhead.py. */
	if (!rc && !json_object_get(*doc, "measure_s"))
		kp_json_set(*doc, "measure_s", json_real(kp_now() - t0));
	return rc;
}
