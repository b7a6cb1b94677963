/*
 * Semantic feedback: one bounded text (and JSON) per candidate, built from
 * the Stage-1 position and the tools' findings: the bottleneck class and
 * roofline position in numbers, findings folded, deduplicated and ordered by
 * severity and estimated gain, and what to try first.
 *
 * Also the orchestration modes (proactive, reactive) and the feedback
 * ablations (tools, raw, none).
 */
#ifndef KERNELPRO_FEEDBACK_H
#define KERNELPRO_FEEDBACK_H

#include <jansson.h>

#include "kernelpro/buf.h"
#include "kernelpro/tools.h"

enum kp_feedback_mode {
	KP_FEEDBACK_TOOLS = 0, /* interpreted findings (default) */
	KP_FEEDBACK_RAW,       /* the metrics the tools would have read, as a table */
	KP_FEEDBACK_NONE,      /* timing only */
};

enum kp_orchestration {
	KP_ORCH_PROACTIVE = 0, /* the Stage-1 class selects tools; all run before the LLM is asked */
	KP_ORCH_REACTIVE,      /* tools are offered by name; run only when asked (kp_toolset_call) */
};

const char *kp_feedback_mode_name(enum kp_feedback_mode m); /* "tools", "raw", "none" */
int kp_feedback_mode_parse(const char *s, enum kp_feedback_mode *out);
const char *kp_orchestration_name(enum kp_orchestration o); /* "proactive", "reactive" */
int kp_orchestration_parse(const char *s, enum kp_orchestration *out);

/* The language the "Do" lines are phrased for (lib/tools/phrasing.c). */
enum kp_code_lang {
	KP_LANG_AUTO = 0, /* Triton for a kernel with Triton's cache metadata, else CUDA */
	KP_LANG_CUDA,
	KP_LANG_TRITON,
};

struct kp_feedback_opts {
	enum kp_feedback_mode mode;
	enum kp_code_lang lang;
	size_t max_findings; /* 0: 3 */
	size_t max_recs;     /* recommendations per finding; 0: 3 */
	size_t max_chars;    /* bound on the text; 0: 6000 */
};

/* One row of the raw table. */
struct kp_raw_row {
	char *name;
	char *unit;
	double value;
	int missing;
};

struct kp_feedback {
	enum kp_feedback_mode mode;
	struct kp_feedback_opts opts;
	char *kernel;          /* bare function name, or NULL */
	/* Position on the roofline (NAN where unknown). */
	double time_s;
	const char *bound;     /* kp_bound_name(), "unknown" without Stage 1 */
	char *bound_reason;
	double achieved_bw, memory_peak, memory_frac;
	double achieved_flops, compute_peak, compute_frac;
	const char *precision;
	const char *peak_source; /* "measured" or "datasheet" (or NULL) */
	double floor_time_s;
	double sm_sol_pct, mem_sol_pct; /* ncu's own speed-of-light percentages */
	/* Findings after synthesis, best first, at most opts.max_findings. */
	struct kp_findings findings;
	size_t nfolded;   /* findings folded into the ones that explain them, or merged */
	size_t ndropped;  /* findings the tools estimated below the toolset's min_gain */
	size_t nomitted;  /* findings beyond max_findings */
	struct kp_strvec omitted; /* those findings, "tool (severity)", best first */
	struct kp_strvec notes; /* "tool: missing metric ..." for tools that could not run */
	enum kp_code_lang lang; /* CUDA or Triton, resolved: how recommendations are rendered */
	char *triton;           /* a Triton kernel's launch (num_warps, num_stages, shared memory), or NULL */
	/* KP_FEEDBACK_RAW: what the selected tools read. */
	struct kp_raw_row *raw;
	size_t nraw;
};

/*
 * Folds findings into the ones their explained_by names, merges duplicates
 * (same title), and orders the rest by severity, then estimated gain. `out`
 * receives copies; *nfolded (may be NULL) how many disappeared.
 */
void kp_feedback_synthesize(const struct kp_findings *in, struct kp_findings *out, size_t *nfolded);

/*
 * Builds the feedback for one kernel from the tools' diagnosis (`d`, may be
 * NULL in modes raw and none). `ids` (raw mode) names the tools whose metrics
 * make the table. Everything is copied: `fb` outlives its inputs.
 */
void kp_feedback_build(struct kp_feedback *fb, const struct kp_toolset *ts, const struct kp_strvec *ids,
		       const struct kp_tool_input *in, const struct kp_diagnosis *d,
		       const struct kp_feedback_opts *o);
void kp_feedback_release(struct kp_feedback *fb);

/*
 * A recommendation of tool `tool` phrased for `lang`: `rec` itself for CUDA (and for one the
 * Triton table does not name), the Triton wording (in tmp) for one it names, NULL for one without
 * a Triton counterpart (leave it out).
 */
const char *kp_phrase_rec(enum kp_code_lang lang, const char *tool, const char *rec, struct kp_buf *tmp);
/*
 * The feedback's language (opts.lang, else Triton when `k` is given) and, for a Triton kernel, its
 * launch line from Triton's cache metadata (kp_triton_describe). Called by kp_feedback_build.
 */
void kp_feedback_set_triton(struct kp_feedback *fb, const struct kp_triton_kernel *k);
/* The Triton table, for its tests: how many rows, and each row's tool and CUDA words. */
size_t kp_phrase_count(void);
const char *kp_phrase_table_tool(size_t i);
const char *kp_phrase_table_cuda(size_t i);

/* Markdown for the LLM (and people), at most opts.max_chars bytes. */
void kp_feedback_text(const struct kp_feedback *fb, struct kp_buf *out);
/* The same content for machines; a new reference. */
json_t *kp_feedback_json(const struct kp_feedback *fb);
/* One finding as JSON (used by kp_feedback_json and `kernelpro diagnose`). */
json_t *kp_finding_json(const struct kp_finding *f);

/* ---- Orchestration ------------------------------------------------------------------------ */

struct kp_stage2_opts {
	enum kp_orchestration orchestration;
	int energy;                      /* energy is an objective: instruction_mix always runs */
	const struct kp_strvec *tools;   /* run exactly these ids instead of the class's; may be NULL */
	struct kp_feedback_opts feedback;
};

/*
 * Stage 2 for one kernel: selects the tools (the Stage-1 class in
 * in->stage1, or o->tools), runs them (proactive; reactive runs none), and
 * builds the feedback. `d` and `fb` are the caller's to release.
 */
int kp_stage2_run(struct kp_toolset *ts, const struct kp_tool_input *in, const struct kp_stage2_opts *o,
		  struct kp_diagnosis *d, struct kp_feedback *fb, struct kp_error *err);

/* Reactive protocol: the menu offered to the LLM ("- id: description" lines; JSON: [{name, description}]). */
void kp_toolset_menu(const struct kp_toolset *ts, struct kp_buf *out);
json_t *kp_toolset_menu_json(const struct kp_toolset *ts);

/*
 * Reactive protocol: runs tool `id` on one kernel and renders its findings
 * (text and/or JSON; either out may be NULL). A tool that lacks an input or
 * fails still yields text that says so; KP_ENOENT for an unknown id.
 */
int kp_toolset_call(struct kp_toolset *ts, const char *id, const struct kp_tool_input *in,
		    const struct kp_feedback_opts *o, struct kp_buf *text, json_t **json, struct kp_error *err);

#endif
