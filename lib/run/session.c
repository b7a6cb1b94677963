/*
 * One session of a run (kp_run_optimize): the parts it lacks are made (the LLM programmer and its
 * reactive answerer, the evaluator), the files are brought up to date, and lib/search's loop runs
 * with hooks that keep candidates/, best.* and summary.json beside the database.
 */
#include "base/setup.h"

#include "kernelpro/device.h"
#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/search_backends.h"
#include "kernelpro/str.h"
#include "run/run_int.h"

/* Everything one session made (and frees again) and the search's view of the task. */
struct session {
	struct kp_run *run;
	const struct kp_run_session *opts;
	struct kp_search_params params;
	struct kp_search_task task;
	struct kp_strvec formats; /* the run's formats, for task.formats */
	struct kp_buf task_text;
	struct kp_llm_config recorded; /* the run's model, when the session names none */
	struct kp_llm *llm;
	struct kp_reactive *reactive;
	struct kp_search_programmer *made_prog;
	struct kp_search_evaluator *made_eval;
	int energy; /* the objective includes energy */
};

static int gpu_index(const struct kp_run_session *o)
{
	return o->eval ? o->eval->gpu : 0;
}

/* A run with no LLM (optimize --llm none) and a session that chooses none: the tune action alone. */
static int no_llm(const struct session *S)
{
	const struct kp_run_session *o = S->opts;
	return !o->programmer && (!o->llm || o->llm->provider == KP_LLM_NONE) && S->run->settings.llm &&
	       !strcmp(S->run->settings.llm, KP_RUN_LLM_NONE);
}

/* Reactive orchestration: the answerer, with its own toolset (requests come from worker threads). */
static int make_reactive(struct session *S, struct kp_error *err)
{
	const struct kp_run_session *o = S->opts;
	struct kp_reactive_opts ro;

	if (S->run->settings.orchestration != KP_ORCH_REACTIVE || o->programmer || no_llm(S))
		return 0;
	if (!o->reactive_tools)
		return kp_error_set(err, KP_EINVAL,
				    "reactive orchestration answers the model's tool requests: the "
				    "session needs a toolset for it (reactive_tools)");
	memset(&ro, 0, sizeof(ro));
	ro.toolset = o->reactive_tools;
	ro.task = o->task;
	ro.hw_key = o->hw_key;
	ro.gpu = gpu_index(o);
	ro.energy = S->energy;
	return kp_reactive_new(&S->reactive, &ro, err);
}

/* The model: the session's, else the one the run records; in-order replay goes on after the replies used. */
static int llm_config(struct session *S, struct kp_llm_config **cfg, int *parallel, struct kp_error *err)
{
	struct kp_llm_config *c = S->opts->llm ? S->opts->llm : &S->recorded;
	int rc;

	if (c->provider == KP_LLM_NONE && S->run->settings.llm &&
	    (rc = kp_llm_config_parse_spec(c, S->run->settings.llm, err))) {
		kp_error_prefix(err, "the model run '%s' records", S->run->name);
		return rc;
	}
	if (kp_llm_config_resume(c, kp_store_exchange_count(S->run->store, 0)))
		*parallel = 1; /* replies answer requests by their order */
	*cfg = c;
	return 0;
}

static int make_programmer(struct session *S, struct kp_error *err)
{
	const struct kp_run_session *o = S->opts;
	struct kp_programmer_opts po;
	struct kp_llm_config *cfg;
	enum kp_cand_format format;
	int parallel = S->params.parallel, rc;

	if (o->programmer || no_llm(S))
		return 0;
	if (kp_cand_format_parse(S->formats.n ? S->formats.v[0] : S->task.kind->format, &format))
		return kp_error_set(err, KP_EINVAL, "the run's candidate format '%s' is not one kernelpro knows",
				    S->formats.n ? S->formats.v[0] : S->task.kind->format);
	if ((rc = llm_config(S, &cfg, &parallel, err)) || (rc = kp_llm_open(&S->llm, cfg, err)))
		return rc;
	kp_llm_set_cancel_flag(S->llm, o->stop); /* a stop drops the requests in flight (KP_ECANCELED) */
	/* The run's --cost is the one cost limit: it must be countable. */
	if (S->run->settings.budget.cost > 0 && (rc = kp_llm_check_priced(S->llm, err)))
		return rc;
	memset(&po, 0, sizeof(po));
	po.prompts_dir = o->prompts_dir;
	po.max_tool_rounds = S->run->settings.tool_rounds;
	return kp_llm_programmer_new(&S->made_prog, S->llm, &po, format, S->task_text.buf, S->reactive,
				     o->codesearch, parallel, err);
}

/* "exec:PROGRAM ARGS": the program, in the run's exec-eval/ directory, within the evaluation's limits. */
static int make_exec_evaluator(struct session *S, const char *args, struct kp_error *err)
{
	const struct kp_eval_opts *eo = S->opts->eval;
	struct kp_strvec argv = KP_STRVEC_INIT;
	struct kp_buf wdir = KP_BUF_INIT;
	double timeout_s = eo ? eo->timing_timeout_s + eo->build_timeout_s + eo->check_timeout_s : 0;
	int rc;

	kp_strvec_split(&argv, args, ' ');
	while (argv.n && !*argv.v[argv.n - 1])
		kp_strvec_pop(&argv);
	kp_path_join(&wdir, S->run->dir, "exec-eval");
	rc = kp_exec_evaluator_new(&S->made_eval, argv.n ? (const char *const *)argv.v : NULL,
				   S->opts->task->reference, wdir.buf, S->task.kind->ext, timeout_s, err);
	if (!rc && eo)
		kp_exec_evaluator_set_gpu(S->made_eval, eo->gpu); /* KP_GPU: the program runs where the session does */
	kp_strvec_release(&argv);
	kp_buf_release(&wdir);
	return rc;
}

/* The built-in harness: on a GPU here, profiling into the run's profiles/ directory. */
static int make_harness_evaluator(struct session *S, struct kp_error *err)
{
	const struct kp_run_session *o = S->opts;
	struct kp_harness_opts ho;
	struct kp_gpu_list gpus;
	struct kp_buf pdir = KP_BUF_INIT;
	int rc;

	/* Before any LLM call: every candidate must run on a GPU here. */
	if (kp_device_query(&gpus, err) || gpus.count <= gpu_index(o)) {
		kp_error_clear(err);
		return kp_error_set(err, KP_ENODEV,
				    "no usable GPU %d here: the built-in harness evaluates every "
				    "candidate on one ('kernelpro doctor' says why; --evaluator exec:PROGRAM "
				    "evaluates elsewhere)",
				    gpu_index(o));
	}
	memset(&ho, 0, sizeof(ho));
	if (o->eval)
		ho.eval = *o->eval;
	else
		kp_eval_opts_init(&ho.eval);
	ho.stage2.feedback.mode = o->feedback;
	ho.stage2.orchestration =
	    S->run->settings.orchestration; /* reactive: ncu still collects every tool's metrics */
	ho.stage2.energy = S->energy;       /* instruction_mix always runs when energy counts */
	ho.task = o->task;
	ho.toolset = o->toolset;
	ho.energy = S->energy;
	ho.hw_key = o->hw_key;
	ho.task_sha256 = S->run->task_sha256; /* the reference's evaluation is cached by these */
	ho.gpu_name = gpus.gpus[gpu_index(o)].name;
	kp_path_join(&pdir, S->run->dir, "profiles");
	ho.profile_dir = pdir.buf;
	rc = kp_harness_evaluator_new(&S->made_eval, &ho, err);
	kp_buf_release(&pdir);
	return rc;
}

static int make_evaluator(struct session *S, struct kp_error *err)
{
	const char *spec = S->opts->evaluator_spec ? S->opts->evaluator_spec : S->run->settings.evaluator;

	if (S->opts->evaluator)
		return 0;
	if (!spec || !strcmp(spec, "harness"))
		return make_harness_evaluator(S, err);
	if (kp_starts_with(spec, "exec:"))
		return make_exec_evaluator(S, spec + 5, err);
	return kp_error_set(err, KP_EINVAL, "--evaluator must be 'harness' or 'exec:PROGRAM ARGS', not '%s'",
			    spec);
}

static void session_release(struct session *S)
{
	if (S->made_prog)
		S->made_prog->free(S->made_prog);
	kp_reactive_free(S->reactive);
	if (S->made_eval)
		S->made_eval->free(S->made_eval);
	kp_llm_free(S->llm);
	kp_llm_config_release(&S->recorded);
	kp_buf_release(&S->task_text);
	kp_strvec_release(&S->formats);
}

/* ---- the loop's hooks: the files beside the database ----------------------------------------- */

static void on_candidate(long id, const char *source, void *ud)
{
	struct session *S = ud;
	kp__run_write_candidate(S->run, id, S->task.kind->lang, source);
}

static void on_evaluated(void *ud)
{
	struct session *S = ud;
	struct kp_error err = KP_ERROR_INIT;
	if (kp__run_write_outputs(S->run, &err))
		kp_warn("run files: %s (the run database has everything; they are rewritten after the next "
			"evaluation)",
			kp_error_msg(&err));
}

static void on_progress(const struct kp_search_status *st, void *ud)
{
	struct session *S = ud;
	if (S->opts->progress)
		S->opts->progress(st, S->opts->ud);
}

static void on_note(const char *line, void *ud)
{
	struct session *S = ud;
	if (S->opts->note)
		S->opts->note(line, S->opts->ud);
}

/* A session works on the run's task, judged the run's way: a new run for anything else. */
static int check_identity(struct kp_run *r, const struct kp_run_session *o, struct kp_error *err)
{
	const char *spec = o->evaluator_spec, *was = r->settings.evaluator;
	int rc = kp__run_same_task(r, o->task, o->task->path, err);

	if (rc || o->evaluator || !spec || !was || !strcmp(spec, was))
		return rc;
	return kp_error_set(err, KP_EINVAL,
			    "run '%s' is judged by '%s'; --evaluator '%s' would judge its candidates another "
			    "way: omit --evaluator to go on with the run's, or start a new run with this one",
			    r->name, was, spec);
}

int kp_run_optimize(struct kp_run *r, const struct kp_run_session *o, struct kp_search_outcome *out,
		    struct kp_error *err)
{
	struct session S;
	struct kp_search_run sr;
	struct kp_error files_err = KP_ERROR_INIT;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = check_identity(r, o, err)))
		return rc;
	memset(&S, 0, sizeof(S));
	S.run = r;
	S.opts = o;
	kp_llm_config_init(&S.recorded);
	S.params = r->settings.params;
	if (o->parallel > 0)
		S.params.parallel = o->parallel; /* how, not what: may change from session to session */
	S.energy = S.params.objective == KP_OBJECTIVE_SPEED_ENERGY;
	kp_task_describe(o->task, &S.task_text);
	S.task = (struct kp_search_task){.name = o->task->name,
					 .description = S.task_text.buf,
					 .family = r->settings.family ? r->settings.family : o->task->name,
					 .kind = kp_task_kind_info(o->task->kind),
					 .reference_source = o->task->source,
					 .task = o->task};
	if (r->settings.formats) { /* several languages (or another than the kind's) */
		kp_strvec_split(&S.formats, r->settings.formats, ',');
		S.task.formats = (const char *const *)S.formats.v;
	}
	if ((rc = make_reactive(&S, err)) || (rc = make_programmer(&S, err)) ||
	    (rc = make_evaluator(&S, err)))
		goto out;
	if (kp_run_write_files(r, &files_err))
		kp_warn("run files: %s", kp_error_msg(&files_err));
	memset(&sr, 0, sizeof(sr));
	sr.store = r->store;
	sr.run_name = r->name;
	sr.task = &S.task;
	sr.params = S.params;
	sr.budget = r->settings.budget;
	sr.programmer = o->programmer ? o->programmer : S.made_prog; /* NULL: the tune action alone */
	sr.seed_source = o->from_source;
	sr.seed_name = o->from_name;
	sr.evaluator = o->evaluator ? o->evaluator : S.made_eval;
	sr.shared_memory = o->shared_memory;
	sr.argv_text = o->argv_text;
	sr.stop = o->stop;
	sr.progress = on_progress;
	sr.note = on_note;
	sr.candidate = on_candidate;
	sr.evaluated = on_evaluated;
	sr.ud = &S;
	if (o->started)
		o->started(r, &S.params, o->ud);
	rc = kp_search_loop(&sr, out, err);
out:
	session_release(&S);
	return rc;
}
