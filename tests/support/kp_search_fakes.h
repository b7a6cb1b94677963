/*
 * A scripted programmer and a fake harness for tests that drive the search (t_search_loop) or a
 * whole run (t_run) on the CPU. A candidate's source says what the fake harness will report:
 * "outcome=correct\nspeed=2.5". A candidate with knobs ("constexpr int B = KP_TUNE(BLOCK, 256, 512);")
 * is tuned through kp_search_tune_each, each variant judged by the value its first marker now starts
 * with: "speed@512=3" and "outcome@512=wrong_output" replace the speed and outcome for that value.
 */
#ifndef KP_SEARCH_FAKES_H
#define KP_SEARCH_FAKES_H

#include <pthread.h>
#include <signal.h>

#include "kernelpro/search.h"

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
	int no_code;       /* reply without code */
	int hard_error_at; /* call number (1-based) that fails hard; 0: never */
	long tokens_per_call;
	/* Appended to the source of reply i (0-based): knob markers, per-value lines; NULL entries: none. */
	const char *const *extras;
	size_t nextras;
	/* What the prompts contained, for checks. */
	char last_debug_log[256];
	char last_memory[2048];
	int debug_calls, optimize_calls, initial_calls;
	/* Optimize requests whose parent_profile names their parent ("node":ID, as fake_profile writes it),
	 * and those without (a parent never profiled). */
	int optimize_with_profile, optimize_without_profile;
};

struct fake_eval {
	struct kp_search_evaluator base;
	int reference_calls, evals, busy, overlap_seen;
	long first_id;
	int sleep_ms;
	struct fake_prog *prog; /* to see whether requests were in flight during an evaluation */
	volatile sig_atomic_t *stop;
	int stop_after;
	/* A test's clock (kp_search_run.clock): tick_s more per evaluation, the reference's included. */
	double *clock;
	double tick_s;
	/* Pipelined (fake_eval_pipelined): prepare() records ids; each evaluation waits up to wait_next_ms
	 * for a later candidate to be prepared (the loop committing while the GPU is busy). */
	pthread_mutex_t mu;
	long max_prepared;
	int prepared, unprepared_evals, ahead_seen, wait_next_ms;
	double gpu_s; /* reported per evaluation; 0: not */
	/* The tune action (kp_search_tune_each): tune calls, variants judged, and the variant after which
	 * the stop flag is set (0: never) or evaluation fails hard (0: never). */
	int tunes, variants, stop_after_variants, fail_at_variant;
	/* Profiling on demand (fake_eval_lazy): profile calls, and how often each node was profiled. */
	int profiles;
	int profiled[64];
};

/* Replies follow `script`, then correct versions at 1.01x, 1.02x, ...; 100 tokens each. */
void fake_prog_init(struct fake_prog *f, const struct step *script, size_t n);
/* The reference at 10 ms with a coalescing finding; candidates as their source says; a tune method. */
void fake_eval_init(struct fake_eval *f);
/* The same, offering prepare() and concurrent evaluation. */
void fake_eval_pipelined(struct fake_eval *f, int wait_next_ms);
/* Either of the above made to profile on demand: evaluate() gives no feedback, profile() gives the profile
 * ({"node":ID}), the feedback and the findings. */
void fake_eval_lazy(struct fake_eval *f);

#endif
