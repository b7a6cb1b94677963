/*
 * `kernelpro bench` on a Slurm cluster: --slurm submits the suite's shards as a job array and a
 * merge job (lib/suite/bench_slurm.c), --status shows each shard's element, and an element run with
 * --slurm-requeue puts itself back in the queue when the time limit's signal stopped it.
 */
#include "base/setup.h"

#include <limits.h>
#include <unistd.h>

#include "kernelpro/bench_slurm.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/slurm_status.h"
#include "kernelpro/str.h"
#include "slurm_cli.h"

/* The command line's Slurm options and the setting each one sets. */
static const struct {
	const char *opt, *key;
} setting_opts[] = {
    {"nodes", "nodes"},
    {"gpus-per-node", "gpus_per_node"},
    {"partition", "partition"},
    {"account", "account"},
    {"qos", "qos"},
    {"slurm-time", "time"},
    {"sbatch-arg", "sbatch_args"},
};

/* Options an element never gets: the suite's own (fixed when it was made), the modes, Slurm's. */
static const char *const suite_own[] = {
    "resume",    "suites-dir", "name",          "gpus",          "shard",      "status",
    "merge",     "report",     "list-tasks",    "no-baselines",  "no-compile", "search",
    "objective", "param",      "orchestration", "tool-rounds",   "family",     "format",
    "formats",   "slurm",      "nodes",         "gpus-per-node", "partition",  "account",
    "qos",       "slurm-time", "sbatch-arg",    "slurm-config",  "dry-run",    "slurm-requeue",
    "gpu",
};

/* Per-task and whole-suite limits: a new suite records them; an existing one takes them per session. */
static const char *const budgets[] = {"evals",       "time",       "tokens",       "cost",
                                      "suite-evals", "suite-time", "suite-tokens", "suite-cost"};

static int in_list(const char *const *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], name))
			return 1;
	return 0;
}

static int usage(struct kp_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage(struct kp_cli *cli, const char *fmt, ...)
{
	struct kp_buf b = KP_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	kp_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	kp_cli_error(cli, "%s", b.buf);
	kp_buf_release(&b);
	return KP_EXIT_USAGE;
}

int kp_slurm_cli_check(struct kp_cli *cli, const struct kp_args *a)
{
	static const char *const modes[] = {"shard",  "status",     "merge",
	                                    "report", "list-tasks", "slurm-requeue"};
	double d;
	if (!kp_arg_flag(a, "slurm")) {
		for (size_t i = 0; i < KP_ARRAY_SIZE(setting_opts); i++)
			if (kp_arg_given(a, setting_opts[i].opt))
				return usage(cli, "--%s goes with --slurm", setting_opts[i].opt);
		if (kp_arg_given(a, "slurm-config") || kp_arg_flag(a, "dry-run"))
			return usage(cli, "--%s goes with --slurm",
			             kp_arg_given(a, "slurm-config") ? "slurm-config" : "dry-run");
		if (kp_arg_flag(a, "slurm-requeue") && !kp_arg_str(a, "shard"))
			return usage(cli, "--%s is for a Slurm array element, which runs one --shard K/M",
			             "slurm-requeue");
		return 0;
	}
	for (size_t i = 0; i < KP_ARRAY_SIZE(modes); i++)
		if (kp_arg_given(a, modes[i]))
			return usage(cli,
			             "--slurm runs every shard in a job array of its own: leave out --%s",
			             modes[i]);
	if (kp_arg_given(a, "gpus"))
		return usage(cli,
		             "with --slurm each element uses the GPUs Slurm gives it (--gpus-per-node N): "
		             "leave out --%s",
		             "gpus");
	if (kp_arg_given(a, "time") && kp_parse_duration(kp_arg_str(a, "time"), &d))
		return usage(cli,
		             "--time is the budget per task, a duration like 90s, 30m or 2h ('%s'); each "
		             "element's Slurm time limit is --slurm-time",
		             kp_arg_str(a, "time"));
	return 0;
}

/* ---- submitting ---------------------------------------------------------------------------------- */

/* The options every element's `bench SUITE --shard K/M --resume` gets: those of this session. */
static void element_args(const struct kp_args *a, int created, struct kp_strvec *out)
{
	for (const struct kp_opt *o = a->cmd->opts; o->type != KP_OPT_END; o++) {
		if (!kp_arg_given(a, o->name) || in_list(suite_own, KP_ARRAY_SIZE(suite_own), o->name) ||
		    (created && in_list(budgets, KP_ARRAY_SIZE(budgets), o->name)))
			continue;
		if (o->type == KP_OPT_LIST) {
			const struct kp_strvec *l = kp_arg_list(a, o->name);
			for (size_t i = 0; i < l->n; i++) {
				kp_strvec_pushf(out, "--%s", o->name);
				kp_strvec_push(out, l->v[i]);
			}
		} else {
			kp_strvec_pushf(out, "--%s", o->name);
			if (o->type != KP_OPT_FLAG)
				kp_strvec_push(out, kp_arg_str(a, o->name));
		}
	}
}

int kp_slurm_cli_settings(struct kp_cli *cli, const struct kp_args *a, const char *dir,
                          struct kp_slurm_settings *s)
{
	struct kp_error err = KP_ERROR_INIT;
	if (kp_bench_slurm_settings(dir, kp_arg_str(a, "slurm-config"), s, &err))
		return kp_cli_fail(cli, &err);
	for (size_t i = 0; i < KP_ARRAY_SIZE(setting_opts); i++) {
		const char *opt = setting_opts[i].opt, *key = setting_opts[i].key;
		if (!kp_arg_given(a, opt))
			continue;
		if (!strcmp(key, "sbatch_args")) {
			const struct kp_strvec *l = kp_arg_list(a, opt);
			for (size_t j = 0; j < l->n; j++) {
				int have = 0; /* the suite's settings may hold it from a submission before */
				for (size_t k = 0; k < s->sbatch_args.n; k++)
					have |= !strcmp(s->sbatch_args.v[k], l->v[j]);
				if (!have && kp_slurm_settings_set(s, key, l->v[j], &err))
					break;
			}
		} else {
			kp_slurm_settings_set(s, key, kp_arg_str(a, opt), &err);
		}
		if (err.code) {
			kp_error_prefix(&err, "--%s", opt);
			kp_cli_error(cli, "%s", kp_error_msg(&err));
			return KP_EXIT_USAGE;
		}
	}
	return 0;
}

/* Prints SUITE/slurm/NAME for a dry run. */
static int print_script(struct kp_cli *cli, const char *dir, const char *name)
{
	struct kp_buf p = KP_BUF_INIT, text = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	int rc;
	kp_buf_addf(&p, "%s/slurm/%s", dir, name);
	if (!(rc = kp_read_file(p.buf, 1 << 20, &text, &err)))
		fprintf(cli->out, "# ---- %s\n%s", p.buf, text.buf);
	kp_buf_release(&p);
	kp_buf_release(&text);
	return rc ? kp_cli_fail(cli, &err) : 0;
}

static int report_submission(struct kp_cli *cli, const char *dir, const struct kp_slurm_submission *sub,
                             int dry)
{
	if (cli->json) {
		json_t *o = json_object();
		kp_json_set(o, "dir", json_string(dir));
		kp_json_set(o, "dry_run", json_boolean(dry));
		kp_json_set(o, "array_job", sub->array_job ? json_integer(sub->array_job) : NULL);
		kp_json_set(o, "merge_job", sub->merge_job ? json_integer(sub->merge_job) : NULL);
		kp_json_set(o, "shards", json_integer(sub->shards));
		kp_json_set(o, "array", sub->array ? json_string(sub->array) : NULL);
		kp_cli_print_json_new(cli, o);
		return KP_EXIT_OK;
	}
	if (dry) {
		int rc = print_script(cli, dir, "bench.sbatch");
		if (rc || (rc = print_script(cli, dir, "merge.sbatch")))
			return rc;
		fprintf(cli->err,
		        "kernelpro: dry run: nothing submitted; to submit: kernelpro bench %s --slurm\n",
		        dir);
		return KP_EXIT_OK;
	}
	fprintf(cli->out, "submitted suite %s: job array %lld (", dir, sub->array_job);
	if (sub->array)
		fprintf(cli->out, "shards %s of %ld", sub->array, sub->shards);
	else
		fprintf(cli->out, "%ld %s", sub->shards, kp_plural(sub->shards, "shard", "shards"));
	fprintf(cli->out, "), merge job %lld\n", sub->merge_job);
	fprintf(cli->out, "follow it with: kernelpro bench %s --status\n", dir);
	return KP_EXIT_OK;
}

int kp_slurm_cli_submit(struct kp_cli *cli, const struct kp_args *a, const char *dir, int created,
                        const struct kp_slurm_settings *s)
{
	struct kp_slurm_submission sub;
	struct kp_strvec bench_args = KP_STRVEC_INIT;
	struct kp_error err = KP_ERROR_INIT;
	char exe[PATH_MAX], cwd[PATH_MAX], *abs = realpath(dir, NULL);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int rc;

	kp_slurm_submission_init(&sub);
	if (!abs || n <= 0 || !getcwd(cwd, sizeof(cwd))) {
		kp_cli_error(cli,
		             "cannot tell the absolute paths of the suite, kernelpro or this directory: %s",
		             strerror(errno));
		rc = KP_EXIT_FAIL;
		goto out;
	}
	exe[n] = '\0';
	element_args(a, created, &bench_args);
	{
		struct kp_bench_slurm_req req = {.dir = abs,
		                                 .kernelpro = exe,
		                                 .workdir = cwd,
		                                 .bench_args = &bench_args,
		                                 .settings = s,
		                                 .retry_failed = kp_arg_flag(a, "retry-failed"),
		                                 .submit = !kp_arg_flag(a, "dry-run")};
		rc = kp_bench_slurm_submit(&req, &sub, &err);
	}
	if (rc) {
		kp_cli_error(cli, "%s", kp_error_msg(&err));
		rc = rc == KP_EEXISTS ? KP_BENCH_EXIT_BUSY : kp_exit_for(rc);
		goto out;
	}
	rc = report_submission(cli, abs, &sub, kp_arg_flag(a, "dry-run"));
out:
	free(abs);
	kp_strvec_release(&bench_args);
	kp_slurm_submission_release(&sub);
	return rc;
}

/* ---- status ---------------------------------------------------------------------------------------- */

/* An ended element's exit status ("1:0", "0:9"), or why a queued one waits. */
static void elem_note(const json_t *e, char *out, size_t n)
{
	const char *state = kp_json_str(e, "state", "");
	int final = kp_slurm_status_state_final(kp_slurm_status_state_parse(state, strlen(state)));
	if (final && json_is_integer(json_object_get(e, "exit_code")))
		snprintf(out, n, "exit %lld:%lld", kp_json_int(e, "exit_code", 0),
		         kp_json_int(e, "exit_signal", 0));
	else
		snprintf(out, n, "%s", kp_json_str(e, "reason", ""));
}

void kp_slurm_cli_status(struct kp_cli *cli, const char *dir, json_t *doc)
{
	struct kp_error err = KP_ERROR_INIT;
	json_t *s = NULL, *elems, *merge;
	FILE *o = cli->out;
	char note[96];
	int rc = kp_bench_slurm_status(dir, doc, NULL, NULL, &s, &err);
	if (rc == KP_ENOENT)
		return;
	if (rc) {
		kp_cli_warn(cli, "the Slurm submission: %s", kp_error_msg(&err));
		return;
	}
	if (cli->json) {
		kp_json_set(doc, "slurm", s);
		return;
	}
	fprintf(o, "slurm: job array %lld", kp_json_int(s, "array_job", 0));
	if (kp_json_str(s, "array", NULL))
		fprintf(o, " (shards %s of %lld)", kp_json_str(s, "array", ""), kp_json_int(s, "shards", 0));
	else
		fprintf(o, " (%lld %s)", kp_json_int(s, "shards", 0),
		        kp_plural(kp_json_int(s, "shards", 0), "shard", "shards"));
	if ((merge = json_object_get(s, "merge")) && json_is_object(merge)) {
		elem_note(merge, note, sizeof(note));
		fprintf(o, ", merge job %lld %s%s%s%s", kp_json_int(s, "merge_job", 0),
		        kp_json_str(merge, "state", "?"), *note ? " (" : "", note, *note ? ")" : "");
	}
	fputc('\n', o);
	if (kp_json_str(s, "slurm_error", NULL))
		fprintf(o, "slurm: states unknown: %s\n", kp_json_str(s, "slurm_error", ""));
	fprintf(o, "%-6s %-12s %4s %-12s %6s %6s %6s %8s %6s  %s\n", "shard", "element", "runs", "node",
	        "tasks", "done", "failed", "running", "left", "exit, or why it waits");
	elems = json_object_get(s, "elements");
	for (size_t i = 0; i < json_array_size(elems); i++) {
		const json_t *e = json_array_get(elems, i);
		int sub = json_is_true(json_object_get(e, "submitted"));
		elem_note(e, note, sizeof(note));
		fprintf(o, "%-6lld %-12s %4lld %-12s %6lld %6lld %6lld %8lld %6lld  %s\n",
		        kp_json_int(e, "shard", 0), sub ? kp_json_str(e, "state", "?") : "-",
		        kp_json_int(e, "attempts", 0),
		        *kp_json_str(e, "nodes", "") ? kp_json_str(e, "nodes", "") : "-",
		        kp_json_int(e, "tasks", 0), kp_json_int(e, "finished", 0),
		        kp_json_int(e, "failed", 0), kp_json_int(e, "running", 0),
		        kp_json_int(e, "pending", 0) + kp_json_int(e, "stopped", 0), sub ? note : "");
	}
	json_decref(s);
}

void kp_slurm_cli_merge_incomplete(struct kp_cli *cli, const char *dir)
{
	struct kp_error err = KP_ERROR_INIT;
	json_t *doc = NULL, *s = NULL, *elems;
	if (kp_bench_status(dir, &doc, &err) || kp_bench_slurm_status(dir, doc, NULL, NULL, &s, &err)) {
		json_decref(doc);
		return;
	}
	elems = json_object_get(s, "elements");
	for (size_t i = 0; i < json_array_size(elems); i++) {
		const json_t *e = json_array_get(elems, i);
		long long left = kp_json_int(e, "pending", 0) + kp_json_int(e, "stopped", 0) +
		                 kp_json_int(e, "running", 0);
		if (!left)
			continue;
		kp_cli_warn(cli,
		            "shard %lld/%lld: %lld %s not done; its Slurm element is %s (runs: %lld%s%s)",
		            kp_json_int(e, "shard", 0), kp_json_int(s, "shards", 0), left,
		            kp_plural(left, "task", "tasks"),
		            kp_json_str(e, "state", "?"), kp_json_int(e, "attempts", 0),
		            *kp_json_str(e, "nodes", "") ? ", last on " : "", kp_json_str(e, "nodes", ""));
	}
	kp_cli_warn(cli, "to run what is left: kernelpro bench %s --slurm (it submits only those shards)",
	            dir);
	json_decref(s);
	json_decref(doc);
}

/* ---- requeue on the time limit ------------------------------------------------------------------------ */

static long env_id(const char *name)
{
	const char *v = getenv(name);
	long n;
	return v && *v && strspn(v, "0123456789") == strlen(v) && !kp_parse_long(v, &n) ? n : -1;
}

int kp_slurm_cli_requeue(struct kp_cli *cli, const char *dir, int shard, int shards,
                         const struct kp_bench_outcome *out)
{
	struct kp_error err = KP_ERROR_INIT;
	long job = env_id("SLURM_ARRAY_JOB_ID"), task = env_id("SLURM_ARRAY_TASK_ID");
	long restarts = env_id("SLURM_RESTART_COUNT");
	long left = out->view.tasks - out->view.states[KP_SUITE_FINISHED] - out->view.states[KP_SUITE_FAILED];

	if (job <= 0 || task < 0) {
		kp_cli_error(cli,
		             "--slurm-requeue: not a Slurm array element (no SLURM_ARRAY_JOB_ID and "
		             "SLURM_ARRAY_TASK_ID); continue with: kernelpro bench %s --shard %d/%d --resume",
		             dir, shard, shards);
		return KP_EXIT_FAIL;
	}
	if (left <= 0)
		return KP_EXIT_OK;
	if (!out->finished && !out->failed && !out->evaluations && !out->baselines) {
		/* Requeued, it would stop at the same point again: no element loops. */
		kp_cli_error(cli,
		             "shard %d/%d: this run of Slurm job %ld_%ld ended at its time limit without "
		             "finishing a task, an evaluation or a baseline, so it is not requeued (a task "
		             "does not fit in the limit); raise the time limit (--slurm-time, or \"time\" in "
		             "%s/slurm/settings.json) and run: kernelpro bench %s --slurm",
		             shard, shards, job, task, dir, dir);
		return KP_EXIT_FAIL;
	}
	/* Said first and flushed: Slurm ends this process (SIGTERM) once the requeue is in. */
	fprintf(cli->out,
	        "shard %d/%d: the time limit is near and %ld %s left: requeueing Slurm job %ld_%ld "
	        "(start %ld continues where this one stopped)\n",
	        shard, shards, left, left == 1 ? "task is" : "tasks are", job, task,
	        (restarts > 0 ? restarts : 0) + 2);
	fflush(cli->out);
	fflush(cli->err);
	if (kp_slurm_submission_requeue(NULL, job, task, &err)) {
		kp_cli_error(cli,
		             "shard %d/%d: requeueing itself at the time limit: %s; run what is left "
		             "with: kernelpro bench %s --slurm",
		             shard, shards, kp_error_msg(&err), dir);
		return KP_EXIT_FAIL;
	}
	return KP_EXIT_OK;
}
