/*
 * Energy: per-launch energy measured with NVML's total-energy counter, a deterministic proxy
 * computed from profiler counters, the proxy's calibration against measurements, and the
 * energy paragraph of the feedback. docs/energy.md explains the method; docs/internals/energy.md
 * the code.
 */
#ifndef KERNELPRO_ENERGY_H
#define KERNELPRO_ENERGY_H

#include <jansson.h>
#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/profile.h"
#include "kernelpro/strvec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Measurement ============================================================================ */

/* One reading of the GPU's sensors. What a source cannot tell is NAN. */
struct kp_energy_reading {
	double t;             /* seconds on the meter's monotonic clock */
	double energy_j;      /* the total-energy counter, J (NVML counts mJ since the driver loaded) */
	double power_w;       /* board power as the driver reports it (NVML: a 1 s average on Hopper) */
	double sm_clock_mhz;
	double mem_clock_mhz;
	double temp_c;
};

/*
 * Where readings come from: NVML on a GPU machine (kp_energy_nvml_meter), a simulation in the
 * tests. `read` fills the reading (t included); `now` is the same clock; `sleep` waits.
 */
struct kp_energy_meter {
	void *ud;
	int (*read)(void *ud, struct kp_energy_reading *r, struct kp_error *err);
	double (*now)(void *ud);
	void (*sleep)(void *ud, double seconds);
	char device[128];     /* "NVIDIA H200" when known */
	double power_limit_w; /* NAN when unknown */
};

/*
 * What is measured. `run` enqueues `launches` back-to-back launches of the kernel, waits until
 * they are done, and sets *gpu_seconds to their GPU time from events (NAN when it cannot tell).
 */
struct kp_energy_workload {
	const char *name;    /* "candidate", "builtin:fma" ... (copied into the measurement) */
	void *ud;
	int (*run)(void *ud, long launches, double *gpu_seconds, struct kp_error *err);
};

struct kp_energy_opts {
	double window_s;     /* shortest window (default 1.0 s: the counter ticks every 20-100 ms) */
	int windows;         /* windows measured; the result is their median (default 5) */
	long launches;       /* > 0: exactly this many launches per window, whatever the time */
	double idle_s;       /* idle measurement before the windows (default 1.0); 0: use idle_power_w */
	double idle_power_w; /* the idle power to subtract when idle_s is 0; NAN: no subtraction */
	double settle_s;     /* pause before the idle measurement (default 0.3) */
	double warmup_s;     /* launches before the first window, to reach steady clocks (default 0.3) */
	double cooldown_s;   /* pause between windows (default 0) */
	int align;           /* start and end each window on a counter tick (default 1) */
};

void kp_energy_opts_default(struct kp_energy_opts *o);

/* One window of back-to-back launches. */
struct kp_energy_window {
	long launches;
	double seconds;      /* wall time from the first launch to the end of the last */
	double gpu_seconds;  /* event time of the launches, NAN when unknown */
	double energy_j;     /* counter difference over the window, tail corrected */
	double tail_s;       /* wait after the work until the counter ticked (its energy is removed) */
	double time_s;       /* per launch: gpu_seconds (or seconds) / launches */
	double energy_per_launch_j;
	double dynamic_per_launch_j; /* minus idle power x window time; NAN without an idle figure */
	double power_w;      /* energy_j / seconds */
	double sm_clock_mhz, mem_clock_mhz; /* read at the end of the window */
	double temp_start_c, temp_end_c;
};

#define KP_ENERGY_MAX_WINDOWS 32

struct kp_energy_measurement {
	char name[96];         /* the workload's name */
	char device[128];
	double power_limit_w;
	double idle_power_w;   /* NAN when not measured and not given */
	double idle_s;         /* how long idle was measured (0: given) */
	int nwindows;
	struct kp_energy_window w[KP_ENERGY_MAX_WINDOWS];
	/* Medians over the windows (per launch unless said otherwise). */
	double time_s;
	double energy_j;       /* total energy per launch */
	double dynamic_j;      /* energy above idle per launch; NAN without idle */
	double power_w;        /* average board power while the kernel ran */
	double energy_spread;  /* (max - min) / median of energy per launch over the windows */
	double sm_clock_mhz, mem_clock_mhz;
	double temp_max_c;
	char notes[256];       /* anything the reader should know ("counter did not tick ...") */
};

/*
 * Runs the protocol: settle, idle power, warm-up, then `windows` windows of at least window_s
 * (or exactly `launches` launches), each bracketed by counter reads aligned to counter ticks.
 * Returns 0 with `out` filled, or the first error of the meter or the workload.
 */
int kp_energy_measure(const struct kp_energy_meter *m, const struct kp_energy_workload *w,
		      const struct kp_energy_opts *o, struct kp_energy_measurement *out, struct kp_error *err);

/*
 * The same for several workloads compared with each other (an A/B at matched speed): one idle
 * measurement, each warmed up, then their windows interleaved (A B A B ...) so that drift in
 * temperature and clocks falls on all of them alike. out[i] belongs to w[i].
 */
int kp_energy_measure_many(const struct kp_energy_meter *m, const struct kp_energy_workload *w, size_t nw,
			   const struct kp_energy_opts *o, struct kp_energy_measurement *out, struct kp_error *err);

/* Average power over `seconds` with nothing running. */
int kp_energy_idle_power(const struct kp_energy_meter *m, double seconds, int align, double *watts,
			 struct kp_error *err);

/*
 * NVML as a meter. Picks the GPU by PCI bus id ("0000:19:00.0", as CUDA reports it) so that CUDA
 * and NVML agree on the device, else by NVML index. Fails with KP_ENOTOOL or KP_ENODEV and a
 * message starting "energy unavailable:" when NVML or its energy counter is missing.
 */
struct kp_energy_nvml;
int kp_energy_nvml_open(struct kp_energy_nvml **out, const char *pci_bus_id, int index, struct kp_error *err);
/* Only loads NVML (no device yet: pass pci_bus_id NULL and index -1 to open), then picks the GPU. */
int kp_energy_nvml_select(struct kp_energy_nvml *n, const char *pci_bus_id, int index, struct kp_error *err);
/* Fills `m` to read from `n`; valid until kp_energy_nvml_close(n). */
void kp_energy_nvml_meter(struct kp_energy_nvml *n, struct kp_energy_meter *m);
void kp_energy_nvml_close(struct kp_energy_nvml *n);

/*
 * JSON form of a measurement (what the kp-energy driver prints and `--json` shows).
 * Missing numbers are null. from_json is strict about types and ranges: the text comes from
 * another process.
 */
json_t *kp_energy_measurement_to_json(const struct kp_energy_measurement *m);
int kp_energy_measurement_from_json(const json_t *v, const char *what, struct kp_energy_measurement *m,
				    struct kp_error *err);

/*
 * The kp-energy driver's stdout: one JSON object, either {"ok": true, "measurements": [...]}
 * or {"ok": false, "code": "notool", "error": "..."}. The driver writes it with these two
 * functions (appending to `out`); kernelpro reads it with the parser, which returns a
 * driver-reported failure as its code (KP_ENOTOOL for "energy unavailable") and message.
 */
void kp_energy_driver_result(struct kp_buf *out, const struct kp_energy_measurement *m, size_t n,
			     const char *workload);
void kp_energy_driver_failure(struct kp_buf *out, const struct kp_error *err);
int kp_energy_parse_driver_output(const char *text, size_t len, struct kp_energy_measurement *m, size_t max,
				  size_t *n, struct kp_error *err);

/*
 * Running the kp-energy driver (harness/energy) from kernelpro: it measures next to the GPU work
 * and prints its result; kp_energy_driver_run() starts it with kp_child and reads that result.
 * Fill `builtin` (a known kernel: "fma", "copy", "swish_ieee", "swish_fast") or `libs`
 * ("LABEL=/path/lib.so", built with the kp_native.h ABI) with `tensors` (the driver's
 * "--in NAME=DTYPE:SHAPE:FILL:A:B" and "--out NAME=DTYPE:SHAPE" arguments, in task order).
 */
struct kp_energy_driver {
	const char *program;       /* NULL: kp_find_libexec("kp-energy") */
	int gpu;
	struct kp_energy_opts opts;
	const char *builtin;
	struct kp_strvec tensors;
	struct kp_strvec libs;
	unsigned long long seed;
};

void kp_energy_driver_init(struct kp_energy_driver *d);
void kp_energy_driver_release(struct kp_energy_driver *d);
struct kp_task;
/* Adds a native task's tensors (its inputs with their fills, then its outputs) to d->tensors. */
void kp_energy_driver_add_task(struct kp_energy_driver *d, const struct kp_task *task);
/* Runs it; out[0..*n) get one measurement per library (or the built-in). */
int kp_energy_driver_run(const struct kp_energy_driver *d, struct kp_energy_measurement *out, size_t max, size_t *n,
			 struct kp_error *err);

/* ==== Proxy ================================================================================== */

/*
 * The proxy's terms: X(ID, name, unit of the count, unit of the coefficient, default, what it is).
 * The order is persisted in coefficient files by name, so terms may be appended, not renamed.
 * Defaults (Hopper, H200 SXM; derivation in docs/energy.md) are in J per unit of the count.
 */
#define KP_ENERGY_TERMS(X)                                                                              \
	X(STATIC, "static", "s", "W", 150.0, "time the kernel keeps the GPU powered")                    \
	X(SM_ACTIVE, "sm_active", "SM-cycles", "J/SM-cycle", 3.8e-10, "cycles SMs spend with work")      \
	X(DRAM, "dram", "bytes", "J/byte", 6.0e-11, "DRAM bytes read and written")                      \
	X(L2, "l2", "bytes", "J/byte", 1.0e-11, "L2 bytes requested")                                   \
	X(EXCESS, "excess_sectors", "sectors", "J/sector", 3.0e-10, "global sectors beyond what the bytes need") \
	X(LOCAL, "local", "bytes", "J/byte", 1.0e-11, "local-memory (spill) bytes")                     \
	X(FP32, "fp32", "thread-inst", "J/thread-inst", 8.0e-12, "FP32 thread instructions")            \
	X(FP64, "fp64", "thread-inst", "J/thread-inst", 2.0e-11, "FP64 thread instructions")            \
	X(SFU, "sfu", "thread-inst", "J/thread-inst", 1.5e-11, "XU (MUFU, conversion) thread instructions") \
	X(TENSOR, "tensor", "SM-cycles", "J/SM-cycle", 1.0e-9, "SM cycles with the tensor pipe busy")    \
	X(INT, "int", "thread-inst", "J/thread-inst", 6.0e-12, "integer thread instructions")           \
	X(MEM, "mem", "thread-inst", "J/thread-inst", 1.2e-11, "memory thread instructions")            \
	X(OTHER, "other", "thread-inst", "J/thread-inst", 6.0e-12, "other thread instructions")

#define KP__ENERGY_TERM_ENUM(id, name, unit, cunit, def, what) KP_ENERGY_##id,
enum kp_energy_term { KP_ENERGY_TERMS(KP__ENERGY_TERM_ENUM) KP_ENERGY_NTERMS };
#undef KP__ENERGY_TERM_ENUM

const char *kp_energy_term_name(enum kp_energy_term t);  /* "dram" */
const char *kp_energy_term_unit(enum kp_energy_term t);  /* "bytes" */
const char *kp_energy_term_what(enum kp_energy_term t);  /* one line */
/* The term with this name, or -1. */
int kp_energy_term_find(const char *name);

/* One kernel's counts, per launch. NAN marks a count its profile did not contain. */
struct kp_energy_counts {
	double v[KP_ENERGY_NTERMS];
};

void kp_energy_counts_init(struct kp_energy_counts *k); /* all missing */

/*
 * Reads the counts from one ncu launch (raw page, base units). Metrics are looked up by the
 * names kp_energy_proxy_metrics() lists, with fallbacks for what `--set full` captures
 * (sectors instead of bytes, derived excess sectors, per-SM averages times the SM count).
 */
void kp_energy_counts_from_launch(const struct kp_launch *l, struct kp_energy_counts *k);
/* Adds b to a (a kernel made of several launches); missing in either stays missing. */
void kp_energy_counts_add(struct kp_energy_counts *a, const struct kp_energy_counts *b);

/* The ncu metrics the proxy reads, for `ncu --metrics` (NULL-terminated, static). */
const char *const *kp_energy_proxy_metrics(void);

struct kp_energy_coeffs {
	double c[KP_ENERGY_NTERMS];   /* J per unit of each count */
	int fitted[KP_ENERGY_NTERMS]; /* 1: fitted by calibration; 0: default */
	double idle_power_w;          /* idle board power, to turn a total into a dynamic estimate */
	char device[128];             /* what the coefficients were fitted on ("" for defaults) */
	char source[256];             /* "defaults (Hopper)" or "calibrated 2026-... on 31 kernels" */
};

/* The built-in Hopper coefficients. */
void kp_energy_coeffs_default(struct kp_energy_coeffs *c);

struct kp_energy_breakdown {
	double total_j;                 /* the proxy's energy per launch */
	double term_j[KP_ENERGY_NTERMS];
	double count[KP_ENERGY_NTERMS]; /* the counts it was computed from (NAN: missing) */
	double static_j;                /* STATIC + SM_ACTIVE: what running longer costs */
	double dynamic_j;               /* total minus idle power x time (NAN when time is missing) */
	double time_s;
	int missing[KP_ENERGY_NTERMS];  /* count was missing (contributes 0) */
	int incomplete;                 /* time or DRAM bytes missing: the figure is a lower bound */
};

/* The proxy: E = sum over terms of coefficient x count. Deterministic; never fails. */
void kp_energy_proxy(const struct kp_energy_counts *k, const struct kp_energy_coeffs *c,
		     struct kp_energy_breakdown *b);
json_t *kp_energy_breakdown_to_json(const struct kp_energy_breakdown *b, const struct kp_energy_coeffs *c);

/* ==== Calibration ============================================================================ */

/* One measured kernel: its counts and what NVML said. */
struct kp_energy_sample {
	char name[96];
	struct kp_energy_counts counts;
	double energy_j;      /* measured total energy per launch */
	double dynamic_j;     /* measured, idle subtracted; NAN when unknown */
	double time_s;        /* measured time per launch */
	double power_w;
	double idle_power_w;
	double energy_spread;
	char device[128];
};

/* How well a set of coefficients predicts a set of samples. */
struct kp_energy_score {
	double spearman;          /* proxy vs measured energy per launch */
	double mape;              /* mean absolute percentage error of energy per launch */
	double dynamic_spearman;  /* proxy minus idle x time vs measured dynamic energy */
	double power_spearman;    /* proxy / time vs measured average power: the hard one */
};

/* Scores coefficients on samples (proxy from each sample's counts). */
void kp_energy_score(const struct kp_energy_sample *s, size_t n, const struct kp_energy_coeffs *c,
		     struct kp_energy_score *out);

struct kp_energy_fit {
	size_t nsamples;
	int nfitted;                  /* terms fitted (the rest kept base values: no sample exercised them) */
	struct kp_energy_score fitted;   /* the fit on the samples it was fitted to (optimistic) */
	struct kp_energy_score loo;      /* leave-one-out: each kernel predicted by a fit on the others */
	struct kp_energy_score base;     /* `base` on the same samples */
};

/*
 * Fits the coefficients by non-negative least squares (Lawson-Hanson) on relative error: each
 * row is divided by its measured energy, so a 10 uJ kernel counts as much as a 10 J one.
 * `prior` >= 0 pulls each coefficient towards its `base` value (penalty prior * (c/base - 1)^2;
 * 0: plain NNLS). Terms no sample exercises keep their base value. Needs at least 3 samples.
 */
int kp_energy_calibrate(const struct kp_energy_sample *s, size_t n, const struct kp_energy_coeffs *base,
			double prior, struct kp_energy_coeffs *out, struct kp_energy_fit *fit, struct kp_error *err);

/* Corpus files: JSON Lines, one sample per line (docs/energy.md gives the schema). */
json_t *kp_energy_sample_to_json(const struct kp_energy_sample *s);
int kp_energy_sample_from_json(const json_t *v, const char *what, struct kp_energy_sample *s,
			       struct kp_error *err);
/* Appends every sample of the file to *s (grown with KP_ALLOC_GROW; caller frees). */
int kp_energy_corpus_load(const char *path, struct kp_energy_sample **s, size_t *n, size_t *alloc,
			  struct kp_error *err);

/*
 * Joins the corpus benchmark's two outputs into samples: `measured` (the JSON Lines of
 * `kp-energy-corpus measure`: {"index", "name", "measurement"}) and the ncu raw report of
 * `kp-energy-corpus profile`, where the launches of entry i follow a kp_corpus_marker launch
 * with grid size i + 1 (counts of several launches, as in cuBLAS, are summed). Entries present
 * on one side only are named in `warnings`, one line each. Appends to *s (caller frees).
 */
int kp_energy_corpus_join(const char *measured, size_t len, const char *what, const struct kp_ncu_report *r,
			  struct kp_energy_sample **s, size_t *n, size_t *alloc, struct kp_buf *warnings,
			  struct kp_error *err);

/* Coefficient files (JSON). */
json_t *kp_energy_coeffs_to_json(const struct kp_energy_coeffs *c);
int kp_energy_coeffs_from_json(const json_t *v, const char *what, struct kp_energy_coeffs *c,
			       struct kp_error *err);
int kp_energy_coeffs_save(const struct kp_energy_coeffs *c, const char *path, struct kp_error *err);
int kp_energy_coeffs_load(const char *path, struct kp_energy_coeffs *c, struct kp_error *err);
/* Where calibrated coefficients for `device` live: <cache>/energy/coeffs-<device slug>.json. */
int kp_energy_coeffs_path(const char *device, struct kp_buf *out, struct kp_error *err);
/*
 * The coefficients to use for `device` (NULL or "": defaults): the calibrated file when one
 * exists, else the defaults. *calibrated says which. A file that exists but cannot be read is
 * an error, never silently replaced by defaults.
 */
int kp_energy_coeffs_for(const char *device, struct kp_energy_coeffs *c, int *calibrated, struct kp_error *err);

/* ==== Statistics ============================================================================= */

/* Median of v (sorted in place); NAN when n is 0. */
double kp_energy_median(double *v, size_t n);
/* Spearman rank correlation with average ranks for ties; NAN for n < 2 or a constant input. */
double kp_energy_spearman(const double *a, const double *b, size_t n);
/* Mean of |pred - meas| / meas over entries with meas > 0; NAN when there are none. */
double kp_energy_mape(const double *pred, const double *meas, size_t n);

/*
 * Compares two energy figures with their relative spreads: -1 when a is lower beyond the
 * noise, 1 when b is, 0 when they tie. The noise band is the larger of `floor_rel` and half the
 * larger spread. For the tie-break of the search's lexicographic reward (speed first).
 */
int kp_energy_cmp(double a_j, double a_spread, double b_j, double b_spread, double floor_rel);

/* ==== Feedback =============================================================================== */

/*
 * The energy paragraph of a candidate's feedback: what dominates its energy and what would lower
 * it, ordered by the share each lever could save. `measured` and `sass` may be NULL. Appends at
 * most `max_len` bytes (0: 1500) of plain text to `out`.
 */
void kp_energy_feedback(struct kp_buf *out, const struct kp_energy_breakdown *b,
			const struct kp_energy_coeffs *c, const struct kp_energy_measurement *measured,
			const struct kp_sass_func *sass, size_t max_len);

/*
 * The same for one profiled kernel, as the search has it: counts from p->launch, SASS evidence
 * from p->sass. With `--objective speed+energy` the search appends this paragraph to the tools'
 * feedback (and collects kp_energy_proxy_metrics() with the tools' metrics). Without an ncu
 * launch in the profile it says so instead of guessing.
 */
void kp_energy_feedback_profile(struct kp_buf *out, const struct kp_kernel_profile *p,
				const struct kp_energy_coeffs *c, const struct kp_energy_measurement *measured,
				size_t max_len);
/* The proxy for one profiled kernel; KP_EMISSING when the profile has no ncu launch. */
int kp_energy_proxy_profile(const struct kp_kernel_profile *p, const struct kp_energy_coeffs *c,
			    struct kp_energy_breakdown *b);

#ifdef __cplusplus
}
#endif

#endif
