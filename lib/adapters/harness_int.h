/*
 * The harness evaluator's insides, shared by harness_eval.c (the evaluator: staging, the warm worker,
 * evaluate, reference, tune) and harness_profile.c (profiling a version and its diagnosis, the held
 * ncu run). Nothing outside lib/adapters includes this.
 */
#ifndef KERNELPRO_ADAPTERS_HARNESS_INT_H
#define KERNELPRO_ADAPTERS_HARNESS_INT_H

#include <pthread.h>

#include "kernelpro/energy.h"
#include "kernelpro/eval.h"
#include "kernelpro/profile.h"
#include "kernelpro/search_backends.h"

#define MAX_STAGERS 8        /* threads that check and build candidates ahead of their turn */
#define WORKER_STARTS 3      /* a run starts the warm worker at most this often */
#define ENERGY_KEPT          16     /* the latest candidates' NVML measurements kept for their profiles */

/* A correct candidate's NVML measurement, kept from its evaluation for the energy paragraph of its profile.
 */
struct kept_energy {
	long node; /* 0: empty */
	struct kp_energy_measurement m;
};

/* A candidate staged ahead of its evaluation (prepare), or being staged. */
struct staged {
	struct staged *next;
	long node;
	char *source;
	struct kp_buf path;
	int state; /* 0 queued, 1 staging, 2 done */
	struct kp_eval_job *job;
	int rc;
	struct kp_error err;
};

struct harness {
	struct kp_search_evaluator base;
	struct kp_harness_opts o;
	char *profile_dir;
	struct kp_hw hw;
	int have_hw;
	int profile_off;            /* profiling cannot work here (no ncu, no counter access) */
	int energy_off;             /* energy cannot be measured here (no NVML, no driver) */
	struct kp_strvec metrics;   /* the collection set: one ncu run classifies, feeds the tools and the energy proxy */
	struct kp_strvec all_checks;/* every static check id: switched off to profile a KernelBench reference */
	char refkey[65];            /* the reference's evaluation in the cache; "": not cached */
	/* The warm worker (KernelBench tasks), launched with the evaluator, driven by whichever thread
	 * evaluates (one at a time). */
	struct kp_eval_worker *worker;
	int worker_starts;
	/*
	 * The next profile's ncu, started ahead (kp_ncu_hold) with the command the last profile ran,
	 * while the GPU evaluates: its Python imports PyTorch meanwhile, and the profile that takes it
	 * starts at the candidate's own work (docs/internals/adapters.md, "A held ncu run").
	 * GPU thread only, as evaluate() and profile() are.
	 */
	struct kp_ncu_held *held;
	struct kp_strvec held_argv, held_env; /* that command: the program and its environment; empty: none yet */
	/* Measurements of the latest correct candidates (a ring; one GPU job at a time uses it). */
	struct kept_energy energy[ENERGY_KEPT];
	unsigned energy_next;
	/* Staging: prepare() queues, the stagers run kp_eval_stage, evaluate() takes the result. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct staged *staged;
	pthread_t stagers[MAX_STAGERS];
	int nstagers, shutdown;
};

/* The GPU model when no profile chose one: --hw, else the device. */
int kp__harness_ensure_hw(struct harness *h, struct kp_error *err);
/* Starts the next profile's ncu ahead (a held run) when none waits; called as an evaluation starts. */
void kp__harness_hold_next(struct harness *h);
/* Profiles one candidate file and diagnoses it (harness_profile.c, profile()). */
int kp__harness_profile(struct harness *h, const char *tag, const char *path, const struct kp_eval_opts *eo,
                        const struct kp_energy_measurement *measured, struct kp_search_eval *out, int reference);

#endif
