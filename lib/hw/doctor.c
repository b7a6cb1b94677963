/* The checks behind `kernelpro doctor`, each reported as ok / missing / broken with a fix. */
#include "base/setup.h"

#include <unistd.h>

#include "kernelpro/buf.h"
#include "kernelpro/child.h"
#include "kernelpro/doctor.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/ncu_metrics.h"
#include "kernelpro/secret.h"
#include "kernelpro/str.h"
#include "kernelpro/toolchain.h"

const char *kp_check_status_name(enum kp_check_status s)
{
	switch (s) {
	case KP_CHECK_OK: return "ok";
	case KP_CHECK_MISSING: return "missing";
	case KP_CHECK_BROKEN: return "broken";
	case KP_CHECK_INFO: return "info";
	}
	return "unknown";
}

static struct kp_check *add(struct kp_doctor *d, const char *name, enum kp_check_status st, const char *fix,
			    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static struct kp_check *add(struct kp_doctor *d, const char *name, enum kp_check_status st, const char *fix,
			    const char *fmt, ...)
{
	struct kp_check *c;
	va_list ap;
	if (d->count >= KP_DOCTOR_MAX)
		KP_BUG("too many doctor checks");
	c = &d->checks[d->count++];
	kp_strlcpy(c->name, name, sizeof(c->name));
	c->status = st;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
	kp_strlcpy(c->fix, fix ? fix : "", sizeof(c->fix));
	return c;
}

/* Runs `path args...` briefly; returns the first line of output matching `needle` (or the first line). */
static int tool_version(const char *path, const char *arg, const char *needle, char *out, size_t n)
{
	struct kp_child c = KP_CHILD_INIT;
	int ok = 0;
	kp_strvec_pushl(&c.args, path, arg, NULL);
	c.timeout_ms = 15000;
	c.merge_stderr = 1;
	c.out_cap = 1 << 16;
	out[0] = '\0';
	if (kp_child_run(&c, NULL) == 0 && kp_child_ok(&c)) {
		char *line = c.out.buf, *next;
		ok = 1;
		for (; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			if (!needle || strstr(line, needle)) {
				kp_strlcpy(out, kp_str_trim(line), n);
				break;
			}
		}
	}
	kp_child_release(&c);
	return ok;
}

static void check_nvcc(struct kp_doctor *d)
{
	char *nvcc = kp_cuda_tool("nvcc");
	char ver[200];
	if (!nvcc) {
		add(d, "nvcc", KP_CHECK_MISSING,
		    "install the CUDA toolkit and set CUDA_HOME (or put nvcc on PATH)",
		    "not found in $CUDA_HOME/bin, /usr/local/cuda/bin or on PATH");
		return;
	}
	if (tool_version(nvcc, "--version", "release", ver, sizeof(ver)))
		add(d, "nvcc", KP_CHECK_OK, NULL, "%s (%s)", ver, nvcc);
	else
		add(d, "nvcc", KP_CHECK_BROKEN, "reinstall the CUDA toolkit", "'%s --version' failed", nvcc);
	free(nvcc);
}

static void check_host_cc(struct kp_doctor *d)
{
	char *gxx = kp_which("g++");
	char ver[200];
	if (!gxx) {
		add(d, "host-compiler", KP_CHECK_MISSING, "install g++ (nvcc needs a host C++ compiler)",
		    "g++ not found on PATH");
		return;
	}
	if (tool_version(gxx, "--version", NULL, ver, sizeof(ver)))
		add(d, "host-compiler", KP_CHECK_OK, NULL, "%s", ver);
	else
		add(d, "host-compiler", KP_CHECK_BROKEN, "reinstall g++", "'%s --version' failed", gxx);
	free(gxx);
}

static void check_gpu(struct kp_doctor *d)
{
	struct kp_error err = KP_ERROR_INIT;
	int rc = kp_device_query(&d->gpus, &err);
	if (rc == KP_ENOTOOL) {
		add(d, "gpu", KP_CHECK_INFO,
		    "evaluation, profiling and energy need a machine with an NVIDIA GPU and driver",
		    "no NVIDIA driver (libcuda.so.1 not found): normal on a CPU-only machine");
		return;
	}
	if (rc) {
		add(d, "gpu", KP_CHECK_INFO, "check 'nvidia-smi'; evaluation and profiling need a GPU", "%s",
		    kp_error_msg(&err));
		return;
	}
	d->have_gpu = 1;
	{
		const struct kp_gpu *g = &d->gpus.gpus[0];
		add(d, "gpu", KP_CHECK_OK, NULL, "%d x %s (sm_%d%d, %.1f GiB, %d SMs), driver CUDA %d.%d",
		    d->gpus.count, g->name, g->cc_major, g->cc_minor, (double)g->total_mem / (1u << 30),
		    g->sm_count, d->gpus.driver_version / 1000, (d->gpus.driver_version % 1000) / 10);
	}
}

/* Profiles the probe kernel with one metric: the real test that counters can be read. */
static void check_ncu_counters(struct kp_doctor *d, const char *ncu, const char *ver)
{
	struct kp_child c = KP_CHILD_INIT;
	char *probe = kp_find_libexec("kp-probe");
	char how[128];
	if (!probe) {
		add(d, "ncu", KP_CHECK_BROKEN, "rebuild with nvcc present ('make'), which builds kp-probe",
		    "%s; cannot test counters: kp-probe was not built", ver);
		return;
	}
	kp_strvec_pushl(&c.args, ncu, "--clock-control", "none", "--metrics", KP_M_SM_CYCLES_ELAPSED, "--csv",
			"--page", "raw", probe, NULL);
	kp_strvec_push(&c.env, "LC_ALL=C");
	c.timeout_ms = 120000;
	c.merge_stderr = 1;
	c.out_cap = 1 << 20;
	if (kp_child_run(&c, NULL) != 0) {
		add(d, "ncu", KP_CHECK_BROKEN, "check the Nsight Compute installation", "%s; could not start it", ver);
	} else if (strstr(c.out.buf, "ERR_NVGPUCTRPERM")) {
		add(d, "ncu", KP_CHECK_BROKEN,
		    "run as root, or allow non-admin counter access (modprobe nvidia NVreg_RestrictProfilingToAdminUsers=0); "
		    "until then kernelpro falls back to timing only",
		    "%s; no permission to read GPU counters (ERR_NVGPUCTRPERM)", ver);
	} else if (kp_child_ok(&c) && strstr(c.out.buf, KP_M_SM_CYCLES_ELAPSED)) {
		add(d, "ncu", KP_CHECK_OK, NULL, "%s; reads hardware counters", ver);
	} else {
		char first[200] = "";
		const char *e = strstr(c.out.buf, "==ERROR==");
		if (e)
			kp_strlcpy(first, e, sizeof(first));
		if (strchr(first, '\n'))
			*strchr(first, '\n') = '\0';
		add(d, "ncu", KP_CHECK_BROKEN, "run 'ncu --clock-control none <program>' by hand to see why",
		    "%s; profiling the probe kernel failed (%s)%s%s", ver, kp_child_describe(&c, how, sizeof(how)),
		    first[0] ? ": " : "", first);
	}
	kp_child_release(&c);
	free(probe);
}

static void check_ncu(struct kp_doctor *d, unsigned flags)
{
	char *ncu = kp_cuda_tool("ncu");
	char ver[200];
	if (!ncu) {
		add(d, "ncu", KP_CHECK_MISSING,
		    "install Nsight Compute (part of the CUDA toolkit); without it kernelpro only times kernels",
		    "not found on PATH or in the CUDA toolkit");
		return;
	}
	if (!tool_version(ncu, "--version", "Version", ver, sizeof(ver))) {
		add(d, "ncu", KP_CHECK_BROKEN, "check the Nsight Compute installation", "'%s --version' failed", ncu);
	} else if (d->have_gpu && !(flags & KP_DOCTOR_SKIP_COUNTERS)) {
		check_ncu_counters(d, ncu, ver);
	} else {
		add(d, "ncu", KP_CHECK_OK, NULL, "%s (%s); counters not tested%s", ver, ncu,
		    d->have_gpu ? "" : ": no GPU here");
	}
	free(ncu);
}

static void check_binutil(struct kp_doctor *d, const char *tool)
{
	char *p = kp_cuda_tool(tool);
	char ver[200];
	if (!p) {
		add(d, tool, KP_CHECK_MISSING, "install the CUDA toolkit's binary utilities",
		    "not found; SASS-level tools will be skipped");
		return;
	}
	if (tool_version(p, "--version", "release", ver, sizeof(ver)))
		add(d, tool, KP_CHECK_OK, NULL, "%s", ver);
	else
		add(d, tool, KP_CHECK_BROKEN, "reinstall the CUDA toolkit", "'%s --version' failed", p);
	free(p);
}

static void check_nvml(struct kp_doctor *d)
{
	struct kp_nvml n;
	struct kp_error err = KP_ERROR_INIT;
	int rc = kp_nvml_open(&n, &err);
	if (rc) {
		add(d, "nvml", d->have_gpu ? KP_CHECK_BROKEN : KP_CHECK_MISSING,
		    d->have_gpu ? "install the NVIDIA driver's NVML library (libnvidia-ml.so.1)"
				: "energy measurement needs a GPU machine with the NVIDIA driver",
		    "%s", kp_error_msg(&err));
		return;
	}
	{
		char drv[80] = "?";
		unsigned int count = 0;
		unsigned long long mj = 0;
		void *h = NULL;
		int energy = 0;
		if (n.system_driver_version)
			n.system_driver_version(drv, sizeof(drv));
		if (n.device_count)
			n.device_count(&count);
		if (count && n.device_handle_by_index && n.device_handle_by_index(0, &h) == 0 &&
		    n.device_total_energy && n.device_total_energy(h, &mj) == 0)
			energy = 1;
		add(d, "nvml", count && !energy ? KP_CHECK_BROKEN : KP_CHECK_OK,
		    count && !energy ? "this GPU does not expose its energy counter; energy objectives are unavailable" : NULL,
		    "driver %s, %u device%s, energy counter %s", drv, count, count == 1 ? "" : "s",
		    energy ? "readable" : "unavailable");
	}
	kp_nvml_close(&n);
}

/* One python3 start answers the torch questions. */
static const char py_probe[] =
	"import json\n"
	"r = {}\n"
	"try:\n"
	"    import torch\n"
	"    r['torch'] = torch.__version__\n"
	"    r['cuda'] = bool(torch.cuda.is_available())\n"
	"    r['torch_cuda'] = torch.version.cuda\n"
	"    if r['cuda']:\n"
	"        r['device'] = torch.cuda.get_device_name(0)\n"
	"except Exception as e:\n"
	"    r['torch_error'] = type(e).__name__ + ': ' + str(e)\n"
	"print(json.dumps(r))\n";

static void check_python(struct kp_doctor *d, json_t **probe)
{
	struct kp_child c = KP_CHILD_INIT;
	char *py = kp_which("python3");
	json_t *r = NULL;
	*probe = NULL;
	if (!py) {
		add(d, "python3", KP_CHECK_MISSING, "install python3 and PyTorch to optimize KernelBench tasks",
		    "python3 not found on PATH");
		return;
	}
	kp_strvec_pushl(&c.args, py, "-c", py_probe, NULL);
	c.timeout_ms = 60000;
	c.out_cap = 1 << 16;
	c.err_cap = 1 << 16;
	if (kp_child_run(&c, NULL) != 0 || !kp_child_ok(&c) ||
	    kp_json_load_mem("python probe", c.out.buf, c.out.len, &r, NULL) != 0) {
		add(d, "python3", KP_CHECK_BROKEN, "check that 'python3 -c pass' works", "%s could not run the probe",
		    py);
		goto out;
	}
	*probe = r;
	if (kp_json_str(r, "torch", NULL)) {
		int cuda = kp_json_bool(r, "cuda", 0);
		add(d, "torch", cuda || !d->have_gpu ? KP_CHECK_OK : KP_CHECK_BROKEN,
		    !cuda && d->have_gpu ? "install a CUDA build of PyTorch that matches the driver" : NULL,
		    "torch %s (CUDA %s): %s%s", kp_json_str(r, "torch", "?"), kp_json_str(r, "torch_cuda", "none"),
		    cuda ? "sees " : (d->have_gpu ? "does not see the GPU" : "no GPU here"),
		    cuda ? kp_json_str(r, "device", "a GPU") : "");
	} else {
		add(d, "torch", KP_CHECK_MISSING, "pip install torch (needed for KernelBench tasks, not for native CUDA tasks)",
		    "python3 cannot import torch (%s)", kp_json_str(r, "torch_error", "not installed"));
	}
out:
	free(py);
	kp_child_release(&c);
}

/* CUTLASS where the toolchain (toolchain.h) looks for it: $CUTLASS_PATH, kernelpro's .cutlass, pip's nvidia-cutlass. */
static void check_cutlass(struct kp_doctor *d, unsigned flags)
{
	struct kp_cutlass c;
	struct kp_error err = KP_ERROR_INIT;
	int rc = kp_cutlass_find(&c, flags & KP_DOCTOR_SKIP_PYTHON ? KP_CUTLASS_NO_PYTHON : 0, &err);
	if (!rc) {
		add(d, "cutlass", KP_CHECK_OK, NULL, "CUTLASS %s, headers at %s (%s)", c.version, c.include,
		    kp_cutlass_source_name(c.source));
		kp_cutlass_release(&c);
	} else if (rc == KP_ENOENT) {
		add(d, "cutlass", KP_CHECK_MISSING, KP_CUTLASS_INSTALL_HINT " (for CuTe candidates and code search)",
		    "no CUTLASS headers found");
	} else {
		add(d, "cutlass", KP_CHECK_BROKEN, "point CUTLASS_PATH at a CUTLASS checkout (with include/cutlass)", "%s",
		    kp_error_msg(&err));
	}
}

static void check_llm(struct kp_doctor *d)
{
	static const char *const vars[] = {"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY",
					   "ANTHROPIC_BASE_URL", "KERNELPRO_LLM"};
	struct kp_buf set = KP_BUF_INIT, unset = KP_BUF_INIT;
	int have_key = 0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(vars); i++) {
		const char *v = kp_secret_getenv(vars[i]);
		struct kp_buf *b = v && *v ? &set : &unset;
		if (b->len)
			kp_buf_adds(b, ", ");
		kp_buf_adds(b, vars[i]);
		if (v && *v && strstr(vars[i], "KEY"))
			have_key = 1;
	}
	/* Only the names: a key's value never reaches output. */
	add(d, "llm", have_key ? KP_CHECK_OK : KP_CHECK_INFO,
	    have_key ? NULL
		     : "set OPENAI_API_KEY or ANTHROPIC_API_KEY, or use --llm exec:CMD or --llm replay:DIR",
	    "set: %s; unset: %s", set.len ? set.buf : "none", unset.len ? unset.buf : "none");
	kp_buf_release(&set);
	kp_buf_release(&unset);
}

void kp_doctor_run(struct kp_doctor *d, unsigned flags)
{
	json_t *py = NULL;
	double t0 = kp_now();
	memset(d, 0, sizeof(*d));
	check_nvcc(d);
	check_host_cc(d);
	check_gpu(d);
	check_ncu(d, flags);
	check_binutil(d, "cuobjdump");
	check_binutil(d, "nvdisasm");
	check_nvml(d);
	if (!(flags & KP_DOCTOR_SKIP_PYTHON))
		check_python(d, &py);
	check_cutlass(d, flags);
	check_llm(d);
	json_decref(py);
	d->elapsed_s = kp_now() - t0;
}

json_t *kp_doctor_to_json(const struct kp_doctor *d)
{
	json_t *o = json_object(), *arr = json_array(), *gpus = json_array();
	for (int i = 0; i < d->count; i++) {
		const struct kp_check *c = &d->checks[i];
		json_t *e = json_object();
		kp_json_set(e, "name", json_string(c->name));
		kp_json_set(e, "status", json_string(kp_check_status_name(c->status)));
		kp_json_set(e, "detail", json_string(c->detail));
		kp_json_set(e, "fix", c->fix[0] ? json_string(c->fix) : json_null());
		json_array_append_new(arr, e);
	}
	for (int i = 0; i < d->gpus.count; i++) {
		const struct kp_gpu *g = &d->gpus.gpus[i];
		json_t *e = json_object();
		kp_json_set(e, "index", json_integer(g->index));
		kp_json_set(e, "name", json_string(g->name));
		kp_json_set(e, "compute_capability", json_sprintf("%d.%d", g->cc_major, g->cc_minor));
		kp_json_set(e, "memory_bytes", json_integer((json_int_t)g->total_mem));
		kp_json_set(e, "sm_count", json_integer(g->sm_count));
		json_array_append_new(gpus, e);
	}
	kp_json_set(o, "checks", arr);
	kp_json_set(o, "gpus", gpus);
	kp_json_set(o, "elapsed_s", kp_json_real(d->elapsed_s));
	return o;
}
