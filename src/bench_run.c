/*
 * kernelpro bench: running a suite on the GPU slots (each slot's parts and session hook), or
 * submitting it to Slurm.
 */
#include "base/setup.h"

#include "bench_cli.h"
#include "kernelpro/str.h"
#include "llm_opts.h"
#include "runopts.h"
#include "slurm_cli.h"

/* ---- the slots' session hook (on each slot's thread) ------------------------------------------- */

static int session_hook(struct kp_bench_slot *slot, const struct kp_bench_task_info *t,
                        struct kp_run_session *s, void *ud, struct kp_error *err)
{
	struct bench_state *B = ud;
	struct slot_parts *P = slot->user;
	int rc;

	if (t->kernel) /* bench --kernels: no model, no profiling */
		return kp_bench_cli_kernel_session(B->args, &P->parts, t, s);
	if (B->per_gpu > 1) /* a search profiles and measures energy outside the harness, so outside the lock */
		return kp_error_set(err, KP_EINVAL,
		                    "task %s: --per-gpu is for suites of `bench --kernels` (a search uses the GPU outside "
		                    "the evaluation's lock); run it with --per-gpu 1",
		                    t->name);
	kp_llm_config_release(&P->llm);
	/* The command line's model (none: the run's own), with a list file's per-task model over it. */
	if ((rc = kp_cli_llm_config(B->args, NULL, &P->llm, err)))
		return rc;
	if (t->llm && (rc = kp_llm_config_parse_spec(&P->llm, t->llm, err)))
		return rc;
	kp_runopts_session(B->args, &P->parts, t->task, s);
	s->llm = &P->llm;
	return 0;
}

static void session_done(struct kp_bench_slot *slot, struct kp_run_session *s, void *ud)
{
	struct slot_parts *P = slot->user;
	kp_llm_config_release(&P->llm);
	kp_llm_config_init(&P->llm);
}

/* ---- running --------------------------------------------------------------------------------------- */

static int open_slots(struct bench_state *B, enum kp_orchestration orch)
{
	int rc;
	B->slots = kp_xcalloc((size_t)B->ngpus, sizeof(*B->slots));
	B->slot_user = kp_xcalloc((size_t)B->ngpus, sizeof(*B->slot_user));
	for (int i = 0; i < B->ngpus; i++) {
		int verbosity = B->cli->verbosity;
		kp_runopts_parts_init(&B->slots[i].parts);
		kp_llm_config_init(&B->slots[i].llm);
		B->slot_user[i] = &B->slots[i];
		/* Every slot opens the same things: the first says what is wrong, the others would repeat it.
		 */
		if (i)
			B->cli->verbosity = -1;
		rc = kp_runopts_parts(B->cli, B->args, orch, &B->slots[i].parts);
		B->cli->verbosity = verbosity;
		if (rc)
			return rc;
	}
	return 0;
}

void kp_bench_cli_close_slots(struct bench_state *B)
{
	for (int i = 0; B->slots && i < B->ngpus; i++) {
		kp_runopts_parts_release(&B->slots[i].parts);
		kp_llm_config_release(&B->slots[i].llm);
	}
	free(B->slots);
	free(B->slot_user);
}

/* Runs the suite in B->dir; `created`: made by this command, whose limits it already records. */
int kp_bench_cli_run(struct bench_state *B, int created)
{
	const struct kp_args *a = B->args;
	struct kp_bench_opts o;
	struct kp_bench_outcome out;
	struct kp_bench_hooks hooks = {session_hook, session_done};
	struct kp_bench *b = NULL;
	struct kp_error err = KP_ERROR_INIT;
	enum kp_log_level level;
	int rc;

	memset(&o, 0, sizeof(o));
	if ((rc = kp_runopts_budget(B->cli, a, &o.budget, &o.budget_which)) ||
	    (rc = kp_bench_cli_suite_budget(B->cli, a, &o.suite_budget, &o.suite_which)))
		return rc;
	if (created) /* the suite's own limits, under a list file's per-task ones; on resume they replace both
	              */
		o.budget_which = o.suite_which = 0;
	if (kp_bench_open(&b, B->dir.buf, &err))
		return kp_cli_fail(B->cli, &err);
	rc = open_slots(B, kp_bench_settings(b)->orchestration);
	kp_bench_close(b);
	if (rc)
		return rc;
	B->eval.worker = !kp_arg_flag(a, "no-worker");
	B->eval.worker_off = !B->eval.worker; /* also where the task kind would use it (KernelBench) */
	if (B->per_gpu > 1) { /* the worker runs one job at a time: the slots of a GPU evaluate cold */
		B->eval.worker = 0;
		B->eval.worker_off = 1;
		B->eval.gpu_lock = 1;
	}
	o.dir = B->dir.buf;
	o.shard = B->shard;
	o.shards = B->shards;
	o.gpus = B->gpus;
	o.ngpus = B->ngpus;
	o.slot_user = B->slot_user;
	o.eval = &B->eval;
	o.evaluator = kp_arg_given(a, "evaluator") ? kp_arg_str(a, "evaluator") : NULL;
	o.retry_failed = kp_arg_flag(a, "retry-failed");
	o.hooks = &hooks;
	o.ud = B;
	o.argv_text = B->argv_text.buf;
	o.stop = B->cli->stop; /* Ctrl-C, SIGTERM, SIGHUP, SIGUSR1 (src/main.c): no new task */
	o.note = kp_bench_cli_on_note;
	o.tick = kp_bench_cli_on_tick;
	/* -v: each task's search lines, named by GPU and task (on_note), instead of the library's
	 * unattributed ones from several GPUs at once; -vv: both. */
	level = kp_log_get_level();
	if (B->cli->verbosity == 1)
		kp_log_set_level(KP_LOG_WARN);
	rc = kp_bench_run(&o, &out, &err);
	kp_log_set_level(level);
	if (!B->cli->json && B->cli->verbosity >= 0 && out.view.nslots) {
		kp_bench_cli_render(&out.view, &B->block);
		kp_progress_block(&B->cli->progress, B->block.buf, 1);
	}
	if (rc) {
		kp_cli_error(B->cli, "%s", kp_error_msg(&err));
		if (kp_bench_busy(&err))
			return KP_BENCH_EXIT_BUSY;
		kp_cli_error(
		    B->cli,
		    "the suite is saved; after fixing that, continue it with: kernelpro bench %s --resume",
		    B->dir.buf);
		return kp_exit_for(rc);
	}
	if (B->shards > 1) {
		if (!B->cli->json)
			fprintf(B->cli->out,
			        "shard %d/%d: %ld %s finished, %ld failed; when every shard is done: "
			        "kernelpro bench %s --merge\n",
			        B->shard, B->shards, out.finished, kp_plural(out.finished, "task", "tasks"), out.failed, B->dir.buf);
	} else if ((rc = kp_bench_cli_results(B, 0))) {
		return rc;
	}
	if (out.end == KP_BENCH_STOPPED && B->cli->stop && *B->cli->stop == SIGUSR1 &&
	    kp_arg_flag(a, "slurm-requeue"))
		return kp_slurm_cli_requeue(B->cli, B->dir.buf, B->shard, B->shards, &out);
	if (out.end == KP_BENCH_STOPPED) {
		if (!B->cli->json)
			fprintf(B->cli->out, "stopped; continue with: kernelpro bench %s --resume\n",
			        B->dir.buf);
		return KP_EXIT_FAIL;
	}
	if (out.end == KP_BENCH_BUDGET && !B->cli->json)
		fprintf(B->cli->out,
		        "the suite's budget is spent; a larger one continues it: kernelpro bench %s "
		        "--resume --suite-...\n",
		        B->dir.buf);
	return KP_EXIT_OK;
}

/* --slurm: the options are checked here, on the login node, before the suite is made or submitted. */
int kp_bench_cli_slurm(struct bench_state *B, int existing)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_slurm_settings s;
	struct kp_llm_config llm;
	int rc;

	kp_slurm_settings_init(&s);
	if ((rc = kp_evalopts_from_args(B->cli, B->args, &B->eval)) ||
	    (rc = kp_slurm_cli_settings(B->cli, B->args, existing ? B->dir.buf : NULL, &s)))
		goto out;
	if (existing) { /* a new suite checks its budget and model as it is made */
		struct kp_search_budget b, sb;
		unsigned which;
		if ((rc = kp_runopts_budget(B->cli, B->args, &b, &which)) ||
		    (rc = kp_bench_cli_suite_budget(B->cli, B->args, &sb, &which)))
			goto out;
		kp_llm_config_init(&llm);
		rc = kp_cli_llm_config(B->args, NULL, &llm, &err) ? kp_cli_fail(B->cli, &err) : 0;
		kp_llm_config_release(&llm);
		if (rc)
			goto out;
	} else if ((rc = kp_bench_cli_new_suite(B))) {
		goto out;
	}
	rc = kp_slurm_cli_submit(B->cli, B->args, B->dir.buf, !existing, &s);
out:
	kp_slurm_settings_release(&s);
	return rc;
}
