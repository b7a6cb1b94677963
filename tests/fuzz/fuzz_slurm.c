/*
 * libFuzzer target: what the Slurm modules read from outside. First byte 0: squeue output; 1: sacct
 * output; 2: sbatch --parsable output; 3: a suite settings file's "slurm" object, then both scripts
 * written from it (every accepted setting must make scripts) and the settings written back as JSON
 * (they must read back the same); 4: an element list as submission.json records it ("1,3").
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
		struct kp_slurm_settings back;
		json_t *a = kp_slurm_settings_to_json(&s), *c;
		if (kp_slurm_script_array(&s, &job, &b, &err) || kp_slurm_script_merge(&s, &job, &b, &err))
			abort(); /* accepted settings always make scripts */
		kp_slurm_settings_init(&back);
		if (kp_slurm_settings_from_json(&back, a, "back", &err))
			abort(); /* what was written back reads back */
		c = kp_slurm_settings_to_json(&back);
		if (!json_equal(a, c))
			abort();
		json_decref(a);
		json_decref(c);
		kp_slurm_settings_release(&back);
	}
	json_decref(o);
	kp_buf_release(&b);
	kp_slurm_settings_release(&s);
}

/* An element list against 1..64 shards (the second byte): accepted lists name only shards below M. */
static void elements(const uint8_t *data, size_t size)
{
	struct kp_error err = KP_ERROR_INIT;
	unsigned char in[64];
	long nodes;
	char *text;
	if (size < 1)
		return;
	nodes = 1 + data[0] % 64;
	text = kp_xstrndup((const char *)data + 1, size - 1);
	memset(in, 0, sizeof(in));
	if (!kp_slurm_script_elements(text, nodes, in, &err)) {
		int any = 0;
		for (long k = 0; k < 64; k++)
			if (in[k] && k >= nodes)
				abort();
			else
				any |= in[k];
		if (!any)
			abort(); /* an accepted list names at least one element */
	}
	free(text);
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
	switch (data[0] % 5) {
	case 0: kp_slurm_status_parse_squeue(text, size - 1, &st, &err); break;
	case 1: kp_slurm_status_parse_sacct(text, size - 1, &st, &err); break;
	case 2:
		kp_slurm_submission_parse_id(text, size - 1, &id, &cluster, &err);
		free(cluster);
		break;
	case 3: settings(text, size - 1); break;
	default: elements(data + 1, size - 1); break;
	}
	if (st.n) {
		json_t *j = kp_slurm_status_json(&st);
		json_decref(j);
	}
	kp_slurm_status_release(&st);
	return 0;
}
