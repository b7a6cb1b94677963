/*
 * Micro-profiling tools (Stage 2): each tool reads a few counters of one
 * kernel and turns them into findings a person could act on.
 *
 * A tool is the 5-tuple {name, metrics, thresholds, trigger, analyze} plus a
 * one-line description and the sources it reads. Built-in tools are C (one
 * lib/tools/tool_<id>.c each, listed in one registry table); user tools are
 * Lua files with the same fields (docs/tools.md). A kp_toolset holds both,
 * with the threshold values in effect, and runs them.
 *
 * Lifecycle: kp_toolset_open() .. kp_toolset_run() .. kp_toolset_free().
 * A toolset is not thread-safe (user tools keep Lua states); use one per thread.
 */
#ifndef KERNELPRO_TOOLS_H
#define KERNELPRO_TOOLS_H

#include <stddef.h>

#include "kernelpro/analyze.h"
#include "kernelpro/error.h"
#include "kernelpro/hw.h"
#include "kernelpro/profile.h"
#include "kernelpro/strvec.h"

/* ---- Findings ----------------------------------------------------------------------------- */

/* KP_SEV_NONE is only an input: "derive it from the estimated gain" (kp_finding_severity_for_gain). */
enum kp_finding_severity { KP_SEV_NONE = 0, KP_SEV_LOW, KP_SEV_MEDIUM, KP_SEV_HIGH, KP_SEV_CRITICAL };

const char *kp_finding_severity_name(enum kp_finding_severity s); /* "low" ... "critical" ("none") */
/* 0 and *out set for "low|medium|high|critical"; KP_EINVAL otherwise. */
int kp_finding_severity_parse(const char *s, enum kp_finding_severity *out);

/*
 * The severity an estimated gain earns (a fraction of the kernel's time):
 * critical >= KP_GAIN_CRITICAL, high >= KP_GAIN_HIGH, medium >= KP_GAIN_MEDIUM,
 * low below; medium when the gain is unknown (NAN).
 */
#define KP_GAIN_CRITICAL 0.60
#define KP_GAIN_HIGH 0.40
#define KP_GAIN_MEDIUM 0.15
enum kp_finding_severity kp_finding_severity_for_gain(double gain);

/* One measured fact behind a finding. */
struct kp_evidence {
	char *metric;     /* ncu metric name, or a derived quantity ("bytes used per sector") */
	double value;
	double threshold; /* the value the tool compared against; NAN when none */
	char *unit;       /* "%", "B", "" ... */
};

struct kp_finding {
	char *tool;                /* id of the tool that produced it (set by the engine) */
	enum kp_finding_severity severity;
	char *title;               /* one line: what is wrong */
	char *cause;               /* the root cause, one or two sentences */
	struct kp_evidence *evidence;
	size_t nevidence, evidence_alloc;
	struct kp_strvec recs;     /* concrete code changes, most useful first */
	double gain;               /* estimated fraction of the kernel's time saved, 0..1; NAN: unknown */
	char *gain_basis;          /* how the gain was estimated (one phrase); NULL when unknown */
	struct kp_strvec explained_by; /* tool ids ("*": any) whose finding, when present, explains this one */
	struct kp_strvec also;     /* tools whose findings were folded into this one (feedback synthesis) */
};

struct kp_findings {
	struct kp_finding *v;
	size_t n, alloc;
};

#define KP_FINDINGS_INIT {NULL, 0, 0}

void kp_findings_release(struct kp_findings *fs);
void kp_finding_release(struct kp_finding *f);
/* Deep copy of `src` appended to `fs`; returns the copy. */
struct kp_finding *kp_findings_push_copy(struct kp_findings *fs, const struct kp_finding *src);

/* Building findings (tools and the Lua bridge). Every string is copied. */
struct kp_finding *kp_finding_new(struct kp_findings *fs, enum kp_finding_severity sev, const char *title_fmt, ...)
	__attribute__((format(printf, 3, 4)));
void kp_finding_cause(struct kp_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kp_finding_evidence(struct kp_finding *f, const char *metric, double value, double threshold,
			 const char *unit);
void kp_finding_rec(struct kp_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets the estimated gain (clamped to 0..0.99) and how it was estimated. */
void kp_finding_gain(struct kp_finding *f, double gain, const char *basis_fmt, ...)
	__attribute__((format(printf, 3, 4)));
void kp_finding_explained_by(struct kp_finding *f, const char *tool);

/* ---- What a tool reads ---------------------------------------------------------------------- */

enum kp_tool_source {
	KP_SRC_NCU = 1 << 0,   /* ncu metrics of the launch */
	KP_SRC_SASS = 1 << 1,  /* static SASS instruction counts */
	KP_SRC_PTXAS = 1 << 2, /* ptxas -v resources */
	KP_SRC_TRACE = 1 << 3, /* launch trace of the whole program */
};

/* "ncu+sass+ptxas" into buf; returns buf. */
const char *kp_tool_sources_str(unsigned sources, char *buf, size_t n);
/* Parses "ncu", "sass", "ptxas", "trace"; 0 when unknown. */
unsigned kp_tool_source_parse(const char *s);

#define KP_TM_OPTIONAL 1u /* the tool runs without it (reads it when present) */
#define KP_TM_SOURCE 2u   /* source-level: only ncu's SourceCounters section collects it, not --metrics */

/* One ncu metric a tool reads. Without a KP_TM_OPTIONAL flag the tool cannot run without it. */
struct kp_tool_metric {
	const char *name;
	unsigned flags;
};

/* A named, documented, overridable threshold. */
struct kp_threshold {
	const char *name; /* "min_bytes_per_sector" */
	double def;
	const char *unit; /* "%", "B", "" */
	const char *doc;  /* one line: what crossing it means */
};

struct kp_tool_info;

/*
 * The read-only view a tool gets of one kernel. Any pointer may be NULL
 * (the source was not collected); `profile` itself is never NULL.
 */
/*
 * The shape of a kernel's FP32 and FP16 work from its SASS (lib/tools/sass_shape.c): the hot inner
 * loop (the innermost backward branch with the most FFMAs/HFMA2s, executed counts deciding when the SASS
 * came from ncu's source page; the whole function when nothing loops) and what its FFMAs do.
 * A dot product (`acc += a[i] * b[j]`) multiplies two values loaded in the loop by different
 * loads and adds a running sum; a recurrence or polynomial multiplies the running value, a
 * stencil multiplies a constant.
 */
struct kp_sass_shape {
	int found;               /* the function was in the SASS text */
	int in_loop;             /* the region is a loop (else straight-line code: the whole function) */
	unsigned nloops;         /* backward branches in the function */
	unsigned ninstr;
	unsigned long begin, end;/* the region's first and last instruction addresses */
	unsigned ffma;           /* FFMAs and HFMA2s in the region (the FMAs of a product on the CUDA cores) */
	unsigned hfma2;          /* of which HFMA2 (two FP16 lanes each) */
	unsigned accumulating;   /* of which add the result of an earlier FMA (a running sum) */
	unsigned dot_ffma;       /* of which multiply two values from two different loads of the loop */
	unsigned widened;        /* of those, how many read a 16-bit load widened to FP32 (HADD2.F32, bf16 shifts) */
	unsigned loads;          /* load instructions in the region */
	unsigned ldg, lds;       /* of which from global memory, from shared memory (LDS, LDSM) */
	double reuse;            /* FFMAs each loaded multiplicand feeds, on average (register tiling) */
};

/*
 * Reads the SASS of `function` (the name as the dump spells it: mangled for cuobjdump and
 * nvdisasm, ncu's "Kernel Name" for its source page) from `text` and describes its hot loop.
 * Returns 1 when the function was found, 0 otherwise (*s zeroed). Never fails on odd input.
 */
int kp_sass_shape_read(struct kp_sass_shape *s, const char *text, size_t len, const char *function);
/* 1 when at least half the region's FFMAs are dot-product FFMAs: the work is a product's. */
int kp_sass_shape_is_product(const struct kp_sass_shape *s);

struct kp_tool_input {
	const struct kp_kernel_profile *profile;
	const struct kp_stage1 *stage1;
	const struct kp_hw *hw;
	int energy;                     /* energy is an objective of this run */
	const struct kp_tool_info *tool;/* set by the engine: the tool being run */
	const struct kp_sass_shape *shape; /* the SASS loop shape when the SASS text was read; else NULL */
};

/*
 * A built-in tool. trigger() returns 1 (fires), 0 (silent) or KP_EMISSING
 * (cannot decide: an input is missing); analyze() appends findings to `out`
 * and returns 0 or a negative code. `t` holds the thresholds in effect, in the
 * order of `thresholds`.
 */
struct kp_tool {
	const char *name;
	const char *description; /* one line */
	const char *details;     /* what it looks for and why, for `kernelpro tools show` */
	unsigned sources;        /* KP_SRC_* it reads */
	unsigned needs;          /* KP_SRC_* it cannot run without */
	const struct kp_tool_metric *metrics;  /* ends with {NULL, 0} */
	const struct kp_threshold *thresholds; /* ends with {NULL, ...} */
	int (*trigger)(const struct kp_tool_input *m, const double *t);
	int (*analyze)(const struct kp_tool_input *m, const double *t, struct kp_findings *out);
};

/*
 * Reading a metric inside a tool: 0 and *out set when the launch has it as a
 * number; KP_EMISSING otherwise. A built-in reading a metric it did not
 * declare is a bug (aborts); a Lua tool gets an error.
 */
int kp_tool_metric_get(const struct kp_tool_input *m, const char *name, double *out);
/* The value, or NAN when missing. */
double kp_tool_metric(const struct kp_tool_input *m, const char *name);

/* The built-in tools, in registry order. */
size_t kp_builtin_tool_count(void);
const struct kp_tool *kp_builtin_tool_at(size_t i);
const struct kp_tool *kp_builtin_tool_find(const char *name);

/* ---- Toolsets: built-ins + user tools + thresholds in effect ----------------------------------- */

struct kp_toolset_opts {
	const char *const *dirs;      /* --tools-dir values (NULL-terminated), searched first; may be NULL */
	int use_env;                  /* also search $KERNELPRO_TOOLS_PATH (':'-separated) */
	const char *config_path;      /* threshold file ("tool.threshold = value" lines) or NULL */
	const char *const *overrides; /* "tool.threshold=value" (NULL-terminated), applied last; may be NULL */
	long lua_instr_limit;         /* VM instructions (and library steps) per user-tool call; 0: KP_LUA_INSTR_LIMIT */
	size_t lua_mem_limit;         /* bytes per user tool; 0: KP_LUA_MEM_LIMIT */
	long lua_time_limit_ms;       /* wall time per user-tool call (loading included); 0: KP_LUA_TIME_LIMIT_MS */
	double min_gain;              /* findings estimated to save less are dropped; 0: KP_MIN_GAIN, < 0: keep all */
};

/* A finding whose estimated gain is known and below this (2% of the kernel's time) is not reported. */
#define KP_MIN_GAIN 0.02

#define KP_LUA_INSTR_LIMIT 10000000L
#define KP_LUA_MEM_LIMIT ((size_t)64 << 20)
#define KP_LUA_TIME_LIMIT_MS 1000L

/* Stage-1 classes as a bit set, for tool selection. */
#define KP_CLASS_BIT(b) (1u << (unsigned)(b))
#define KP_CLASS_ALL 0x1fu

/* What `kernelpro tools list/show` and the reactive protocol show of one tool. */
struct kp_tool_info {
	const char *name;
	const char *description;
	const char *details;
	unsigned sources, needs;
	const struct kp_tool_metric *metrics;
	size_t nmetrics;
	const struct kp_threshold *thresholds;
	size_t nthresholds;
	const double *values;     /* the threshold values in effect */
	unsigned classes;         /* KP_CLASS_BIT(kp_bound) set: classes that select it proactively */
	const char *origin;       /* NULL for a built-in, else the Lua file */
	int replaces_builtin;     /* a user tool with a built-in's name */
	const struct kp_tool *builtin; /* NULL for a user tool */
};

struct kp_toolset;

/*
 * Builds a toolset: the built-ins, then the user tools found in the
 * directories (first match of a name wins; one with a built-in's name
 * replaces it), then the thresholds from the config file and the overrides.
 * A user tool that fails to load is left out and recorded in
 * kp_toolset_problems() ("file:line: message"); a wrong threshold
 * override, an unreadable config file or a missing --tools-dir fail here.
 */
int kp_toolset_open(struct kp_toolset **out, const struct kp_toolset_opts *o, struct kp_error *err);
void kp_toolset_free(struct kp_toolset *ts);

const struct kp_strvec *kp_toolset_problems(const struct kp_toolset *ts);
size_t kp_toolset_count(const struct kp_toolset *ts);
const struct kp_tool_info *kp_toolset_at(const struct kp_toolset *ts, size_t i);
const struct kp_tool_info *kp_toolset_find(const struct kp_toolset *ts, const char *name);

/* Sets one threshold ("tool.threshold", value); KP_ENOENT naming the valid names when unknown. */
int kp_toolset_set_threshold(struct kp_toolset *ts, const char *key, double value, struct kp_error *err);
/* Applies "tool.threshold=value". */
int kp_toolset_override(struct kp_toolset *ts, const char *assignment, struct kp_error *err);
/* Applies a config text: "tool.threshold = value" lines, '#' comments; `what` names it in errors. */
int kp_toolset_load_config(struct kp_toolset *ts, const char *what, const char *text, size_t len,
			   struct kp_error *err);

/*
 * Proactive selection: the tools the Stage-1 class selects (docs/internals/tools.md),
 * in registry order: sol_gap always, instruction_mix too when energy is an
 * objective, every tool for "mixed" and "unknown". Appends ids to `ids`.
 */
void kp_toolset_select(const struct kp_toolset *ts, enum kp_bound cls, int energy, struct kp_strvec *ids);

/*
 * The ncu metrics the named tools read, sorted and unique: exactly what the
 * profiler should collect for them. KP_ENOENT for an unknown id. `sources`
 * (may be NULL) receives the union of the KP_SRC_* they read.
 */
int kp_toolset_metrics(const struct kp_toolset *ts, const struct kp_strvec *ids, struct kp_strvec *out,
		       unsigned *sources, struct kp_error *err);
/* The same for what a class selects. */
void kp_toolset_metrics_for_class(const struct kp_toolset *ts, enum kp_bound cls, int energy,
				  struct kp_strvec *out, unsigned *sources);
/*
 * What an ncu run must ask for to give the named tools their metrics: names
 * for --metrics (sorted, unique), and the --section identifiers of the
 * source-level ones (KP_TM_SOURCE). KP_ENOENT for an unknown id.
 */
int kp_toolset_collection(const struct kp_toolset *ts, const struct kp_strvec *ids, struct kp_strvec *metrics,
			  struct kp_strvec *sections, struct kp_error *err);

/* ---- Running ------------------------------------------------------------------------------ */

enum kp_tool_status {
	KP_TOOL_SILENT = 0, /* ran, nothing to report */
	KP_TOOL_FIRED,      /* ran, produced findings */
	KP_TOOL_MISSING,    /* an input it needs is missing (message says which) */
	KP_TOOL_FAILED,     /* the tool itself failed (message: file:line and traceback for Lua) */
};

const char *kp_tool_status_name(enum kp_tool_status s); /* "silent", "fired", "missing", "failed" */

struct kp_tool_result {
	char *tool;
	enum kp_tool_status status;
	char *message; /* NULL when silent or fired */
	size_t nfindings;
	size_t ndropped; /* findings below the toolset's min_gain, not reported */
	double elapsed_s;
};

/* The outcome of running tools on one kernel. */
struct kp_diagnosis {
	struct kp_findings findings; /* every finding, in run order, severity resolved */
	struct kp_tool_result *results;
	size_t nresults, results_alloc;
	size_t ndropped;             /* findings below min_gain, over all tools */
	double elapsed_s;
};

#define KP_DIAGNOSIS_INIT {KP_FINDINGS_INIT, NULL, 0, 0, 0, 0.0}

void kp_diagnosis_release(struct kp_diagnosis *d);

/*
 * Runs each named tool on one kernel, appending to `d`. A tool that lacks an
 * input or fails is recorded in d->results and the others still run. Returns
 * 0, or KP_ENOENT (nothing run) when an id is unknown.
 */
int kp_toolset_run(struct kp_toolset *ts, const struct kp_strvec *ids, const struct kp_tool_input *in,
		   struct kp_diagnosis *d, struct kp_error *err);
/* Runs one tool by name (the reactive protocol), appending to `d`. */
int kp_toolset_run_one(struct kp_toolset *ts, const char *id, const struct kp_tool_input *in,
		       struct kp_diagnosis *d, struct kp_error *err);

#endif
