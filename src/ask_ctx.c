/* kernelpro ask's inputs: the task, the GPU and the files its options name, made into the programmer's
 * context (cmd_ask.c sends or prints it). */
#include "base/setup.h"

#include <math.h>

#include "ask_ctx.h"
#include "kernelpro/fs.h"
#include "kernelpro/hw.h"
#include "kernelpro/str.h"
#include "kernelpro/task_kind.h"

#define INPUT_CAP (4u << 20)

/* The file named by option `name`, read into `b`; NULL when the option was not given. */
static const char *opt_file(const struct kp_args *a, const char *name, struct kp_buf *b, struct kp_error *err,
			    int *rc)
{
	const char *path = kp_arg_str(a, name);
	if (!path || *rc)
		return NULL;
	*rc = kp_read_file(path, INPUT_CAP, b, err);
	if (*rc)
		kp_error_prefix(err, "--%s", name);
	return *rc ? NULL : b->buf;
}

enum { F_TASK, F_REF, F_STAGE1, F_HW, F_PARENT, F_CLOG, F_RLOG, F_FEEDBACK, F_MEMORY, F_CODESEARCH, F_N };
_Static_assert(F_N == KP_ASK_NFILES, "ask_ctx.h counts the file options");

int kp_ask_sources_load(const struct kp_args *a, struct kp_ask_sources *s, struct kp_error *err)
{
	struct kp_hw hw;
	int rc;

	if (kp_arg_str(a, "task")) {
		if ((rc = kp_task_load(&s->task, kp_arg_str(a, "task"), err))) {
			kp_error_prefix(err, "--task");
			return rc;
		}
		kp_task_describe(&s->task, &s->task_text);
	}
	if (kp_arg_str(a, "gpu-model")) {
		if ((rc = kp_hw_load(&hw, kp_arg_str(a, "gpu-model"), 0, err))) {
			kp_error_prefix(err, "--gpu-model");
			return rc;
		}
		kp_hw_describe(&hw, &s->hardware);
	}
	return 0;
}

static const char *either(const char *given, const struct kp_buf *derived)
{
	return given ? given : derived->len ? derived->buf : NULL;
}

int kp_ask_ctx_build(const struct kp_args *a, const struct kp_ask_sources *src, struct kp_prog_ctx *c,
		     struct kp_buf *files, const char **entries, struct kp_error *err)
{
	const struct kp_task *t = src->task.path ? &src->task : NULL;
	static const char *const names[F_N] = {"task-text", "reference",   "stage1", "hardware", "parent",
					       "compile-log", "runtime-log", "feedback", "memory",   "codesearch"};
	const char *v[F_N];
	const char *fmt = kp_arg_str(a, "format"), *fail = kp_arg_str(a, "failure");
	const struct kp_strvec *ent = kp_arg_list(a, "entry");
	int rc = 0;

	kp_prog_ctx_init(c);
	for (int i = 0; i < F_N; i++)
		v[i] = opt_file(a, names[i], &files[i], err, &rc);
	if (rc)
		return rc;
	kp_prog_mode_parse(kp_arg_str(a, "mode"), &c->mode);
	if (fmt)
		kp_cand_format_parse(fmt, &c->format);
	else if (t)
		kp_cand_format_parse(kp_task_kind_info(t->kind)->format, &c->format);
	else if ((kp_arg_str(a, "reference") && kp_ends_with(kp_arg_str(a, "reference"), ".py")) ||
		 (kp_arg_str(a, "parent") && kp_ends_with(kp_arg_str(a, "parent"), ".py")))
		c->format = KP_CAND_TORCH;
	c->task_name = kp_arg_str(a, "task-name") ? kp_arg_str(a, "task-name") : t ? t->name : NULL;
	c->task_text = either(v[F_TASK], &src->task_text);
	c->reference_code = v[F_REF] ? v[F_REF] : t ? t->source : NULL;
	c->stage1_text = v[F_STAGE1];
	c->hardware_text = either(v[F_HW], &src->hardware);
	c->parent_code = v[F_PARENT];
	c->compile_log = v[F_CLOG];
	c->runtime_log = v[F_RLOG];
	c->feedback_text = v[F_FEEDBACK];
	c->memory_text = v[F_MEMORY];
	c->codesearch_text = v[F_CODESEARCH];
	c->instructions = kp_arg_str(a, "instructions");
	c->reject_reason = kp_arg_str(a, "reject-reason");
	c->wrong.where = kp_arg_str(a, "where");
	c->wrong.max_abs_err = kp_arg_num(a, "max-abs-err", NAN);
	c->wrong.max_rel_err = kp_arg_num(a, "max-rel-err", NAN);
	c->wrong.atol = kp_arg_num(a, "atol", NAN);
	c->wrong.rtol = kp_arg_num(a, "rtol", NAN);
	c->wrong.mismatched = kp_arg_int(a, "mismatched", -1);
	c->wrong.total = kp_arg_int(a, "total", -1);
	c->reference_time_s = kp_arg_num(a, "reference-ms", NAN) / 1e3;
	c->parent_time_s = kp_arg_num(a, "parent-ms", NAN) / 1e3;
	c->best_time_s = kp_arg_num(a, "best-ms", NAN) / 1e3;
	c->tag = "ask";
	if (ent && ent->n) {
		for (size_t i = 0; i < ent->n && i < 15; i++)
			entries[i] = ent->v[i];
		c->entry_points = entries;
	}
	if (c->mode == KP_PROG_DEBUG) {
		for (int f = KP_PROG_FAIL_COMPILE; fail && f <= KP_PROG_FAIL_REJECTED; f++)
			if (!strcmp(fail, kp_prog_failure_name((enum kp_prog_failure)f)))
				c->failure = (enum kp_prog_failure)f;
		if (!c->failure)
			c->failure = c->compile_log			    ? KP_PROG_FAIL_COMPILE
				     : c->reject_reason			    ? KP_PROG_FAIL_REJECTED
				     : isfinite(c->wrong.max_abs_err) || c->wrong.where ? KP_PROG_FAIL_WRONG_OUTPUT
											 : KP_PROG_FAIL_RUNTIME;
	}
	return 0;
}
