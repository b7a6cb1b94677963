/*
 * Re-judging kernels that already exist (`kernelpro bench --kernels`, docs/rejudge.md): each kernel
 * file paired with its KernelBench task by the file's name, or by a list file, into a suite's task
 * list whose runs each evaluate that one kernel (no model, no search); the verdicts the kernels' own
 * run recorded (eval_results.json, kernelpro/recorded.h) are kept with each task, and the suite's
 * results put both side by side.
 */
#ifndef KERNELPRO_REJUDGE_H
#define KERNELPRO_REJUDGE_H

#include <jansson.h>

#include "kernelpro/bench.h"
#include "kernelpro/error.h"
#include "kernelpro/recorded.h"

/* The longest kernel file read (bytes). */
#define KP_REJUDGE_KERNEL_CAP (1u << 20)
/* The longest eval_results.json read (bytes). */
#define KP_REJUDGE_RESULTS_CAP (256u << 20)

enum kp_rejudge_samples {
	KP_REJUDGE_ALL = 0, /* every sample of every problem */
	KP_REJUDGE_BEST,    /* per problem, the sample its recorded verdicts call fastest correct; with none
	                     * correct (or none recorded), the lowest sample id */
};

struct kp_rejudge_opts {
	const char *tasks;   /* a KernelBench checkout, its KernelBench/ folder or one levelN folder */
	const char *results; /* an eval_results.json for every source; NULL: each folder's own, if any */
	enum kp_rejudge_samples samples;
	/* KernelBench's reference times for the recorded run's GPU (--recorded-baseline), or NULL: a
	 * recorded verdict without a ref_runtime takes its problem's time from here. */
	const struct kp_recorded_refs *refs;
};

/*
 * Adds the kernels SOURCE names to l, each as a task whose settings carry the kernel (its path and
 * text) and its recorded verdict: SOURCE is a folder (its files named
 * level_L_problem_P_sample_S_kernel.py, or _solution_S / _epoch_E_sample_S; any other file is skipped), a
 * glob of such files, or a list file (one `KERNEL TASK [name=NAME]` per line, paths relative to
 * it, `#` comments; with o->results, the verdicts of its KernelBench-named kernels). Each task is
 * levelL/P_*.py under o->tasks. The run name is the kernel's file
 * name without `_kernel.py` (a list file: name=, else the file's stem). Entries come in level,
 * problem, sample order. Errors (nothing is added): KP_ENOENT for a source or task that is not
 * there, naming it; KP_EPARSE for a malformed eval_results.json or list line, naming the entry.
 */
int kp_rejudge_add_source(struct kp_bench_list *l, const char *source, const struct kp_rejudge_opts *o,
                          struct kp_error *err);

/*
 * Reads --recorded-baseline's file (KernelBench's baseline_time_torch.json) into refs, as the recorded
 * verdicts are read beside it: KP_ENOENT when it is not there, KP_EPARSE (with what to do) when it is
 * malformed; refs is then empty.
 */
int kp_rejudge_load_refs(const char *path, struct kp_recorded_refs *refs, struct kp_error *err);

/*
 * "level_1_problem_3_sample_0_kernel.py" (a path's last part; _solution_S and _epoch_E_sample_S too)
 * -> 0 with the ids (epoch 0 when the name has none), or -1.
 */
int kp_rejudge_parse_name(const char *file, int *level, int *problem, int *epoch, int *sample);

/*
 * The side-by-side document of a re-judged suite (new reference in *out, NULL when no task of s
 * came from a kernel): per kernel what its run recorded and what kernelpro says, whether they agree
 * on correctness, and for a disagreement the check and message behind kernelpro's verdict; then
 * the agreement counts and fast_p and geomean under both. `s` is the suite's collected records in
 * list order (kp_bench_collect); kernelpro's verdicts are read from each task's run in suite_dir.
 * docs/rejudge.md has the fields.
 */
int kp_rejudge_table(const char *suite_dir, const struct kp_suite *s, json_t **out, struct kp_error *err);

#endif
