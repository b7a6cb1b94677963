/*
 * Verdicts another harness recorded for a run's kernels: KernelBench's eval_results.json in each of
 * the layouts its scripts have written (docs/rejudge.md, "Recorded verdicts"), read strictly so a
 * re-judge can put them beside kernelpro's own.
 *
 *   kernelbench      {"P": [{"sample_id": S, "compiled", "correctness", "metadata", "runtime", ...}]}
 *   kernelbench-v0   {"P": {"sample_id": S, "compiled", "correctness", "metadata", "runtime", ...}}
 *   list             [{"evaluation_id": "level_L_problem_P_sample_S" (or _solution_S, _epoch_E_sample_S),
 * ...}]
 *
 * Times are milliseconds as KernelBench records them (the mean of its timed trials); its -1 for
 * "not timed" becomes NAN.
 */
#ifndef KERNELPRO_RECORDED_H
#define KERNELPRO_RECORDED_H

#include <jansson.h>
#include <stddef.h>

#include "kernelpro/error.h"

/* The longest recorded error message kept (bytes; longer ones are cut at a character boundary). */
#define KP_RECORDED_MSG_MAX 400

/* One kernel's recorded verdict. Strings are owned (kp_recorded_release). */
struct kp_recorded {
	int level;         /* 0: the file does not say (the caller's level applies) */
	int problem_id;    /* >= 1 */
	int epoch;         /* a run that samples in rounds: level_L_problem_P_epoch_E_sample_S; else 0 */
	int sample_id;     /* >= 0 */
	int compiled;      /* 0 or 1 */
	int correct;       /* 0 or 1 */
	double runtime_ms; /* NAN: not timed */
	double ref_ms;     /* the reference's time the run recorded ("ref_runtime"); NAN: none */
	char *error_kind;  /* the metadata key that says what went wrong ("compilation_error",
	                    * "runtime_error", "correctness_issue", "cuda_error", "other_error"), or NULL */
	char *message;     /* its text, at most KP_RECORDED_MSG_MAX bytes, or NULL */
	char *hardware;    /* the GPU it ran on, or NULL */
};

struct kp_recorded_set {
	struct kp_recorded *v;
	size_t n, alloc;
	const char *layout; /* "kernelbench", "kernelbench-v0", "list" (static) */
};

void kp_recorded_init(struct kp_recorded *r);
void kp_recorded_release(struct kp_recorded *r);
void kp_recorded_set_init(struct kp_recorded_set *s);
void kp_recorded_set_release(struct kp_recorded_set *s);

/*
 * Parses an eval_results.json text (`what` names it in messages) into s, in the file's order, with
 * `level` for entries whose layout does not name one (0: unknown). KP_EPARSE naming the entry and
 * the field for anything that is not one of the layouts above: a value of the wrong type, a
 * problem or sample id that is not a whole number in range, a kernel recorded twice. On an error s
 * is left empty. Nothing here touches the file system.
 */
int kp_recorded_parse(struct kp_recorded_set *s, const char *text, size_t len, int level, const char *what,
                      struct kp_error *err);

/* The entry for (level, problem, epoch, sample): a level 0 entry matches any level. NULL when none. */
const struct kp_recorded *kp_recorded_find(const struct kp_recorded_set *s, int level, int problem_id,
                                           int epoch, int sample_id);

/* The verdict as kernelpro keeps it (new reference), and back (kp_recorded_init'ed by the caller):
 * {"level", "problem_id", "epoch", "sample_id", "compiled", "correct", "runtime_ms", "ref_ms", "error_kind",
 *  "message", "hardware"}, null for what is not known. */
json_t *kp_recorded_to_json(const struct kp_recorded *r);
int kp_recorded_from_json(struct kp_recorded *r, const json_t *o, struct kp_error *err);

/*
 * The reference times KernelBench measured on a GPU (results/timing/GPU/baseline_time_torch.json, which
 * scripts/generate_baseline_time.py writes): {"levelL": {"P_Name.py": {"mean": MS, "std", "min", "max",
 * "num_trials", "hardware", "device"}}}; only "mean" (and "hardware" when present) is read. For runs whose
 * eval_results.json records no ref_runtime, so that their recorded speedups can be computed.
 */
struct kp_recorded_ref {
	int level, problem_id;
	double mean_ms; /* > 0 */
	char *hardware; /* or NULL */
};

struct kp_recorded_refs {
	struct kp_recorded_ref *v;
	size_t n, alloc;
};

/* The most entries one file may hold (KernelBench has 250 problems). */
#define KP_RECORDED_REFS_MAX 10000

void kp_recorded_refs_init(struct kp_recorded_refs *s);
void kp_recorded_refs_release(struct kp_recorded_refs *s);
/* Parses the file's text (`what` names it in messages). KP_EPARSE naming the level and file for a key
 * that is not levelN or P_NAME.py, a mean that is not a number > 0, a problem given twice; s is then
 * empty. */
int kp_recorded_refs_parse(struct kp_recorded_refs *s, const char *text, size_t len, const char *what,
                           struct kp_error *err);
/* The mean time of (level, problem), or NAN when the file has none. */
double kp_recorded_ref_ms(const struct kp_recorded_refs *s, int level, int problem_id);

/* "correct", "compile_error", "runtime_error" (compiled, not correct, no wrong-output record) or
 * "wrong_output" (a correctness_issue): the recorded verdict in kernelpro's outcome names. */
const char *kp_recorded_outcome(const struct kp_recorded *r);

#endif
