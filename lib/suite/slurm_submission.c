/* Submitting a suite's job array and merge job with sbatch, and SUITE/slurm/submission.json. */
#include "base/setup.h"

#include <time.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/slurm_submission.h"
#include "suite/slurm_int.h"

#define SCHEMA "kernelpro.slurm-submission/1"

void kp_slurm_submission_init(struct kp_slurm_submission *sub)
{
	memset(sub, 0, sizeof(*sub));
}

void kp_slurm_submission_release(struct kp_slurm_submission *sub)
{
	free(sub->cluster);
	free(sub->array);
	memset(sub, 0, sizeof(*sub));
}

/* ---- sbatch and scontrol ------------------------------------------------------------------------------ */

int kp_slurm_submission_parse_id(const char *text, size_t len, long long *id, char **cluster,
                                 struct kp_error *err)
{
	size_t end = len, start, semi;
	long long v;
	char name[65];
	while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' '))
		end--;
	start = end;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	for (semi = start; semi < end && text[semi] != ';'; semi++)
		;
	if (!kp__slurm_client_num(text + start, semi - start, INT64_MAX / 2, &v) || v == 0)
		goto bad;
	if (semi < end) {
		size_t n = end - semi - 1;
		if (n == 0 || n >= sizeof(name))
			goto bad;
		memcpy(name, text + semi + 1, n);
		name[n] = '\0';
		if (!kp__slurm_check_chars(name, "_.-"))
			goto bad;
	}
	if (cluster)
		*cluster = semi < end ? kp_xstrdup(name) : NULL;
	*id = v;
	return 0;
bad:
	return kp_error_set(err, KP_EPARSE, "sbatch answered '%.*s', not a job id",
	                    (int)(end - start > 80 ? 80 : end - start), text + start);
}

int kp_slurm_submission_sbatch(const char *sbatch, const char *script, long long afterany, long long *id,
                               char **cluster, struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	int rc;
	sbatch = sbatch ? sbatch : "sbatch";
	kp_strvec_pushl(&c.args, sbatch, "--parsable", NULL);
	if (afterany > 0)
		kp_strvec_pushf(&c.args, "--dependency=afterany:%lld", afterany);
	kp_strvec_push(&c.args, script);
	if ((rc = kp__slurm_client_run(&c, sbatch, 1 << 16, err)))
		goto out;
	if (!kp_child_ok(&c)) {
		rc = kp__slurm_client_failed(&c, sbatch, err);
		kp_error_prefix(err, "submitting '%s'", script);
		goto out;
	}
	rc = kp_slurm_submission_parse_id(c.out.buf, c.out.len, id, cluster, err);
out:
	kp_child_release(&c);
	return rc;
}

int kp_slurm_submission_requeue(const char *scontrol, long long job, long task, struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	int rc;
	scontrol = scontrol ? scontrol : "scontrol";
	kp_strvec_pushl(&c.args, scontrol, "requeue", NULL);
	kp_strvec_pushf(&c.args, "%lld_%ld", job, task);
	c.stop_proof = 1; /* run when SIGUSR1 has asked this process to stop: that is when it requeues */
	if (!(rc = kp__slurm_client_run(&c, scontrol, 1 << 16, err)) && !kp_child_ok(&c))
		rc = kp__slurm_client_failed(&c, scontrol, err);
	kp_child_release(&c);
	return rc;
}

/* ---- The record --------------------------------------------------------------------------------------- */

static int write_record(const char *path, const struct kp_slurm_submission *sub, struct kp_error *err)
{
	json_t *o = json_object();
	int rc;
	kp_json_set(o, "schema", json_string(SCHEMA));
	kp_json_set(o, "array_job", json_integer(sub->array_job));
	kp_json_set(o, "merge_job", sub->merge_job ? json_integer(sub->merge_job) : NULL);
	kp_json_set(o, "shards", json_integer(sub->shards));
	kp_json_set(o, "array", sub->array ? json_string(sub->array) : NULL);
	kp_json_set(o, "cluster", sub->cluster ? json_string(sub->cluster) : NULL);
	kp_json_set(o, "submitted_at", json_integer((json_int_t)sub->submitted_at));
	rc = kp_json_write_file(path, o, err);
	json_decref(o);
	return rc;
}

int kp_slurm_submission_load(const char *suite_dir, struct kp_slurm_submission *out, struct kp_error *err)
{
	struct kp_buf path = KP_BUF_INIT;
	json_t *o = NULL;
	const char *cluster, *array;
	long long job, merge, shards;
	int rc;
	kp_slurm_submission_release(out);
	kp_path_join(&path, suite_dir, "slurm/submission.json");
	if ((rc = kp_json_load_file(path.buf, 1 << 16, &o, err)))
		goto out;
	job = kp_json_int(o, "array_job", 0);
	merge = kp_json_int(o, "merge_job", 0);
	shards = kp_json_int(o, "shards", 0);
	cluster = kp_json_str(o, "cluster", NULL);
	array = kp_json_str(o, "array", NULL);
	if (strcmp(kp_json_str(o, "schema", ""), SCHEMA) || job <= 0 || merge < 0 || shards < 1 ||
	    shards > KP__SLURM_MAX_SHARDS ||
	    (cluster && (!*cluster || strlen(cluster) > 64 || !kp__slurm_check_chars(cluster, "_.-"))) ||
	    (array && (!*array || strlen(array) > 65536 || !kp__slurm_check_chars(array, ",-")))) {
		rc =
		    kp_error_set(err, KP_EPARSE, "'%s' is not a kernelpro Slurm submission record", path.buf);
		goto out;
	}
	out->array_job = job;
	out->merge_job = merge;
	out->shards = (long)shards;
	out->cluster = cluster ? kp_xstrdup(cluster) : NULL;
	out->array = array ? kp_xstrdup(array) : NULL;
	out->submitted_at = kp_json_num(o, "submitted_at", 0);
out:
	json_decref(o);
	kp_buf_release(&path);
	return rc;
}

/* ---- Scripts, sbatch, record ----------------------------------------------------------------------------
 */

int kp_slurm_submission_make(const struct kp_slurm_settings *s, const struct kp_slurm_job *job,
                             const char *sbatch, int submit, struct kp_slurm_submission *out,
                             struct kp_error *err)
{
	struct kp_buf dir = KP_BUF_INIT, array = KP_BUF_INIT, merge = KP_BUF_INIT, script = KP_BUF_INIT,
	              path = KP_BUF_INIT, record = KP_BUF_INIT;
	int rc;
	kp_slurm_submission_release(out);
	out->shards = s->nodes;
	out->array = job->array ? kp_xstrdup(job->array) : NULL;
	if ((rc = kp_slurm_script_array(s, job, &array, err)) ||
	    (rc = kp_slurm_script_merge(s, job, &merge, err)))
		goto out;
	kp_path_join(&dir, job->suite_dir, "slurm");
	if ((rc = kp_mkdir_p(dir.buf, 0755, err)))
		goto out;
	kp_path_join(&script, dir.buf, "bench.sbatch");
	kp_path_join(&path, dir.buf, "merge.sbatch");
	kp_path_join(&record, dir.buf, "submission.json");
	if ((rc = kp_write_file_atomic(script.buf, array.buf, array.len, err)) ||
	    (rc = kp_write_file_atomic(path.buf, merge.buf, merge.len, err)) || !submit)
		goto out;
	if ((rc = kp_slurm_submission_sbatch(sbatch, script.buf, 0, &out->array_job, &out->cluster, err)))
		goto out;
	out->submitted_at = (double)time(NULL);
	if ((rc = write_record(record.buf, out, err)))
		goto out;
	rc = kp_slurm_submission_sbatch(sbatch, path.buf, out->array_job, &out->merge_job, NULL, err);
	if (rc) {
		kp_error_prefix(
		    err,
		    "job array %lld is submitted but its merge job is not (run 'kernelpro bench %s "
		    "--merge' once the array has ended)",
		    out->array_job, job->suite_dir);
		goto out;
	}
	rc = write_record(record.buf, out, err);
out:
	kp_buf_release(&dir);
	kp_buf_release(&array);
	kp_buf_release(&merge);
	kp_buf_release(&script);
	kp_buf_release(&path);
	kp_buf_release(&record);
	return rc;
}
