// kp-energy: measures the energy per launch of a native task's candidate (the kp_native.h ABI) or of
// a built-in kernel with NVML's total-energy counter, next to the GPU work. Run by
// `kernelpro energy`; prints one JSON object on stdout (kp_energy_parse_driver_output reads it).
//
//   kp-energy [options] builtin NAME
//   kp-energy [options] task [--in NAME=DTYPE:SHAPE:FILL:A:B]... [--out NAME=DTYPE:SHAPE]... LABEL=LIB.so...
//
// Several LIBs are measured with interleaved windows (an A/B at matched conditions).
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/kp_native.h"
#include "kp_energy_cuda.h"
#include "kp_energy_kernels.cuh"

#define MAX_TENSORS 64
#define MAX_LIBS 8

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: kp-energy [options] builtin fma|copy|swish_ieee|swish_fast\n"
		"       kp-energy [options] task [--in NAME=DTYPE:SHAPE:FILL:A:B]... [--out NAME=DTYPE:SHAPE]... "
		"LABEL=LIB.so...\n"
		"options: --gpu N --windows N --window-s S --launches N --idle-s S --idle-w W --warmup-s S\n"
		"         --settle-s S --cooldown-s S --no-align --seed N\n"
		"SHAPE is 1024x1024 (or - for a scalar); FILL is uniform, normal, randint, const or arange.\n");
}

/* ---- built-in kernels: known workloads for the GPU tests ------------------------------------- */

struct builtin {
	const char *name;
	int which;
	float *a, *c;
	size_t n;
	int sms;
};

static int launch_builtin(void *ud, cudaStream_t s)
{
	struct builtin *b = (struct builtin *)ud;
	switch (b->which) {
	case 0: fma_chain_fp32<<<b->sms * 4, 256, 0, s>>>(b->c, 1 << 13); break;
	case 1: copy_f4<<<b->sms * 16, 256, 0, s>>>((const float4 *)b->a, (float4 *)b->c, b->n / 4); break;
	case 2: swish_ieee<<<(unsigned)((b->n + 255) / 256), 256, 0, s>>>(b->a, b->c, (int)b->n); break;
	default: swish_fast<<<(unsigned)((b->n + 255) / 256), 256, 0, s>>>(b->a, b->c, (int)b->n); break;
	}
	return 0;
}

static int setup_builtin(struct builtin *b, const char *name, uint64_t seed, struct kp_error *err)
{
	static const char *const names[] = {"fma", "copy", "swish_ieee", "swish_fast"};
	cudaError_t e;
	int dev = 0;
	memset(b, 0, sizeof(*b));
	b->which = -1;
	for (int i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			b->which = i;
	if (b->which < 0)
		return kp_error_set(err, KP_EINVAL, "kp-energy: unknown built-in '%s' (fma, copy, swish_ieee, swish_fast)",
				    name);
	b->name = name;
	cudaGetDevice(&dev);
	cudaDeviceGetAttribute(&b->sms, cudaDevAttrMultiProcessorCount, dev);
	b->n = b->which == 1 ? (size_t)64 << 20 : (size_t)1 << 26; /* 256 MiB copy; the probe's 2^26 swish */
	if ((e = cudaMalloc(&b->a, b->n * sizeof(float))) != cudaSuccess ||
	    (e = cudaMalloc(&b->c, b->n * sizeof(float))) != cudaSuccess)
		return kp_cuda_error(err, e, "cudaMalloc");
	if (kp_cuda_fill(b->a, KP_ABI_F32, b->n, 0, -5, 5, seed, 0, err))
		return err->code;
	if ((e = cudaDeviceSynchronize()) != cudaSuccess)
		return kp_cuda_error(err, e, "fill");
	return 0;
}

/* ---- native tasks ------------------------------------------------------------------------------ */

struct spec {
	char name[64];
	int dtype;
	int ndim;
	int64_t shape[KP_ABI_MAX_DIMS];
	int fill;
	double a, b;
};

struct task;

struct lib {
	struct task *task;
	char label[96];
	const char *path;
	void *handle;
	int (*run)(const kp_tensor *, int, kp_tensor *, int, kp_stream_t);
	int (*init)(const kp_tensor *, int, const kp_tensor *, int);
	void (*fini)(void);
	kp_tensor out[MAX_TENSORS];
	int initialized;
};

struct task {
	struct spec in[MAX_TENSORS], out[MAX_TENSORS];
	int nin, nout;
	kp_tensor tin[MAX_TENSORS];
	struct lib libs[MAX_LIBS];
	int nlibs;
	struct lib *current;
};

static int dtype_parse(const char *s, int *out)
{
	static const char *const names[] = {"f32", "f16", "bf16", "f64", "i32", "i64", "i8", "u8"};
	for (int i = 0; i < 8; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	return -1;
}

static size_t dtype_size(int d)
{
	static const size_t sizes[] = {4, 2, 2, 8, 4, 8, 1, 1};
	return sizes[d];
}

/* NAME=DTYPE:SHAPE[:FILL:A:B] */
static int spec_parse(const char *arg, int is_input, struct spec *s, struct kp_error *err)
{
	char buf[512], *f[6] = {0}, *p, *save = NULL;
	int nf = 0;
	const char *eq = strchr(arg, '=');
	static const char *const fills[] = {"uniform", "normal", "randint", "const", "arange"};

	memset(s, 0, sizeof(*s));
	if (!eq || (size_t)(eq - arg) >= sizeof(s->name) || strlen(eq + 1) >= sizeof(buf))
		return kp_error_set(err, KP_EINVAL, "kp-energy: bad tensor '%s' (NAME=DTYPE:SHAPE...)", arg);
	memcpy(s->name, arg, (size_t)(eq - arg));
	snprintf(buf, sizeof(buf), "%s", eq + 1);
	for (p = strtok_r(buf, ":", &save); p && nf < 6; p = strtok_r(NULL, ":", &save))
		f[nf++] = p;
	if (nf < 2 || dtype_parse(f[0], &s->dtype) || (is_input && nf != 5) || (!is_input && nf != 2))
		return kp_error_set(err, KP_EINVAL, "kp-energy: bad tensor '%s' (inputs NAME=DTYPE:SHAPE:FILL:A:B, "
				    "outputs NAME=DTYPE:SHAPE)", arg);
	if (strcmp(f[1], "-")) {
		char *q = f[1];
		while (*q) {
			char *end;
			long long d;
			errno = 0;
			d = strtoll(q, &end, 10);
			if (end == q || d <= 0 || errno || s->ndim == KP_ABI_MAX_DIMS || (*end && *end != 'x'))
				return kp_error_set(err, KP_EINVAL, "kp-energy: bad shape in '%s'", arg);
			s->shape[s->ndim++] = d;
			q = *end ? end + 1 : end;
		}
	}
	if (is_input) {
		char *e1, *e2;
		s->fill = -1;
		for (int i = 0; i < 5; i++)
			if (!strcmp(f[2], fills[i]))
				s->fill = i;
		s->a = strtod(f[3], &e1);
		s->b = strtod(f[4], &e2);
		if (s->fill < 0 || *e1 || *e2)
			return kp_error_set(err, KP_EINVAL, "kp-energy: bad fill in '%s'", arg);
	}
	return 0;
}

static int64_t numel(const struct spec *s)
{
	int64_t n = 1;
	for (int i = 0; i < s->ndim; i++)
		n *= s->shape[i];
	return n;
}

static int alloc_tensor(const struct spec *s, kp_tensor *t, struct kp_error *err)
{
	cudaError_t e;
	memset(t, 0, sizeof(*t));
	t->dtype = s->dtype;
	t->ndim = s->ndim;
	for (int i = 0; i < KP_ABI_MAX_DIMS; i++)
		t->shape[i] = i < s->ndim ? s->shape[i] : 1;
	t->numel = numel(s);
	t->name = s->name;
	if ((e = cudaMalloc(&t->data, (size_t)t->numel * dtype_size(s->dtype))) != cudaSuccess)
		return kp_cuda_error(err, e, "cudaMalloc");
	return 0;
}

static int launch_task(void *ud, cudaStream_t s)
{
	struct lib *l = (struct lib *)ud;
	return l->run(l->task->tin, l->task->nin, l->out, l->task->nout, (kp_stream_t)s);
}

static int setup_task(struct task *t, uint64_t seed, struct kp_error *err)
{
	cudaError_t e;
	int rc;
	for (int i = 0; i < t->nin; i++) {
		if ((rc = alloc_tensor(&t->in[i], &t->tin[i], err)))
			return rc;
		if ((rc = kp_cuda_fill(t->tin[i].data, t->in[i].dtype, (size_t)t->tin[i].numel, t->in[i].fill, t->in[i].a,
				       t->in[i].b, kp_cuda_input_seed(seed, i), 0, err)))
			return rc;
	}
	for (int k = 0; k < t->nlibs; k++) {
		struct lib *l = &t->libs[k];
		for (int i = 0; i < t->nout; i++)
			if ((rc = alloc_tensor(&t->out[i], &l->out[i], err)))
				return rc;
		l->task = t;
		l->handle = dlopen(l->path, RTLD_NOW | RTLD_LOCAL);
		if (!l->handle)
			return kp_error_set(err, KP_EINVAL, "kp-energy: cannot load '%s': %s", l->path, dlerror());
		*(void **)&l->run = dlsym(l->handle, "kp_run");
		*(void **)&l->init = dlsym(l->handle, "kp_init");
		*(void **)&l->fini = dlsym(l->handle, "kp_fini");
		if (!l->run)
			return kp_error_set(err, KP_EINVAL, "kp-energy: '%s' does not export kp_run (see kp_native.h)", l->path);
		if (l->init) {
			int r = l->init(t->tin, t->nin, l->out, t->nout);
			if (r)
				return kp_error_set(err, KP_ECHILD, "%s: kp_init returned %d", l->label, r);
		}
		l->initialized = 1;
	}
	if ((e = cudaDeviceSynchronize()) != cudaSuccess)
		return kp_cuda_error(err, e, "task setup");
	return 0;
}

static void teardown_task(struct task *t)
{
	for (int k = 0; k < t->nlibs; k++) {
		if (t->libs[k].initialized && t->libs[k].fini)
			t->libs[k].fini();
		/* Libraries stay loaded: their kernels may still be referenced by the CUDA runtime. */
	}
}

/* ---- main ---------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"gpu", required_argument, 0, 'g'},       {"windows", required_argument, 0, 'w'},
		{"window-s", required_argument, 0, 'W'},  {"launches", required_argument, 0, 'n'},
		{"idle-s", required_argument, 0, 'i'},    {"idle-w", required_argument, 0, 'I'},
		{"warmup-s", required_argument, 0, 'u'},  {"settle-s", required_argument, 0, 's'},
		{"cooldown-s", required_argument, 0, 'c'}, {"no-align", no_argument, 0, 'A'},
		{"seed", required_argument, 0, 'S'},      {"in", required_argument, 0, 'x'},
		{"out", required_argument, 0, 'y'},       {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	static struct task task;
	struct kp_energy_opts o;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_energy_nvml *nvml = NULL;
	struct kp_energy_meter meter;
	struct kp_cuda_workload cw[MAX_LIBS];
	struct kp_energy_workload w[MAX_LIBS];
	struct kp_energy_measurement m[MAX_LIBS];
	struct builtin bi;
	char workload[256];
	int gpu = 0, nw = 0, c;
	double v;
	uint64_t seed = 42;
	const char *mode;

	kp_energy_opts_default(&o);
	memset(cw, 0, sizeof(cw));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		const char *bad = NULL;
		switch (c) {
		case 'g': if (kp_cuda_parse_num(optarg, 0, 63, &v)) bad = "--gpu"; else gpu = (int)v; break;
		case 'w': if (kp_cuda_parse_num(optarg, 1, KP_ENERGY_MAX_WINDOWS, &v)) bad = "--windows"; else o.windows = (int)v; break;
		case 'W': if (kp_cuda_parse_num(optarg, 0.01, 600, &o.window_s)) bad = "--window-s"; break;
		case 'n': if (kp_cuda_parse_num(optarg, 1, 2e7, &v)) bad = "--launches"; else o.launches = (long)v; break;
		case 'i': if (kp_cuda_parse_num(optarg, 0, 600, &o.idle_s)) bad = "--idle-s"; break;
		case 'I': if (kp_cuda_parse_num(optarg, 0, 1e4, &o.idle_power_w)) bad = "--idle-w"; break;
		case 'u': if (kp_cuda_parse_num(optarg, 0, 600, &o.warmup_s)) bad = "--warmup-s"; break;
		case 's': if (kp_cuda_parse_num(optarg, 0, 600, &o.settle_s)) bad = "--settle-s"; break;
		case 'c': if (kp_cuda_parse_num(optarg, 0, 600, &o.cooldown_s)) bad = "--cooldown-s"; break;
		case 'A': o.align = 0; break;
		case 'S': if (kp_cuda_parse_num(optarg, 0, 1e15, &v)) bad = "--seed"; else seed = (uint64_t)v; break;
		case 'x':
		case 'y': {
			int in = c == 'x';
			if ((in ? task.nin : task.nout) >= MAX_TENSORS - 1) {
				kp_error_set(&err, KP_EINVAL, "kp-energy: at most %d tensors each way", MAX_TENSORS - 1);
				return kp_energy_exit_fail(&err);
			}
			if (spec_parse(optarg, in, in ? &task.in[task.nin++] : &task.out[task.nout++], &err))
				return kp_energy_exit_fail(&err);
			break;
		}
		case 'h': usage(stdout); return 0;
		default: bad = argv[optind - 1]; break;
		}
		if (bad) {
			usage(stderr);
			kp_error_set(&err, KP_EINVAL, "kp-energy: bad value or unknown option '%s'", bad);
			kp_energy_exit_fail(&err);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		kp_error_set(&err, KP_EINVAL, "kp-energy: say 'builtin NAME' or 'task ... LIB.so'");
		kp_energy_exit_fail(&err);
		return 2;
	}
	mode = argv[optind++];

	/* NVML and the device before anything else: "energy unavailable" is the first thing to know. */
	if (kp_cuda_open_meter(gpu, &nvml, &meter, &err))
		return kp_energy_exit_fail(&err);

	if (!strcmp(mode, "builtin")) {
		if (optind != argc - 1) {
			kp_error_set(&err, KP_EINVAL, "kp-energy: 'builtin' takes one name");
			goto fail;
		}
		if (setup_builtin(&bi, argv[optind], seed, &err))
			goto fail;
		snprintf(workload, sizeof(workload), "builtin:%s", argv[optind]);
		if (kp_cuda_workload_init(&cw[0], argv[optind], launch_builtin, &bi, &err))
			goto fail;
		w[nw++] = cw[0].w;
	} else if (!strcmp(mode, "task")) {
		/* Inputs may also follow the mode word. */
		while (optind < argc && (!strcmp(argv[optind], "--in") || !strcmp(argv[optind], "--out"))) {
			int in = argv[optind][2] == 'i';
			if (optind + 1 >= argc || (in ? task.nin : task.nout) >= MAX_TENSORS - 1) {
				kp_error_set(&err, KP_EINVAL, "kp-energy: '%s' needs a tensor", argv[optind]);
				goto fail;
			}
			if (spec_parse(argv[optind + 1], in, in ? &task.in[task.nin++] : &task.out[task.nout++], &err))
				goto fail;
			optind += 2;
		}
		if (optind >= argc || argc - optind > MAX_LIBS) {
			kp_error_set(&err, KP_EINVAL, "kp-energy: 'task' needs 1 to %d LABEL=LIB.so", MAX_LIBS);
			goto fail;
		}
		if (task.nout == 0) {
			kp_error_set(&err, KP_EINVAL, "kp-energy: a task needs at least one --out");
			goto fail;
		}
		for (; optind < argc; optind++) {
			struct lib *l = &task.libs[task.nlibs++];
			const char *eq = strchr(argv[optind], '=');
			l->path = eq ? eq + 1 : argv[optind];
			snprintf(l->label, sizeof(l->label), "%.*s", eq ? (int)(eq - argv[optind]) : 95, argv[optind]);
		}
		if (setup_task(&task, seed, &err))
			goto fail;
		snprintf(workload, sizeof(workload), "task: %d input(s), %d output(s), %d librar%s", task.nin, task.nout,
			 task.nlibs, task.nlibs == 1 ? "y" : "ies");
		for (int k = 0; k < task.nlibs; k++) {
			if (kp_cuda_workload_init(&cw[k], task.libs[k].label, launch_task, &task.libs[k], &err))
				goto fail;
			w[nw++] = cw[k].w;
		}
	} else {
		usage(stderr);
		kp_error_set(&err, KP_EINVAL, "kp-energy: unknown mode '%s' (builtin or task)", mode);
		goto fail;
	}

	if (kp_energy_measure_many(&meter, w, (size_t)nw, &o, m, &err))
		goto fail;
	teardown_task(&task);
	for (int k = 0; k < nw; k++)
		kp_cuda_workload_release(&cw[k]);
	kp_energy_nvml_close(nvml);
	return kp_energy_exit_ok(m, (size_t)nw, workload);
fail:
	teardown_task(&task);
	kp_energy_nvml_close(nvml);
	return kp_energy_exit_fail(&err);
}
