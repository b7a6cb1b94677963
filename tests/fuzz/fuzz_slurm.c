/*
 * libFuzzer target: what kp_slurm reads from outside. First byte 0: squeue output; 1: sacct
 * output; 2: sbatch --parsable output; 3: a suite settings file's "slurm" object, then both
 * scripts written from it (every accepted setting must make scripts or a clean refusal).
 */
#include "base/setup.h"

#include "kernelpro/json.h"
#include "kernelpro/slurm_status.h"
#include "kernelpro/slurm_submission.h"

static void settings(const char *text, size_t len)
{
	struct kp_slurm_settings s;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT;
	struct kp_slurm_job job = {.suite_dir = "/shared/suite",
	                           .kernelpro = "/opt/kp/bin/kernelpro",
	                           .job_name = NULL,
	                           .bench_args = NULL};
	json_t *o = NULL;
	kp_slurm_settings_init(&s);
	if (!kp_json_load_mem("fuzz", text, len, &o, &err) &&
	    !kp_slurm_settings_from_json(&s, o, "fuzz", &err)) {
		if (kp_slurm_script_array(&s, &job, &b, &err) || kp_slurm_script_merge(&s, &job, &b, &err))
			abort(); /* accepted settings always make scripts */
	}
	json_decref(o);
	kp_buf_release(&b);
	kp_slurm_settings_release(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_slurm_status st;
	struct kp_error err = KP_ERROR_INIT;
	const char *text = (const char *)data + 1;
	long long id;
	char *cluster = NULL;
	if (size < 1)
		return 0;
	kp_slurm_status_init(&st);
	switch (data[0] % 4) {
	case 0: kp_slurm_status_parse_squeue(text, size - 1, &st, &err); break;
	case 1: kp_slurm_status_parse_sacct(text, size - 1, &st, &err); break;
	case 2:
		kp_slurm_submission_parse_id(text, size - 1, &id, &cluster, &err);
		free(cluster);
		break;
	default: settings(text, size - 1); break;
	}
	if (st.n) {
		json_t *j = kp_slurm_status_json(&st);
		json_decref(j);
	}
	kp_slurm_status_release(&st);
	return 0;
}
