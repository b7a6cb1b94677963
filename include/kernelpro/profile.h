/*
 * Profiling data: what the GPU did, read from ncu (raw and details pages),
 * SASS disassembly, the ptxas resource report, and a launch trace.
 *
 * Everything here is plain data, filled by the parsers in lib/profile and read
 * (never modified) by Stage 1 (lib/analyze) and the tools (lib/tools). A
 * value that the source did not contain is *missing*, never 0.
 */
#ifndef KERNELPRO_PROFILE_H
#define KERNELPRO_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/strvec.h"

/* ---- ncu metrics ------------------------------------------------------------------------ */

/* One metric of one launch. Values are in base units (bytes, ns, cycles, %, counts). */
struct kp_metric {
	const char *name;  /* ncu metric name without section prefix: "dram__bytes_read.sum" */
	const char *unit;  /* base unit as printed by ncu ("byte", "nsecond", "%", "" ...) */
	double value;      /* valid only when !missing */
	const char *text;  /* the raw field, for non-numeric metrics (e.g. device name) */
	int missing;       /* empty, "n/a", non-numeric where a number was expected */
	const char *column; /* the CSV column as ncu named it, section prefix included */
};

/* One profiled kernel launch (one row of the raw page). */
struct kp_launch {
	int id;                 /* ncu "ID" column: launch index in the report */
	const char *kernel;     /* "Kernel Name" as ncu prints it (demangled, with parameter list) */
	const char *function;   /* the bare function name: "vec_add_naive" */
	const char *mangled;    /* mangled name when known (joined from SASS), else NULL */
	unsigned grid[3];       /* "Grid Size" */
	unsigned block[3];      /* "Block Size" */
	int device;
	int stream;
	const char *cc;         /* "9.0" */
	size_t nmetrics;
	struct kp_metric *metrics; /* sorted by name */
	int incomplete;         /* the row was cut short (truncated file): later metrics are missing */
	int line;               /* line of the row in its CSV, for messages */
};

/* A rule result from the details page (Nsight Compute's own advice). */
struct kp_ncu_rule {
	int launch_id;
	const char *section;
	const char *rule;         /* "Rule Name" */
	const char *type;         /* "OPT", "WRN", "INF" */
	const char *description;
	double est_speedup;       /* "Estimated Speedup" in %, NAN when missing */
	const char *speedup_type; /* "local" / "global" */
};

/*
 * A parsed ncu report: all launches, plus (optionally) the details page's rules.
 * All strings live in the report's own storage; release with kp_ncu_report_release().
 */
struct kp_ncu_report {
	size_t nlaunches;
	struct kp_launch *launches;
	size_t nrules;
	struct kp_ncu_rule *rules;
	int incomplete;          /* some expected metrics/rows were missing (see warnings) */
	struct kp_buf warnings;  /* one line per problem found while parsing */
	void *priv;              /* parser-owned storage */
};

#define KP_NCU_REPORT_INIT {0, NULL, 0, NULL, 0, KP_BUF_INIT, NULL}

/* Parses the raw page CSV (`--csv --page raw --print-units base`). `what` names the source in errors. */
int kp_ncu_parse_raw(struct kp_ncu_report *r, const char *what, const char *text, size_t len,
		     struct kp_error *err);
/* Adds the rule results of a details page CSV to an already parsed (or empty) report. */
int kp_ncu_parse_details(struct kp_ncu_report *r, const char *what, const char *text, size_t len,
			 struct kp_error *err);
void kp_ncu_report_release(struct kp_ncu_report *r);

/* Finds a metric by exact name; NULL when the launch has no such column. */
const struct kp_metric *kp_launch_metric(const struct kp_launch *l, const char *name);
/* 0 and *out set when present and numeric; KP_EMISSING otherwise. */
int kp_launch_get(const struct kp_launch *l, const char *name, double *out);
/* The value, or `def` when missing. */
double kp_launch_getd(const struct kp_launch *l, const char *name, double def);
/*
 * Checks that the report has each named metric column; every absent one adds
 * a warning and marks the report incomplete. Returns how many are absent.
 */
size_t kp_ncu_require(struct kp_ncu_report *r, const char *what, const char *const *names, size_t n);
/* The launch with ncu ID `id`, or NULL. */
const struct kp_launch *kp_ncu_find_launch(const struct kp_ncu_report *r, int id);
/* The GPU the report was taken on (device__attribute_display_name), or NULL when it does not say. */
const char *kp_ncu_report_device(const struct kp_ncu_report *r);

/*
 * Converts a value printed with `unit` to kernelpro's base units (ns, byte,
 * hz, byte/s, plain counts); *base_unit receives the normalized unit name
 * (thread-local storage, valid until the next call). Unknown units pass through unchanged with factor 1.
 */
double kp_ncu_unit_factor(const char *unit, const char **base_unit);

/* ---- Kernel names ------------------------------------------------------------------------- */

/*
 * The join key of a kernel: its qualified function name without template
 * arguments, parameters or return type. From a mangled Itanium name
 * ("_ZN7cutlass7Kernel2I...EEvT_" -> "cutlass::Kernel2") or from the
 * demangled form ncu prints ("void cutlass::Kernel2<...>(T1::Params)").
 * Names that are not C++ (extern "C", cuBLAS's sm90_xmma_...) are their own
 * key. Both return allocated strings the caller frees.
 */
char *kp_kernel_name_key(const char *name);
/* Only the mangled reader: NULL when `mangled` is not a name it understands. */
char *kp_demangle_qualname(const char *mangled);
/*
 * 1 when two names of one kernel (mangled or as ncu demangles it) have the same template
 * arguments, read where both are builtin types ("_Z1kIfEv..." and "void k<float>(...)"): tells
 * AT_DISPATCH's float and double instances apart. 0 when they differ or either cannot be read.
 */
int kp_kernel_template_args_equal(const char *a, const char *b);

/* ---- SASS ---------------------------------------------------------------------------------- */

/* Instruction classes counted per function (append only: persisted in run databases). */
#define KP_SASS_CLASSES(X)                                                                    \
	X(LDG_32) X(LDG_64) X(LDG_128) X(STG_32) X(STG_64) X(STG_128)                         \
	X(LDL) X(STL) X(LDS) X(STS) X(LDSM) X(LDGSTS) X(UTMALDG) X(UTMASTG)                   \
	X(HGMMA) X(HMMA) X(IMMA) X(FFMA) X(FADD) X(FMUL) X(HFMA2) X(DFMA) X(DADD) X(DMUL)     \
	X(MUFU_EX2) X(MUFU_LG2) X(MUFU_RCP) X(MUFU_RSQ) X(MUFU_SQRT) X(MUFU_SIN) X(MUFU_COS)  \
	X(MUFU_TANH) X(MUFU_OTHER) X(BAR) X(SHFL) X(ATOMG) X(ATOMS) X(RED) X(ATOM_OTHER)      \
	X(CALL_FDIV_SLOW) X(CALL_FSQRT_SLOW) X(CALL_FRCP_SLOW) X(CALL_DDIV_SLOW) X(CALL_OTHER) \
	X(F2F_F64) X(IMAD) X(IDIV_SEQ) X(BRA) X(LDC) X(LD_GENERIC) X(ST_GENERIC) X(LDG_OTHER) X(STG_OTHER) \
	X(IGMMA) X(QGMMA) X(DMMA) X(HADD2) X(HMUL2) X(UBLKCP) X(UTMAREDG)

#define KP__SASS_ENUM(n) KP_SASS_##n,
enum kp_sass_class { KP_SASS_CLASSES(KP__SASS_ENUM) KP_SASS_NCLASSES };
#undef KP__SASS_ENUM

const char *kp_sass_class_name(enum kp_sass_class c); /* "LDG_128" */

struct kp_sass_opcount {
	const char *opcode; /* full opcode with modifiers: "LDG.E.128.CONSTANT" */
	unsigned count;
	double executed;    /* warp-level executions (ncu source page only; 0 otherwise) */
};

/* Static instruction counts of one function (not dynamic execution counts). */
struct kp_sass_func {
	const char *mangled;   /* "_Z13vec_add_naivePKfS0_Pfi" */
	const char *demangled; /* "vec_add_naive(const float *, const float *, float *, int)" when known */
	const char *arch;      /* "sm_90" */
	unsigned ninstr;
	unsigned counts[KP_SASS_NCLASSES];
	size_t nops;
	struct kp_sass_opcount *ops; /* every distinct opcode+modifiers, sorted by opcode */
	const char *key;       /* join key (kp_kernel_name_key): "vec_add_naive", "cutlass::Kernel2" */
	unsigned nnop;         /* NOPs (padding), not counted in ninstr */
	int complete;          /* the dump showed the function's end (cuobjdump's "....." line) */
	/* Dynamic counts, when the source was ncu's source page (--page source --print-source sass). */
	int has_executed;
	double executed_total;                    /* warp-level instructions executed */
	double executed[KP_SASS_NCLASSES];        /* per class */
};

struct kp_sass {
	size_t nfuncs;
	struct kp_sass_func *funcs;
	int unknown_arch;        /* an architecture we have no opcode table for: counts are partial */
	struct kp_buf warnings;
	void *priv;
	int incomplete;          /* unreadable lines or a cut-off function (see warnings) */
	const char *format;      /* "cuobjdump", "nvdisasm" or "ncu-source" */
};

#define KP_SASS_INIT {0, NULL, 0, KP_BUF_INIT, NULL, 0, NULL}

/*
 * Parses `cuobjdump -sass` or `nvdisasm` output, or ncu's source page
 * (`ncu --csv --page source --print-source sass`, which also gives executed
 * counts and covers library kernels such as cuBLAS). The format is detected.
 */
int kp_sass_parse(struct kp_sass *s, const char *what, const char *text, size_t len, struct kp_error *err);
void kp_sass_release(struct kp_sass *s);
/*
 * Finds the function whose mangled or demangled name matches, else the one
 * whose join key (kp_kernel_name_key) matches; NULL when none or when the key
 * is ambiguous (several template instances).
 */
const struct kp_sass_func *kp_sass_find(const struct kp_sass *s, const char *name);
/* The function of one ncu launch: by mangled name, demangled name, then key (preferring the launch's arch). */
const struct kp_sass_func *kp_sass_find_launch(const struct kp_sass *s, const struct kp_launch *l);
/* Classifies one instruction ("LDG.E.128", operands) the way the parser counts it; -1 when uncounted. */
int kp_sass_classify(const char *opcode, const char *operands);
/* 1 for architectures whose opcode spelling the classifier knows (sm_70 ... sm_121). */
int kp_sass_arch_known(const char *arch);

/* ---- ptxas -v ------------------------------------------------------------------------------ */

/* One function's resource report. -1 means ptxas did not print that figure. */
struct kp_ptxas_func {
	const char *mangled;
	const char *arch;
	int registers;
	int barriers;           /* -1 before CUDA 12.x printed "used N barriers" */
	long smem_bytes;        /* static shared memory (ptxas omits it when 0: then 0) */
	long cmem_bytes;        /* constant bank 0 (CUDA 13 no longer prints it: -1) */
	long stack_frame;       /* bytes */
	long spill_stores;      /* bytes */
	long spill_loads;       /* bytes */
	long cumulative_stack;  /* bytes, -1 when not printed */
	int entry;              /* a __global__ kernel ("Compiling entry function"), not a device function */
	const char *key;        /* join key (kp_kernel_name_key) */
};

struct kp_ptxas {
	size_t nfuncs;
	struct kp_ptxas_func *funcs;
	struct kp_buf warnings;
	void *priv;
	int incomplete;         /* a function's report was cut short (see warnings) */
};

#define KP_PTXAS_INIT {0, NULL, KP_BUF_INIT, NULL, 0}

/* Parses `nvcc -Xptxas -v` (or `ptxas -v`) output, CUDA 11 to 13 spellings; other lines are ignored. */
int kp_ptxas_parse(struct kp_ptxas *p, const char *what, const char *text, size_t len, struct kp_error *err);
void kp_ptxas_release(struct kp_ptxas *p);
/* By mangled name, else by join key when unique. */
const struct kp_ptxas_func *kp_ptxas_find(const struct kp_ptxas *p, const char *name);
/* The entry function of one ncu launch (mangled name, then key; prefers the launch's arch). */
const struct kp_ptxas_func *kp_ptxas_find_launch(const struct kp_ptxas *p, const struct kp_launch *l);

/* ---- Launch trace (CUPTI tracer JSON, or nsys stats CSV) ------------------------------------ */

enum kp_trace_kind { KP_TRACE_KERNEL = 0, KP_TRACE_MEMCPY, KP_TRACE_MEMSET, KP_TRACE_SYNC, KP_TRACE_API };

struct kp_trace_event {
	enum kp_trace_kind kind;
	const char *name;   /* kernel name, API function name, memcpy direction */
	uint64_t start_ns, end_ns;
	uint64_t bytes;     /* memcpy/memset */
	unsigned grid[3], block[3];
	int stream;
	uint32_t correlation;
	uint64_t count;     /* launches/calls this event stands for: 1 on a timeline, N in an nsys summary row */
};

struct kp_trace {
	size_t nevents;
	struct kp_trace_event *events; /* sorted by start time */
	/* Summaries filled by the parser. */
	size_t nkernels;
	uint64_t kernel_ns;    /* sum of kernel durations */
	uint64_t span_ns;      /* first start to last end */
	uint64_t gap_ns;       /* idle GPU time between consecutive kernels */
	size_t nsyncs;
	size_t nmemcpys;
	struct kp_buf warnings;
	void *priv;
	int timeline;          /* events carry real timestamps (tracer JSON); 0 for nsys summaries: no span/gaps */
	size_t napi;           /* runtime API calls */
	uint64_t api_launch_ns; /* time in cudaLaunchKernel-like calls (host side) */
	size_t ndropped;       /* records the tracer reported lost */
};

#define KP_TRACE_INIT {0, NULL, 0, 0, 0, 0, 0, 0, KP_BUF_INIT, NULL, 0, 0, 0, 0}

/* Parses the JSON written by kernelpro's CUPTI tracer (harness/tracer; format in docs/trace.md). */
int kp_trace_parse_json(struct kp_trace *t, const char *what, const char *text, size_t len, struct kp_error *err);
/* Parses `nsys stats --format csv` output of cuda_gpu_kern_sum (and cuda_api_sum when present). */
int kp_trace_parse_nsys_csv(struct kp_trace *t, const char *what, const char *text, size_t len,
			    struct kp_error *err);
void kp_trace_release(struct kp_trace *t);
const char *kp_trace_kind_name(enum kp_trace_kind k); /* "kernel", "memcpy", "memset", "sync", "api" */

/* ---- Triton's cache metadata (lib/profile/triton.c) ------------------------------------------- */

/* One compiled Triton kernel as its cache's <kernel>.json describes it. -1: not recorded. */
struct kp_triton_kernel {
	char name[128];          /* the kernel's symbol: the @triton.jit function's name */
	long num_warps;          /* warps per program (block = 32 * num_warps threads) */
	long num_stages;         /* software-pipelining stages of its loops */
	long num_ctas;           /* CTAs per cluster */
	long shared;             /* bytes of shared memory per program */
	long maxnreg;            /* register cap per thread, -1: none */
	char dot_precision[16];  /* default_dot_input_precision: "ieee", "tf32" */
	char arch[16];           /* "sm90" */
};

struct kp_triton_meta {
	struct kp_triton_kernel *kernels;
	size_t n, alloc;
};

/* Parses one metadata JSON of Triton's cache (name, num_warps and shared are required). */
int kp_triton_meta_parse(struct kp_triton_kernel *k, const char *what, const char *text, size_t len,
			 struct kp_error *err);
/* Parses a profile directory's triton.json ({"kernels": [...]}, what kp_triton_collect writes). */
int kp_triton_meta_load(struct kp_triton_meta *m, const char *what, const char *text, size_t len,
			struct kp_error *err);
void kp_triton_meta_release(struct kp_triton_meta *m);
/* The kernel of an ncu launch: its function name, and num_warps * 32 = its block size when several match. */
const struct kp_triton_kernel *kp_triton_meta_find_launch(const struct kp_triton_meta *m, const struct kp_launch *l);
/*
 * Reads every kernel's metadata in a Triton cache directory (one subdirectory per compiled kernel)
 * into OUT_DIR/triton.json and, with `cuobjdump` (its path; NULL: no SASS), the SASS of their cubins
 * into OUT_DIR/triton_sass.txt. *nkernels: how many were found (0: no Triton kernel, no file written).
 */
int kp_triton_collect(const char *cache_dir, const char *out_dir, const char *cuobjdump, size_t *nkernels,
		      struct kp_error *err);
/* One line for people and the LLM: "Triton kernel k: num_warps 4 (128 threads per program), ...". */
void kp_triton_describe(const struct kp_triton_kernel *k, struct kp_buf *out);

/* ---- One kernel's complete profile, as the tools see it -------------------------------------- */

/*
 * The read-only view Stage 1 and the tools get for one launch. Any pointer
 * may be NULL when that source was not collected (e.g. no SASS).
 */
struct kp_kernel_profile {
	const struct kp_launch *launch;
	const struct kp_sass_func *sass;
	const struct kp_ptxas_func *ptxas;
	const struct kp_trace *trace;
	const struct kp_triton_kernel *triton; /* a Triton kernel's cache metadata; NULL for CUDA kernels */
};

/* ---- Everything from one profiling session, joined per launch ---------------------------------- */

/* Paths of the saved outputs; NULL for a source that was not collected. */
struct kp_profile_files {
	const char *ncu_csv;     /* raw page (required, unless a trace alone is given: timing only) */
	const char *ncu_details; /* details page: Nsight Compute's rule results */
	const char *sass;        /* cuobjdump -sass, nvdisasm, or ncu's source page */
	const char *ptxas;       /* -Xptxas -v output */
	const char *trace;       /* kernelpro tracer JSON or nsys stats CSV */
	const char *triton;      /* triton.json: Triton's metadata of the kernels (kp_triton_collect) */
};

struct kp_profile_set {
	struct kp_ncu_report ncu;
	struct kp_sass sass;
	struct kp_ptxas ptxas;
	struct kp_trace trace;
	struct kp_triton_meta triton;
	int have_sass, have_ptxas, have_trace;
	size_t nkernels;
	struct kp_kernel_profile *kernels; /* one per ncu launch, in report order, sources joined by name */
};

#define KP_PROFILE_MAX_FILE (1u << 30) /* the largest input file read */
/*
 * The memory (MiB) one parse of a profile file may take, its copy of the text included; the
 * environment variable KERNELPRO_PROFILE_MEM_MB overrides it. Every parser above refuses a file
 * that needs more with KP_ETOOBIG and a message naming the cap and how to raise it.
 */
#define KP_PROFILE_MEM_MB 2048

/*
 * Reads and parses every given file and joins SASS/ptxas functions to the
 * ncu launches. A parse error fails the whole load (naming the file); what
 * parses but is partial is marked incomplete in its part. Without an ncu CSV
 * a trace alone loads (no kernels: timing only). Initialise with memset 0;
 * release with kp_profile_set_release() whatever the result.
 */
int kp_profile_set_load(struct kp_profile_set *ps, const struct kp_profile_files *f, struct kp_error *err);
void kp_profile_set_release(struct kp_profile_set *ps);

/*
 * The files of a profile directory (what `kernelpro profile` and the optimize harness write:
 * ncu_raw.csv, ncu_details.csv, sass.csv or sass.txt, ptxas.txt, trace.json), those that exist;
 * the others stay NULL. Strings are allocated in sv, which must outlive f.
 */
void kp_profile_dir_files(const char *dir, struct kp_profile_files *f, struct kp_strvec *sv);
/*
 * The GPU a profile directory written by `kernelpro profile` was taken on: its profile.json's
 * "device", else NULL (no file, unreadable, or no name). The string is allocated in sv.
 */
const char *kp_profile_dir_device(const char *dir, struct kp_strvec *sv);

/* The launch that took longest (gpu__time_duration.sum): the kernel feedback is about. NULL: none. */
const struct kp_kernel_profile *kp_profile_set_longest(const struct kp_profile_set *ps);

/* ---- Running ncu ---------------------------------------------------------------------------------- */

/*
 * One ncu collection. Inputs are set by the caller; kp_ncu_run() fills the
 * result paths. The command line is always `--clock-control none --csv
 * --page raw --print-units base` under LC_ALL=C, with ncu's own log file in
 * out_dir. Errors distinguish a missing ncu (KP_ENOTOOL), no counter access
 * (KP_EPERM, ERR_NVGPUCTRPERM), a failing program (KP_ECHILD), nothing
 * profiled (KP_EMISSING) and the time limit (KP_ETIMEOUT), so the caller can
 * go on with timing only; and a run stopped from outside (KP_ECANCELED: a
 * canceled child, or ncu ended by SIGINT, SIGTERM or SIGHUP), after which it
 * should not.
 */
struct kp_ncu_run {
	const char *ncu;              /* path or name of ncu; NULL: the CUDA toolkit's (kp_cuda_tool) */
	const char *const *argv;      /* the program and its arguments (NULL-terminated) */
	const char *const *env;       /* extra NAME=value for the program, NULL-terminated; may be NULL */
	const char *const *metrics;   /* exactly these (--metrics), NULL-terminated; may be NULL */
	const char *const *sections;  /* --section identifiers (metrics that exist only in a section) */
	const char *set;              /* --set NAME ("full"); NULL: none */
	const char *kernel;           /* -k filter: a function name or "regex:..."; NULL: all */
	long launch_skip;             /* -s: skip this many matching launches */
	long launch_count;            /* -c: profile at most this many; 0: all */
	const char *out_dir;          /* created if needed: ncu.log, ncu_raw.csv, program.log, ... */
	long timeout_ms;              /* for the profiled run; <= 0: none */
	int details;                  /* also export the details page (rule results) */
	int source_sass;              /* also export the source page: SASS with executed counts */
	int keep_report;              /* keep out_dir/report.ncu-rep */
	const char *nvtx_include;     /* --nvtx --nvtx-include X: only launches in this NVTX range; NULL: all */
	const void *stdin_data;       /* written to the program's stdin (e.g. a harness's config); NULL: none */
	size_t stdin_len;

	/* Results (paths inside out_dir, empty when not produced). */
	char raw_csv[1024], details_csv[1024], sass_csv[1024], log[1024], report[1024];
	double elapsed_s;             /* wall time of the profiled run */
	char warning[512];            /* an optional page (details, source) that could not be exported */
};

/* Runs the program under ncu; see struct kp_ncu_run. */
int kp_ncu_run(struct kp_ncu_run *r, struct kp_error *err);
/*
 * A held collection: ncu and its program started now, the program's stdin held open until
 * kp_ncu_held_finish() gives it the input, so that what a program does before it reads its input
 * (Python importing PyTorch: 3-5 s on the H200) overlaps other work instead of the profile's own
 * time. The program must read its input before it touches the GPU (then a held run only waits; it
 * holds no GPU memory and no counters). kp_ncu_hold() takes r's inputs but for the input itself
 * (stdin_data), the time limit (counted from the finish) and out_dir, which here is a directory of
 * the held run's own, removed when it is freed. kp_ncu_held_matches() says whether a request would
 * run the very same command (ncu, its options, the program, its environment); then
 * kp_ncu_held_finish() gives r->stdin_data, waits within r->timeout_ms, moves ncu's files into
 * r->out_dir and returns exactly what kp_ncu_run(r) would (r->elapsed_s counts from the input). It
 * frees the held run; so does kp_ncu_held_free(), which stops a run never finished.
 */
struct kp_ncu_held;
int kp_ncu_hold(const struct kp_ncu_run *r, struct kp_ncu_held **out, struct kp_error *err);
int kp_ncu_held_matches(const struct kp_ncu_held *h, const struct kp_ncu_run *r);
int kp_ncu_held_finish(struct kp_ncu_held *h, struct kp_ncu_run *r, struct kp_error *err);
void kp_ncu_held_free(struct kp_ncu_held *h);

/* Exports one page ("raw", "details", "source") of a saved .ncu-rep to `out_path`. */
int kp_ncu_import(const char *ncu, const char *report, const char *page, const char *out_path, long timeout_ms,
		  struct kp_error *err);

#endif
