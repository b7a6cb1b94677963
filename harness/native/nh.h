/*
 * kp-native-harness, shared between its files: the evaluation's state (struct nh), the result
 * document (result.cu), the GPU work (gpu.cu: inputs, poison, comparisons, the degenerate-output
 * statistics), the libraries (libs.cu: loading and calling kp_run) and timing (timing.cu). The phases
 * themselves are in kp_native_harness.cu.
 */
#ifndef KP_NH_H
#define KP_NH_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "kp_native.h"
#include "eval/natspec.h"
#include "eval/outcheck.h"
#include "eval/sandbox.h"

#define MAX_TENSORS KP_NATSPEC_TENSORS
#define HOST_TRIALS 20
#define FLUSH_BYTES (256u << 20)
#define POISON_NAN 0xFF /* all-ones bytes: NaN in every float type, -1 in integers */
#define POISON_BIG 0x7F

typedef int (*run_fn)(const kp_tensor *, int, kp_tensor *, int, kp_stream_t);
typedef int (*init_fn)(const kp_tensor *, int, const kp_tensor *, int);
typedef void (*fini_fn)(void);

struct lib {
	void *h;
	run_fn run;
	init_fn init;
	fini_fn fini;
	const char *who; /* "reference" / "candidate" */
};

struct cmp_stats;

/* One evaluation. */
struct nh {
	struct kp_natspec S;
	struct lib ref, cand;
	kp_tensor pristine[MAX_TENSORS], ref_in[MAX_TENSORS], cand_in[MAX_TENSORS];
	kp_tensor ref_out[MAX_TENSORS], cand_out[MAX_TENSORS];
	cudaStream_t stream;        /* the legacy default stream: what <<<g, b>>> without a stream uses */
	void *flush_buf;            /* FLUSH_BYTES, when l2_flush */
	struct cmp_stats *d_stats;  /* device scratch for one comparison */
	unsigned long long *d_count;
	double *d_sums;             /* 2 doubles: output_rms()'s sum of squares and count */
	double *d_groups;           /* 2 * max_groups doubles: per-group sums of ref^2 and diff^2 */
	long long max_groups;
};

/* --- result.cu: the result document, phases and time limits --------------------------------- */

void res_open(void);                        /* the result channel: a private copy of stdout */
double mono(void);
void phase(const char *name, double limit); /* announces a phase and arms its alarm */
void res_num(const char *key, double v);
void res_raw(const char *key, const char *json);
void res_str(const char *key, const char *s);
void res_scaled_trial(const char *status, double scale, const char *reason); /* reason may be NULL */
void res_trials_run(int n);
void res_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "warn": recorded; "refuse": ends as cheat_suspected; "fail": ends as wrong_output. Nothing when the
 * check is switched off. */
void res_flag(const struct nh *h, const char *check, const char *severity, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void finish(const char *status, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
/* A failure of the harness or the reference: not the candidate's fault. */
void harness_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
const char *err_text(int rc, char *buf, size_t n);

#define CK(call)                                                                                     \
	do {                                                                                         \
		cudaError_t e_ = (call);                                                             \
		if (e_ != cudaSuccess) {                                                             \
			char b_[256];                                                                \
			harness_fail("%s failed: %s", #call, err_text(e_, b_, sizeof(b_)));          \
		}                                                                                    \
	} while (0)

/* --- gpu.cu -------------------------------------------------------------------------------------- */

uint64_t splitmix64_host(uint64_t x);
void gpu_alloc(struct nh *h);
void fill_inputs(struct nh *h, kp_tensor *t, uint64_t trial_seed);
/* Multiplies every floating-point input by input_scale(dtype); returns how many were scaled. */
int scale_inputs(struct nh *h, kp_tensor *t);
double input_scale(int dtype);
void copy_inputs(struct nh *h, kp_tensor *dst, const kp_tensor *src);
void poison_outputs(struct nh *h, kp_tensor *t, int byte);
unsigned long long bytes_differ(struct nh *h, const void *a, const void *b, size_t n);
/* Elements of output i that are NaN or infinite. */
unsigned long long nonfinite(struct nh *h, const kp_tensor *t, int i);
/* sqrt(mean(x^2)) over the finite elements of floating-point output i (0 when none is). */
double output_rms(struct nh *h, const kp_tensor *t, int i);

/*
 * Compares every output with the reference's, element by element (|ref - out| <= atol + rtol * |out|,
 * atol the task's, or atols[i] where atols is not NULL: the scaled trial's); with `degenerate`,
 * floating-point outputs that pass are judged by the degenerate-output checks (lib/eval/outcheck.c).
 * Returns 0 when all pass; -1 for an element out of tolerance; else the failing enum kp_outcheck.
 * `detail` says what, for the LLM. max/mean |diff| are the worst outputs'.
 */
int compare_outputs(struct nh *h, const kp_tensor *ref, const kp_tensor *got, const double *atols, int poison,
		    int degenerate, double *max_abs, double *mean_abs, char *detail, size_t dn);

/* --- libs.cu ------------------------------------------------------------------------------------- */

void open_lib(const struct nh *h, struct lib *l, const char *path, const char *who);
void init_lib(const struct nh *h, const struct lib *l, const kp_tensor *in, const kp_tensor *out);
void fini_lib(const struct nh *h, const struct lib *l);
/*
 * The sandbox's filter refused calls since the last look: made while `l` ran (`when`), they end the
 * evaluation, as process_spawn for the candidate and as a harness error for the reference (the task
 * needs KERNELPRO_SANDBOX=nospawn). libs.cu looks after every call of a library; the phases that call
 * one in a loop (timing, loop) look at their end.
 */
void sandbox_check(const struct nh *h, const struct lib *l, const char *when);
/* After a kp_run that returned rc: waits for the device and ends the evaluation on any failure. */
void check_after(const struct lib *l, int rc, const char *when);
/* Calls one library's kp_run and waits for it. */
void call(const struct nh *h, const struct lib *l, const kp_tensor *in, kp_tensor *out, const char *when);

/* --- timing.cu ----------------------------------------------------------------------------------- */

struct tstats {
	double median, mean, std, min, max;
	double gap; /* median of (host time with a full device sync - event time) over HOST_TRIALS calls */
	int n;
};
struct tstats time_lib(struct nh *h, const struct lib *l, const kp_tensor *in, kp_tensor *out);
double noop_gap(struct nh *h);
void emit_timing(const char *key, const struct tstats *t);
void loop_lib(struct nh *h, const struct lib *l, const kp_tensor *in, kp_tensor *out, const char *key);

#endif
