/*
 * kp-native-harness: evaluates one native candidate (.so exporting kp_run) against the task's
 * reference (.so), in a process kernelpro starts for this one evaluation. No Python.
 *
 * stdin: the spec lines lib/eval/native.c writes (docs/internals/eval.md).
 * stdout: JSON lines, {"phase": ...} as each phase starts and one {"result": {...}}; everything else
 * (the libraries' printf, CUDA messages) goes to stderr.
 *
 * Protocol: inputs from a seeded counter-based generator on the GPU; correctness trials with fresh
 * seeds, each model on its own copy of the inputs, outputs poisoned before every call; the dynamic
 * anti-cheat checks of lib/eval/checks.c; CUDA-event timing with warm-ups, trials plus discarded
 * ones and a 256 MB L2 flush before each; host-timed calls with a full device sync alongside.
 */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#include "kp_native.h"

#define MAX_TENSORS 64
#define HOST_TRIALS 20
#define FLUSH_BYTES (256u << 20)
#define POISON_NAN 0xFF /* all-ones bytes: NaN in every float type, -1 in integers */
#define POISON_BIG 0x7F

typedef int (*run_fn)(const kp_tensor *, int, kp_tensor *, int, kp_stream_t);
typedef int (*init_fn)(const kp_tensor *, int, const kp_tensor *, int);
typedef void (*fini_fn)(void);

struct spec_tensor {
	char name[64];
	int dtype, ndim;
	int64_t shape[KP_ABI_MAX_DIMS];
	int fill;       /* enum kp_fill_kind */
	double a, b;    /* fill parameters (inputs) or atol, rtol (outputs) */
	size_t bytes;
	int64_t numel;
};

struct spec {
	char mode[16];
	char ref[4096], cand[4096];
	unsigned long long seed;
	int correct_trials, warmup, trials, discard, time_cand, time_ref, l2_flush;
	double limit_check, limit_timing, loop_s;
	long iters;
	char off[32][32];
	int noff;
	struct spec_tensor in[MAX_TENSORS], out[MAX_TENSORS];
	int nin, nout;
};

struct lib {
	void *h;
	run_fn run;
	init_fn init;
	fini_fn fini;
	const char *who; /* "reference" / "candidate" */
};

static struct spec S;
static FILE *res;          /* the result channel: the original stdout */
static int res_fd = -1;
static char timeout_line[256];
static size_t timeout_len;
static const char *cur_phase = "start";

/* --- output ------------------------------------------------------------------------------------ */

struct jbuf {
	char *p;
	size_t len, cap;
};

static void jb_add(struct jbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->p = (char *)realloc(b->p, cap);
		if (!b->p)
			abort();
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void jb_adds(struct jbuf *b, const char *s)
{
	jb_add(b, s, strlen(s));
}

static void jb_printf(struct jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jb_printf(struct jbuf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		jb_add(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void jb_str(struct jbuf *b, const char *s)
{
	jb_adds(b, "\"");
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			jb_add(b, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			jb_add(b, esc, 6);
		} else
			jb_add(b, (const char *)&c, 1);
	}
	jb_adds(b, "\"");
}

static void jb_num(struct jbuf *b, double v)
{
	if (isfinite(v))
		jb_printf(b, "%.9g", v);
	else
		jb_adds(b, "null");
}

/* The result document, built up as the evaluation goes. */
static struct jbuf R_flags, R_fields, R_log;
static int R_nflags;

static void field_num(const char *k, double v)
{
	jb_printf(&R_fields, ",\"%s\":", k);
	jb_num(&R_fields, v);
}

static void field_raw(const char *k, const char *raw)
{
	jb_printf(&R_fields, ",\"%s\":%s", k, raw);
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	char tmp[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0 && R_log.len < 16000)
		jb_add(&R_log, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static int check_off(const char *check)
{
	for (int i = 0; i < S.noff; i++)
		if (!strcmp(S.off[i], check))
			return 1;
	return 0;
}

static void finish(const char *status, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void finish(const char *status, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	struct jbuf out = {0};

	alarm(0);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	jb_adds(&out, "{\"result\":{\"status\":");
	jb_str(&out, status);
	jb_adds(&out, ",\"message\":");
	jb_str(&out, msg);
	jb_adds(&out, ",\"phase\":");
	jb_str(&out, strcmp(status, "correct") ? cur_phase : "done");
	jb_adds(&out, ",\"log\":");
	if (R_log.len)
		jb_str(&out, R_log.p);
	else
		jb_adds(&out, "null");
	jb_adds(&out, ",\"flags\":[");
	if (R_flags.len)
		jb_add(&out, R_flags.p, R_flags.len);
	jb_adds(&out, "]");
	if (R_fields.len)
		jb_add(&out, R_fields.p, R_fields.len);
	jb_adds(&out, "}}\n");
	fwrite(out.p, 1, out.len, res);
	fflush(res);
	fflush(stderr);
	/* No teardown: a candidate's destructors or a broken context must not run after the verdict. */
	_exit(0);
}

/* Records a flag; a refusing one ends the evaluation as cheat_suspected. */
static void flag(const char *check, int refuse, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void flag(const char *check, int refuse, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	if (check_off(check))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (R_nflags++)
		jb_adds(&R_flags, ",");
	jb_adds(&R_flags, "{\"check\":");
	jb_str(&R_flags, check);
	jb_printf(&R_flags, ",\"severity\":\"%s\",\"message\":", refuse ? "refuse" : "warn");
	jb_str(&R_flags, msg);
	jb_adds(&R_flags, "}");
	if (refuse) {
		logf_("refused by dynamic check '%s': %s\n", check, msg);
		finish("cheat_suspected", "refused by check '%s': %s", check, msg);
	}
}

static void on_alarm(int sig)
{
	(void)sig;
	if (res_fd >= 0)
		(void)!write(res_fd, timeout_line, timeout_len);
	_exit(124);
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void phase(const char *name, double limit)
{
	cur_phase = name;
	fprintf(res, "{\"phase\":\"%s\",\"limit_s\":%.9g,\"t\":%.9f}\n", name, limit, mono());
	fflush(res);
	timeout_len = (size_t)snprintf(timeout_line, sizeof(timeout_line),
				       "{\"phase_timeout\":\"%s\",\"limit_s\":%.9g}\n", name, limit);
	alarm(limit > 0 ? (unsigned)ceil(limit) : 0);
}

/* --- CUDA helpers -------------------------------------------------------------------------------- */

static const char *err_text(int rc, char *buf, size_t n)
{
	const char *name = cudaGetErrorName((cudaError_t)rc);
	if (name && strncmp(name, "unrecognized", 12))
		snprintf(buf, n, "%d, %s: %s", rc, name, cudaGetErrorString((cudaError_t)rc));
	else
		snprintf(buf, n, "%d", rc);
	return buf;
}

/* A failure of the harness or the reference: not the candidate's fault. */
static void harness_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void harness_fail(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	finish("harness_error", "%s", msg);
}

#define CK(call)                                                                                       \
	do {                                                                                           \
		cudaError_t e_ = (call);                                                               \
		if (e_ != cudaSuccess) {                                                               \
			char b_[256];                                                                  \
			harness_fail("%s failed: %s", #call, err_text(e_, b_, sizeof(b_)));             \
		}                                                                                      \
	} while (0)

__device__ __host__ static inline uint64_t splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

__device__ static inline double u01(uint64_t seed, uint64_t i, uint64_t lane)
{
	return (double)(splitmix64(seed ^ splitmix64(2 * i + lane)) >> 11) * (1.0 / 9007199254740992.0);
}

__device__ static inline void store(void *p, int64_t i, int dtype, double v)
{
	switch (dtype) {
	case KP_ABI_F32: ((float *)p)[i] = (float)v; break;
	case KP_ABI_F16: ((__half *)p)[i] = __float2half((float)v); break;
	case KP_ABI_BF16: ((__nv_bfloat16 *)p)[i] = __float2bfloat16((float)v); break;
	case KP_ABI_F64: ((double *)p)[i] = v; break;
	case KP_ABI_I32: ((int32_t *)p)[i] = (int32_t)v; break;
	case KP_ABI_I64: ((int64_t *)p)[i] = (int64_t)v; break;
	case KP_ABI_I8: ((int8_t *)p)[i] = (int8_t)v; break;
	default: ((uint8_t *)p)[i] = (uint8_t)v; break;
	}
}

__device__ static inline double load(const void *p, int64_t i, int dtype)
{
	switch (dtype) {
	case KP_ABI_F32: return ((const float *)p)[i];
	case KP_ABI_F16: return __half2float(((const __half *)p)[i]);
	case KP_ABI_BF16: return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
	case KP_ABI_F64: return ((const double *)p)[i];
	case KP_ABI_I32: return ((const int32_t *)p)[i];
	case KP_ABI_I64: return (double)((const int64_t *)p)[i];
	case KP_ABI_I8: return ((const int8_t *)p)[i];
	default: return ((const uint8_t *)p)[i];
	}
}

/* Fill kinds, as enum kp_fill_kind in include/kernelpro/task.h. */
enum { FILL_UNIFORM, FILL_NORMAL, FILL_RANDINT, FILL_CONST, FILL_ARANGE };

__global__ void fill_kernel(void *p, int64_t n, int dtype, int kind, double a, double b, uint64_t seed)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
		double v;
		switch (kind) {
		case FILL_NORMAL: {
			double u1 = fmax(u01(seed, i, 0), 1e-300), u2 = u01(seed, i, 1);
			v = a + b * sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
			break;
		}
		case FILL_RANDINT: v = floor(a + u01(seed, i, 0) * (b - a)); break;
		case FILL_CONST: v = a; break;
		case FILL_ARANGE: v = a + (double)i * b; break;
		default: v = a + u01(seed, i, 0) * (b - a); break;
		}
		store(p, i, dtype, v);
	}
}

struct cmp_stats {
	unsigned long long nbad, nan_bad, poison_left, nfinite, first_bad;
	unsigned long long max_bits; /* bits of the largest finite |diff| (non-negative doubles order as integers) */
	double sum_abs;
};

__device__ static inline int all_bytes(const void *p, int64_t i, int size, unsigned char byte)
{
	const unsigned char *c = (const unsigned char *)p + i * size;
	for (int k = 0; k < size; k++)
		if (c[k] != byte)
			return 0;
	return 1;
}

__global__ void compare_kernel(const void *ref, const void *got, int64_t n, int dtype, int size, double atol,
			       double rtol, int is_float, unsigned char poison, struct cmp_stats *st)
{
	unsigned long long nbad = 0, nan_bad = 0, poison_left = 0, nfin = 0, first = ~0ull, maxb = 0;
	double sum = 0;
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
		double r = load(ref, i, dtype), g = load(got, i, dtype);
		double d = fabs(r - g);
		int good = is_float ? ((d <= atol + rtol * fabs(g)) || r == g) : (r == g);
		if (isfinite(d)) {
			unsigned long long bits = (unsigned long long)__double_as_longlong(d);
			maxb = bits > maxb ? bits : maxb;
			sum += d;
			nfin++;
		}
		if (!good) {
			nbad++;
			if ((unsigned long long)i < first)
				first = (unsigned long long)i;
			if (isnan(g) && isfinite(r))
				nan_bad++;
			if (all_bytes(got, i, size, poison) && !all_bytes(ref, i, size, poison))
				poison_left++;
		}
	}
	if (nbad) {
		atomicAdd(&st->nbad, nbad);
		atomicAdd(&st->nan_bad, nan_bad);
		atomicAdd(&st->poison_left, poison_left);
		atomicMin(&st->first_bad, first);
	}
	if (nfin) {
		atomicAdd(&st->nfinite, nfin);
		atomicMax(&st->max_bits, maxb);
		atomicAdd(&st->sum_abs, sum);
	}
}

__global__ void bytediff_kernel(const unsigned char *a, const unsigned char *b, size_t n, unsigned long long *count)
{
	unsigned long long c = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		c += a[i] != b[i];
	if (c)
		atomicAdd(count, c);
}

static int grid_for(int64_t n)
{
	int64_t g = (n + 255) / 256;
	return (int)(g < 1 ? 1 : g > 65536 ? 65536 : g);
}

/* --- tensors -------------------------------------------------------------------------------------- */

static kp_tensor pristine[MAX_TENSORS], ref_in[MAX_TENSORS], cand_in[MAX_TENSORS];
static kp_tensor ref_out[MAX_TENSORS], cand_out[MAX_TENSORS];
static struct cmp_stats *d_stats;
static unsigned long long *d_count;
static void *flush_buf;
static cudaStream_t stream = 0; /* the legacy default stream: what <<<g, b>>> without a stream uses */

static void alloc_tensors(kp_tensor *t, const struct spec_tensor *s, int n)
{
	for (int i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].dtype = s[i].dtype;
		t[i].ndim = s[i].ndim;
		for (int d = 0; d < KP_ABI_MAX_DIMS; d++)
			t[i].shape[d] = d < s[i].ndim ? s[i].shape[d] : 1;
		t[i].numel = s[i].numel;
		t[i].name = s[i].name;
		cudaError_t e = cudaMalloc(&t[i].data, s[i].bytes);
		if (e != cudaSuccess) {
			char b[256];
			harness_fail("cannot allocate %zu bytes for tensor '%s': %s", s[i].bytes, s[i].name,
				     err_text(e, b, sizeof(b)));
		}
	}
}

static uint64_t input_seed(uint64_t trial_seed, int i)
{
	return splitmix64(trial_seed ^ splitmix64(0x1000 + (uint64_t)i));
}

static void fill_inputs(kp_tensor *t, uint64_t trial_seed)
{
	for (int i = 0; i < S.nin; i++)
		fill_kernel<<<grid_for(t[i].numel), 256, 0, stream>>>(t[i].data, t[i].numel, S.in[i].dtype, S.in[i].fill,
								       S.in[i].a, S.in[i].b, input_seed(trial_seed, i));
	CK(cudaGetLastError());
}

static void copy_inputs(kp_tensor *dst, const kp_tensor *src)
{
	for (int i = 0; i < S.nin; i++)
		CK(cudaMemcpyAsync(dst[i].data, src[i].data, S.in[i].bytes, cudaMemcpyDeviceToDevice, stream));
}

static void poison_outputs(kp_tensor *t, int byte)
{
	for (int i = 0; i < S.nout; i++)
		CK(cudaMemsetAsync(t[i].data, byte, S.out[i].bytes, stream));
}

static unsigned long long bytes_differ(const void *a, const void *b, size_t n)
{
	unsigned long long c = 0;
	CK(cudaMemsetAsync(d_count, 0, sizeof(*d_count), stream));
	bytediff_kernel<<<grid_for((int64_t)n), 256, 0, stream>>>((const unsigned char *)a, (const unsigned char *)b, n,
								   d_count);
	CK(cudaMemcpyAsync(&c, d_count, sizeof(c), cudaMemcpyDeviceToHost, stream));
	CK(cudaStreamSynchronize(stream));
	return c;
}

/* After a kp_run that returned `rc`: waits for the device and ends the evaluation with the right
 * verdict when anything failed (the reference failing is the harness's problem, not the candidate's). */
static void check_after(const struct lib *l, int rc, const char *when)
{
	char b[256];
	cudaError_t e = cudaGetLastError();
	cudaError_t s = cudaDeviceSynchronize();
	if (rc == 0 && e == cudaSuccess && s == cudaSuccess)
		return;
	if (!strcmp(l->who, "reference"))
		harness_fail("the reference's kp_run failed (%s): %s", when,
			     err_text(rc ? rc : e ? e : s, b, sizeof(b)));
	if (s != cudaSuccess || e != cudaSuccess) {
		cudaError_t x = s != cudaSuccess ? s : e;
		logf_("CUDA error after the candidate's kp_run (%s): %s\n", when, err_text(x, b, sizeof(b)));
		if (x == cudaErrorIllegalAddress || x == cudaErrorMisalignedAddress)
			logf_("a kernel read or wrote outside its buffers: check index bounds against numel and the "
			      "grid/block sizes; compute-sanitizer names the kernel and line\n");
		finish("runtime_error", "kp_run (%s): %s", when, err_text(x, b, sizeof(b)));
	}
	logf_("the candidate's kp_run returned %s (%s)\n", err_text(rc, b, sizeof(b)), when);
	finish("runtime_error", "kp_run returned %s (%s)%s", err_text(rc, b, sizeof(b)), when,
	       rc == cudaErrorMemoryAllocation ? ": out of memory" : "");
}

/* Calls one library's kp_run and waits for it. */
static void call(const struct lib *l, const kp_tensor *in, kp_tensor *out, const char *when)
{
	check_after(l, l->run(in, S.nin, out, S.nout, (kp_stream_t)stream), when);
}

/* Compares every output with the reference's; returns 0 when all match, else fills `detail`. */
static int compare_outputs(const kp_tensor *ref, const kp_tensor *got, int poison, double *max_abs,
			   double *mean_abs, char *detail, size_t dn)
{
	*max_abs = 0;
	*mean_abs = 0;
	for (int i = 0; i < S.nout; i++) {
		struct cmp_stats st;
		int size = (int)(S.out[i].bytes / (size_t)S.out[i].numel);
		int is_float = S.out[i].dtype <= KP_ABI_F64;
		memset(&st, 0, sizeof(st));
		st.first_bad = ~0ull;
		CK(cudaMemcpyAsync(d_stats, &st, sizeof(st), cudaMemcpyHostToDevice, stream));
		compare_kernel<<<grid_for(S.out[i].numel), 256, 0, stream>>>(ref[i].data, got[i].data, S.out[i].numel,
									      S.out[i].dtype, size, S.out[i].a,
									      S.out[i].b, is_float, (unsigned char)poison,
									      d_stats);
		CK(cudaGetLastError());
		CK(cudaMemcpyAsync(&st, d_stats, sizeof(st), cudaMemcpyDeviceToHost, stream));
		CK(cudaStreamSynchronize(stream));
		double mx;
		unsigned long long bits = st.max_bits;
		memcpy(&mx, &bits, sizeof(mx));
		double mean = st.nfinite ? st.sum_abs / (double)st.nfinite : NAN;
		if (mx > *max_abs)
			*max_abs = mx;
		if (mean > *mean_abs)
			*mean_abs = mean;
		if (st.nbad) {
			unsigned char rb[8] = {0}, gb[8] = {0};
			double rv = 0, gv = 0;
			size_t off = (size_t)st.first_bad * (size_t)size;
			CK(cudaMemcpy(rb, (char *)ref[i].data + off, (size_t)size, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(gb, (char *)got[i].data + off, (size_t)size, cudaMemcpyDeviceToHost));
			switch (S.out[i].dtype) {
			case KP_ABI_F32: { float f; memcpy(&f, rb, 4); rv = f; memcpy(&f, gb, 4); gv = f; break; }
			case KP_ABI_F64: memcpy(&rv, rb, 8); memcpy(&gv, gb, 8); break;
			case KP_ABI_F16: { __half h; memcpy(&h, rb, 2); rv = __half2float(h); memcpy(&h, gb, 2); gv = __half2float(h); break; }
			case KP_ABI_BF16: { __nv_bfloat16 h; memcpy(&h, rb, 2); rv = __bfloat162float(h); memcpy(&h, gb, 2); gv = __bfloat162float(h); break; }
			case KP_ABI_I32: { int32_t v; memcpy(&v, rb, 4); rv = v; memcpy(&v, gb, 4); gv = v; break; }
			case KP_ABI_I64: { int64_t v; memcpy(&v, rb, 8); rv = (double)v; memcpy(&v, gb, 8); gv = (double)v; break; }
			case KP_ABI_I8: { int8_t v; memcpy(&v, rb, 1); rv = v; memcpy(&v, gb, 1); gv = v; break; }
			default: rv = rb[0]; gv = gb[0]; break;
			}
			/* The first bad element's coordinates. */
			char pos[160] = "";
			size_t plen = 0;
			unsigned long long rem = st.first_bad;
			int64_t coord[KP_ABI_MAX_DIMS] = {0};
			for (int d = S.out[i].ndim - 1; d >= 0; d--) {
				coord[d] = (int64_t)(rem % (unsigned long long)S.out[i].shape[d]);
				rem /= (unsigned long long)S.out[i].shape[d];
			}
			for (int d = 0; d < S.out[i].ndim && plen < sizeof(pos) - 24; d++)
				plen += (size_t)snprintf(pos + plen, sizeof(pos) - plen, "%s%lld", d ? ", " : "",
							 (long long)coord[d]);
			snprintf(detail, dn,
				 "output '%s': %llu of %lld elements differ (atol %g, rtol %g); max |diff| %.6g, mean |diff| "
				 "%.6g; first at [%s]: got %.9g, expected %.9g%s",
				 S.out[i].name, st.nbad, (long long)S.out[i].numel, S.out[i].a, S.out[i].b, mx, mean, pos, gv,
				 rv, "");
			if (st.poison_left) {
				size_t l = strlen(detail);
				snprintf(detail + l, dn - l,
					 "; %llu elements still hold the poison written before the call: never written "
					 "(grid too small, or an early return)",
					 st.poison_left);
				if (!check_off("output_poison")) {
					if (R_nflags++)
						jb_adds(&R_flags, ",");
					char m[256];
					snprintf(m, sizeof(m), "output '%s': %llu elements never written", S.out[i].name,
						 st.poison_left);
					jb_adds(&R_flags, "{\"check\":\"output_poison\",\"severity\":\"warn\",\"message\":");
					jb_str(&R_flags, m);
					jb_adds(&R_flags, "}");
				}
			}
			return -1;
		}
	}
	return 0;
}

static void check_inputs_unchanged(const kp_tensor *used, const char *when)
{
	for (int i = 0; i < S.nin; i++) {
		unsigned long long n = bytes_differ(used[i].data, pristine[i].data, S.in[i].bytes);
		if (n)
			flag("inputs_modified", 1, "the candidate changed %llu bytes of input '%s' (%s)", n, S.in[i].name, when);
	}
}

/* --- timing ----------------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct tstats {
	double median, mean, std, min, max, host_median, host_event_median;
	int n;
};

static void stats_of(double *v, int n, double *median, double *mean, double *sd, double *mn, double *mx)
{
	double s = 0, ss = 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	for (int i = 0; i < n; i++)
		s += v[i];
	*mean = s / n;
	for (int i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*sd = sqrt(ss / n);
	*mn = v[0];
	*mx = v[n - 1];
}

static void flush_l2(int k)
{
	if (S.l2_flush)
		CK(cudaMemsetAsync(flush_buf, k & 0xff, FLUSH_BYTES, stream));
}

static struct tstats time_lib(const struct lib *l, const kp_tensor *in, kp_tensor *out)
{
	struct tstats t;
	int n = S.trials;
	double *v = (double *)calloc((size_t)(n > HOST_TRIALS ? n : HOST_TRIALS) + 1, sizeof(double));
	double *hv = (double *)calloc(HOST_TRIALS, sizeof(double)), *ev = (double *)calloc(HOST_TRIALS, sizeof(double));
	cudaEvent_t a, b;
	double dummy;

	memset(&t, 0, sizeof(t));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int i = 0; i < S.warmup; i++)
		call(l, in, out, "warm-up");
	for (int k = 0; k < S.trials + S.discard; k++) {
		float ms = 0;
		CK(cudaDeviceSynchronize());
		flush_l2(k);
		CK(cudaEventRecord(a, stream));
		int rc = l->run(in, S.nin, out, S.nout, (kp_stream_t)stream);
		cudaEventRecord(b, stream);
		check_after(l, rc, "timing");
		CK(cudaEventElapsedTime(&ms, a, b));
		if (k >= S.discard)
			v[k - S.discard] = ms;
	}
	for (int k = 0; k < HOST_TRIALS; k++) {
		float ms = 0;
		CK(cudaDeviceSynchronize());
		flush_l2(k);
		CK(cudaDeviceSynchronize());
		double h0 = mono();
		CK(cudaEventRecord(a, stream));
		int rc = l->run(in, S.nin, out, S.nout, (kp_stream_t)stream);
		cudaEventRecord(b, stream);
		check_after(l, rc, "timing");
		double h1 = mono();
		CK(cudaEventElapsedTime(&ms, a, b));
		hv[k] = (h1 - h0) * 1e3;
		ev[k] = ms;
	}
	t.n = n;
	stats_of(v, n, &t.median, &t.mean, &t.std, &t.min, &t.max);
	stats_of(hv, HOST_TRIALS, &t.host_median, &dummy, &dummy, &dummy, &dummy);
	stats_of(ev, HOST_TRIALS, &t.host_event_median, &dummy, &dummy, &dummy, &dummy);
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	free(v);
	free(hv);
	free(ev);
	return t;
}

static void emit_timing(const char *key, const struct tstats *t)
{
	struct jbuf b = {0};
	jb_adds(&b, "{\"median_ms\":");
	jb_num(&b, t->median);
	jb_adds(&b, ",\"mean_ms\":");
	jb_num(&b, t->mean);
	jb_adds(&b, ",\"std_ms\":");
	jb_num(&b, t->std);
	jb_adds(&b, ",\"min_ms\":");
	jb_num(&b, t->min);
	jb_adds(&b, ",\"max_ms\":");
	jb_num(&b, t->max);
	jb_printf(&b, ",\"trials\":%d,\"host_median_ms\":", t->n);
	jb_num(&b, t->host_median);
	jb_adds(&b, "}");
	field_raw(key, b.p);
	free(b.p);
}

static void loop_lib(const struct lib *l, const kp_tensor *in, kp_tensor *out, const char *key)
{
	long n = 0;
	double t0, t1;
	char buf[160];
	CK(cudaDeviceSynchronize());
	t0 = mono();
	do {
		for (int i = 0; i < 8; i++, n++)
			check_after(l, l->run(in, S.nin, out, S.nout, (kp_stream_t)stream), "loop");
	} while (mono() - t0 < S.loop_s);
	t1 = mono();
	snprintf(buf, sizeof(buf), "{\"iterations\":%ld,\"t0\":%.9f,\"t1\":%.9f}", n, t0, t1);
	field_raw(key, buf);
}

/* --- setup ------------------------------------------------------------------------------------------ */

/* Copies a spec value; a value that does not fit is a malformed spec, never a silent truncation. */
static int set_field(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src);
	if (len >= n)
		return -1;
	memcpy(dst, src, len + 1);
	return 0;
}

static int parse_spec(FILE *in)
{
	char line[8192];
	memset(&S, 0, sizeof(S));
	memcpy(S.mode, "eval", 5);
	S.seed = 42;
	S.correct_trials = 5;
	S.warmup = 3;
	S.trials = 100;
	S.discard = 1;
	S.time_cand = S.time_ref = S.l2_flush = 1;
	while (fgets(line, sizeof(line), in)) {
		char key[32], rest[8000];
		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		if (sscanf(line, "%31s %7999[^\n]", key, rest) < 1)
			continue;
		if (!strcmp(key, "end"))
			return 0;
		if (!strcmp(key, "kp-native-spec"))
			continue;
		if (!strcmp(key, "mode")) {
			if (set_field(S.mode, sizeof(S.mode), rest))
				return -1;
		} else if (!strcmp(key, "ref")) {
			if (set_field(S.ref, sizeof(S.ref), rest))
				return -1;
		} else if (!strcmp(key, "cand")) {
			if (set_field(S.cand, sizeof(S.cand), rest))
				return -1;
		}
		else if (!strcmp(key, "seed"))
			S.seed = strtoull(rest, NULL, 10);
		else if (!strcmp(key, "correct_trials"))
			S.correct_trials = (int)strtol(rest, NULL, 10);
		else if (!strcmp(key, "warmup"))
			S.warmup = (int)strtol(rest, NULL, 10);
		else if (!strcmp(key, "trials"))
			S.trials = (int)strtol(rest, NULL, 10);
		else if (!strcmp(key, "discard"))
			S.discard = (int)strtol(rest, NULL, 10);
		else if (!strcmp(key, "time_candidate"))
			S.time_cand = (int)strtol(rest, NULL, 10);
		else if (!strcmp(key, "time_reference"))
			S.time_ref = (int)strtol(rest, NULL, 10);
		else if (!strcmp(key, "l2_flush"))
			S.l2_flush = (int)strtol(rest, NULL, 10);
		else if (!strcmp(key, "limit_check"))
			S.limit_check = strtod(rest, NULL);
		else if (!strcmp(key, "limit_timing"))
			S.limit_timing = strtod(rest, NULL);
		else if (!strcmp(key, "loop_s"))
			S.loop_s = strtod(rest, NULL);
		else if (!strcmp(key, "iters"))
			S.iters = strtol(rest, NULL, 10);
		else if (!strcmp(key, "off") && S.noff < 32) {
			if (set_field(S.off[S.noff++], sizeof(S.off[0]), rest))
				return -1;
		}
		else if (!strcmp(key, "in") || !strcmp(key, "out")) {
			int is_in = key[0] == 'i';
			struct spec_tensor *t = is_in ? &S.in[S.nin] : &S.out[S.nout];
			char *p = rest, *endp;
			int n;
			if ((is_in ? S.nin : S.nout) >= MAX_TENSORS)
				return -1;
			if (sscanf(p, "%63s %d %d%n", t->name, &t->dtype, &t->ndim, &n) != 3 || t->ndim < 0 ||
			    t->ndim > KP_ABI_MAX_DIMS || t->dtype < 0 || t->dtype > KP_ABI_U8)
				return -1;
			p += n;
			t->numel = 1;
			for (int d = 0; d < t->ndim; d++) {
				t->shape[d] = strtoll(p, &endp, 10);
				if (endp == p || t->shape[d] <= 0)
					return -1;
				p = endp;
				t->numel *= t->shape[d];
			}
			if (is_in)
				t->fill = (int)strtol(p, &p, 10);
			t->a = strtod(p, &p);
			t->b = strtod(p, &p);
			static const size_t sz[] = {4, 2, 2, 8, 4, 8, 1, 1};
			t->bytes = (size_t)t->numel * sz[t->dtype];
			if (is_in)
				S.nin++;
			else
				S.nout++;
		} else
			return -1;
	}
	return 0;
}

static void open_lib(struct lib *l, const char *path, const char *who)
{
	l->who = who;
	l->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!l->h) {
		if (!strcmp(who, "reference"))
			harness_fail("cannot load the reference '%s': %s", path, dlerror());
		logf_("dlopen: %s\n", dlerror());
		finish("compile_error", "the candidate library does not load: %s", dlerror());
	}
	l->run = (run_fn)dlsym(l->h, "kp_run");
	l->init = (init_fn)dlsym(l->h, "kp_init");
	l->fini = (fini_fn)dlsym(l->h, "kp_fini");
	if (!l->run) {
		if (!strcmp(who, "reference"))
			harness_fail("the reference does not export kp_run");
		logf_("native candidates must define\n  extern \"C\" int kp_run(const kp_tensor *in, int nin, kp_tensor "
		      "*out, int nout, kp_stream_t stream)\n(include kp_native.h and use KP_EXPORT)\n");
		finish("compile_error", "the candidate does not export kp_run");
	}
}

static void init_lib(const struct lib *l, const kp_tensor *in, const kp_tensor *out)
{
	char b[256];
	if (!l->init)
		return;
	int rc = l->init(in, S.nin, out, S.nout);
	cudaError_t e = cudaDeviceSynchronize();
	if (rc == 0 && e == cudaSuccess)
		return;
	if (!strcmp(l->who, "reference"))
		harness_fail("the reference's kp_init failed: %s", err_text(rc ? rc : e, b, sizeof(b)));
	finish("runtime_error", "kp_init failed: %s", err_text(rc ? rc : e, b, sizeof(b)));
}

int main(void)
{
	struct lib ref, cand;
	char detail[1024];
	double max_abs = 0, mean_abs = 0, worst_max = 0, worst_mean = 0;
	cudaDeviceProp prop;
	int baseline, run_mode;

	/* The result channel is a private copy of stdout; stdout itself becomes stderr. */
	res_fd = dup(1);
	if (res_fd < 0 || dup2(2, 1) < 0)
		return 3;
	res = fdopen(res_fd, "w");
	signal(SIGALRM, on_alarm);
	if (parse_spec(stdin))
		harness_fail("malformed spec on stdin");
	baseline = !strcmp(S.mode, "baseline");
	run_mode = !strcmp(S.mode, "run");

	phase("load", S.limit_check);
	{
		cudaError_t e = cudaSetDevice(0);
		if (e == cudaSuccess)
			e = cudaFree(0);
		if (e != cudaSuccess) {
			char b[256];
			harness_fail("no usable GPU: %s", err_text(e, b, sizeof(b)));
		}
	}
	CK(cudaGetDeviceProperties(&prop, 0));
	{
		char name[300];
		struct jbuf b = {0};
		snprintf(name, sizeof(name), "%s", prop.name);
		jb_str(&b, name);
		field_raw("gpu_name", b.p);
		free(b.p);
	}
	open_lib(&ref, S.ref, "reference");
	if (!baseline)
		open_lib(&cand, S.cand, "candidate");
	field_raw("compiled", "true");
	{
		double io = 0;
		for (int i = 0; i < S.nin; i++)
			io += (double)S.in[i].bytes;
		for (int i = 0; i < S.nout; i++)
			io += (double)S.out[i].bytes;
		field_num("io_bytes", io);
	}
	alloc_tensors(pristine, S.in, S.nin);
	alloc_tensors(ref_in, S.in, S.nin);
	alloc_tensors(cand_in, S.in, S.nin);
	alloc_tensors(ref_out, S.out, S.nout);
	alloc_tensors(cand_out, S.out, S.nout);
	CK(cudaMalloc(&d_stats, sizeof(*d_stats)));
	CK(cudaMalloc(&d_count, sizeof(*d_count)));
	if (S.l2_flush)
		CK(cudaMalloc(&flush_buf, FLUSH_BYTES));
	fill_inputs(pristine, S.seed);
	copy_inputs(ref_in, pristine);
	copy_inputs(cand_in, pristine);
	CK(cudaDeviceSynchronize());
	init_lib(&ref, ref_in, ref_out);
	if (!baseline)
		init_lib(&cand, cand_in, cand_out);

	if (baseline) {
		phase("timing", S.limit_timing);
		fill_inputs(pristine, S.seed);
		copy_inputs(ref_in, pristine);
		struct tstats t = time_lib(&ref, ref_in, ref_out);
		emit_timing("ref_runtime", &t);
		finish("correct", "reference timed");
	}

	phase("correctness", S.limit_check);
	int ntrials = run_mode ? 1 : S.correct_trials;
	uint64_t trial_seed = S.seed;
	int passed = 0;
	for (int trial = 0; trial < ntrials; trial++) {
		trial_seed = splitmix64(S.seed + 0x100 * (uint64_t)(trial + 1));
		fill_inputs(pristine, trial_seed);
		copy_inputs(ref_in, pristine);
		copy_inputs(cand_in, pristine);
		poison_outputs(ref_out, POISON_NAN);
		poison_outputs(cand_out, POISON_NAN);
		char when[64];
		snprintf(when, sizeof(when), "correctness trial %d", trial + 1);
		/* Reference first in even trials, candidate first in odd ones. */
		if (trial % 2 == 0) {
			call(&ref, ref_in, ref_out, when);
			call(&cand, cand_in, cand_out, when);
		} else {
			call(&cand, cand_in, cand_out, when);
			call(&ref, ref_in, ref_out, when);
		}
		int ref_changed = 0;
		for (int i = 0; i < S.nin; i++)
			ref_changed |= bytes_differ(ref_in[i].data, pristine[i].data, S.in[i].bytes) != 0;
		if (!ref_changed)
			check_inputs_unchanged(cand_in, when);
		field_num("trials_run", trial + 1);
		if (compare_outputs(ref_out, cand_out, POISON_NAN, &max_abs, &mean_abs, detail, sizeof(detail))) {
			field_num("trials_passed", passed);
			field_num("max_abs_diff", max_abs);
			field_num("mean_abs_diff", mean_abs);
			logf_("correctness trial %d of %d (seed %llu):\n%s\n", trial + 1, ntrials, (unsigned long long)trial_seed,
			      detail);
			finish("wrong_output", "trial %d of %d: %s", trial + 1, ntrials, detail);
		}
		worst_max = max_abs > worst_max ? max_abs : worst_max;
		worst_mean = mean_abs > worst_mean ? mean_abs : worst_mean;
		passed++;
	}
	field_num("trials_passed", passed);
	field_num("max_abs_diff", worst_max);
	field_num("mean_abs_diff", worst_mean);

	/* repeat_mismatch: the same inputs twice more, different poison each time. */
	if (!check_off("repeat_mismatch")) {
		int poisons[2] = {POISON_BIG, POISON_NAN};
		for (int k = 0; k < 2; k++) {
			copy_inputs(cand_in, pristine);
			poison_outputs(cand_out, poisons[k]);
			call(&cand, cand_in, cand_out, "repeat check");
			if (compare_outputs(ref_out, cand_out, poisons[k], &max_abs, &mean_abs, detail, sizeof(detail)))
				flag("repeat_mismatch", 1, "a repeated run on the same inputs differs: %s", detail);
		}
	}
	/* input_memo: new values in the same input buffers must give a new result. */
	if (!check_off("input_memo")) {
		uint64_t s2 = splitmix64(trial_seed ^ 0x5DEECE66Dull);
		copy_inputs(cand_in, pristine);
		call(&cand, cand_in, cand_out, "input_memo check");
		fill_inputs(cand_in, s2);
		fill_inputs(pristine, s2);
		copy_inputs(ref_in, pristine);
		poison_outputs(ref_out, POISON_NAN);
		poison_outputs(cand_out, POISON_NAN);
		call(&ref, ref_in, ref_out, "input_memo check");
		call(&cand, cand_in, cand_out, "input_memo check");
		if (compare_outputs(ref_out, cand_out, POISON_NAN, &max_abs, &mean_abs, detail, sizeof(detail)))
			flag("input_memo", 1, "new values in the same input buffers gave a stale result: %s", detail);
	}

	if (run_mode) {
		phase("run", S.limit_timing);
		fill_inputs(pristine, S.seed);
		copy_inputs(cand_in, pristine);
		CK(cudaDeviceSynchronize());
		nvtxRangePushA("kp_candidate");
		for (long i = 0; i < (S.iters > 0 ? S.iters : 1); i++)
			call(&cand, cand_in, cand_out, "run");
		nvtxRangePop();
		field_num("iterations", (double)(S.iters > 0 ? S.iters : 1));
		finish("correct", "ran %ld iterations", S.iters > 0 ? S.iters : 1);
	}

	phase("timing", S.limit_timing);
	fill_inputs(pristine, S.seed);
	copy_inputs(ref_in, pristine);
	copy_inputs(cand_in, pristine);
	struct tstats tc = {0}, tr = {0};
	if (S.time_cand) {
		tc = time_lib(&cand, cand_in, cand_out);
		emit_timing("runtime", &tc);
		if (tc.host_median > tc.host_event_median * 1.5 + 0.1)
			flag("host_time", 1,
			     "host time with a full device sync is %.4g ms but CUDA events measured %.4g ms (median of %d "
			     "calls): work ran outside the timed stream",
			     tc.host_median, tc.host_event_median, HOST_TRIALS);
	}
	if (S.time_ref) {
		tr = time_lib(&ref, ref_in, ref_out);
		emit_timing("ref_runtime", &tr);
	}
	if (S.loop_s > 0) {
		phase("loop", S.limit_timing);
		loop_lib(&cand, cand_in, cand_out, "loop");
		if (S.time_ref)
			loop_lib(&ref, ref_in, ref_out, "ref_loop");
	}
	if (cand.fini)
		cand.fini();
	if (ref.fini)
		ref.fini();
	if (S.time_cand)
		finish("correct", "correct on %d of %d trials; %.4g ms median", passed, passed, tc.median);
	finish("correct", "correct on %d of %d trials", passed, passed);
}
