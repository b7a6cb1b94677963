/* The programmer: builds the prompt for one of three modes, asks the LLM, and extracts the candidate code. */
#ifndef KERNELPRO_PROGRAMMER_H
#define KERNELPRO_PROGRAMMER_H

#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/llm.h"
#include "kernelpro/mode.h" /* enum kp_prog_mode, kp_prog_mode_name/parse */

/*
 * Use:
 *   kp_programmer_new(&p, llm, &opts, &err);     (llm may be NULL to only build prompts)
 *   struct kp_prog_ctx ctx; kp_prog_ctx_init(&ctx); ctx.mode = ...; ctx.task_text = ...;
 *   kp_programmer_generate(p, &ctx, &res, &err); (or _generate_many for parallel children)
 *   if (!res.rejected) use res.code; else feed res.reason into the next prompt;
 *   kp_prog_result_release(&res); kp_programmer_free(p);
 *
 * Prompts are plain-text templates in prompts/ (docs/prompts.md) with named
 * slots filled from the context. The same context gives the same prompt, byte
 * for byte; every slot is trimmed to a bounded length.
 *
 * Threads: after kp_programmer_new() a programmer is read-only, so generate
 * may run in several threads at once (the kp_llm allows it); the hooks are
 * then called from those threads and must be safe for it.
 */

/* What the candidate is; the harness (lib/eval, docs/eval.md) defines each format's ABI. */
enum kp_cand_format {
	KP_CAND_CUDA = 0, /* a native .cu implementing the task's C ABI */
	KP_CAND_TORCH,    /* a KernelBench Python source defining ModelNew, kernels in CUDA */
	KP_CAND_TRITON,   /* a Python source defining ModelNew, kernels in Triton (@triton.jit) */
	KP_CAND_NFORMATS,
};

/* "cuda", "torch", "triton". */
const char *kp_cand_format_name(enum kp_cand_format f);
/* What the format's kernels are written in: "CUDA" (cuda, torch), "Triton". */
const char *kp_cand_format_kernels(enum kp_cand_format f);
int kp_cand_format_parse(const char *s, enum kp_cand_format *out);

/* How the parent of a debug child failed. */
enum kp_prog_failure {
	KP_PROG_FAIL_NONE = 0,
	KP_PROG_FAIL_COMPILE,      /* compile_log */
	KP_PROG_FAIL_RUNTIME,      /* runtime_log: crash, illegal address, CUDA error */
	KP_PROG_FAIL_TIMEOUT,      /* runtime_log, when there is one */
	KP_PROG_FAIL_WRONG_OUTPUT, /* wrong */
	KP_PROG_FAIL_CHEAT,        /* runtime_log holds what the anti-cheat checks said */
	KP_PROG_FAIL_REJECTED,     /* the last reply held no usable code: reject_reason */
};

const char *kp_prog_failure_name(enum kp_prog_failure f); /* "compile_error", "runtime_error", ... */

/* Evidence that a candidate computed the wrong thing. NAN / -1: unknown. */
struct kp_prog_wrong_output {
	double max_abs_err;
	double max_rel_err;
	double atol, rtol;  /* the tolerance it had to meet */
	long mismatched;    /* elements out of tolerance */
	long total;         /* elements compared */
	const char *where;  /* "output 0 at [3, 17]: got 1.25, expected 1.5" */
};

/*
 * Everything one prompt is built from. Strings are borrowed for the call;
 * NULL or "" means "not known" and the prompt leaves that part out. Numbers
 * use NAN for "not known". Fill what the mode needs:
 *   initial:  task, reference, stage1, hardware
 *   debug:    + parent_code, failure and its evidence
 *   optimize: + parent_code, times, feedback, memory, codesearch
 */
struct kp_prog_ctx {
	enum kp_prog_mode mode;
	enum kp_cand_format format;
	/*
	 * Names the code must define (NULL-terminated), used to pick the right
	 * block from a reply and to reject replies without them. NULL: the
	 * format's defaults (docs/prompts.md).
	 */
	const char *const *entry_points;

	const char *task_name;
	const char *task_text;       /* what to compute: shapes, dtypes, tolerance */
	const char *reference_code;
	const char *stage1_text;     /* roofline position and bottleneck class, as text */
	const char *hardware_text;   /* the GPU: name, SMs, peaks, memory */
	const char *memory_text;     /* search memory: what was tried, what failed, what worked */
	const char *codesearch_text; /* code-search results gathered before the call */
	const char *instructions;    /* the user's extra instructions */

	const char *parent_code;     /* debug: the failing code; optimize: the code to improve */
	/*
	 * optimize: what the parent's kernels are written in when that differs from `format`'s
	 * ("Triton" for a CUDA version made from a Triton one): the prompt asks for a port.
	 */
	const char *parent_kernels;

	/* debug */
	enum kp_prog_failure failure;
	const char *compile_log;
	const char *runtime_log;
	struct kp_prog_wrong_output wrong;
	const char *reject_reason;

	/* optimize: seconds per call */
	double reference_time_s;
	double parent_time_s;
	double best_time_s;
	const char *feedback_text;   /* the tools' semantic feedback (or raw metrics in ablations) */

	/*
	 * Reactive orchestration: the tools the model may ask for, one
	 * "name: description" per line. NULL: tool requests are not offered.
	 */
	const char *tools_text;

	const char *tag;             /* names the exchange in recordings; may be NULL */
	void *user;                  /* passed to the hooks untouched (e.g. the search node) */
};

/* Zeroes ctx and sets every number to NAN / -1. */
void kp_prog_ctx_init(struct kp_prog_ctx *ctx);

/* One prompt sent and the reply received, as handed to the exchange hook. */
struct kp_prog_exchange {
	const struct kp_prog_ctx *ctx;
	int round;                      /* 0: the first request; n: after n rounds of tool answers */
	const char *system;
	const struct kp_llm_msg *msgs;  /* the whole conversation sent */
	size_t nmsgs;
	const char *reply;              /* NULL when the request failed */
	const struct kp_llm_usage *usage;
	const char *prompt_hash;
	const struct kp_error *err;     /* NULL on success */
};

/*
 * Callbacks the caller provides. Each may be NULL. They run in the calling
 * thread, one at a time. A failing search/tool hook does not end the
 * generation: its error message is given to the model as the answer.
 */
struct kp_prog_hooks {
	/* A code search ("search: <query>" in a reply): results as text into out. */
	int (*search)(void *ud, const struct kp_prog_ctx *ctx, const char *query, struct kp_buf *out,
		      struct kp_error *err);
	/* A profiling tool by name ("tool: <name> [args]"), run on ctx's parent candidate. */
	int (*tool)(void *ud, const struct kp_prog_ctx *ctx, const char *name, const char *args,
		    struct kp_buf *out, struct kp_error *err);
	/* Every prompt sent and reply received, for the run's records. */
	void (*exchange)(void *ud, const struct kp_prog_exchange *ex);
	void *ud;
};

struct kp_programmer_opts {
	const char *prompts_dir; /* files here replace the bundled prompts/ ones; NULL: bundled only */
	size_t max_prompt_chars; /* bound on the user prompt; 0: KP_PROG_DEFAULT_MAX_PROMPT */
	int max_tool_rounds;     /* tool/search rounds per generation; < 0: 3; 0: none */
	struct kp_prog_hooks hooks;
};

#define KP_PROG_DEFAULT_MAX_PROMPT 60000

/* The result of one generation. */
struct kp_prog_result {
	char *code;          /* the extracted candidate; NULL when rejected */
	char *reply;         /* the last raw reply; NULL when the request failed */
	char *system;        /* the system prompt sent */
	char *prompt;        /* the first user prompt sent */
	int rejected;        /* the model answered, but with no usable code */
	char reason[512];    /* why it was rejected, phrased for the next prompt */
	int rounds;          /* tool/search rounds used */
	int tool_calls;      /* tool and search requests answered */
	char prompt_hash[65];/* of the first request */
	struct kp_llm_usage usage; /* summed over rounds */
};

void kp_prog_result_release(struct kp_prog_result *r);

/* Lifecycle. `llm` is borrowed and may be NULL (then only kp_programmer_prompt works). */
struct kp_programmer;
int kp_programmer_new(struct kp_programmer **out, struct kp_llm *llm, const struct kp_programmer_opts *opts,
		      struct kp_error *err);
void kp_programmer_free(struct kp_programmer *p);

/* Builds the system and user prompts for ctx (deterministic). Appends to both buffers. */
int kp_programmer_prompt(struct kp_programmer *p, const struct kp_prog_ctx *ctx, struct kp_buf *system,
			 struct kp_buf *user, struct kp_error *err);

/*
 * Builds the prompt, asks the LLM, answers tool and search requests (up to
 * max_tool_rounds), extracts the code. Returns 0 when the model answered,
 * rejected or not (check out->rejected); an error when the LLM could not be
 * asked (KP_EAUTH, KP_ECANCELED, KP_EHTTP, KP_ETIMEOUT, ...).
 */
int kp_programmer_generate(struct kp_programmer *p, const struct kp_prog_ctx *ctx, struct kp_prog_result *out,
			   struct kp_error *err);

/*
 * n generations with their requests in flight together (kp_llm_complete_many);
 * tool rounds proceed in lockstep. Each result and error belongs to its
 * context. Returns 0 when every one returned 0, else the first failure's code.
 */
int kp_programmer_generate_many(struct kp_programmer *p, const struct kp_prog_ctx *const *ctxs, size_t n,
				struct kp_prog_result *out, struct kp_error *errs);

/*
 * Picks the candidate out of a reply: fenced code blocks in the format's
 * language, the one defining the most entry points (the last one on a tie).
 * Returns 0 with the code in `code`, or KP_ELLM with a reason phrased for the
 * next prompt ("the reply ended inside a code block: ..."). entry_points NULL:
 * the format's defaults. `truncated`: the provider said the reply hit its
 * token limit. A reply with a NUL byte among its `len` bytes is rejected by
 * name (kp_llm never returns one; other callers may pass any bytes).
 */
int kp_prog_extract(const char *reply, size_t len, enum kp_cand_format format, const char *const *entry_points,
		    int truncated, struct kp_buf *code, char *reason, size_t reason_len);

/*
 * Trims a compiler or runtime log to at most max_chars: the first error
 * lines with a little context first, then the tail, with a note of what was
 * cut. Deterministic. Appends to out.
 */
void kp_prog_trim_log(const char *log, size_t max_chars, struct kp_buf *out);

#endif
