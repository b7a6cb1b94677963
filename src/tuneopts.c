/* optimize --llm none and --from: reading the given version, and something to tune before a run starts. */
#include "base/setup.h"

#include "kernelpro/fs.h"
#include "kernelpro/task_kind.h"
#include "kernelpro/tuner.h"
#include "tuneopts.h"

/* Candidates are a few hundred lines; lib/tune reads at most this much. */
#define FROM_CAP KP_TUNE_MAX_SOURCE

int kp_tuneopts_no_llm(const struct kp_args *a, const struct kp_run *resumed)
{
	const char *llm = kp_arg_str(a, "llm");
	if (llm)
		return !strcmp(llm, KP_RUN_LLM_NONE);
	return resumed && kp_run_settings(resumed)->llm &&
	       !strcmp(kp_run_settings(resumed)->llm, KP_RUN_LLM_NONE);
}

static int read_from(struct kp_cli *cli, const char *path, const struct kp_task *task, struct kp_buf *src)
{
	const struct kp_task_kind_info *k = kp_task_kind_info(task->kind);
	const char *ext = strrchr(path, '.');
	struct kp_error err = KP_ERROR_INIT;

	if (!ext || strcmp(ext + 1, k->ext)) {
		kp_cli_error(cli, "--from '%s': %s tasks take .%s candidates", path, k->name, k->ext);
		return KP_EXIT_USAGE;
	}
	if (kp_read_file(path, FROM_CAP, src, &err))
		return kp_cli_fail(cli, &err);
	return 0;
}

/* With no LLM: the version tuned must have knobs (declared, or derived when it declares none). */
static int something_to_tune(struct kp_cli *cli, const struct kp_task *task, const struct kp_buf *from,
                             const char *from_name)
{
	const struct kp_task_kind_info *k = kp_task_kind_info(task->kind);
	struct kp_tuner_opts o;
	struct kp_tune_space *s = NULL;
	struct kp_error err = KP_ERROR_INIT;
	int rc;

	if (!from->len && k->reference_as_candidate) {
		kp_cli_error(
		    cli,
		    "--llm none tunes a version without an LLM, and the reference of '%s' is a %s task's "
		    "PyTorch Model, not a candidate: give a version with knobs with --from FILE (a KP_TUNE "
		    "dict: docs/tune.md), or a model with --llm PROVIDER:MODEL",
		    task->name, k->name);
		return KP_EXIT_FAIL;
	}
	kp_tuner_opts_init(&o);
	rc = kp_tuner_space(task, from->len ? from->buf : task->source,
	                    from->len ? from->len : strlen(task->source),
	                    from->len ? from_name : task->reference, &o, &s, NULL, 0, &err);
	if (!rc && kp_tune_space_size(s) < 2)
		rc = kp_error_set(&err, KP_EMISSING, "the knobs of '%s' leave only its own values",
		                  from->len ? from_name : task->reference);
	kp_tune_space_free(s);
	if (!rc)
		return 0;
	if (from->len)
		kp_error_prefix(&err, "--llm none tunes the version --from gives");
	else
		kp_error_prefix(&err,
		                "--llm none tunes the reference when no version is given (--from FILE)");
	kp_cli_error(cli, "%s; or give a model with --llm PROVIDER:MODEL", kp_error_msg(&err));
	return kp_exit_for(err.code);
}

int kp_tuneopts_resume(struct kp_cli *cli, const struct kp_args *a)
{
	if (!kp_arg_given(a, "from"))
		return 0;
	kp_cli_error(cli, "--from gives a new run its first version; a resumed run has its own versions");
	return KP_EXIT_USAGE;
}

int kp_tuneopts_new_run(struct kp_cli *cli, const struct kp_args *a, const struct kp_task *task, int no_llm,
                        struct kp_run_settings *s, struct kp_buf *src)
{
	const char *from = kp_arg_str(a, "from");
	int rc;

	if (from && (rc = read_from(cli, from, task, src)))
		return rc;
	if (!no_llm)
		return 0;
	free(s->llm);
	s->llm = kp_xstrdup(KP_RUN_LLM_NONE); /* resumed without --llm, it stays without */
	if (s->params.tune == KP_SEARCH_TUNE_OFF) {
		kp_cli_error(cli,
		             "--llm none runs the tune action alone, and --param tune=off switches it off");
		return KP_EXIT_USAGE;
	}
	return something_to_tune(cli, task, src, from);
}
