/* kernelpro energy TASK CANDIDATE: load the native task, build candidate (and reference), describe its tensors to the driver. */
#include "base/setup.h"

#include <math.h>

#include "cli.h"
#include "cmd_energy.h"
#include "kernelpro/eval.h"
#include "kernelpro/str.h"
#include "kernelpro/task.h"
#include "kernelpro/task_kind.h"

/* What the set-up keeps alive until the measurement is done (the built libraries' paths). */
static struct {
	struct kp_task task;
	struct kp_verdict cand, ref;
	int used;
} S;

void kp_energy_cmd_task_release(void)
{
	if (!S.used)
		return;
	kp_task_release(&S.task);
	kp_verdict_release(&S.cand);
	kp_verdict_release(&S.ref);
	memset(&S, 0, sizeof(S));
}

/* Builds one source with the evaluation engine's cache; prints why when it does not build. */
static int build(struct kp_cli *cli, const char *path, const char *what, const struct kp_eval_opts *o,
		 struct kp_verdict *v)
{
	struct kp_error err = KP_ERROR_INIT;
	if (kp_eval_file(&S.task, path, o, v, &err))
		return kp_cli_fail(cli, &err);
	if (v->status != KP_STATUS_COMPILED || !v->artifact) {
		kp_cli_error(cli, "energy: the %s '%s' was not built: %s: %s%s%s", what, path, kp_status_name(v->status),
			     v->message ? v->message : "no detail", v->log ? "\n" : "", v->log ? v->log : "");
		return KP_EXIT_FAIL;
	}
	return 0;
}

int kp_energy_cmd_add_task(struct kp_cli *cli, const struct kp_args *args, struct kp_energy_driver *d)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_eval_opts o;
	const char *cand;
	int rc;

	cand = kp_arg_pos(args, 1);
	S.used = 1;
	kp_task_init(&S.task);
	kp_verdict_init(&S.cand);
	kp_verdict_init(&S.ref);
	if (kp_task_load(&S.task, kp_arg_pos(args, 0), &err))
		return kp_cli_fail(cli, &err);
	if (!kp_task_kind_info(S.task.kind)->energy) {
		kp_cli_error(cli, "energy: '%s' is a KernelBench task; 'kernelpro energy' measures native CUDA tasks "
				  "(docs/energy.md says what covers PyTorch tasks)",
			     kp_arg_pos(args, 0));
		return KP_EXIT_USAGE;
	}
	kp_eval_opts_init(&o);
	o.gpu = d->gpu;
	o.build_only = 1;
	if (kp_arg_flag(args, "reference")) {
		if ((rc = build(cli, S.task.reference, "reference", &o, &S.ref)))
			return rc;
		kp_strvec_pushf(&d->libs, "reference=%s", S.ref.artifact);
	}
	if ((rc = build(cli, cand, "candidate", &o, &S.cand)))
		return rc;
	{
		/* The label is the file name without .cu; '=' separates label and path for the driver. */
		const char *base = strrchr(cand, '/') ? strrchr(cand, '/') + 1 : cand;
		size_t len = kp_ends_with(base, ".cu") ? strlen(base) - 3 : strlen(base);
		char label[81];
		snprintf(label, sizeof(label), "%.*s", (int)(len < 80 ? len : 80), base);
		for (char *p = label; *p; p++)
			if (*p == '=')
				*p = '_';
		kp_strvec_pushf(&d->libs, "%s=%s", label[0] ? label : "candidate", S.cand.artifact);
	}
	kp_energy_driver_add_task(d, &S.task);
	d->seed = (unsigned long long)o.seed;
	return 0;
}
