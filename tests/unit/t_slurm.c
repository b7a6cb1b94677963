/*
 * Unit tests: sbatch/squeue/sacct through fake programs, and squeue/sacct parsing on captures from a
 * real cluster (tests/golden/slurm/capture.sh). With KP_SLURM_LIVE=1 and a SLURM_CONF (t1502 starts a
 * private cluster), a suite is submitted for real. Settings and scripts: t_slurm_script.c.
 */
#include "base/setup.h"

#include <sys/stat.h>
#include <unistd.h>

#include "kp_test.h"
#include "slurm_fixture.h"
#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/slurm_status.h"
#include "kernelpro/slurm_submission.h"

/* ---- sbatch ------------------------------------------------------------------------------------- */

static void test_parse_job_id(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	long long id = 0;
	char *cluster = NULL;
	KP_ASSERT_OK(kp_slurm_submission_parse_id("4242\n", 5, &id, &cluster, &err), &err);
	assert_int_equal(id, 4242);
	assert_null(cluster);
	KP_ASSERT_OK(kp_slurm_submission_parse_id("note\n17;big-one\n\n", 17, &id, &cluster, &err), &err);
	assert_int_equal(id, 17);
	assert_string_equal(cluster, "big-one");
	free(cluster);
	KP_ASSERT_OK(kp_slurm_submission_parse_id("48151623\r\n", 10, &id, NULL, &err),
	             &err); /* big clusters */
	assert_int_equal(id, 48151623);
	static const char *const bad[] = {
	    "",    "\n", "abc\n", "12a\n", "0\n", "-3\n", "12;\n", "12;a b\n", "99999999999999999999999\n",
	    ";x\n"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(bad); i++) {
		kp_error_clear(&err);
		if (kp_slurm_submission_parse_id(bad[i], strlen(bad[i]), &id, NULL, &err) != KP_EPARSE)
			fail_msg("'%s' was read as a job id", bad[i]);
	}
}

/* A fake sbatch that logs its arguments; it refuses a --dependency when $1 of the fake is "nodep". */
static char *fake_sbatch(const char *dir, const char *mode)
{
	char *path = join(dir, "sbatch"), *text;
	text = kp_xasprintf(
	    "#!/bin/sh\n"
	    "echo \"$*\" >> '%s/sbatch.log'\n"
	    "case '%s' in\n"
	    "refuse) echo 'sbatch: error: Invalid partition name specified' >&2; exit 1 ;;\n"
	    "garbage) echo 'Submitted batch job 5'; exit 0 ;;\n"
	    "nodep) case \"$*\" in *--dependency*) echo 'sbatch: error: Job dependency problem' >&2; "
	    "exit 1 ;; esac ;;\n"
	    "esac\n"
	    "n=$(wc -l < '%s/sbatch.log')\n"
	    "echo \"$((4240 + n));kpt\"\n",
	    dir, mode, dir);
	write_exec(path, text);
	free(text);
	return path;
}

static void test_sbatch(void **state)
{
	char *dir = kp_test_tmpdir(), *sb = fake_sbatch(dir, "ok"), *log = join(dir, "sbatch.log");
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT;
	long long id;
	char *cluster = NULL;
	KP_ASSERT_OK(kp_slurm_submission_sbatch(sb, "/x/bench.sbatch", 0, &id, &cluster, &err), &err);
	assert_int_equal(id, 4241);
	assert_string_equal(cluster, "kpt");
	free(cluster);
	KP_ASSERT_OK(kp_slurm_submission_sbatch(sb, "/x/merge.sbatch", 4241, &id, NULL, &err), &err);
	assert_int_equal(id, 4242);
	KP_ASSERT_OK(kp_read_file(log, 0, &b, &err), &err);
	assert_string_equal(
	    b.buf, "--parsable /x/bench.sbatch\n--parsable --dependency=afterany:4241 /x/merge.sbatch\n");
	free(sb);
	sb = fake_sbatch(dir, "refuse");
	assert_int_equal(kp_slurm_submission_sbatch(sb, "/x/bench.sbatch", 0, &id, NULL, &err), KP_ECHILD);
	assert_non_null(
	    strstr(kp_error_msg(&err), "exited with status 1: sbatch: error: Invalid partition name"));
	kp_error_clear(&err);
	free(sb);
	sb = fake_sbatch(dir, "garbage");
	assert_int_equal(kp_slurm_submission_sbatch(sb, "/x/bench.sbatch", 0, &id, NULL, &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "'Submitted batch job 5', not a job id"));
	kp_error_clear(&err);
	assert_int_equal(kp_slurm_submission_sbatch("/nonexistent/sbatch", "/x", 0, &id, NULL, &err),
	                 KP_ENOTOOL);
	assert_non_null(strstr(kp_error_msg(&err), "Slurm login node"));
	kp_buf_release(&b);
	free(sb);
	free(log);
	kp_test_tmpdir_remove(dir);
}

/*
 * sbatch and the Slurm clients get the submitter's whole environment: SLURM_CONF to find the
 * cluster, and what the jobs need (sbatch's --export=ALL), an API key included. Children with
 * kp_child's allow-list lost SLURM_CONF, and sbatch failed "resolve_ctls_from_dns_srv".
 */
static void test_clients_environment(void **state)
{
	char *dir = kp_test_tmpdir(), *sb = join(dir, "sbatch"), *envlog = join(dir, "env.log");
	char *sq = join(dir, "squeue"), *sa = join(dir, "sacct"), *text;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_slurm_status st;
	struct kp_buf b = KP_BUF_INIT;
	const char *conf = getenv("SLURM_CONF");
	char *saved_conf = conf ? kp_xstrdup(conf) : NULL; /* t1502's cluster: given back at the end */
	long long id;

	text = kp_xasprintf("#!/bin/sh\necho \"sbatch $SLURM_CONF $KP_TEST_SLURM_API_KEY\" >> '%s'\n"
	                    "echo '77'\n",
	                    envlog);
	write_exec(sb, text);
	free(text);
	/* squeue and sacct: the conf they were given, then nothing (no job known). */
	text = kp_xasprintf("#!/bin/sh\necho \"$(basename \"$0\") $SLURM_CONF\" >> '%s'\n", envlog);
	write_exec(sq, text);
	write_exec(sa, text);
	free(text);
	setenv("SLURM_CONF", "/x/slurm.conf", 1);
	setenv("KP_TEST_SLURM_API_KEY", "sk-kp-test", 1);
	KP_ASSERT_OK(kp_slurm_submission_sbatch(sb, "/x/bench.sbatch", 0, &id, NULL, &err), &err);
	assert_int_equal(id, 77);
	kp_slurm_status_init(&st);
	KP_ASSERT_OK(kp_slurm_status_query(sq, sa, 77, 1, &st, &err), &err);
	kp_slurm_status_release(&st);
	if (saved_conf)
		setenv("SLURM_CONF", saved_conf, 1);
	else
		unsetenv("SLURM_CONF");
	unsetenv("KP_TEST_SLURM_API_KEY");
	free(saved_conf);
	KP_ASSERT_OK(kp_read_file(envlog, 0, &b, &err), &err);
	assert_string_equal(b.buf,
	                    "sbatch /x/slurm.conf sk-kp-test\nsqueue /x/slurm.conf\nsacct /x/slurm.conf\n");
	kp_buf_release(&b);
	free(sb);
	free(sq);
	free(sa);
	free(envlog);
	kp_test_tmpdir_remove(dir);
}

static void test_write_and_submit(void **state)
{
	char *dir = kp_test_tmpdir(), *sb = fake_sbatch(dir, "ok"), *suite = join(dir, "suite");
	char *p = join(suite, "slurm/bench.sbatch");
	struct kp_slurm_settings s;
	struct kp_slurm_submission sub, back;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_slurm_job job = {
	    .suite_dir = suite, .kernelpro = "/opt/kp/bin/kernelpro", .job_name = NULL, .bench_args = NULL};
	kp_slurm_settings_init(&s);
	kp_slurm_submission_init(&sub);
	kp_slurm_submission_init(&back);
	s.nodes = 3;
	/* Dry run: the scripts, nothing submitted or recorded. */
	KP_ASSERT_OK(kp_slurm_submission_make(&s, &job, sb, 0, &sub, &err), &err);
	assert_true(kp_path_exists(p));
	assert_int_equal(sub.array_job, 0);
	assert_int_equal(kp_slurm_submission_load(suite, &back, &err), KP_ENOENT);
	kp_error_clear(&err);
	KP_ASSERT_OK(kp_slurm_submission_make(&s, &job, sb, 1, &sub, &err), &err);
	assert_int_equal(sub.array_job, 4241);
	assert_int_equal(sub.merge_job, 4242);
	KP_ASSERT_OK(kp_slurm_submission_load(suite, &back, &err), &err);
	assert_int_equal(back.array_job, 4241);
	assert_int_equal(back.merge_job, 4242);
	assert_int_equal(back.shards, 3);
	assert_string_equal(back.cluster, "kpt");
	assert_true(back.submitted_at > 1.7e9);
	/* The merge refused after the array went in: the array is recorded, the error says what to do. */
	free(sb);
	sb = fake_sbatch(dir, "nodep");
	assert_int_equal(kp_slurm_submission_make(&s, &job, sb, 1, &sub, &err), KP_ECHILD);
	assert_non_null(strstr(kp_error_msg(&err), "is submitted but its merge job is not"));
	assert_null(strstr(kp_error_msg(&err), ": :")); /* one separator per context added */
	assert_non_null(strstr(kp_error_msg(&err), "--merge"));
	assert_non_null(strstr(kp_error_msg(&err), "Job dependency problem"));
	KP_ASSERT_OK(kp_slurm_submission_load(suite, &back, &err), &err);
	assert_int_equal(back.array_job, sub.array_job);
	assert_int_equal(back.merge_job, 0);
	/* Some elements only (a resubmission): recorded; a record that is not one is refused. */
	kp_error_clear(&err);
	free(sb);
	sb = fake_sbatch(dir, "ok");
	job.array = "1-2";
	KP_ASSERT_OK(kp_slurm_submission_make(&s, &job, sb, 1, &sub, &err), &err);
	KP_ASSERT_OK(kp_slurm_submission_load(suite, &back, &err), &err);
	assert_string_equal(back.array, "1-2");
	{
		struct kp_buf text = KP_BUF_INIT;
		KP_ASSERT_OK(kp_read_file(p, 0, &text, &err), &err);
		assert_non_null(strstr(text.buf, "#SBATCH --array=1-2\n"));
		kp_buf_release(&text);
	}
	{
		static const char *const bad[] = {
		    "{\"schema\": \"kernelpro.slurm-submission/1\", \"array_job\": 5, \"shards\": 3, "
		    "\"array\": \"1;x\"}",
		    "{\"schema\": \"kernelpro.slurm-submission/2\", \"array_job\": 5, \"shards\": 3}",
		    "{\"schema\": \"kernelpro.slurm-submission/1\", \"array_job\": 0, \"shards\": 3}",
		    "{\"schema\": \"kernelpro.slurm-submission/1\", \"array_job\": 5, \"shards\": 0}",
		    "{\"schema\": \"kernelpro.slurm-submission/1\", \"array_job\": 5, \"shards\": 3, "
		    "\"cluster\": \"a b\"}",
		};
		char *rec = join(suite, "slurm/submission.json");
		for (size_t i = 0; i < KP_ARRAY_SIZE(bad); i++) {
			KP_ASSERT_OK(kp_write_file_atomic(rec, bad[i], strlen(bad[i]), &err), &err);
			if (kp_slurm_submission_load(suite, &back, &err) != KP_EPARSE)
				fail_msg("record %zu was accepted: %s", i, kp_error_msg(&err));
			if (!strstr(kp_error_msg(&err), "is not a kernelpro Slurm submission record"))
				fail_msg("record %zu: %s", i, kp_error_msg(&err));
			kp_error_clear(&err);
		}
		free(rec);
	}
	kp_slurm_submission_release(&sub);
	kp_slurm_submission_release(&back);
	kp_slurm_settings_release(&s);
	free(sb);
	free(p);
	free(suite);
	kp_test_tmpdir_remove(dir);
}

/* scontrol requeue JOB_TASK: the element an array element runs as puts itself back in the queue. */
static void test_requeue(void **state)
{
	char *dir = kp_test_tmpdir(), *sc = join(dir, "scontrol"), *log = join(dir, "scontrol.log");
	char *text = kp_xasprintf("#!/bin/sh\necho \"$*\" >> '%s'\n"
	                          "[ \"$2\" = 9_1 ] || { echo 'Requested operation is presently disabled "
	                          "for job '$2 >&2; exit 1; }\n",
	                          log);
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT;
	write_exec(sc, text);
	KP_ASSERT_OK(kp_slurm_submission_requeue(sc, 9, 1, &err), &err);
	assert_int_equal(kp_slurm_submission_requeue(sc, 9, 2, &err), KP_ECHILD);
	assert_non_null(strstr(kp_error_msg(&err), "presently disabled for job 9_2"));
	KP_ASSERT_OK(kp_read_file(log, 0, &b, &err), &err);
	assert_string_equal(b.buf, "requeue 9_1\nrequeue 9_2\n");
	kp_buf_release(&b);
	free(text);
	free(sc);
	free(log);
	kp_test_tmpdir_remove(dir);
}

/* ---- squeue and sacct --------------------------------------------------------------------------- */

static void parse_capture(const char *kind, const char *name, struct kp_slurm_status *st)
{
	struct kp_buf b = KP_BUF_INIT, out = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	char rel[128];
	json_t *j;
	snprintf(rel, sizeof(rel), "tests/golden/slurm/%s-%s.txt", kind, name);
	kp_test_read(rel, &b);
	kp_slurm_status_init(st);
	if (!strcmp(kind, "squeue"))
		KP_ASSERT_OK(kp_slurm_status_parse_squeue(b.buf, b.len, st, &err), &err);
	else
		KP_ASSERT_OK(kp_slurm_status_parse_sacct(b.buf, b.len, st, &err), &err);
	j = kp_slurm_status_json(st);
	assert_int_equal(kp_json_dump_buf(j, &out, 0), 0);
	kp_buf_addch(&out, '\n');
	snprintf(rel, sizeof(rel), "tests/golden/slurm/%s-%s.json", kind, name);
	kp_test_golden(rel, out.buf);
	json_decref(j);
	kp_buf_release(&b);
	kp_buf_release(&out);
}

static void test_parse_captures(void **state)
{
	static const char *const names[] = {"running", "requeued", "done", "nodefail", "timeout"};
	struct kp_slurm_status st;
	for (size_t i = 0; i < KP_ARRAY_SIZE(names); i++) {
		parse_capture("squeue", names[i], &st);
		kp_slurm_status_release(&st);
		parse_capture("sacct", names[i], &st);
		kp_slurm_status_release(&st);
	}
	/* The facts the goldens hold, stated. */
	parse_capture("sacct", "running", &st); /* "1_[2-3]|PENDING" is two elements that never started */
	assert_int_equal(st.n, 4);
	assert_int_equal(st.v[3].task, 3);
	assert_int_equal(st.v[3].state, KP_SLURM_PENDING);
	assert_int_equal(st.v[3].attempts, 0);
	assert_int_equal(st.v[0].attempts, 1);
	kp_slurm_status_release(&st);
	parse_capture("sacct", "done", &st); /* killed, requeued, then completed: two runs */
	assert_int_equal(st.n, 4);
	assert_int_equal(st.v[0].state, KP_SLURM_COMPLETED);
	assert_int_equal(st.v[0].attempts, 2);
	assert_int_equal(st.v[1].state, KP_SLURM_FAILED);
	assert_int_equal(st.v[1].exit_code, 3);
	assert_int_equal(st.v[3].state, KP_SLURM_CANCELLED); /* "CANCELLED by 0" */
	kp_slurm_status_release(&st);
	parse_capture("sacct", "nodefail", &st); /* NODE_FAIL, then pending again */
	assert_int_equal(st.n, 2);
	assert_int_equal(st.v[1].state, KP_SLURM_PENDING);
	assert_int_equal(st.v[1].attempts, 1);
	assert_string_equal(st.v[1].nodes, "");
	kp_slurm_status_release(&st);
	parse_capture("squeue", "requeued", &st);
	assert_int_equal(st.v[1].state, KP_SLURM_PENDING);
	assert_string_equal(st.v[1].reason, "BeginTime");
	assert_string_equal(st.v[2].reason, ""); /* "None" */
	kp_slurm_status_release(&st);
	parse_capture("squeue", "dependency", &st);
	assert_int_equal(st.n, 1);
	assert_int_equal(st.v[0].task, -1);
	assert_string_equal(st.v[0].reason, "Dependency");
	kp_slurm_status_release(&st);
}

static void test_parse_ranges_and_refusals(void **state)
{
	static const char ranges[] = "5_[1-7:2,9%3]|PENDING|0:0|None assigned\n5_4|COMPLETED|0:0|n1\n"
	                             "5_4.batch|COMPLETED|0:0|n1\n5+1|RUNNING|0:0|n1\n";
	static const struct {
		int squeue;
		const char *text;
		int rc;
	} bad[] = {
	    {1, "1|0|RUNNING|None\n", KP_EPARSE},
	    {1, "1|0|RUNNING|None|n|x\n", KP_EPARSE},
	    {1, "x|0|RUNNING|None|n\n", KP_EPARSE},
	    {1, "1|-1|RUNNING|None|n\n", KP_EPARSE},
	    {1, "1|0||None|n\n", KP_EPARSE},
	    {0, "1_0|RUNNING|0:0\n", KP_EPARSE},
	    {0, "1_x|RUNNING|0:0|n\n", KP_EPARSE},
	    {0, "1_[3-1]|PENDING|0:0|n\n", KP_EPARSE},
	    {0, "1_[1-2|PENDING|0:0|n\n", KP_EPARSE},
	    {0, "1_[]|PENDING|0:0|n\n", KP_EPARSE},
	    {0, "1_[1-5:0]|PENDING|0:0|n\n", KP_EPARSE},
	    {0, "1_0|RUNNING|0|n\n", KP_EPARSE},
	    {0, "1_0|RUNNING|300:0|n\n", KP_EPARSE},
	    {0, "_0|RUNNING|0:0|n\n", KP_EPARSE},
	    {0, "1_[0-4000000000]|PENDING|0:0|None assigned\n", KP_ETOOBIG},
	};
	struct kp_slurm_status st;
	struct kp_error err = KP_ERROR_INIT;
	kp_slurm_status_init(&st);
	KP_ASSERT_OK(kp_slurm_status_parse_sacct(ranges, strlen(ranges), &st, &err), &err);
	assert_int_equal(st.n, 6); /* 1 3 4 5 7 9; the step and the het-job part are not elements */
	static const long want[] = {1, 3, 4, 5, 7, 9};
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(st.v[i].task, want[i]);
	assert_int_equal(st.v[2].state, KP_SLURM_COMPLETED);
	kp_slurm_status_release(&st);
	KP_ASSERT_OK(kp_slurm_status_parse_squeue("", 0, &st, &err), &err);
	assert_int_equal(st.n, 0);
	for (size_t i = 0; i < KP_ARRAY_SIZE(bad); i++) {
		int rc;
		kp_error_clear(&err);
		rc = bad[i].squeue ? kp_slurm_status_parse_squeue(bad[i].text, strlen(bad[i].text), &st, &err)
		                   : kp_slurm_status_parse_sacct(bad[i].text, strlen(bad[i].text), &st, &err);
		if (rc != bad[i].rc)
			fail_msg("'%s' -> %d, want %d", bad[i].text, rc, bad[i].rc);
		if (rc == KP_EPARSE && !strstr(kp_error_msg(&err), "line 1"))
			fail_msg("'%s': '%s' does not name the line", bad[i].text, kp_error_msg(&err));
		kp_slurm_status_release(&st);
	}
	assert_int_equal(kp_slurm_status_state_parse("NODE_FAIL", 9), KP_SLURM_NODE_FAIL);
	assert_int_equal(kp_slurm_status_state_parse("RESV_DEL_HOLD", 13), KP_SLURM_OTHER);
	assert_int_equal(kp_slurm_status_state_parse("OTHER", 5), KP_SLURM_OTHER);
	assert_string_equal(kp_slurm_status_state_name(KP_SLURM_OUT_OF_MEMORY), "OUT_OF_MEMORY");
	assert_true(kp_slurm_status_state_final(KP_SLURM_TIMEOUT));
	assert_false(kp_slurm_status_state_final(KP_SLURM_REQUEUED));
}

/* A fake squeue/sacct that checks its arguments and prints a capture (or fails like Slurm does). */
static char *fake_client(const char *dir, const char *name, const char *want_args, const char *capture,
                         const char *fail_msg_text)
{
	char *path = join(dir, name), *text;
	if (fail_msg_text)
		text = kp_xasprintf("#!/bin/sh\necho '%s' >&2\nexit 1\n", fail_msg_text);
	else
		text = kp_xasprintf("#!/bin/sh\n[ \"$*\" = '%s' ] || { echo \"bad args: $*\" >&2; exit 9; }\n"
		                    "cat '%s'\n",
		                    want_args, kp_test_path(capture));
	write_exec(path, text);
	free(text);
	return path;
}

static void test_query(void **state)
{
	char *dir = kp_test_tmpdir();
	char *sq =
	    fake_client(dir, "squeue", "--noheader --array --states=all --jobs=1 --format=%F|%K|%T|%r|%N",
	                "tests/golden/slurm/squeue-requeued.txt", NULL);
	char *sa = fake_client(dir, "sacct",
	                       "--noheader --parsable2 --allocations --duplicates --jobs=1 "
	                       "--format=JobID,State,ExitCode,NodeList",
	                       "tests/golden/slurm/sacct-requeued.txt", NULL);
	struct kp_slurm_status st;
	struct kp_error err = KP_ERROR_INIT;
	kp_slurm_status_init(&st);
	KP_ASSERT_OK(kp_slurm_status_query(sq, sa, 1, 5, &st, &err), &err);
	assert_int_equal(st.n, 5);
	/* 0: killed and requeued, waiting; squeue's state, sacct's count of runs. */
	assert_int_equal(st.v[0].state, KP_SLURM_PENDING);
	assert_string_equal(st.v[0].reason, "BeginTime");
	assert_int_equal(st.v[0].attempts, 1);
	assert_int_equal(st.v[0].exit_signal, 9);
	assert_int_equal(st.v[1].state, KP_SLURM_FAILED);
	assert_int_equal(st.v[1].exit_code, 3);
	/* 2: running, but accounting has not caught up with it: its run is counted all the same. */
	assert_int_equal(st.v[2].state, KP_SLURM_RUNNING);
	assert_int_equal(st.v[2].attempts, 1);
	assert_string_equal(st.v[2].nodes, "kpn1");
	/* 4: neither knows it. */
	assert_int_equal(st.v[4].state, KP_SLURM_UNKNOWN);
	assert_int_equal(st.v[4].task, 4);
	free(sq);
	free(sa);
	/* slurmctld forgot the job and there is no accounting: unknown, not an error. */
	sq = fake_client(dir, "squeue", NULL, NULL, "slurm_load_jobs error: Invalid job id specified");
	sa = fake_client(dir, "sacct", NULL, NULL, "Slurm accounting storage is disabled");
	KP_ASSERT_OK(kp_slurm_status_query(sq, sa, 1, 2, &st, &err), &err);
	assert_int_equal(st.n, 2);
	assert_int_equal(st.v[1].state, KP_SLURM_UNKNOWN);
	free(sa);
	/* Any other failure is an error with Slurm's words. */
	sa = fake_client(dir, "sacct", NULL, NULL, "sacct: error: slurmdbd: Connection refused");
	assert_int_equal(kp_slurm_status_query(sq, sa, 1, 2, &st, &err), KP_ECHILD);
	assert_non_null(strstr(kp_error_msg(&err), "Connection refused"));
	kp_error_clear(&err);
	assert_int_equal(kp_slurm_status_query(sq, sa, 0, 2, &st, &err), KP_EINVAL);
	kp_slurm_status_release(&st);
	free(sq);
	free(sa);
	kp_test_tmpdir_remove(dir);
}

/* ---- Live: a real cluster (t1502) --------------------------------------------------------------- */

static int all_final(long long job, long shards, struct kp_slurm_status *st)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_slurm_status_query(NULL, NULL, job, shards, st, &err), &err);
	for (size_t i = 0; i < st->n; i++)
		if (!kp_slurm_status_state_final(st->v[i].state) || (st->v[i].attempts == 0 && shards))
			return 0;
	return 1;
}

static void test_live_submit(void **state)
{
	const char *live = getenv("KP_SLURM_LIVE");
	char *dir, *kpdir, *kp, *suite;
	struct kp_slurm_settings s;
	struct kp_slurm_submission sub;
	struct kp_slurm_status st;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_strvec args = KP_STRVEC_INIT;
	struct kp_buf b = KP_BUF_INIT;
	int i;
	if (!live || strcmp(live, "1") || !getenv("SLURM_CONF"))
		skip(); /* t1502 runs this against a private cluster */
	dir = kp_test_tmpdir();
	kpdir = join(dir, "k p'$(x)");
	kp = join(kpdir, "kernelpro");
	suite = join(dir, "suite");
	KP_ASSERT_OK(kp_mkdir_p(kpdir, 0755, &err), &err);
	KP_ASSERT_OK(kp_mkdir_p(suite, 0755, &err), &err);
	/* The nodes' kernelpro: records its arguments and GPU; the merge also lists the shards it found. */
	write_exec(kp, "#!/bin/sh\n"
	               "if [ \"$3\" = --merge ]; then ls \"$2\" | grep '^out-' > \"$2/merged\"; exit 0; fi\n"
	               "echo \"$* gpu=$CUDA_VISIBLE_DEVICES v=$V\" > \"$2/out-$SLURM_ARRAY_TASK_ID\"\n");
	kp_slurm_settings_init(&s);
	s.nodes = 3;
	s.gpus_per_node = 1;
	s.time = kp_xstrdup("5");
	kp_strvec_push(&s.env, "V=a 'b'");
	kp_strvec_pushl(&args, "--evals", "2", NULL);
	kp_slurm_submission_init(&sub);
	kp_slurm_status_init(&st);
	struct kp_slurm_job job = {
	    .suite_dir = suite, .kernelpro = kp, .job_name = "t1502", .bench_args = &args};
	KP_ASSERT_OK(kp_slurm_submission_make(&s, &job, NULL, 1, &sub, &err), &err);
	assert_true(sub.array_job > 0 && sub.merge_job > 0);
	for (i = 0; i < 600 && !all_final(sub.merge_job, 0, &st); i++)
		usleep(200000);
	assert_int_equal(st.v[0].state, KP_SLURM_COMPLETED);
	for (i = 0; i < 150 && !all_final(sub.array_job, 3, &st); i++)
		usleep(200000); /* accounting may lag squeue a little */
	for (long k = 0; k < 3; k++) {
		char name[32];
		char *p, *want;
		assert_int_equal(st.v[k].state, KP_SLURM_COMPLETED);
		assert_int_equal(st.v[k].attempts, 1);
		assert_int_equal(st.v[k].exit_code, 0);
		snprintf(name, sizeof(name), "out-%ld", k);
		p = join(suite, name);
		kp_buf_reset(&b);
		KP_ASSERT_OK(kp_read_file(p, 0, &b, &err), &err);
		want =
		    kp_xasprintf("bench %s --shard %ld/3 --resume --slurm-requeue --evals 2 gpu=", suite, k);
		assert_true(!strncmp(b.buf, want, strlen(want)));
		assert_non_null(strstr(b.buf, " v=a 'b'\n"));
		free(want);
		free(p);
	}
	kp_buf_reset(&b);
	free(kpdir);
	kpdir = join(suite, "merged");
	KP_ASSERT_OK(kp_read_file(kpdir, 0, &b, &err), &err);
	assert_string_equal(b.buf, "out-0\nout-1\nout-2\n"); /* the merge ran after every element */
	kp_slurm_status_release(&st);
	kp_slurm_submission_release(&sub);
	kp_slurm_settings_release(&s);
	kp_strvec_release(&args);
	kp_buf_release(&b);
	free(kpdir);
	free(kp);
	free(suite);
	kp_test_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_job_id),
	    cmocka_unit_test(test_sbatch),
	    cmocka_unit_test(test_clients_environment),
	    cmocka_unit_test(test_write_and_submit),
	    cmocka_unit_test(test_requeue),
	    cmocka_unit_test(test_parse_captures),
	    cmocka_unit_test(test_parse_ranges_and_refusals),
	    cmocka_unit_test(test_query),
	    cmocka_unit_test(test_live_submit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
