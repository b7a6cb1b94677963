/*
 * Unit tests: Slurm settings and their validation (hostile values), the job-array and merge scripts
 * (golden, and run by bash to show nothing is injected). Submission and the job states: t_slurm.c.
 */
#include "base/setup.h"

#include <sys/stat.h>
#include <unistd.h>

#include "kp_test.h"
#include "slurm_fixture.h"
#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/slurm_submission.h"

static void load_example(struct kp_slurm_settings *s)
{
	struct kp_error err = KP_ERROR_INIT;
	kp_slurm_settings_init(s);
	KP_ASSERT_OK(kp_slurm_settings_load(s, kp_test_path("tests/golden/slurm/settings.json"), &err), &err);
}

/* ---- Settings ----------------------------------------------------------------------------------- */

static void test_settings_example(void **state)
{
	struct kp_slurm_settings s;
	load_example(&s);
	assert_string_equal(s.partition, "gpu");
	assert_string_equal(s.account, "proj-kernels");
	assert_string_equal(s.time, "6:00:00");
	assert_string_equal(s.merge_time, "1:00:00"); /* the default stays */
	assert_int_equal(s.nodes, 4);
	assert_int_equal(s.gpus_per_node, 8);
	assert_int_equal(s.signal_s, 600);
	assert_int_equal(s.modules.n, 2);
	assert_string_equal(s.modules.v[1], "python/3.12");
	assert_int_equal(s.env.n, 2);
	assert_int_equal(s.sbatch_args.n, 3);
	assert_string_equal(s.sbatch_args.v[2], "--constraint=h100|h200");
	kp_slurm_settings_release(&s);
	kp_slurm_settings_release(&s); /* safe twice */
}

/* Settings written back as JSON (the suite's own settings file) read back the same. */
static void test_settings_to_json(void **state)
{
	struct kp_slurm_settings s, back;
	struct kp_error err = KP_ERROR_INIT;
	json_t *a, *b;
	load_example(&s);
	KP_ASSERT_OK(kp_slurm_settings_set(&s, "env", "Q=a=b 'c'", &err), &err);
	a = kp_slurm_settings_to_json(&s);
	assert_string_equal(kp_json_str(a, "partition", ""), "gpu");
	assert_int_equal(kp_json_int(a, "nodes", 0), 4);
	assert_true(json_is_true(json_object_get(a, "requeue")));
	assert_string_equal(kp_json_str(json_object_get(a, "env"), "Q", ""), "a=b 'c'");
	kp_slurm_settings_init(&back);
	KP_ASSERT_OK(kp_slurm_settings_from_json(&back, a, "back", &err), &err);
	b = kp_slurm_settings_to_json(&back);
	assert_true(json_equal(a, b));
	json_decref(a);
	json_decref(b);
	/* Names not set are left out, so the cluster's defaults stay the cluster's. */
	kp_slurm_settings_release(&back);
	kp_slurm_settings_init(&back);
	a = kp_slurm_settings_to_json(&back);
	assert_null(json_object_get(a, "partition"));
	assert_null(json_object_get(a, "time"));
	assert_string_equal(kp_json_str(a, "merge_time", ""), "1:00:00");
	json_decref(a);
	kp_slurm_settings_release(&back);
	kp_slurm_settings_release(&s);
}

/* Each of these is refused with a message naming the key or the value. */
static void test_settings_refused(void **state)
{
	static const struct {
		const char *key, *value, *says;
	} bad[] = {
	    {"partition", "gpu; rm -rf /", "partition"},
	    {"partition", "", "partition"},
	    {"account", "a b", "account"},
	    {"account", "$(id)", "account"},
	    {"qos", "normal\n#SBATCH --uid=0", "qos"},
	    {"time", "1:2:3:4", "not a Slurm time"},
	    {"time", "abc", "not a Slurm time"},
	    {"time", "1-", "not a Slurm time"},
	    {"time", "4:00:00 #", "not a Slurm time"},
	    {"merge_time", "", "not a Slurm time"},
	    {"nodes", "0", "from 1 to"},
	    {"nodes", "x", "not a whole number"},
	    {"gpus_per_node", "-1", "from 0 to"},
	    {"requeue", "maybe", "yes or no"},
	    {"python", "python3", "absolute path"},
	    {"python", "/opt/py\n/bin", "absolute path"},
	    {"modules", "cuda $(touch x)", "module"},
	    {"modules", "cuda;ls", "module"},
	    {"env", "PATH=/x", "sets PATH itself"},
	    {"env", "CUDA_HOME=/x", "cuda_home"},
	    {"env", "SLURM_JOB_ID=1", "belong to Slurm"},
	    {"env", "1A=x", "NAME=value"},
	    {"env", "A-B=x", "letters, digits"},
	    {"env", "NOEQUALS", "NAME=value"},
	    {"env", "A=line\nbreak", "NAME=value"},
	    {"sbatch_args", "-p gpu", "long option"},
	    {"sbatch_args", "--mem=1G #x", "no spaces"},
	    {"sbatch_args", "--comment='x'", "no spaces"},
	    {"sbatch_args", "--comment=a\\b", "no spaces"},
	    {"sbatch_args", "--output=/x", "sets --output itself"},
	    {"sbatch_args", "--array=0-9", "sets --array itself"},
	    {"sbatch_args", "--time=10", "'time' setting"},
	    {"sbatch_args", "--partition=x", "'partition' setting"},
	    {"sbatch_args", "--x_y", "no spaces"},
	    {"nosuch", "1", "unknown Slurm setting"},
	};
	for (size_t i = 0; i < KP_ARRAY_SIZE(bad); i++) {
		struct kp_slurm_settings s;
		struct kp_error err = KP_ERROR_INIT;
		kp_slurm_settings_init(&s);
		if (kp_slurm_settings_set(&s, bad[i].key, bad[i].value, &err) != KP_EINVAL)
			fail_msg("%s='%s' was accepted", bad[i].key, bad[i].value);
		if (!strstr(kp_error_msg(&err), bad[i].says))
			fail_msg("%s='%s': '%s' lacks '%s'", bad[i].key, bad[i].value, kp_error_msg(&err),
			         bad[i].says);
		kp_slurm_settings_release(&s);
	}
}

static void test_settings_set_and_json(void **state)
{
	struct kp_slurm_settings s;
	struct kp_error err = KP_ERROR_INIT;
	json_t *o;
	kp_slurm_settings_init(&s);
	KP_ASSERT_OK(kp_slurm_settings_set(&s, "gpus_per_node", "4", &err), &err);
	KP_ASSERT_OK(kp_slurm_settings_set(&s, "requeue", "no", &err), &err);
	KP_ASSERT_OK(kp_slurm_settings_set(&s, "time", "1-12", &err), &err);
	KP_ASSERT_OK(kp_slurm_settings_set(&s, "time", "90", &err), &err);
	KP_ASSERT_OK(kp_slurm_settings_set(&s, "partition", "gpu,gpu-long", &err), &err);
	KP_ASSERT_OK(kp_slurm_settings_set(&s, "sbatch_args", "--exclusive", &err), &err);
	KP_ASSERT_OK(kp_slurm_settings_set(&s, "env", "X=it's $HOME", &err), &err);
	assert_int_equal(s.gpus_per_node, 4);
	assert_int_equal(s.requeue, 0);
	assert_string_equal(s.time, "90");
	assert_string_equal(s.env.v[0], "X=it's $HOME");
	/* JSON: types are checked, unknown keys refused, lists replaced. */
	o = json_pack("{s:i}", "gpus_per_node", 2);
	KP_ASSERT_OK(kp_slurm_settings_from_json(&s, o, "suite.json", &err), &err);
	assert_int_equal(s.gpus_per_node, 2);
	json_decref(o);
	o = json_pack("{s:[s]}", "sbatch_args", "--mem=0");
	KP_ASSERT_OK(kp_slurm_settings_from_json(&s, o, "suite.json", &err), &err);
	assert_int_equal(s.sbatch_args.n, 1);
	json_decref(o);
	o = json_pack("{s:s}", "gpus_per_node", "2");
	assert_int_equal(kp_slurm_settings_from_json(&s, o, "suite.json", &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "suite.json: 'gpus_per_node' has the wrong type"));
	json_decref(o);
	kp_error_clear(&err);
	o = json_pack("{s:s}", "partiton", "gpu");
	assert_int_equal(kp_slurm_settings_from_json(&s, o, "suite.json", &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "unknown Slurm setting 'partiton'"));
	json_decref(o);
	kp_error_clear(&err);
	o = json_pack("{s:s}", "time", "soon");
	assert_int_equal(kp_slurm_settings_from_json(&s, o, "suite.json", &err), KP_EINVAL);
	assert_string_equal(kp_error_msg(&err), "suite.json: time 'soon' is not a Slurm time: use minutes, "
	                                        "H:M:S or D-H:M:S (e.g. 4:00:00, 1-12)");
	json_decref(o);
	kp_error_clear(&err);
	o = json_pack("{s:{s:s}}", "env", "SLURM_X", "1");
	assert_int_equal(kp_slurm_settings_from_json(&s, o, "suite.json", &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "suite.json"));
	json_decref(o);
	kp_slurm_settings_release(&s);
}

/* ---- Scripts ------------------------------------------------------------------------------------ */

static void test_scripts_golden(void **state)
{
	struct kp_slurm_settings s;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT;
	struct kp_strvec args = KP_STRVEC_INIT;
	struct kp_slurm_job job = {.suite_dir = "/shared/suites/level1",
	                           .kernelpro = "/shared/kernelpro/bin/kernelpro",
	                           .job_name = NULL,
	                           .bench_args = &args,
	                           .workdir = "/home/ana/kernels"};
	load_example(&s);
	kp_strvec_pushl(&args, "--evals", "10", "--llm", "openai:gpt-5", NULL);
	KP_ASSERT_OK(kp_slurm_script_array(&s, &job, &b, &err), &err);
	kp_test_golden("tests/golden/slurm/bench.sbatch", b.buf);
	kp_buf_reset(&b);
	KP_ASSERT_OK(kp_slurm_script_merge(&s, &job, &b, &err), &err);
	kp_test_golden("tests/golden/slurm/merge.sbatch", b.buf);
	assert_null(strstr(b.buf, "gpus"));
	assert_null(strstr(b.buf, "exclusive")); /* sbatch_args are the array's */
	/* The smallest settings: no GPUs, no signal, no modules. */
	kp_slurm_settings_release(&s);
	kp_slurm_settings_init(&s);
	s.signal_s = 0;
	kp_buf_reset(&b);
	job.bench_args = NULL;
	job.job_name = "t";
	job.workdir = NULL;
	KP_ASSERT_OK(kp_slurm_script_array(&s, &job, &b, &err), &err);
	assert_non_null(strstr(b.buf, "#SBATCH --array=0-0\n"));
	assert_non_null(strstr(b.buf, "#SBATCH --job-name=t\n"));
	assert_null(strstr(b.buf, "--signal"));
	assert_null(strstr(b.buf, "--gpus"));
	assert_null(strstr(b.buf, "module"));
	assert_non_null(strstr(b.buf, "--shard \"$shard/1\" --resume\n")); /* no signal: no self-requeue */
	/* Some elements only (a resubmission), and the requeue on the time limit's signal. */
	s.nodes = 4;
	s.signal_s = 60;
	job.array = "1,3";
	kp_buf_reset(&b);
	KP_ASSERT_OK(kp_slurm_script_array(&s, &job, &b, &err), &err);
	assert_non_null(strstr(b.buf, "#SBATCH --array=1,3\n"));
	assert_non_null(strstr(b.buf, "--shard \"$shard/4\" --resume --slurm-requeue\n"));
	s.requeue = 0;
	kp_buf_reset(&b);
	KP_ASSERT_OK(kp_slurm_script_array(&s, &job, &b, &err), &err);
	assert_non_null(strstr(b.buf, "#SBATCH --no-requeue\n"));
	assert_non_null(strstr(b.buf, "--shard \"$shard/4\" --resume\n"));
	static const char *const bad_arrays[] = {"3,1", "4", "0-4", "1,1", "2-1", "", "1,", "a", "1;2", "-1"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(bad_arrays); i++) {
		job.array = bad_arrays[i];
		if (kp_slurm_script_array(&s, &job, &b, &err) != KP_EINVAL)
			fail_msg("array '%s' was accepted", bad_arrays[i]);
		assert_non_null(strstr(kp_error_msg(&err), "array elements"));
		kp_error_clear(&err);
	}
	kp_buf_release(&b);
	kp_strvec_release(&args);
	kp_slurm_settings_release(&s);
}

/* Values set on the struct directly are checked again; a suite path must suit #SBATCH lines. */
static void test_scripts_refuse(void **state)
{
	struct kp_slurm_settings s;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT;
	struct kp_slurm_job job = {.suite_dir = "/shared/my suite",
	                           .kernelpro = "/bin/kernelpro",
	                           .job_name = NULL,
	                           .bench_args = NULL};
	kp_slurm_settings_init(&s);
	assert_int_equal(kp_slurm_script_array(&s, &job, &b, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "cannot be named on an #SBATCH line"));
	kp_error_clear(&err);
	job.suite_dir = "/shared/100%";
	assert_int_equal(kp_slurm_script_merge(&s, &job, &b, &err), KP_EINVAL);
	kp_error_clear(&err);
	job.suite_dir = "relative/suite";
	assert_int_equal(kp_slurm_script_array(&s, &job, &b, &err), KP_EINVAL);
	kp_error_clear(&err);
	job.suite_dir = "/shared/suite";
	s.partition = kp_xstrdup("gpu\n#SBATCH --uid=0");
	assert_int_equal(kp_slurm_script_array(&s, &job, &b, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "partition"));
	kp_error_clear(&err);
	free(s.partition);
	s.partition = NULL;
	kp_strvec_push(&s.sbatch_args, "--x #y");
	assert_int_equal(kp_slurm_script_array(&s, &job, &b, &err), KP_EINVAL);
	kp_error_clear(&err);
	kp_strvec_release(&s.sbatch_args);
	s.nodes = 0;
	assert_int_equal(kp_slurm_script_array(&s, &job, &b, &err), KP_EINVAL);
	assert_int_equal(b.len, 0);
	kp_slurm_settings_release(&s);
}

/*
 * The array script run by bash as element 1 of 3 (a fake `module` and a fake kernelpro that prints
 * what it got): every hostile value arrives byte for byte, and nothing in them ran.
 */
static void test_script_runs_without_injection(void **state)
{
	static const char *const hostile[] = {
	    "it's",        "$(touch pwned1)", "`touch pwned2`", "a\"b",
	    "back\\slash", "; touch pwned3",  "'$HOME'",        "",
	};
	char *dir = kp_test_tmpdir(), *kpdir = join(dir, "k p'$(touch pwned4)"),
	     *kp = join(kpdir, "kernelpro"), *wdir = join(dir, "w d'`touch pwned8`");
	char *script = join(dir, "bench.sbatch"), *modlog = join(dir, "modules.log");
	struct kp_slurm_settings s;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT, want = KP_BUF_INIT;
	struct kp_strvec args = KP_STRVEC_INIT;
	struct kp_child c = KP_CHILD_INIT;
	struct kp_slurm_job job = {
	    .suite_dir = dir, .kernelpro = kp, .job_name = NULL, .bench_args = &args, .workdir = wdir};

	KP_ASSERT_OK(kp_mkdir_p(kpdir, 0755, &err), &err);
	KP_ASSERT_OK(kp_mkdir_p(wdir, 0755, &err), &err);
	write_exec(kp, "#!/bin/sh\n"
	               "printf 'pwd:%s\\n' \"$(pwd)\"\n"
	               "for a in \"$@\"; do printf 'arg:%s\\n' \"$a\"; done\n"
	               "printf 'py:%s\\ncuda:%s\\nv:%s\\n' \"$KERNELPRO_PYTHON\" \"$CUDA_HOME\" \"$V\"\n"
	               "case $PATH in \"$CUDA_HOME/bin:\"*) echo path-ok ;; esac\n");
	kp_slurm_settings_init(&s);
	s.nodes = 3;
	s.python = kp_xstrdup("/opt/py'; touch pwned5; '/bin/python3");
	s.cuda_home = kp_xstrdup("/opt/cuda $(touch pwned6)");
	kp_strvec_push(&s.env, "V=$(touch pwned7)'\"`x`\\");
	kp_strvec_pushl(&s.modules, "cuda/12.4", "py@3:x", NULL);
	for (size_t i = 0; i < KP_ARRAY_SIZE(hostile); i++)
		kp_strvec_push(&args, hostile[i]);
	KP_ASSERT_OK(kp_slurm_script_array(&s, &job, &b, &err), &err);
	KP_ASSERT_OK(kp_write_file_atomic(script, b.buf, b.len, &err), &err);

	kp_strvec_pushl(&c.args, "bash", script, NULL);
	kp_strvec_pushl(&c.env, "SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_JOB_ID=77", NULL);
	kp_strvec_pushf(&c.env, "BASH_FUNC_module%%%%=() { echo \"$*\" >> '%s'; }", modlog);
	c.cwd = dir;
	c.timeout_ms = 20000;
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	if (!kp_child_ok(&c))
		fail_msg("the script failed: %s", c.err.buf);
	kp_buf_addf(&want, "kernelpro: shard 1/3, job 77_1 on ");
	assert_true(!strncmp(c.out.buf, want.buf, want.len));
	kp_buf_reset(&want);
	kp_buf_addf(&want,
	            "pwd:%s\narg:bench\narg:%s\narg:--shard\narg:1/3\narg:--resume\narg:--slurm-requeue\n",
	            wdir, dir);
	for (size_t i = 0; i < KP_ARRAY_SIZE(hostile); i++)
		kp_buf_addf(&want, "arg:%s\n", hostile[i]);
	kp_buf_addf(&want, "py:%s\ncuda:%s\nv:%s\npath-ok\n", s.python, s.cuda_home,
	            "$(touch pwned7)'\"`x`\\");
	assert_non_null(strstr(c.out.buf, want.buf));
	kp_buf_reset(&want);
	KP_ASSERT_OK(kp_read_file(modlog, 0, &want, &err), &err);
	assert_string_equal(want.buf, "load cuda/12.4\nload py@3:x\n");
	for (int i = 1; i <= 8; i++) {
		char name[32];
		snprintf(name, sizeof(name), "pwned%d", i);
		char *p = join(dir, name);
		if (kp_path_exists(p) || kp_path_exists(name))
			fail_msg("'%s' was created: a value was run as shell", name);
		free(p);
	}
	/* Not run as an array element: it says so and runs nothing. */
	kp_child_release(&c);
	kp_strvec_pushl(&c.args, "bash", script, NULL);
	kp_strvec_push(&c.env_unset, "SLURM_ARRAY_TASK_ID");
	KP_ASSERT_OK(kp_child_run(&c, &err), &err);
	assert_false(kp_child_ok(&c));
	assert_non_null(strstr(c.err.buf, "runs as a Slurm array element"));
	assert_null(strstr(c.out.buf, "arg:"));

	kp_child_release(&c);
	kp_buf_release(&b);
	kp_buf_release(&want);
	kp_strvec_release(&args);
	kp_slurm_settings_release(&s);
	free(kp);
	free(kpdir);
	free(wdir);
	free(script);
	free(modlog);
	kp_test_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_settings_example),
	    cmocka_unit_test(test_settings_to_json),
	    cmocka_unit_test(test_settings_refused),
	    cmocka_unit_test(test_settings_set_and_json),
	    cmocka_unit_test(test_scripts_golden),
	    cmocka_unit_test(test_scripts_refuse),
	    cmocka_unit_test(test_script_runs_without_injection),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
