/*
 * A suite's shards on Slurm: which settings a submission uses, which shards it submits (those with
 * work left; none while an earlier submission is live), and where each shard stands.
 */
#include "base/setup.h"

#include "kernelpro/bench.h"
#include "kernelpro/bench_slurm.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/slurm_status.h"
#include "kernelpro/suite.h"

/* ---- settings ------------------------------------------------------------------------------------- */

int kp_bench_slurm_settings(const char *dir, const char *file, struct kp_slurm_settings *s,
                            struct kp_error *err)
{
	struct kp_buf own = KP_BUF_INIT;
	char *user = NULL;
	int rc = 0;
	if (dir)
		kp_path_join(&own, dir, KP_BENCH_SLURM_SETTINGS);
	if (dir && kp_path_exists(own.buf))
		rc = kp_slurm_settings_load(s, own.buf, err);
	else if ((user = kp_config_file("KERNELPRO_SLURM_CONFIG", "slurm.json")))
		rc = kp_slurm_settings_load(s, user, err);
	if (!rc && file)
		rc = kp_slurm_settings_load(s, file, err);
	kp_buf_release(&own);
	free(user);
	return rc;
}

static int write_settings(const char *dir, const struct kp_slurm_settings *s, struct kp_error *err)
{
	struct kp_buf p = KP_BUF_INIT;
	json_t *doc = json_object();
	int rc;
	kp_json_set(doc, "slurm", kp_slurm_settings_to_json(s));
	kp_path_join(&p, dir, "slurm");
	if (!(rc = kp_mkdir_p(p.buf, 0755, err))) {
		kp_buf_reset(&p);
		kp_path_join(&p, dir, KP_BENCH_SLURM_SETTINGS);
		rc = kp_json_write_file(p.buf, doc, err);
	}
	json_decref(doc);
	kp_buf_release(&p);
	return rc;
}

/* ---- the shards' tasks ---------------------------------------------------------------------------- */

/* n[k][state]: how many tasks of shard k of m are in each state, from kp_bench_status's document. */
static long (*count_tasks(const json_t *status, long m))[KP_SUITE_NSTATE]
{
	long(*n)[KP_SUITE_NSTATE] = kp_xcalloc((size_t)m, sizeof(*n));
	const json_t *tasks = json_object_get(status, "tasks");
	for (size_t i = 0; i < json_array_size(tasks); i++) {
		const json_t *t = json_array_get(tasks, i);
		int st = kp_suite_state_parse(kp_json_str(t, "state", "pending"));
		n[kp_json_int(t, "index", 0) % m][st < 0 ? KP_SUITE_PENDING : st]++;
	}
	return n;
}

/* The shards with a task still to run, as an element list ("0-2,5"); *count gets how many. */
static void shards_left(const json_t *status, long m, int retry_failed, struct kp_buf *list, long *count)
{
	long(*n)[KP_SUITE_NSTATE] = count_tasks(status, m);
	*count = 0;
	for (long k = 0; k < m; k++) {
		long left = n[k][KP_SUITE_PENDING] + n[k][KP_SUITE_RUNNING] + n[k][KP_SUITE_STOPPED] +
		            (retry_failed ? n[k][KP_SUITE_FAILED] : 0);
		long end = k;
		if (!left)
			continue;
		/* k starts a run of shards with work left: write it as one range. */
		while (end + 1 < m &&
		       (n[end + 1][KP_SUITE_PENDING] + n[end + 1][KP_SUITE_RUNNING] +
		        n[end + 1][KP_SUITE_STOPPED] + (retry_failed ? n[end + 1][KP_SUITE_FAILED] : 0)))
			end++;
		kp_buf_addf(list, list->len ? ",%ld" : "%ld", k);
		if (end > k)
			kp_buf_addf(list, "-%ld", end);
		*count += end - k + 1;
		k = end;
	}
	free(n);
}

/* ---- submitting ------------------------------------------------------------------------------------- */

/* Adds "N STATE" for each state the live jobs of st are in to `out`; returns how many are live. */
static long live_summary(const struct kp_slurm_status *st, struct kp_buf *out)
{
	long n[KP_SLURM_OTHER + 1] = {0}, live = 0;
	for (size_t i = 0; i < st->n; i++) {
		enum kp_slurm_state s = st->v[i].state;
		if (s != KP_SLURM_UNKNOWN && !kp_slurm_status_state_final(s)) {
			n[s]++;
			live++;
		}
	}
	for (int s = 0; s <= KP_SLURM_OTHER; s++)
		if (n[s])
			kp_buf_addf(out, "%s%ld %s", out->len ? ", " : "", n[s],
			            kp_slurm_status_state_name((enum kp_slurm_state)s));
	return live;
}

/* Refuses while the earlier submission has an element or its merge job queued or running. */
static int check_earlier(const struct kp_bench_slurm_req *r, const struct kp_slurm_submission *prev,
                         struct kp_error *err)
{
	struct kp_slurm_status arr, merge;
	struct kp_buf a = KP_BUF_INIT, m = KP_BUF_INIT;
	long live;
	int rc;
	kp_slurm_status_init(&arr);
	kp_slurm_status_init(&merge);
	if ((rc = kp_slurm_status_query(r->squeue, r->sacct, prev->array_job, prev->shards, &arr, err)) ||
	    (prev->merge_job &&
	     (rc = kp_slurm_status_query(r->squeue, r->sacct, prev->merge_job, 0, &merge, err)))) {
		kp_error_prefix(err, "checking the suite's earlier submission");
		goto out;
	}
	live = live_summary(&arr, &a) + live_summary(&merge, &m);
	if (live) {
		rc = kp_error_set(
		    err, KP_EEXISTS,
		    "suite '%s' is still on Slurm: job array %lld (%s)%s%lld%s%s%s; wait for it to end "
		    "('kernelpro bench %s --status'), or cancel it with: scancel %lld%s%lld",
		    r->dir, prev->array_job, a.len ? a.buf : "no element live",
		    prev->merge_job ? ", merge job " : "", prev->merge_job, m.len ? " (" : "",
		    m.len ? m.buf : "", m.len ? ")" : "", r->dir, prev->array_job, prev->merge_job ? " " : "",
		    prev->merge_job);
	}
out:
	kp_slurm_status_release(&arr);
	kp_slurm_status_release(&merge);
	kp_buf_release(&a);
	kp_buf_release(&m);
	return rc;
}

int kp_bench_slurm_submit(const struct kp_bench_slurm_req *r, struct kp_slurm_submission *out,
                          struct kp_error *err)
{
	struct kp_slurm_submission prev;
	struct kp_error none = KP_ERROR_INIT;
	struct kp_buf array = KP_BUF_INIT;
	json_t *status = NULL;
	long m = r->settings->nodes, count;
	int rc;

	kp_slurm_submission_init(&prev);
	rc = kp_slurm_submission_load(r->dir, &prev, &none);
	if (rc && rc != KP_ENOENT) {
		rc = kp_error_set(err, rc, "%s", kp_error_msg(&none));
		goto out;
	}
	if (!rc && prev.shards != m) {
		rc =
		    kp_error_set(err, KP_EINVAL,
		                 "suite '%s' runs as %ld shards since its first submission (job array %lld); "
		                 "a resubmission keeps them: give --nodes %ld or leave it out",
		                 r->dir, prev.shards, prev.array_job, prev.shards);
		goto out;
	}
	if (!rc && r->submit && (rc = check_earlier(r, &prev, err)))
		goto out;
	if ((rc = kp_bench_status(r->dir, &status, err)))
		goto out;
	shards_left(status, m, r->retry_failed, &array, &count);
	if (!count) {
		rc = kp_error_set(
		    err, KP_ENOENT,
		    "nothing left to run in suite '%s': every task is finished or failed%s; its "
		    "results: kernelpro bench %s --merge",
		    r->dir, r->retry_failed ? "" : " (--retry-failed runs the failed ones again)", r->dir);
		goto out;
	}
	if ((rc = write_settings(r->dir, r->settings, err)))
		goto out;
	{
		struct kp_slurm_job job = {.suite_dir = r->dir,
		                           .kernelpro = r->kernelpro,
		                           .bench_args = r->bench_args,
		                           .workdir = r->workdir,
		                           .array = count < m ? array.buf : NULL};
		rc = kp_slurm_submission_make(r->settings, &job, r->sbatch, r->submit, out, err);
	}
out:
	json_decref(status);
	kp_buf_release(&array);
	kp_slurm_submission_release(&prev);
	return rc;
}

/* ---- status ------------------------------------------------------------------------------------------- */

/* Element k's object from kp_slurm_status_json, or an UNKNOWN one when Slurm could not be asked. */
static json_t *elem_json(const struct kp_slurm_status *st, size_t k)
{
	struct kp_slurm_elem e = {.state = KP_SLURM_UNKNOWN, .exit_code = -1, .exit_signal = -1};
	struct kp_slurm_status one = {&e, 1, 1};
	json_t *a, *o;
	if (k < st->n)
		e = st->v[k];
	a = kp_slurm_status_json(&one);
	o = json_incref(json_array_get(a, 0));
	json_decref(a);
	return o;
}

int kp_bench_slurm_status(const char *dir, const json_t *status, const char *squeue, const char *sacct,
                          json_t **out, struct kp_error *err)
{
	struct kp_slurm_submission sub;
	struct kp_slurm_status arr, merge;
	struct kp_error qerr = KP_ERROR_INIT;
	unsigned char *in = NULL;
	long(*n)[KP_SUITE_NSTATE] = NULL;
	json_t *doc = NULL, *elems;
	int rc;

	*out = NULL;
	kp_slurm_submission_init(&sub);
	kp_slurm_status_init(&arr);
	kp_slurm_status_init(&merge);
	if ((rc = kp_slurm_submission_load(dir, &sub, err)))
		goto out;
	in = kp_xcalloc((size_t)sub.shards, 1);
	if (!sub.array)
		memset(in, 1, (size_t)sub.shards);
	else if ((rc = kp_slurm_script_elements(sub.array, sub.shards, in, err)))
		goto out;
	if (!kp_slurm_status_query(squeue, sacct, sub.array_job, sub.shards, &arr, &qerr) && sub.merge_job)
		kp_slurm_status_query(squeue, sacct, sub.merge_job, 0, &merge, &qerr);
	n = count_tasks(status, sub.shards);
	doc = json_object();
	kp_json_set(doc, "array_job", json_integer(sub.array_job));
	kp_json_set(doc, "merge_job", sub.merge_job ? json_integer(sub.merge_job) : NULL);
	kp_json_set(doc, "shards", json_integer(sub.shards));
	kp_json_set(doc, "array", sub.array ? json_string(sub.array) : NULL);
	kp_json_set(doc, "submitted_at", json_integer((json_int_t)sub.submitted_at));
	kp_json_set(doc, "slurm_error", qerr.code ? json_string(kp_error_msg(&qerr)) : NULL);
	kp_json_set(doc, "merge", sub.merge_job ? elem_json(&merge, 0) : NULL);
	elems = json_array();
	for (long k = 0; k < sub.shards; k++) {
		json_t *o = elem_json(&arr, (size_t)k);
		long tasks = 0;
		kp_json_set(o, "shard", json_integer(k));
		kp_json_set(o, "submitted", json_boolean(in[k]));
		for (int s = 0; s < KP_SUITE_NSTATE; s++) {
			kp_json_set(o, kp_suite_state_name(s), json_integer(n[k][s]));
			tasks += n[k][s];
		}
		kp_json_set(o, "tasks", json_integer(tasks));
		json_array_append_new(elems, o);
	}
	kp_json_set(doc, "elements", elems);
	*out = doc;
out:
	free(in);
	free(n);
	kp_slurm_submission_release(&sub);
	kp_slurm_status_release(&arr);
	kp_slurm_status_release(&merge);
	return rc;
}
