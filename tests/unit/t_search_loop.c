/*
 * Unit tests: the optimize loop end to end on the CPU with a scripted programmer and a fake harness —
 * repair then refinements, budgets, resume (after a clean stop, with a saved-but-unevaluated
 * candidate, and after kill -9), parallel requests never timing two candidates at once, search
 * memory reaching the prompts, and a failing candidate never becoming best.
 */
#include "base/setup.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/search.h"

/* ---- a scripted programmer --------------------------------------------------------------------- */

/* Each reply: the outcome the fake harness will report and the speedup. */
struct step {
	const char *outcome;
	double speedup;
};

struct fake_prog {
	struct kp_search_programmer base;
	pthread_mutex_t mu;
	const struct step *script;
	size_t nscript, next;
	int calls, in_flight, max_in_flight;
	int sleep_ms;
	int no_code;        /* reply without code */
	int hard_error_at;  /* call number (1-based) that fails hard; 0: never */
	long tokens_per_call;
	/* What the prompts contained, for checks. */
	char last_debug_log[256];
	char last_memory[2048];
	int debug_calls, optimize_calls, initial_calls;
};

static int fake_generate(struct kp_search_programmer *p, const struct kp_search_request *ctx, struct kp_search_child *out,
			 struct kp_error *err)
{
	struct fake_prog *f = (struct fake_prog *)p;
	struct kp_search_exchange x = {0};
	char src[256], prompt[512], summary[64];
	int call;
	struct step s = {"correct", 1.0};

	pthread_mutex_lock(&f->mu);
	call = ++f->calls;
	if (++f->in_flight > f->max_in_flight)
		f->max_in_flight = f->in_flight;
	if (f->next < f->nscript)
		s = f->script[f->next++];
	else
		s.speedup = 1.0 + 0.01 * call;
	if (ctx->mode == KP_PROG_DEBUG) {
		f->debug_calls++;
		snprintf(f->last_debug_log, sizeof(f->last_debug_log), "%s", ctx->parent_log ? ctx->parent_log : "");
	} else if (ctx->mode == KP_PROG_OPTIMIZE) {
		f->optimize_calls++;
	} else {
		f->initial_calls++;
	}
	snprintf(f->last_memory, sizeof(f->last_memory), "%s", ctx->memory ? ctx->memory : "");
	pthread_mutex_unlock(&f->mu);

	if (f->sleep_ms)
		usleep((useconds_t)f->sleep_ms * 1000);
	pthread_mutex_lock(&f->mu);
	f->in_flight--;
	pthread_mutex_unlock(&f->mu);
	if (f->hard_error_at && call == f->hard_error_at)
		return kp_error_set(err, KP_EAUTH, "fake: key rejected");

	snprintf(prompt, sizeof(prompt), "mode=%s parent=%ld task=%s", kp_prog_mode_name(ctx->mode), ctx->parent_id,
		 ctx->task_name);
	snprintf(src, sizeof(src), "// candidate %d\n__global__ void k() { float4 v; }\noutcome=%s\nspeed=%.17g\n", call,
		 s.outcome, s.speedup);
	snprintf(summary, sizeof(summary), "change %d", call);
	x.prompt = prompt;
	x.reply = f->no_code ? "I cannot help with that." : src;
	x.tokens_in = f->tokens_per_call / 2;
	x.tokens_out = f->tokens_per_call - x.tokens_in;
	x.cost = 0.001;
	kp_search_child_add_exchange(out, &x);
	if (f->no_code) {
		out->error = kp_xstrdup("the reply had no code block");
		return 0;
	}
	out->source = kp_xstrdup(src);
	out->summary = kp_xstrdup(summary);
	if (call == 1)
		kp_search_child_add_query(out, "cute tiled copy", "include/cute/algorithm/copy.hpp");
	return 0;
}

static void fake_prog_init(struct fake_prog *f, const struct step *script, size_t n)
{
	memset(f, 0, sizeof(*f));
	f->base.name = "fake";
	f->base.max_parallel = 16;
	f->base.generate = fake_generate;
	pthread_mutex_init(&f->mu, NULL);
	f->script = script;
	f->nscript = n;
	f->tokens_per_call = 100;
}

/* ---- a fake harness ---------------------------------------------------------------------------- */

struct fake_eval {
	struct kp_search_evaluator base;
	int reference_calls, evals, busy, overlap_seen;
	long first_id;
	int sleep_ms;
	struct fake_prog *prog;   /* to see whether requests were in flight during an evaluation */
	volatile sig_atomic_t *stop;
	int stop_after;
};

static int fake_reference(struct kp_search_evaluator *e, struct kp_search_eval *out, struct kp_error *err)
{
	struct fake_eval *f = (struct fake_eval *)e;
	f->reference_calls++;
	out->outcome = KP_OUTCOME_CORRECT;
	out->time_ms = 10.0;
	out->stage1 = kp_xstrdup("memory-bound: 1.2 TB/s of 4.2 TB/s (29%)");
	out->hardware = kp_xstrdup("NVIDIA H200 (fake)");
	out->feedback = kp_xstrdup("coalescing: strided loads");
	out->findings_json = kp_xstrdup("[{\"tool\":\"coalescing\",\"severity\":\"high\",\"title\":\"strided loads\","
					"\"recommendations\":[\"load float4 per thread\"]}]");
	return 0;
}

static int fake_evaluate(struct kp_search_evaluator *e, long node_id, const char *source, const char *lang,
			 struct kp_search_eval *out, struct kp_error *err)
{
	struct fake_eval *f = (struct fake_eval *)e;
	const char *o = strstr(source, "outcome="), *s = strstr(source, "speed=");
	char name[32] = "";
	double speed = 1.0;

	if (f->busy)
		fail_msg("two candidates evaluated at once");
	f->busy = 1;
	if (!f->evals)
		f->first_id = node_id;
	if (f->prog) {
		pthread_mutex_lock(&f->prog->mu);
		if (f->prog->in_flight > 0)
			f->overlap_seen = 1;
		pthread_mutex_unlock(&f->prog->mu);
	}
	if (f->sleep_ms)
		usleep((useconds_t)f->sleep_ms * 1000);
	f->evals++;
	if (o)
		sscanf(o, "outcome=%31[a-z_]", name);
	if (s)
		sscanf(s, "speed=%lf", &speed);
	out->outcome = kp_outcome_parse(name);
	if (out->outcome == KP_OUTCOME_NONE)
		fail_msg("bad fake candidate '%s'", source);
	out->ref_time_ms = 10.0;
	if (out->outcome == KP_OUTCOME_CORRECT) {
		out->time_ms = 10.0 / speed;
		out->speedup = speed;
		out->feedback = kp_xstrdup("occupancy: 50% achieved");
		out->findings_json = kp_xstrdup("[{\"tool\":\"occupancy\",\"severity\":\"medium\",\"title\":\"low occupancy\","
						"\"recommendations\":[\"fewer registers\"]}]");
	} else {
		out->speedup = speed; /* a failure may still report a time: it must never count */
		out->log = kp_xasprintf("kernel.cu(%ld): error: identifier \"vec_t\" is undefined", node_id);
	}
	f->busy = 0;
	if (f->stop && f->stop_after && f->evals >= f->stop_after)
		*f->stop = 1;
	return 0;
}

static void fake_eval_init(struct fake_eval *f)
{
	memset(f, 0, sizeof(*f));
	f->base.name = "fake";
	f->base.reference = fake_reference;
	f->base.evaluate = fake_evaluate;
}

/* ---- fixture ------------------------------------------------------------------------------------ */

static const struct kp_search_task TASK = {
	.name = "vec_add", .family = "vec_add", .format = "native", .lang = "cuda", .reference_source = "// the reference\n"};

struct fx {
	char *dir;
	char db[512];
	struct kp_store *s;
	struct kp_search_run run;
	struct fake_prog prog;
	struct fake_eval eval;
};

static void fx_open(struct fx *x)
{
	struct kp_error err = KP_ERROR_INIT;
	if (kp_store_open(&x->s, x->db, KP_STORE_CREATE, &err))
		fail_msg("%s", kp_error_msg(&err));
	x->run.store = x->s;
	x->run.run_dir = x->dir;
	x->run.run_name = "test-run";
	x->run.task = &TASK;
	x->run.programmer = &x->prog.base;
	x->run.evaluator = &x->eval.base;
}

static struct fx *fx_new(const struct step *script, size_t n)
{
	struct fx *x = kp_xcalloc(1, sizeof(*x));
	x->dir = kp_test_tmpdir();
	snprintf(x->db, sizeof(x->db), "%s/run.db", x->dir);
	fake_prog_init(&x->prog, script, n);
	fake_eval_init(&x->eval);
	kp_search_params_default(&x->run.params);
	fx_open(x);
	return x;
}

static void fx_free(struct fx *x)
{
	kp_store_close(x->s);
	kp_test_tmpdir_remove(x->dir);
	free(x);
}

static int run_loop(struct fx *x, struct kp_search_outcome *out, struct kp_error *err)
{
	return kp_search_loop(&x->run, out, err);
}

static long count_rows(struct kp_store *s, const char *sql)
{
	sqlite3_stmt *st;
	long n = -1;
	sqlite3_prepare_v2(kp_store_sqlite(s), sql, -1, &st, NULL);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* ---- tests ----------------------------------------------------------------------------------------- */

static const struct step story[] = {
	{"compile_error", 0}, /* initial: does not compile */
	{"correct", 1.5},     /* the repair */
	{"correct", 2.0},
	{"wrong_output", 50}, /* fast but wrong: must never be best */
	{"correct", 2.6},
	{"correct", 2.2},
	{"correct", 1.1},
	{"correct", 2.7},
};

static void test_end_to_end(void **state)
{
	struct fx *x = fx_new(story, KP_ARRAY_SIZE(story));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT, path = KP_BUF_INIT;
	json_t *sum;

	x->run.budget.evals = 8;
	x->run.params.refine_k = 1; /* a narrow root, so the failed first version is the one to expand */
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_int_equal(out.evals, 8);
	assert_int_equal(x->eval.reference_calls, 1);
	assert_int_equal(x->eval.evals, 8);
	assert_true(kp_store_counter(x->s, "evaluations") == 8);
	assert_true(kp_store_counter(x->s, "tokens_in") + kp_store_counter(x->s, "tokens_out") == 800);
	/* The failing initial version was repaired, with the compile log in the debug prompt. */
	assert_true(x->prog.debug_calls >= 1);
	assert_non_null(strstr(x->prog.last_debug_log, "is undefined"));
	assert_true(x->prog.optimize_calls >= 1);
	/* The best is the fastest correct candidate, never the wrong one at 50x. */
	assert_true(out.best_speedup > 2.0 && out.best_speedup < 3.0);
	assert_int_equal(count_rows(x->s, "SELECT COUNT(*) FROM nodes WHERE outcome = 4"), 1);
	/* Every prompt and reply is saved; the compile fix went into memory. */
	assert_int_equal(kp_store_exchange_count(x->s, 0), 8);
	assert_int_equal(count_rows(x->s, "SELECT COUNT(*) FROM memory WHERE kind = 0 AND outcome = 1"), 1);
	assert_int_equal(count_rows(x->s, "SELECT COUNT(*) FROM memory WHERE kind = 2"), 1); /* the code search */
	assert_true(count_rows(x->s, "SELECT COUNT(*) FROM findings") >= 2);
	/* Outputs: summary.json and best.cu with the best candidate. */
	kp_buf_addf(&path, "%s/summary.json", x->dir);
	KP_ASSERT_OK(kp_json_load_file(path.buf, 1 << 20, &sum, &err), &err);
	json_t *best = json_object_get(sum, "best");
	assert_true(json_is_true(json_object_get(best, "improved")));
	assert_true(fabs(kp_json_num(best, "speedup", 0) - out.best_speedup) < 1e-9);
	assert_true(json_array_size(json_object_get(best, "path")) >= 2);
	assert_int_equal(kp_json_int(json_object_get(sum, "used"), "evaluations", 0), 8);
	assert_int_equal(kp_json_int(json_object_get(sum, "outcomes"), "wrong_output", 0), 1);
	assert_string_equal(kp_json_str(sum, "status", ""), "finished");
	json_decref(sum);
	kp_buf_reset(&path);
	kp_buf_addf(&path, "%s/best.cu", x->dir);
	KP_ASSERT_OK(kp_read_file(path.buf, 0, &b, &err), &err);
	char want[64];
	snprintf(want, sizeof(want), "speed=%.17g", out.best_speedup);
	assert_non_null(strstr(b.buf, want));
	kp_buf_reset(&path);
	kp_buf_addf(&path, "%s/candidates/2.cu", x->dir);
	assert_true(kp_path_exists(path.buf));
	kp_buf_release(&b);
	kp_buf_release(&path);
	fx_free(x);
}

static void test_memory_reaches_prompts(void **state)
{
	static const struct step s[] = {{"correct", 1.5}, {"correct", 1.6}, {"correct", 1.7}, {"correct", 1.8}};
	struct fx *x = fx_new(s, KP_ARRAY_SIZE(s));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	x->run.budget.evals = 4;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	/* The reference's recommendation was tried; later prompts say so, and name the API that worked. */
	assert_non_null(strstr(x->prog.last_memory, "load float4 per thread"));
	assert_non_null(strstr(x->prog.last_memory, "float4 worked"));
	assert_true(strlen(x->prog.last_memory) <= (size_t)x->run.params.memory_bytes);
	fx_free(x);
}

static void test_resume_after_stop(void **state)
{
	struct fx *x = fx_new(story, KP_ARRAY_SIZE(story));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	volatile sig_atomic_t stop = 0;

	x->run.budget.evals = 6;
	x->run.stop = &stop;
	x->eval.stop = &stop;
	x->eval.stop_after = 2;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_STOPPED);
	assert_int_equal(out.evals, 2);
	/* A new session with the same database continues where it stopped. */
	stop = 0;
	x->eval.stop_after = 0;
	kp_store_close(x->s);
	fx_open(x);
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_int_equal(out.evals, 4);
	assert_true(kp_store_counter(x->s, "evaluations") == 6);
	assert_int_equal(x->eval.reference_calls, 1); /* Stage 1 once per run */
	assert_int_equal(kp_store_session_count(x->s), 2);
	/* A larger budget on resume extends the run. */
	x->run.budget.evals = 7;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.evals, 1);
	fx_free(x);
}

static void test_resume_evaluates_saved_candidate_first(void **state)
{
	struct fx *x = fx_new(story, KP_ARRAY_SIZE(story));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_node_row r;

	x->run.budget.evals = 2;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	/* As if a session died right after committing a candidate, before evaluating it. */
	kp_node_row_init(&r);
	r.parent = 1;
	r.kind = KP_NODE_INITIAL;
	r.depth = 1;
	KP_ASSERT_OK(kp_store_node_insert(x->s, &r, "cuda", "outcome=correct\nspeed=3.5\n", &err), &err);
	x->eval.evals = 0;
	x->run.budget.evals = 4;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(x->eval.first_id, r.id);
	assert_true(fabs(out.best_speedup - 3.5) < 1e-9);
	assert_int_equal(count_rows(x->s, "SELECT COUNT(*) FROM nodes WHERE evaluated = 0"), 0);
	fx_free(x);
}

static void test_parallel_requests_single_gpu(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	x->run.params.parallel = 3;
	x->prog.sleep_ms = 20;
	x->eval.sleep_ms = 10;
	x->eval.prog = &x->prog;
	x->run.budget.evals = 12;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_int_equal(x->eval.evals, 12);
	assert_true(kp_store_counter(x->s, "evaluations") == 12);
	/* Several requests were in flight at once, and while the GPU evaluated. */
	assert_true(x->prog.max_in_flight >= 2);
	assert_true(x->prog.max_in_flight <= 3);
	assert_true(x->eval.overlap_seen);
	/* No candidate generated beyond the evaluation budget. */
	assert_int_equal(count_rows(x->s, "SELECT COUNT(*) FROM nodes"), 13);
	fx_free(x);
}

static void test_unusable_replies_stop_the_run(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	x->prog.no_code = 1;
	x->run.budget.evals = 10;
	assert_int_equal(run_loop(x, &out, &err), KP_ELLM);
	assert_non_null(strstr(kp_error_msg(&err), "no code block"));
	assert_int_equal(out.end, KP_END_ERROR);
	/* The replies are kept for a person to read. */
	assert_int_equal(kp_store_exchange_count(x->s, 0), x->run.params.max_gen_failures);
	assert_true(kp_store_counter(x->s, "generation_failures") == x->run.params.max_gen_failures);
	fx_free(x);
}

static void test_programmer_failure_is_resumable(void **state)
{
	struct fx *x = fx_new(story, KP_ARRAY_SIZE(story));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT;
	x->prog.hard_error_at = 3;
	x->run.budget.evals = 5;
	assert_int_equal(run_loop(x, &out, &err), KP_EAUTH);
	assert_non_null(strstr(kp_error_msg(&err), "key rejected"));
	assert_int_equal(out.evals, 2);
	KP_ASSERT_OK(kp_store_meta_get(x->s, "status", &b, &err), &err);
	assert_string_equal(b.buf, "failed");
	x->prog.hard_error_at = 0;
	kp_error_clear(&err);
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_true(kp_store_counter(x->s, "evaluations") == 5);
	kp_buf_release(&b);
	fx_free(x);
}

static void test_token_budget(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	x->run.budget.tokens = 350;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_TOKENS);
	assert_int_equal(x->prog.calls, 4); /* 300 < 350 allows a fourth; 400 stops */
	assert_int_equal(out.evals, 4);    /* what was paid for is evaluated */
	fx_free(x);
}

static void test_kill_and_resume(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	pid_t pid;
	long before = 0, ids_before;
	int status;

	x->run.budget.evals = 12;
	x->eval.sleep_ms = 30;
	x->prog.sleep_ms = 5;
	kp_store_close(x->s);
	x->s = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fx_open(x);
		run_loop(x, &out, &err);
		_exit(0);
	}
	/* Watch the database from outside until some evaluations are committed, then kill -9. */
	for (int i = 0; i < 500 && before < 4; i++) {
		struct kp_store *ro;
		usleep(10000);
		if (kp_store_open(&ro, x->db, KP_STORE_READONLY, &err)) {
			kp_error_clear(&err);
			continue;
		}
		before = (long)kp_store_counter(ro, "evaluations");
		kp_store_close(ro);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	assert_true(WIFSIGNALED(status));
	assert_true(before >= 4);

	fx_open(x);
	assert_int_equal(count_rows(x->s, "SELECT COUNT(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"), 1);
	before = (long)kp_store_counter(x->s, "evaluations");
	ids_before = count_rows(x->s, "SELECT SUM(node_id) FROM evaluations");
	assert_true(before >= 4 && before < 12);
	assert_int_equal(count_rows(x->s, "SELECT COUNT(*) FROM evaluations WHERE node_id > 1"), before);
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_true(kp_store_counter(x->s, "evaluations") == 12);
	assert_int_equal(count_rows(x->s, "SELECT COUNT(*) FROM evaluations WHERE node_id > 1"), 12);
	/* Nothing committed before the kill was lost or redone. */
	assert_true(count_rows(x->s, "SELECT SUM(node_id) FROM evaluations") > ids_before);
	assert_int_equal(count_rows(x->s, "SELECT COUNT(*) FROM (SELECT node_id FROM evaluations GROUP BY node_id "
					   "HAVING COUNT(*) > 1)"), 0);
	assert_int_equal(x->eval.reference_calls, 0); /* the child process did Stage 1 */
	assert_int_equal(kp_store_session_count(x->s), 2);
	fx_free(x);
}

static int bad_reference(struct kp_search_evaluator *ev, struct kp_search_eval *r, struct kp_error *er)
{
	r->outcome = KP_OUTCOME_RUNTIME_ERROR;
	r->log = kp_xstrdup("illegal memory access");
	return 0;
}

static void test_reference_failure_refused(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	/* A reference that is wrong against itself is a broken task: refused before any LLM call. */
	x->eval.base.reference = bad_reference;
	x->run.budget.evals = 3;
	assert_int_equal(run_loop(x, &out, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "reference"));
	assert_int_equal(x->prog.calls, 0);
	fx_free(x);
}

static void test_memory_learns_and_renders(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_error err = KP_ERROR_INIT;
	struct kp_memory m = {x->s, NULL, "vec_add", "test-run"};
	struct kp_tree t;
	struct kp_node_row r;
	struct kp_buf out = KP_BUF_INIT;
	const char *parent = "__global__ void k(float *y) {\n  vec4 v = load(y);\n}\n";
	const char *child = "__global__ void k(float *y) {\n  float4 v = *(float4 *)y;\n}\n";
	int bad, fixed;

	kp_tree_init(&t);
	for (long id = 1; id <= 3; id++) {
		kp_node_row_init(&r);
		r.id = id;
		r.parent = id - 1;
		r.kind = id == 1 ? KP_NODE_ROOT : id == 2 ? KP_NODE_INITIAL : KP_NODE_REPAIR;
		KP_ASSERT_OK(kp_store_node_insert(x->s, &r, "cuda", "x", &err), &err);
		kp_tree_add(&t, &r);
	}
	kp_tree_record(&t, &x->run.params, 0, KP_OUTCOME_CORRECT, 1, NAN);
	bad = 1;
	kp_tree_record(&t, &x->run.params, bad, KP_OUTCOME_COMPILE_ERROR, NAN, NAN);
	fixed = 2;
	kp_tree_record(&t, &x->run.params, fixed, KP_OUTCOME_CORRECT, 1.5, NAN);
	KP_ASSERT_OK(kp_memory_learn(&m, &t, &x->run.params, fixed, child, parent,
				     "cand.cu(12): error: identifier \"vec4\" is undefined", NULL, "fix", &err), &err);
	/* A debug prompt for a similar error (other line number) gets the fix, with the line that fixed it. */
	KP_ASSERT_OK(kp_memory_render(&m, &t, bad, KP_PROG_DEBUG, "other.cu(99): error: identifier \"vec4\" is undefined",
				      1000, &out, &err), &err);
	assert_non_null(strstr(out.buf, "compile error \"error: identifier \"vec4\" is undefined\" fixed by: float4 v = *(float4 *)y;"));
	assert_non_null(strstr(out.buf, "float4 worked"));
	/* Bounded: a tiny budget keeps whole lines only. */
	kp_buf_reset(&out);
	KP_ASSERT_OK(kp_memory_render(&m, &t, fixed, KP_PROG_OPTIMIZE, NULL, 60, &out, &err), &err);
	assert_true(out.len <= 60);
	assert_true(out.len == 0 || out.buf[out.len - 1] == '\n');
	/* Deterministic. */
	{
		struct kp_buf again = KP_BUF_INIT;
		kp_buf_reset(&out);
		KP_ASSERT_OK(kp_memory_render(&m, &t, fixed, KP_PROG_OPTIMIZE, NULL, 1000, &out, &err), &err);
		KP_ASSERT_OK(kp_memory_render(&m, &t, fixed, KP_PROG_OPTIMIZE, NULL, 1000, &again, &err), &err);
		assert_string_equal(out.buf, again.buf);
		kp_buf_release(&again);
	}
	kp_buf_release(&out);
	kp_tree_release(&t);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_end_to_end),
		cmocka_unit_test(test_memory_reaches_prompts),
		cmocka_unit_test(test_resume_after_stop),
		cmocka_unit_test(test_resume_evaluates_saved_candidate_first),
		cmocka_unit_test(test_parallel_requests_single_gpu),
		cmocka_unit_test(test_unusable_replies_stop_the_run),
		cmocka_unit_test(test_programmer_failure_is_resumable),
		cmocka_unit_test(test_token_budget),
		cmocka_unit_test(test_kill_and_resume),
		cmocka_unit_test(test_reference_failure_refused),
		cmocka_unit_test(test_memory_learns_and_renders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
