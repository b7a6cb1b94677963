/* kp-native-harness: the reference's and the candidate's libraries: loading them, kp_init, and calling
 * kp_run with every failure turned into the right verdict (the reference failing is the harness's
 * problem, not the candidate's). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "nh.h"

static int is_reference(const struct lib *l)
{
	return !strcmp(l->who, "reference");
}

static unsigned long sb_seen; /* refused calls already looked at */

void sandbox_check(const struct nh *h, const struct lib *l, const char *when)
{
	unsigned long now = kp_sandbox_refused(), n = now - sb_seen;
	sb_seen = now;
	if (!n)
		return;
	if (is_reference(l))
		harness_fail("the reference made %lu call(s) the sandbox refuses (%s): starting a process or reaching "
			     "another one; evaluate this task with KERNELPRO_SANDBOX=nospawn",
			     n, when);
	res_flag(h, "process_spawn", "refuse",
		 "the candidate made %lu call(s) the sandbox refuses (%s): starting a process or reaching another one "
		 "(sandbox.refused names them); they failed with EPERM",
		 n, when);
}

void open_lib(const struct nh *h, struct lib *l, const char *path, const char *who)
{
	l->who = who;
	l->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	sandbox_check(h, l, "in its constructors, while the library was loaded");
	if (!l->h) {
		if (is_reference(l))
			harness_fail("cannot load the reference '%s': %s", path, dlerror());
		res_log("dlopen: %s\n", dlerror());
		finish("compile_error", "the candidate library does not load: %s", dlerror());
	}
	l->run = (run_fn)dlsym(l->h, "kp_run");
	l->init = (init_fn)dlsym(l->h, "kp_init");
	l->fini = (fini_fn)dlsym(l->h, "kp_fini");
	if (!l->run) {
		if (is_reference(l))
			harness_fail("the reference does not export kp_run");
		res_log("native candidates must define\n  extern \"C\" int kp_run(const kp_tensor *in, int nin, kp_tensor "
			"*out, int nout, kp_stream_t stream)\n(include kp_native.h and use KP_EXPORT)\n");
		finish("compile_error", "the candidate does not export kp_run");
	}
}

void init_lib(const struct nh *h, const struct lib *l, const kp_tensor *in, const kp_tensor *out)
{
	char b[256];
	if (!l->init)
		return;
	int rc = l->init(in, h->S.nin, out, h->S.nout);
	cudaError_t e = cudaDeviceSynchronize();
	sandbox_check(h, l, "in kp_init");
	if (rc == 0 && e == cudaSuccess)
		return;
	if (is_reference(l))
		harness_fail("the reference's kp_init failed: %s", err_text(rc ? rc : e, b, sizeof(b)));
	finish("runtime_error", "kp_init failed: %s", err_text(rc ? rc : e, b, sizeof(b)));
}

void check_after(const struct lib *l, int rc, const char *when)
{
	char b[256];
	cudaError_t e = cudaGetLastError();
	cudaError_t s = cudaDeviceSynchronize();
	if (rc == 0 && e == cudaSuccess && s == cudaSuccess)
		return;
	if (is_reference(l))
		harness_fail("the reference's kp_run failed (%s): %s", when, err_text(rc ? rc : e ? e : s, b, sizeof(b)));
	if (s != cudaSuccess || e != cudaSuccess) {
		cudaError_t x = s != cudaSuccess ? s : e;
		res_log("CUDA error after the candidate's kp_run (%s): %s\n", when, err_text(x, b, sizeof(b)));
		if (x == cudaErrorIllegalAddress || x == cudaErrorMisalignedAddress)
			res_log("a kernel read or wrote outside its buffers: check index bounds against numel and the "
				"grid/block sizes; compute-sanitizer names the kernel and line\n");
		finish("runtime_error", "kp_run (%s): %s", when, err_text(x, b, sizeof(b)));
	}
	res_log("the candidate's kp_run returned %s (%s)\n", err_text(rc, b, sizeof(b)), when);
	finish("runtime_error", "kp_run returned %s (%s)%s", err_text(rc, b, sizeof(b)), when,
	       rc == cudaErrorMemoryAllocation ? ": out of memory" : "");
}

void fini_lib(const struct nh *h, const struct lib *l)
{
	if (!l->fini)
		return;
	l->fini();
	sandbox_check(h, l, "in kp_fini");
}

void call(const struct nh *h, const struct lib *l, const kp_tensor *in, kp_tensor *out, const char *when)
{
	int rc = l->run(in, h->S.nin, out, h->S.nout, (kp_stream_t)h->stream);
	(void)cudaDeviceSynchronize(); /* host callbacks it queued have run; check_after reads any error */
	sandbox_check(h, l, when);
	check_after(l, rc, when);
}
