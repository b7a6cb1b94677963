/*
 * kp-native-harness: evaluates one native candidate (.so exporting kp_run) against the task's
 * reference (.so), in a process kernelpro starts for this one evaluation. No Python.
 *
 * stdin: the spec lib/eval/natspec.c writes (docs/internals/eval.md).
 * stdout: JSON lines, {"phase": ...} as each phase starts and one {"result": {...}}; everything else
 * (the libraries' printf, CUDA messages) goes to stderr.
 *
 * The phases, in this file: setup (device, libraries, tensors, kp_init), correctness (trials with
 * fresh seeded inputs, each model on its own copy, outputs poisoned before every call, the
 * degenerate-output checks; then repeat_mismatch, input_memo and the trial with scaled inputs), run
 * (prepared runs for profilers), timing (CUDA events and host-timed calls, host_time), loop (energy
 * windows), baseline (the reference alone). tests/gpu/g0501 and g0502 go through every one of them.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#include "nh.h"

static const char *const dtype_names[] = {"f32", "f16", "bf16", "f64", "i32", "i64", "i8", "u8"};

/* Reads the spec on stdin (at most KP_NATSPEC_MAX bytes). */
static void read_spec(struct nh *h)
{
	static char text[KP_NATSPEC_MAX + 1];
	size_t len = fread(text, 1, sizeof(text), stdin);
	struct kp_error err = KP_ERROR_INIT;
	kp_natspec_init(&h->S);
	if (kp_natspec_parse(&h->S, text, len, &err))
		harness_fail("malformed spec on stdin: %s", err.msg);
}

static void alloc_tensors(kp_tensor *t, const struct kp_natspec_tensor *s, int n)
{
	for (int i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].dtype = s[i].dtype;
		t[i].ndim = s[i].ndim;
		for (int d = 0; d < KP_ABI_MAX_DIMS; d++)
			t[i].shape[d] = d < s[i].ndim ? s[i].shape[d] : 1;
		t[i].numel = s[i].numel;
		t[i].name = s[i].name;
		cudaError_t e = cudaMalloc(&t[i].data, s[i].bytes ? s[i].bytes : 1);
		if (e != cudaSuccess) {
			char b[256];
			harness_fail("cannot allocate %zu bytes for tensor '%s': %s", s[i].bytes, s[i].name,
				     err_text(e, b, sizeof(b)));
		}
	}
}

/* What the verdict says both sides ran at, and the bytes one call must move. */
static void describe(const struct nh *h, int baseline)
{
	char b[160];
	double in = 0, out = 0;
	const char *tf32 = getenv("NVIDIA_TF32_OVERRIDE");
	const char *p = dtype_names[h->S.out[0].dtype];
	for (int i = 0; i < h->S.nin; i++)
		in += (double)h->S.in[i].bytes;
	for (int i = 0; i < h->S.nout; i++)
		out += (double)h->S.out[i].bytes;
	res_num("in_bytes", in);
	res_num("out_bytes", out);
	res_num("io_bytes", in + out);
	/* The harness owns the output buffers: both sides write the task's dtypes. */
	snprintf(b, sizeof(b), "{\"reference\":\"%s\",\"candidate\":%s%s%s}", p, baseline ? "" : "\"",
		 baseline ? "null" : p, baseline ? "" : "\"");
	res_raw("precision", b);
	/* Under NVIDIA_TF32_OVERRIDE=0 (kernelpro sets it) no library call uses TF32; TF32 in the
	 * candidate's own code is the static check 'precision'. */
	res_raw("tf32", tf32 && !strcmp(tf32, "0") ? "{\"reference\":false,\"candidate\":false}"
						   : "{\"reference\":null,\"candidate\":null}");
	res_str("reference", "reference.cu");
}

static void setup(struct nh *h, int baseline)
{
	cudaDeviceProp prop;
	cudaError_t e;

	phase("load", h->S.limit_check);
	e = cudaSetDevice(0);
	if (e == cudaSuccess)
		e = cudaFree(0);
	if (e != cudaSuccess) {
		char b[256];
		void *drv = NULL;
		/* The runtime says "insufficient driver" when there is no driver at all: say which it is. */
		if (e == cudaErrorInsufficientDriver && !(drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)))
			harness_fail("no usable GPU: no NVIDIA driver on this machine ('libcuda.so.1' not found)");
		if (drv)
			dlclose(drv);
		harness_fail("no usable GPU: %s", err_text(e, b, sizeof(b)));
	}
	CK(cudaGetDeviceProperties(&prop, 0));
	res_str("gpu_name", prop.name);
	open_lib(h, &h->ref, h->S.ref, "reference");
	if (!baseline) {
		/* After CUDA's own threads started (the filter reaches them too), before any candidate code. */
		kp_sandbox_lock(1, "before the candidate's library was loaded");
		open_lib(h, &h->cand, h->S.cand, "candidate");
	}
	res_raw("compiled", "true");
	describe(h, baseline);
	alloc_tensors(h->pristine, h->S.in, h->S.nin);
	alloc_tensors(h->ref_in, h->S.in, h->S.nin);
	alloc_tensors(h->cand_in, h->S.in, h->S.nin);
	alloc_tensors(h->ref_out, h->S.out, h->S.nout);
	alloc_tensors(h->cand_out, h->S.out, h->S.nout);
	gpu_alloc(h);
	fill_inputs(h, h->pristine, h->S.seed);
	copy_inputs(h, h->ref_in, h->pristine);
	copy_inputs(h, h->cand_in, h->pristine);
	CK(cudaDeviceSynchronize());
	init_lib(h, &h->ref, h->ref_in, h->ref_out);
	if (!baseline)
		init_lib(h, &h->cand, h->cand_in, h->cand_out);
}

static void check_inputs_unchanged(struct nh *h, const char *when)
{
	for (int i = 0; i < h->S.nin; i++) {
		unsigned long long n = bytes_differ(h, h->cand_in[i].data, h->pristine[i].data, h->S.in[i].bytes);
		if (n)
			res_flag(h, "inputs_modified", "refuse", "the candidate changed %llu bytes of input '%s' (%s)", n,
				 h->S.in[i].name, when);
	}
}

/* Both models on the inputs in h->pristine, each on its own copy, outputs poisoned; the candidate's
 * inputs checked. */
static void run_pair(struct nh *h, int ref_first, const char *when)
{
	int ref_changed = 0;
	copy_inputs(h, h->ref_in, h->pristine);
	copy_inputs(h, h->cand_in, h->pristine);
	poison_outputs(h, h->ref_out, POISON_NAN);
	poison_outputs(h, h->cand_out, POISON_NAN);
	/* Reference first in even trials, candidate first in odd ones: an output left unwritten cannot hold
	 * this trial's reference result. */
	if (ref_first) {
		call(h, &h->ref, h->ref_in, h->ref_out, when);
		call(h, &h->cand, h->cand_in, h->cand_out, when);
	} else {
		call(h, &h->cand, h->cand_in, h->cand_out, when);
		call(h, &h->ref, h->ref_in, h->ref_out, when);
	}
	for (int i = 0; i < h->S.nin; i++)
		ref_changed |= bytes_differ(h, h->ref_in[i].data, h->pristine[i].data, h->S.in[i].bytes) != 0;
	if (!ref_changed)
		check_inputs_unchanged(h, when);
}

/* One trial: run_pair(), then the outputs compared (with the degenerate-output checks when `degenerate`).
 * Returns compare_outputs()'s result; detail says what failed. */
static int trial(struct nh *h, int ref_first, int degenerate, const char *when, double *max_abs, double *mean_abs,
		 char *detail, size_t dn)
{
	run_pair(h, ref_first, when);
	return compare_outputs(h, h->ref_out, h->cand_out, NULL, POISON_NAN, degenerate, max_abs, mean_abs, detail,
			       dn);
}

/* Ends the evaluation for a failed trial: an element out of tolerance, or a degenerate-output check. */
static void trial_failed(struct nh *h, int rc, const char *where, const char *detail)
{
	if (rc > 0)
		res_flag(h, kp_outcheck_id((enum kp_outcheck)rc), "fail", "%s: %s", where, detail);
	res_log("%s:\n%s\n", where, detail);
	finish("wrong_output", "%s: %s", where, detail);
}

/* One more trial with every floating-point input scaled (input_scale), so tiny outputs get a trial at
 * meaningful magnitudes; skipped where the reference is not defined for such inputs. Each output's atol
 * is widened to the rounding error its scaled magnitudes allow (kp_outcheck_scaled_atol). */
static void scaled_trial(struct nh *h, uint64_t seed)
{
	double scale = input_scale(h->S.in[0].dtype), max_abs, mean_abs, atols[MAX_TENSORS];
	char detail[1536], why[256];
	int rc;

	if (!h->S.scaled_trial || kp_natspec_off(&h->S, "scaled_inputs")) {
		res_scaled_trial("off", scale, h->S.scaled_trial ? "switched off (--allow scaled_inputs)"
								  : "the task says \"scaled_trial\": false");
		return;
	}
	fill_inputs(h, h->pristine, seed);
	if (!h->S.nin || !scale_inputs(h, h->pristine)) {
		res_scaled_trial("skipped", scale, "the task has no floating-point inputs");
		return;
	}
	run_pair(h, 1, "scaled trial");
	for (int i = 0; i < h->S.nout; i++) {
		if (nonfinite(h, h->ref_out, i)) {
			snprintf(why, sizeof(why), "the reference gives NaN or infinity in output '%s' on inputs scaled x%g",
				 h->S.out[i].name, scale);
			res_scaled_trial("skipped", scale, why);
			return;
		}
		atols[i] = kp_outcheck_scaled_atol(h->S.out[i].dtype, h->S.out[i].a, output_rms(h, h->ref_out, i));
	}
	rc = compare_outputs(h, h->ref_out, h->cand_out, atols, POISON_NAN, 1, &max_abs, &mean_abs, detail,
			     sizeof(detail));
	if (!rc) {
		res_scaled_trial("passed", scale, NULL);
		return;
	}
	res_scaled_trial("failed", scale, detail);
	res_flag(h, "scaled_inputs", "fail", "with inputs scaled x%g%s%s%s: %s", scale, rc > 0 ? " (" : "",
		 rc > 0 ? kp_outcheck_id((enum kp_outcheck)rc) : "", rc > 0 ? ")" : "", detail);
}

/* repeat_mismatch, then input_memo, on the inputs of the last trial (in h->pristine) and the reference's
 * outputs from it (in h->ref_out); input_memo leaves new inputs in h->pristine. */
static void extra_checks(struct nh *h, uint64_t trial_seed)
{
	double max_abs, mean_abs;
	char detail[1536];
	if (!kp_natspec_off(&h->S, "repeat_mismatch")) {
		int poisons[2] = {POISON_BIG, POISON_NAN};
		for (int k = 0; k < 2; k++) {
			copy_inputs(h, h->cand_in, h->pristine);
			poison_outputs(h, h->cand_out, poisons[k]);
			call(h, &h->cand, h->cand_in, h->cand_out, "repeat check");
			if (compare_outputs(h, h->ref_out, h->cand_out, NULL, poisons[k], 0, &max_abs, &mean_abs, detail,
					    sizeof(detail)))
				res_flag(h, "repeat_mismatch", "refuse", "a repeated run on the same inputs differs: %s", detail);
		}
	}
	/* input_memo: new values in the same input buffers must give a new result. */
	if (!kp_natspec_off(&h->S, "input_memo")) {
		uint64_t s2 = splitmix64_host(trial_seed ^ 0x5DEECE66Dull);
		copy_inputs(h, h->cand_in, h->pristine);
		call(h, &h->cand, h->cand_in, h->cand_out, "input_memo check");
		fill_inputs(h, h->cand_in, s2);
		fill_inputs(h, h->pristine, s2);
		copy_inputs(h, h->ref_in, h->pristine);
		poison_outputs(h, h->ref_out, POISON_NAN);
		poison_outputs(h, h->cand_out, POISON_NAN);
		call(h, &h->ref, h->ref_in, h->ref_out, "input_memo check");
		call(h, &h->cand, h->cand_in, h->cand_out, "input_memo check");
		if (compare_outputs(h, h->ref_out, h->cand_out, NULL, POISON_NAN, 0, &max_abs, &mean_abs, detail,
				    sizeof(detail)))
			res_flag(h, "input_memo", "refuse", "new values in the same input buffers gave a stale result: %s",
				 detail);
	}
}

/* The correctness phase; returns the number of trials passed. `prepared` (mode "run", a candidate put
 * under a profiler after the evaluation that found it correct): one compared trial, so the profiled calls
 * belong to a candidate that still gives the reference's output, and none of what that evaluation did
 * besides (degenerate-output checks, repeat_mismatch, input_memo, the scaled trial). */
static int correctness(struct nh *h, int prepared)
{
	int ntrials = prepared ? 1 : h->S.correct_trials;
	double max_abs = 0, mean_abs = 0, worst_max = 0, worst_mean = 0;
	uint64_t trial_seed = h->S.seed;
	char detail[1536], where[96];
	int passed = 0;

	phase("correctness", h->S.limit_check);
	for (int k = 0; k < ntrials; k++) {
		int rc;
		trial_seed = splitmix64_host(h->S.seed + 0x100 * (uint64_t)(k + 1));
		fill_inputs(h, h->pristine, trial_seed);
		snprintf(where, sizeof(where), "correctness trial %d", k + 1);
		rc = trial(h, k % 2 == 0, !prepared, where, &max_abs, &mean_abs, detail, sizeof(detail));
		res_trials_run(k + 1);
		if (rc) {
			res_num("trials_passed", passed);
			res_num("max_abs_diff", max_abs);
			res_num("mean_abs_diff", mean_abs);
			snprintf(where, sizeof(where), "trial %d of %d (seed %llu)", k + 1, ntrials,
				 (unsigned long long)trial_seed);
			trial_failed(h, rc, where, detail);
		}
		worst_max = max_abs > worst_max ? max_abs : worst_max;
		worst_mean = mean_abs > worst_mean ? mean_abs : worst_mean;
		passed++;
	}
	res_num("trials_passed", passed);
	res_num("max_abs_diff", worst_max);
	res_num("mean_abs_diff", worst_mean);
	if (prepared)
		return passed;
	/* The repeats before the scaled trial: a candidate that goes wrong after its first calls is told
	 * repeat_mismatch, not a wrong scaled output. */
	extra_checks(h, trial_seed);
	scaled_trial(h, splitmix64_host(trial_seed ^ 0x5CA1EDull));
	return passed;
}

/* Prepared runs for profilers: `iters` calls inside the NVTX range "kp_candidate". */
static void run_iters(struct nh *h)
{
	long iters = h->S.iters > 0 ? h->S.iters : 1;
	phase("run", h->S.limit_timing);
	fill_inputs(h, h->pristine, h->S.seed);
	copy_inputs(h, h->cand_in, h->pristine);
	CK(cudaDeviceSynchronize());
	nvtxRangePushA("kp_candidate");
	for (long i = 0; i < iters; i++)
		call(h, &h->cand, h->cand_in, h->cand_out, "run");
	nvtxRangePop();
	res_num("iterations", (double)iters);
	finish("correct", "ran %ld iterations", iters);
}

/* The timing phase; returns the candidate's median (NAN when not timed). */
static double timing(struct nh *h)
{
	struct tstats tc, tr;
	phase("timing", h->S.limit_timing);
	fill_inputs(h, h->pristine, h->S.seed);
	copy_inputs(h, h->ref_in, h->pristine);
	copy_inputs(h, h->cand_in, h->pristine);
	if (h->S.time_cand) {
		tc = time_lib(h, &h->cand, h->cand_in, h->cand_out);
		emit_timing("runtime", &tc);
		double base = noop_gap(h), hidden = tc.gap - base, bound = fmax(0.5 * tc.median, 0.02);
		if (hidden > bound) {
			/* Measured again before a refusal, as the PyTorch harness does: a busy host or other
			 * processes' work on this GPU lengthens one measurement, hidden work lengthens both. */
			double again_base = noop_gap(h);
			double again = lib_gap(h, &h->cand, h->cand_in, h->cand_out) - again_base;
			if (again < hidden) {
				hidden = again;
				base = again_base;
			}
		}
		if (hidden > bound)
			res_flag(h, "host_time", "refuse",
				 "%.4g ms per call ran outside the CUDA events that timed %.4g ms (host time with a full "
				 "device sync minus event time, %.4g ms over a call that does nothing; medians of %d "
				 "calls, measured twice): work on another stream or deferred (other processes using "
				 "this GPU at the same time also lengthen it: evaluate on an idle GPU)",
				 hidden, tc.median, base, HOST_TRIALS);
	}
	if (h->S.time_ref) {
		tr = time_lib(h, &h->ref, h->ref_in, h->ref_out);
		emit_timing("ref_runtime", &tr);
	}
	return h->S.time_cand ? tc.median : NAN;
}

static void loops(struct nh *h)
{
	if (h->S.loop_s <= 0)
		return;
	phase("loop", h->S.limit_timing);
	loop_lib(h, &h->cand, h->cand_in, h->cand_out, "loop");
	if (h->S.time_ref)
		loop_lib(h, &h->ref, h->ref_in, h->ref_out, "ref_loop");
}

static void baseline(struct nh *h)
{
	struct tstats t;
	phase("timing", h->S.limit_timing);
	fill_inputs(h, h->pristine, h->S.seed);
	copy_inputs(h, h->ref_in, h->pristine);
	t = time_lib(h, &h->ref, h->ref_in, h->ref_out);
	emit_timing("ref_runtime", &t);
	finish("correct", "reference timed");
}

int main(void)
{
	static struct nh h;
	int passed, is_baseline, run_mode;
	double median;

	res_open();
	read_spec(&h);
	/* The sandbox's first step, while this process has one thread: limits, no network. */
	kp_sandbox_begin(h.S.mode, h.S.limit_check + h.S.limit_timing + 4 * h.S.loop_s + 30);
	is_baseline = !strcmp(h.S.mode, "baseline");
	run_mode = !strcmp(h.S.mode, "run");
	setup(&h, is_baseline);
	if (is_baseline)
		baseline(&h);
	passed = correctness(&h, run_mode);
	if (run_mode)
		run_iters(&h);
	median = timing(&h);
	sandbox_check(&h, &h.cand, "while it was timed");
	loops(&h);
	sandbox_check(&h, &h.cand, "in the energy loop");
	fini_lib(&h, &h.cand);
	fini_lib(&h, &h.ref);
	if (h.S.time_cand)
		finish("correct", "correct on %d of %d trials; %.4g ms median", passed, passed, median);
	finish("correct", "correct on %d of %d trials", passed, passed);
}
