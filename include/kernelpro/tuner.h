/*
 * Tuning one candidate in this process: its knobs (lib/tune) searched with every variant built, checked
 * and timed by the evaluation (lib/eval), results cached per (space, point, GPU). `kernelpro tune` is a
 * thin shell around kp_tuner_run; the search's `tune` action and `optimize --llm none` call it too.
 * docs/tune.md is the user's page, docs/internals/tune.md the design.
 *
 *	struct kp_tuner_opts o;
 *	struct kp_tuner_result r;
 *	kp_tuner_opts_init(&o);
 *	o.eval = &eval_opts;              the protocol each variant is held to (as `eval`)
 *	o.tune.budget = 64;               strategy, seed: o.tune
 *	kp_tuner_result_init(&r);
 *	if (kp_tuner_run(&task, src, len, "cand.cu", &o, &r, &err))
 *		... err says why: no knobs, not correct untuned, no variant correct, no GPU, a tool missing
 *	else
 *		... r.best_source (the fastest correct variant), r.tune.trials, r.space
 *	kp_tuner_result_release(&r);
 */
#ifndef KERNELPRO_TUNER_H
#define KERNELPRO_TUNER_H

#include <jansson.h>
#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/eval.h"
#include "kernelpro/task.h"
#include "kernelpro/tune.h"

struct kp_tuner_opts {
	struct kp_tune_opts tune;        /* strategy, budget, seed; batch: 0 = jobs; gpu: set by the run */
	const struct kp_eval_opts *eval; /* how each variant is evaluated (NULL: kp_eval_opts_init's); the
	                                  * untuned candidate also times the reference, the variants do not */
	enum kp_tune_derive derive;      /* default AUTO: derive knobs only when the source declares none */
	const char *const *knobs; /* "NAME=v1,v2" overrides (kp_tune_set_values_text), NULL-terminated */
	const char *hw;           /* the GPU for the constraints' constants (a hw table key); NULL:
	                           * the GPU the harness reports, else the device present */
	size_t jobs;              /* variants built at once; 0: the online CPUs, 2 to 16 */

	/* Results: `cache` when given (the run database's, borrowed); else files in cache_dir (NULL:
	 * kp_cache_dir()/tune) unless no_cache. */
	const struct kp_tune_cache *cache;
	const char *cache_dir;
	int no_cache;

	/* The warm worker, for KernelBench tasks: `worker` when given (borrowed), else one is started when
	 * start_worker (default 1); without one, every variant starts its harness cold. */
	struct kp_eval_worker *worker;
	int start_worker;

	/* Called after each fresh evaluation (cached results are not evaluated): the point as text, its
	 * status, seconds (0 unless ok), and how many were evaluated so far. May be NULL. */
	void (*progress)(void *ctx, const char *point, enum kp_tune_status st, double seconds, size_t done);
	void *progress_ctx;
};

void kp_tuner_opts_init(struct kp_tuner_opts *o);

/* What one trial's evaluation said, beside kp_tune_result's trials (same index). */
struct kp_tuner_note {
	enum kp_status verdict; /* KP_STATUS_NONE for a cached result */
	char *message;          /* the verdict's one line, or NULL */
	double wall_s;          /* its evaluation's wall time; 0 when cached */
};

struct kp_tuner_result {
	struct kp_tune_space *space; /* the candidate's knobs, bound to the GPU */
	struct kp_tune_result tune;  /* the trials, best, default */
	struct kp_tuner_note *notes; /* tune.ntrials of them */
	struct kp_verdict untuned;   /* the candidate as given, checked and timed with the reference */
	double ref_s;                /* the reference's time per call (from the untuned evaluation); NAN */
	char gpu[64];                /* the GPU the harness reported, the results' cache key */
	char *best_source;           /* the fastest correct variant's source; NULL when none */
	size_t best_len;
	size_t evaluated;      /* fresh evaluations, the untuned one included */
	double wall_s;         /* the whole run */
	char worker_note[256]; /* why no warm worker was used, when one was wanted; "" otherwise */
};

void kp_tuner_result_init(struct kp_tuner_result *r);
/* Frees what r holds and re-initialises it; safe twice. */
void kp_tuner_result_release(struct kp_tuner_result *r);

/*
 * Tunes the candidate `src` (`len` bytes; `name` names it in messages and is its file name) against
 * `task`: reads its knobs (applying o->knobs), evaluates it as given (it must be correct: that verdict
 * is r->untuned, with the reference timed), binds the constraints to the GPU, then runs the strategy:
 * variants go to the evaluation in batches of o->tune.batch (default o->jobs), built in parallel first
 * (native tasks, and load_inline candidates whose builds are slow), then checked and timed one after the
 * other in the warm worker (KernelBench tasks) or a fresh harness each, with the protocol and checks of
 * kp_eval_source. Results come from and go to the cache.
 *
 * Returns 0 with at least one correct variant (r->best_source). Errors, with what to do in err:
 * KP_EMISSING no knob declared or derived, or no correct variant; KP_EINVAL the candidate is not correct
 * as given (r->untuned says how), or a bad override; KP_EPARSE malformed markers or constraints;
 * KP_EBUDGET exhaustive with more feasible points than the budget; and the evaluation's own errors
 * (KP_ENOTOOL, KP_ENODEV ...). r holds what was done either way; release it.
 */
int kp_tuner_run(const struct kp_task *task, const char *src, size_t len, const char *name,
                 const struct kp_tuner_opts *o, struct kp_tuner_result *r, struct kp_error *err);

/*
 * The candidate's space without evaluating anything (`kernelpro tune --list`): read (o->derive,
 * o->knobs) and bound to the GPU o->hw (a key; NULL: the device present, else the H200's entry, whose
 * constants have the same names). The key used goes to hw_key (n bytes; may be NULL). New space in
 * *out, the caller frees it. Errors as kp_tuner_run's reading step.
 */
int kp_tuner_space(const struct kp_task *task, const char *src, size_t len, const char *name,
                   const struct kp_tuner_opts *o, struct kp_tune_space **out, char *hw_key, size_t n,
                   struct kp_error *err);

/* The trials as a table (kp_tune_result_table, with the reference's column). */
void kp_tuner_table(const struct kp_tuner_result *r, struct kp_buf *out);

/*
 * {"gpu", "space" (kp_tune_space_to_json), "strategy", "feasible", "exhausted", "cache_hits", "evaluated",
 * "wall_s", "variants_per_minute", "reference_seconds", "untuned": {"status", "seconds", "message"},
 * "best", "default" (trial indexes), "best_point", "best_seconds", "speedup_vs_untuned",
 * "speedup_vs_reference", "trials": [{"point", "status", "seconds", "cached", "verdict", "message",
 * "speedup_vs_untuned", "speedup_vs_reference", "rank"}]}. New reference.
 */
json_t *kp_tuner_to_json(const struct kp_tuner_result *r);

#endif
