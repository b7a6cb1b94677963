/*
 * The real implementations behind the search's interfaces (search.h): the harness evaluator
 * (lib/eval + lib/profile + lib/analyze + lib/tools), the exec evaluator (any outside program that
 * prints a verdict), and the LLM programmer (lib/programmer + lib/llm).
 */
#ifndef KERNELPRO_SEARCH_BACKENDS_H
#define KERNELPRO_SEARCH_BACKENDS_H

#include "kernelpro/eval.h"
#include "kernelpro/feedback.h"
#include "kernelpro/llm.h"
#include "kernelpro/programmer.h"
#include "kernelpro/search.h"
#include "kernelpro/task.h"
#include "kernelpro/tools.h"

/* ---- The harness evaluator ---------------------------------------------------------------------- */

struct kp_harness_opts {
	const struct kp_task *task;    /* borrowed for the evaluator's life */
	struct kp_eval_opts eval;      /* copied; floor_time_s is set from the reference's Stage 1 */
	struct kp_toolset *toolset;    /* borrowed; NULL: no profiling, feedback is timing only */
	struct kp_stage2_opts stage2;  /* feedback mode, orchestration, energy */
	const char *profile_dir;       /* one directory per candidate: <run>/profiles/<node> */
	const char *hw_key;            /* GPU model ("h200-sxm"); NULL: the one profiled, else the device */
	double ncu_timeout_s;          /* per profiling run; <= 0: 600 */
	int energy;                    /* measure energy per launch (native tasks; kp-energy driver, NVML) */
	/* The reference's evaluation is cached across runs by these (lib/adapters/refcache.c); either NULL
	 * or empty: no caching. Copied. */
	const char *task_sha256;       /* the task's identity (lib/run records it) */
	const char *gpu_name;          /* the device's name ("NVIDIA H200") */
};

/*
 * Evaluates with kp_eval_source (verdict, timing, anti-cheat); profiles each correct candidate
 * under ncu (only the calls inside kp_eval_prepare's NVTX range), runs Stage 1 on its longest
 * kernel and the tools its class selects, and returns the feedback text and findings. The
 * reference is timed with kp_eval_baseline and profiled once: its Stage 1 becomes the prompts'
 * roofline text and the anti-cheat floor. No ncu or no counter access switches profiling off for
 * the run with one warning; any other profiling failure leaves that candidate's feedback empty.
 * With `energy`, the reference and each correct candidate of a native task get their energy per
 * launch from the kp-energy driver (lib/energy); a failed measurement leaves it unknown (NAN).
 * Pipelined (docs/internals/search.md): KernelBench tasks run in the warm worker (cold, with one
 * warning, when it cannot be had); prepare() stages candidates (static checks, builds) on a pool of
 * threads; evaluate() may run on the loop's GPU thread; each result says its GPU-busy seconds.
 */
int kp_harness_evaluator_new(struct kp_search_evaluator **out, const struct kp_harness_opts *o,
			     struct kp_error *err);

/* ---- The exec evaluator ------------------------------------------------------------------------- */

/*
 * The exec evaluator: for each candidate, writes it to work_dir/cand-<node>.<ext> and runs
 * argv... FILE with KP_EVAL_ROLE=candidate and KP_NODE_ID set; the reference is `reference_file`
 * run with KP_EVAL_ROLE=reference. The program prints one verdict document on stdout (its exit
 * status is ignored when it does). timeout_s <= 0: no limit. docs/search.md has the contract.
 */
int kp_exec_evaluator_new(struct kp_search_evaluator **out, const char *const *argv, const char *reference_file,
			  const char *work_dir, const char *ext, double timeout_s, struct kp_error *err);
/*
 * The GPU the evaluations are pinned to (an index as kp_eval_opts.gpu): the program gets it as
 * KP_GPU and is expected to run there (a suite gives each GPU slot's runs its own). -1: none.
 * No effect on an evaluator of another kind.
 */
void kp_exec_evaluator_set_gpu(struct kp_search_evaluator *ev, int gpu);

/*
 * Reads a verdict document, as the exec evaluator reads its program's output (`kernelpro eval
 * --json`: status, runtime.median_ms, ref_runtime.median_ms, speedup, log or message; optionally
 * energy_j, feedback, findings, stage1, hardware, profile) into `out` (initialised by the caller).
 * A correct verdict must carry a speedup. `what` names the source.
 */
int kp_exec_verdict_parse(const char *what, const char *text, size_t len, struct kp_search_eval *out,
			  struct kp_error *err);

/* ---- Reactive orchestration: tools answered on request ------------------------------------------ */

struct kp_reactive_opts {
	struct kp_toolset *toolset;    /* borrowed; used by the answerer only (give it its own: not thread-safe) */
	const struct kp_task *task;    /* borrowed: its min_bytes and flops place a kernel on the roofline */
	const char *hw_key;            /* GPU model; NULL: the one the profile names, else local GPU `gpu` */
	int gpu;
	int energy;                    /* energy is an objective (tools weigh it) */
	struct kp_feedback_opts feedback; /* bounds on one answer (mode is always tools) */
};

struct kp_reactive;

int kp_reactive_new(struct kp_reactive **out, const struct kp_reactive_opts *o, struct kp_error *err);
void kp_reactive_free(struct kp_reactive *r);
/* What the model is offered: "- name: description" per tool (kp_toolset_menu). */
const char *kp_reactive_menu(const struct kp_reactive *r);
/*
 * Answers "tool: NAME": runs that tool on the longest launch of the profile a candidate's
 * evaluation saved (profile_json: the kp_search_eval.profile_json, whose "dir" holds ncu_raw.csv
 * and the other files kp_profile_dir_files knows), after Stage 1 on it, and appends the tool's
 * status and findings as text. KP_ENOENT for an unknown tool, KP_EMISSING when the version has no
 * usable profile; the messages are phrased for the model. Safe to call from several threads.
 */
int kp_reactive_call(struct kp_reactive *r, const char *profile_json, const char *name, struct kp_buf *out,
		     struct kp_error *err);

/* ---- The LLM programmer ------------------------------------------------------------------------- */

/*
 * The programmer of lib/programmer behind the search's interface: each request becomes a
 * kp_prog_ctx (format: the task's candidate format; task_text: what the task computes), every
 * prompt and reply comes back in the child's exchanges, and the model's first sentence becomes
 * the child's summary. `llm` is borrowed (kernelpro frees it after the programmer). max_parallel:
 * how many requests may run at once (1 for in-order replay, whose order must stay the search's).
 * `reactive` (borrowed, may be NULL: proactive): optimize prompts offer its tools instead of the
 * parent's feedback, and "tool: NAME" requests run on the parent's saved profile
 * (kp_search_request.parent_profile), up to opts->max_tool_rounds rounds. `codesearch` (borrowed,
 * may be NULL): optimize prompts get CUTLASS/CuTe snippets for the parent's findings
 * (kp_cs_for_findings) when proactive, and "search: QUERY" is offered and answered (kp_cs_answer)
 * when reactive; the snippets shown become the child's queries, which search memory keeps.
 */
struct kp_cs_index;
int kp_llm_programmer_new(struct kp_search_programmer **out, struct kp_llm *llm,
			  const struct kp_programmer_opts *opts, enum kp_cand_format format, const char *task_text,
			  struct kp_reactive *reactive, struct kp_cs_index *codesearch, int max_parallel,
			  struct kp_error *err);

#endif
