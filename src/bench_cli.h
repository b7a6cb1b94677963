/*
 * kernelpro bench's own files (src/cmd_bench.c and src/bench_*.c): the state one command shares
 * between making, running and reporting a suite.
 */
#ifndef KP_BENCH_CLI_H
#define KP_BENCH_CLI_H

#include "cli.h"
#include "evalopts.h"
#include "kernelpro/bench.h"
#include "kernelpro/report.h"
#include "llm_opts.h"
#include "runopts.h"

/* One GPU slot's parts: opened on the main thread before anything runs. */
struct slot_parts {
	struct kp_runopts_parts parts;
	struct kp_llm_config llm; /* the session's model, made per task */
};

struct bench_state {
	struct kp_cli *cli;
	const struct kp_args *args;
	struct kp_buf dir; /* the suite directory */
	struct kp_buf argv_text;
	struct slot_parts *slots;
	void **slot_user;
	int gpus[KP_BENCH_MAX_SLOTS];
	int ngpus;
	int per_gpu; /* --per-gpu: slots per GPU (gpus[] names each GPU that many times) */
	int shard, shards;
	struct kp_eval_opts eval;
	struct kp_buf block, note;
};

/* bench_suite.c: a usage error said (exit 2); the suite's budgets; the GPU slots; TASKS. */
int kp_bench_cli_usage(struct kp_cli *cli, const char *msg);
int kp_bench_cli_suite_budget(struct kp_cli *cli, const struct kp_args *a, struct kp_search_budget *b,
                              unsigned *which);
int kp_bench_cli_parse_gpus(struct bench_state *B);
int kp_bench_cli_list_tasks(struct bench_state *B);
int kp_bench_cli_new_suite(struct bench_state *B);

/* bench_view.c: the notes and the progress block, on the caller's thread. */
void kp_bench_cli_on_note(int run, const char *line, void *ud);
void kp_bench_cli_render(const struct kp_bench_view *v, struct kp_buf *b);
void kp_bench_cli_on_tick(const struct kp_bench_view *v, void *ud);

/* bench_results.c: --report / --merge (and the end of a run), --status. */
int kp_bench_cli_results(struct bench_state *B, int merge);
int kp_bench_cli_status(struct bench_state *B);

/* bench_run.c: running the suite in B->dir (`created`: by this command), --slurm, the slots. */
int kp_bench_cli_run(struct bench_state *B, int created);
int kp_bench_cli_slurm(struct bench_state *B, int existing);
void kp_bench_cli_close_slots(struct bench_state *B);

/* bench_kernels.c: bench --kernels (docs/rejudge.md). */
#define KP_BENCH_KERNELS_OPTS                                                                                \
	{"kernels",                                                                                          \
	 0,                                                                                                  \
	 KP_OPT_LIST,                                                                                        \
	 "DIR|GLOB|LIST",                                                                                    \
	 "re-judge existing kernels (no model, no search): KernelBench-named files, a glob, or a list file " \
	 "of 'KERNEL TASK' lines",                                                                           \
	 NULL},                                                                                              \
	    {"tasks",                                                                                        \
	     0,                                                                                              \
	     KP_OPT_STR,                                                                                     \
	     "DIR",                                                                                          \
	     "with --kernels: the KernelBench tasks (a checkout, its KernelBench/ or a levelN folder)",      \
	     NULL},                                                                                          \
	    {"samples",                                                                                      \
	     0,                                                                                              \
	     KP_OPT_CHOICE,                                                                                  \
	     "all|best",                                                                                     \
	     "with --kernels: every sample, or per problem the one its recorded verdicts call fastest "      \
	     "correct",                                                                                      \
	     "all"},                                                                                         \
	{"tolerance-mode", 0, KP_OPT_CHOICE, "current|kernelbench-v0.1",                                     \
	 "default tolerances of KernelBench HEAD (1e-4 fp32) or of v0/v0.1 (1e-2, as older runs were "        \
	 "judged); give it again with --resume",                                                            \
	 NULL},                                                                                              \
	{"recorded", 0, KP_OPT_STR, "FILE",                                                                  \
	 "with --kernels: the eval_results.json to compare with (default: the one beside the kernels)",     \
	 NULL},                                                                                              \
	{                                                                                                    \
		"recorded-baseline", 0, KP_OPT_STR, "FILE",                                                  \
		    "with --kernels: KernelBench's baseline_time_torch.json of the recorded run's GPU, for the " \
		    "recorded speedups where eval_results.json has no ref_runtime",                          \
		    NULL                                                                                     \
	}
int kp_bench_cli_kernels(struct bench_state *B);
void kp_bench_cli_print_rejudge(FILE *o, const json_t *rejudge);
int kp_bench_cli_kernel_session(const struct kp_args *a, struct kp_runopts_parts *p,
                                const struct kp_bench_task_info *t, struct kp_run_session *s);

#endif
