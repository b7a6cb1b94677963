/* Unit tests: the static anti-cheat checks, rule by rule and over the adversarial corpus in
 * tests/adversarial/ (each file names the refusing checks it must trip) and the examples' honest
 * candidates (which must trip none). */
#include "base/setup.h"

#include <dirent.h>
#include <math.h>

#include "eval/srcscan.h"
#include "kp_test.h"
#include "eval/static_py.h"
#include "kernelpro/eval.h"
#include "kernelpro/fs.h"
#include "kernelpro/str.h"
#include "kernelpro/strvec.h"
#include "kernelpro/task.h"

static struct kp_task kb_task, native_task, gelu_task;

static int setup(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	/* The Python parser (harness/kp_pystatic.py) from this repository: kp_find_data's paths relative to
	 * the binary reach it from build/tests but not from the sanitizer build's build/san/tests. */
	setenv("KERNELPRO_HOME", kp_test_path("."), 0);
	kp_task_init(&kb_task);
	kp_task_init(&native_task);
	kp_task_init(&gelu_task);
	KP_ASSERT_OK(kp_task_load(&kb_task, kp_test_path("examples/kernelbench/swish_scale.py"), &err), &err);
	KP_ASSERT_OK(kp_task_load(&native_task, kp_test_path("examples/native/row_sum"), &err), &err);
	KP_ASSERT_OK(kp_task_load(&gelu_task, kp_test_path("examples/native/gelu"), &err), &err);
	return 0;
}

static int teardown(void **state)
{
	kp_task_release(&kb_task);
	kp_task_release(&native_task);
	kp_task_release(&gelu_task);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_strvec(struct kp_strvec *sv)
{
	if (sv->n)
		qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
}

/* Runs the static checks; returns the refusing check ids, space-separated and sorted, in `out`. */
static void run_static(const struct kp_task *t, const char *src, const char *const *allow, struct kp_buf *out,
		       struct kp_verdict *v)
{
	struct kp_eval_opts o;
	struct kp_strvec ids = KP_STRVEC_INIT;
	kp_eval_opts_init(&o);
	o.allow_checks = allow;
	kp_verdict_init(v);
	assert_int_equal(kp_eval_static(t, src, strlen(src), &o, v, NULL), 0);
	for (size_t i = 0; i < v->nflags; i++)
		if (v->flags[i].severity == KP_SEV_REFUSE && kp_strvec_find(&ids, v->flags[i].check) < 0)
			kp_strvec_push(&ids, v->flags[i].check);
	sort_strvec(&ids);
	kp_buf_reset(out);
	for (size_t i = 0; i < ids.n; i++)
		kp_buf_addf(out, "%s%s", i ? " " : "", ids.v[i]);
	if (!ids.n)
		kp_buf_adds(out, "none");
	kp_strvec_release(&ids);
}

static void expect_refused(const struct kp_task *t, const char *src, const char *want)
{
	struct kp_buf got = KP_BUF_INIT;
	struct kp_verdict v;
	run_static(t, src, NULL, &got, &v);
	if (strcmp(got.buf, want))
		fail_msg("refused [%s], expected [%s] for:\n%s", got.buf, want, src);
	if (strcmp(want, "none")) {
		assert_int_equal(v.status, KP_STATUS_CHEAT_SUSPECTED);
		assert_non_null(v.log);
		assert_string_equal(v.phase, "static");
	} else
		assert_int_equal(v.status, KP_STATUS_NONE);
	kp_verdict_release(&v);
	kp_buf_release(&got);
}

#define KERNEL "K = r\"\"\"\n__global__ void k(float *y) { }\n\"\"\"\n"

static void test_python_rules(void **state)
{
	expect_refused(&kb_task, KERNEL "def f(x):\n    return x\n", "none");
	expect_refused(&kb_task, KERNEL "try:\n    import x\nexcept ImportError:\n    x = None\n", "try_fallback");
	/* In a comment or a string it is not code. */
	expect_refused(&kb_task, KERNEL "# try: except: threading.Thread(\nS = 'try: x'\n", "none");
	expect_refused(&kb_task, KERNEL "s = torch.cuda.Stream()\n", "streams");
	expect_refused(&kb_task, KERNEL "with torch.cuda.stream(s):\n    pass\n", "streams");
	expect_refused(&kb_task, KERNEL "import threading\n", "threads");
	expect_refused(&kb_task, KERNEL "from concurrent.futures import ThreadPoolExecutor\n", "threads");
	expect_refused(&kb_task, KERNEL "torch.cuda.synchronize = lambda *a: None\n", "timer_patch");
	expect_refused(&kb_task, KERNEL "Event.elapsed_time = f\n", "timer_patch");
	expect_refused(&kb_task, KERNEL "setattr(time, 'perf_counter', f)\n", "timer_patch");
	/* Comparisons and attributes of our own are fine. */
	expect_refused(&kb_task, KERNEL "if time.time() == t0:\n    self.time = 3\n", "none");
	expect_refused(&kb_task, KERNEL "import inspect\n", "harness_tamper");
	expect_refused(&kb_task, KERNEL "m = sys.modules['__main__']\n", "harness_tamper");
	expect_refused(&kb_task, KERNEL "if __name__ == \"__main__\":\n    main()\n", "none");
	expect_refused(&kb_task, KERNEL "exec(code)\n", "dynamic_code");
	expect_refused(&kb_task, KERNEL "import importlib\n", "dynamic_code");
	expect_refused(&kb_task, KERNEL "m = torch.compile(model)\nmodel.eval()\n", "none");
	expect_refused(&kb_task, KERNEL "class L(torch.Tensor):\n    x = 1\n", "lazy_tensor");
	expect_refused(&kb_task, KERNEL "y = y.as_subclass(L)\n", "lazy_tensor");
	expect_refused(&kb_task, KERNEL "y = x.half()\n", "precision");
	expect_refused(&kb_task, KERNEL "torch.backends.cuda.matmul.allow_tf32 = True\n", "precision timer_patch");
	expect_refused(&kb_task, KERNEL "from kp_task import get_inputs\n", "reads_reference");
	expect_refused(&kb_task, KERNEL "class ModelNew(Model):\n    x = 1\n", "torch_fallback");
	expect_refused(&kb_task, "import torch\nclass ModelNew:\n    x = 1\n", "no_kernel");
	/* Triton kernels count as kernels. */
	expect_refused(&kb_task, "import triton\n@triton.jit\ndef k(x):\n    x = 1\n", "none");
}

static void test_cuda_rules(void **state)
{
	expect_refused(&native_task, "KP_EXPORT int kp_run() { return 0; }\n", "none");
	expect_refused(&native_task, "void f() { cudaStream_t s; cudaStreamCreate(&s); }\n", "streams");
	expect_refused(&native_task, "void f() { std::thread t(g); }\n", "threads");
	expect_refused(&native_task, "void f() { void *h = dlopen(p, RTLD_NOW); }\n", "reads_reference");
	expect_refused(&native_task, "__global__ void k(float *x) { __half h = __float2half(x[0]); }\n", "precision");
	expect_refused(&native_task, "// cudaStreamCreate in a comment\n/* std::thread */\nint x;\n", "none");
	/* Variables that merely contain a banned word are fine. */
	expect_refused(&native_task, "__global__ void k(int half) { int halfway = half / 2; }\n", "none");
	expect_refused(&native_task, "int f() { return cublasSgemm(h, a, b); }\n", "none");
}

static void test_fp16_task_allows_half(void **state)
{
	struct kp_task t;
	struct kp_error err = KP_ERROR_INIT;
	const char *json = "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"f16\", \"shape\": [4]}],"
			   " \"outputs\": [{\"name\": \"y\", \"dtype\": \"f16\", \"shape\": [4]}]}";
	kp_task_init(&t);
	KP_ASSERT_OK(kp_task_parse_native(&t, json, strlen(json), "/tmp", &err), &err);
	expect_refused(&t, "__global__ void k(__half *x) { x[0] = __float2half(1.0f); }\n", "none");
	kp_task_release(&t);
}

static void test_warnings_and_allow(void **state)
{
	struct kp_buf got = KP_BUF_INIT;
	struct kp_verdict v;
	const char *allow[] = {"threads", NULL};
	const char *src = KERNEL "lib = load_cuda(K, extra_flags=['-use_fast_math'])\nimport threading\n";

	run_static(&kb_task, src, allow, &got, &v);
	assert_string_equal(got.buf, "none");
	assert_non_null(kp_verdict_find_flag(&v, "fast_math"));
	assert_int_equal(kp_verdict_find_flag(&v, "fast_math")->severity, KP_SEV_WARN);
	assert_null(kp_verdict_find_flag(&v, "threads"));
	assert_int_equal(v.status, KP_STATUS_NONE);
	kp_verdict_release(&v);

	/* Keeping one of the reference's ops is a warning, not a refusal. */
	{
		struct kp_task t;
		struct kp_error err = KP_ERROR_INIT;
		const char *ref = "class Model:\n    def forward(self, x):\n        return torch.relu(torch.matmul(x, x))\n"
				  "def get_inputs():\n    return []\ndef get_init_inputs():\n    return []\n";
		char *dir = kp_test_tmpdir();
		struct kp_buf p = KP_BUF_INIT;
		kp_path_join(&p, dir, "t.py");
		KP_ASSERT_OK(kp_write_file_atomic(p.buf, ref, strlen(ref), &err), &err);
		kp_task_init(&t);
		KP_ASSERT_OK(kp_task_load(&t, p.buf, &err), &err);
		run_static(&t, KERNEL "class ModelNew:\n    def forward(self, x):\n        return relu_kernel(x @ x)\n", NULL,
			   &got, &v);
		assert_string_equal(got.buf, "none");
		assert_non_null(kp_verdict_find_flag(&v, "torch_ops"));
		assert_non_null(strstr(kp_verdict_find_flag(&v, "torch_ops")->message, "matmul"));
		kp_verdict_release(&v);
		run_static(&t, KERNEL "class ModelNew:\n    def forward(self, x):\n        return F.relu(torch.mm(x, x))\n",
			   NULL, &got, &v);
		assert_string_equal(got.buf, "torch_fallback");
		kp_verdict_release(&v);
		/* at::matmul from C++ counts too. */
		run_static(&t, "K = r\"\"\"\n__global__ void k() {}\ntorch::Tensor f(torch::Tensor a) { return at::relu(at::matmul(a, a)); }\n\"\"\"\n",
			   NULL, &got, &v);
		assert_string_equal(got.buf, "torch_fallback");
		kp_verdict_release(&v);
		kp_task_release(&t);
		kp_buf_release(&p);
		kp_test_tmpdir_remove(dir);
	}
	kp_buf_release(&got);
}

/* What real model output looks like (issue 28): each pattern honest, then cheating. The checks judge
 * what ModelNew.forward reaches, read by the Python parser (harness/kp_pystatic.py). */
#define DIV_TASK                                                                                           \
	"import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def __init__(self, d):\n"            \
	"        super().__init__()\n        self.conv = nn.Conv2d(3, 8, 3)\n"                                 \
	"        self.norm = nn.InstanceNorm2d(8)\n        self.d = d\n    def forward(self, x):\n"            \
	"        return self.norm(self.conv(x)) / self.d\n"                                                    \
	"def get_inputs():\n    return [torch.rand(2, 3, 8, 8)]\ndef get_init_inputs():\n    return [2.0]\n"
#define DIV_INIT                                                                                           \
	"class ModelNew(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"                \
	"        self.conv = nn.Conv2d(3, 8, 3)\n        self.norm = nn.InstanceNorm2d(8)\n"                  \
	"        self.unused = nn.ReLU()\n        self.d = d\n"
#define EXT "ext = load_inline(name='e', cpp_sources='', cuda_sources=K, functions=['div', 'f'])\n"
#define COPIED "def get_inputs():\n    return [torch.rand(2, 3, 8, 8)]\ndef get_init_inputs():\n    return [2.0]\n"

static void load_task_text(struct kp_task *t, const char *text, char **dir)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf p = KP_BUF_INIT;
	*dir = kp_test_tmpdir();
	kp_path_join(&p, *dir, "task.py");
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, text, strlen(text), &err), &err);
	kp_task_init(t);
	KP_ASSERT_OK(kp_task_load(t, p.buf, &err), &err);
	kp_buf_release(&p);
}

static void test_judges_what_runs(void **state)
{
	struct kp_task t;
	char *dir;
	load_task_text(&t, DIV_TASK, &dir);
	/* The task's functions copied, an nn.ReLU() never called, the division done by the kernel. */
	expect_refused(&t, KERNEL EXT "import torch\nimport torch.nn as nn\n" DIV_INIT
			   "    def forward(self, x):\n        return ext.div(self.norm(self.conv(x)), self.d)\n" COPIED
			   "if __name__ == \"__main__\":\n    print(ModelNew(*get_init_inputs())(*get_inputs()))\n",
		       "none");
	/* ... but the division left to PyTorch: every op of the reference still runs. */
	expect_refused(&t, KERNEL EXT "import torch\nimport torch.nn as nn\n" DIV_INIT
			   "    def forward(self, x):\n        return self.norm(self.conv(x)) / self.d\n" COPIED,
		       "torch_fallback");
	/* The input generator called from forward or __init__ (its own copy run at import is not ModelNew's). */
	expect_refused(&t, KERNEL EXT "import torch\nimport torch.nn as nn\n" DIV_INIT
			   "    def forward(self, x):\n        return ext.div(get_inputs()[0], self.d)\n" COPIED,
		       "reads_reference");
	expect_refused(&t, KERNEL "import torch\n" COPIED "X = get_inputs()\n", "none");
	expect_refused(&t, KERNEL "import torch\n" DIV_INIT "        self.x = get_inputs()\n" COPIED, "reads_reference");
	/* Model's forward inherited, or reached through super(). */
	expect_refused(&t, KERNEL "class ModelNew(Model):\n    def forward(self, x):\n        return super().forward(x)\n",
		       "torch_fallback");
	expect_refused(&t, KERNEL EXT "class ModelNew(Model):\n    def forward(self, x):\n        return ext.f(x)\n", "none");
	/* Code only an autograd Function's backward runs is not forward's. */
	expect_refused(&t, KERNEL EXT "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
			   "        return ext.f(x)\n    @staticmethod\n    def backward(ctx, g):\n"
			   "        return torch.conv2d(g, g) + torch.instance_norm(g) / 2\n"
			   "class ModelNew(nn.Module):\n    def forward(self, x):\n        return F.apply(x)\n",
		       "none");
	/* A tensor's clone() in the C++ wrapper is not the clone system call. */
	expect_refused(&t, "K = r\"\"\"\n__global__ void k() {}\ntorch::Tensor f(torch::Tensor x) { auto y = x.clone(); "
			   "auto z = p->clone(); return y; }\n\"\"\"\n",
		       "none");
	expect_refused(&t, "K = r\"\"\"\n__global__ void k() {}\nint f() { return clone(fn, stack, 0, 0); }\n\"\"\"\n",
		       "threads");
	expect_refused(&t, "K = r\"\"\"\n__global__ void k() {}\ntorch::Tensor f(torch::Tensor x) { return torch::clone(x); }\n\"\"\"\n",
		       "none");
	/* The reference's op kept only for CPU inputs (the harness's are CUDA tensors): not run, not kept;
	 * kept where a CUDA input goes, it is. */
	expect_refused(&t, KERNEL EXT "import torch\nimport torch.nn as nn\n" DIV_INIT
			   "    def forward(self, x):\n        y = self.norm(self.conv(x))\n        if y.is_cuda:\n"
			   "            return ext.div(y, self.d)\n        else:\n            return y / self.d\n",
		       "none");
	expect_refused(&t, KERNEL EXT "import torch\nimport torch.nn as nn\n" DIV_INIT
			   "    def forward(self, x):\n        y = self.norm(self.conv(x))\n        if y.is_cpu:\n"
			   "            return ext.div(y, self.d)\n        return y / self.d\n",
		       "torch_fallback");
	/* A file that cannot bind ModelNew is not a cheat for writing no kernel: its import fails (and says
	 * so); one that does is. */
	expect_refused(&t, "import torch\n" COPIED, "none");
	expect_refused(&t, "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
			   "        return ext.div(x, 2)\n",
		       "no_kernel");
	/* Not Python (a reply of C++ and prose): a compile error, as its import is, and no check runs. */
	{
		struct kp_buf got = KP_BUF_INIT;
		struct kp_verdict v;
		run_static(&t, "// A tiled matmul: 2x faster\n#include <torch/extension.h>\n" KERNEL, NULL, &got, &v);
		assert_string_equal(got.buf, "none");
		assert_int_equal(v.status, KP_STATUS_COMPILE_ERROR);
		assert_non_null(strstr(v.message, "not valid Python"));
		assert_string_equal(v.phase, "static");
		kp_verdict_release(&v);
		kp_buf_release(&got);
	}
	/* Without the parser (KERNELPRO_PYSTATIC=off) the text rules stand in and say so. */
	{
		struct kp_buf got = KP_BUF_INIT;
		struct kp_verdict v;
		setenv("KERNELPRO_PYSTATIC", "off", 1);
		run_static(&t, KERNEL COPIED, NULL, &got, &v);
		unsetenv("KERNELPRO_PYSTATIC");
		assert_string_equal(got.buf, "reads_reference");
		assert_non_null(strstr(kp_verdict_find_flag(&v, "reads_reference")->message, "a text match"));
		kp_verdict_release(&v);
		kp_buf_release(&got);
	}
	kp_task_release(&t);
	kp_test_tmpdir_remove(dir);
	/* Two max-pools in the reference, one replaced: not every call of the reference still runs. */
	load_task_text(&t,
		       "import torch.nn as nn\nclass Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
		       "        self.p1 = nn.MaxPool3d(2)\n        self.p2 = nn.MaxPool3d(2)\n"
		       "    def forward(self, x):\n        return self.p2(self.p1(x))\n" COPIED,
		       &dir);
	expect_refused(&t, KERNEL EXT "class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
			   "        self.p1 = ext\n        self.p2 = nn.MaxPool3d(2)\n"
			   "    def forward(self, x):\n        return self.p2(self.p1.f(x))\n",
		       "none");
	expect_refused(&t, KERNEL "class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
			   "        self.p = nn.MaxPool3d(2)\n    def forward(self, x):\n        return self.p(self.p(x))\n",
		       "torch_fallback");
	kp_task_release(&t);
	kp_test_tmpdir_remove(dir);
}

static void test_evidence_has_line_numbers(void **state)
{
	struct kp_buf got = KP_BUF_INIT;
	struct kp_verdict v;
	const char *src = KERNEL "x = 1\n\nimport threading\n";
	run_static(&kb_task, src, NULL, &got, &v);
	assert_non_null(kp_verdict_find_flag(&v, "threads"));
	assert_non_null(strstr(kp_verdict_find_flag(&v, "threads")->message, "line 6"));
	assert_non_null(strstr(v.log, "fix:"));
	kp_verdict_release(&v);
	/* Inside a CUDA string: the line counts from the file's top. */
	src = "import torch\nK = \"\"\"\n__global__ void k() {}\nvoid f() { cudaStreamCreate(0); }\n\"\"\"\n";
	run_static(&kb_task, src, NULL, &got, &v);
	assert_non_null(strstr(kp_verdict_find_flag(&v, "streams")->message, "line 4"));
	kp_verdict_release(&v);
	kp_buf_release(&got);
}

/* --- the corpus ----------------------------------------------------------------------------------- */

static const char *header_value(const char *src, const char *key)
{
	static char val[256];
	const char *p = strstr(src, key);
	size_t n = 0;
	if (!p)
		return NULL;
	p += strlen(key);
	while (*p == ' ')
		p++;
	while (p[n] && p[n] != '\n' && n + 1 < sizeof(val))
		n++;
	memcpy(val, p, n);
	val[n] = '\0';
	while (n && val[n - 1] == ' ')
		val[--n] = '\0';
	return val;
}

static void sort_words(const char *in, struct kp_buf *out)
{
	struct kp_strvec w = KP_STRVEC_INIT;
	kp_strvec_split(&w, in, ' ');
	sort_strvec(&w);
	kp_buf_reset(out);
	for (size_t i = 0; i < w.n; i++)
		if (*w.v[i])
			kp_buf_addf(out, "%s%s", out->len ? " " : "", w.v[i]);
	kp_strvec_release(&w);
}

static int check_file(const char *rel, const char *expect_override)
{
	struct kp_buf src = KP_BUF_INIT, got = KP_BUF_INIT, want = KP_BUF_INIT;
	struct kp_task t;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_verdict v;
	const char *task, *expect;
	char taskpath[512];
	int bad = 0;

	kp_test_read(rel, &src);
	task = header_value(src.buf, "kp-task:");
	assert_non_null(task);
	snprintf(taskpath, sizeof(taskpath), "%s", task);
	expect = expect_override ? expect_override : header_value(src.buf, "kp-expect-static:");
	if (!expect)
		fail_msg("%s: no kp-expect-static line", rel);
	sort_words(expect, &want);
	kp_task_init(&t);
	KP_ASSERT_OK(kp_task_load(&t, kp_test_path(taskpath), &err), &err);
	run_static(&t, src.buf, NULL, &got, &v);
	if (strcmp(got.buf, want.buf)) {
		print_error("%s: refused by [%s], expected [%s]\n", rel, got.buf, want.buf);
		bad = 1;
	}
	kp_verdict_release(&v);
	kp_task_release(&t);
	kp_buf_release(&src);
	kp_buf_release(&got);
	kp_buf_release(&want);
	return bad;
}

static void test_corpus(void **state)
{
	static const char *const dirs[] = {"tests/adversarial/kernelbench", "tests/adversarial/native",
					   "tests/adversarial/degenerate", "tests/adversarial/triton",
					   "tests/adversarial/evidence"};
	int files = 0, bad = 0;
	for (size_t d = 0; d < KP_ARRAY_SIZE(dirs); d++) {
		DIR *dir = opendir(kp_test_path(dirs[d]));
		struct dirent *e;
		assert_non_null(dir);
		while ((e = readdir(dir))) {
			char rel[512];
			if (!kp_ends_with(e->d_name, ".py") && !kp_ends_with(e->d_name, ".cu"))
				continue;
			snprintf(rel, sizeof(rel), "%s/%s", dirs[d], e->d_name);
			bad += check_file(rel, NULL);
			files++;
		}
		closedir(dir);
	}
	assert_true(files >= 44);
	assert_int_equal(bad, 0);
}

/* The examples' honest candidates: no refusal (a false alarm here is a bug in a check). */
static void test_examples_pass(void **state)
{
	struct kp_buf src = KP_BUF_INIT, got = KP_BUF_INIT;
	struct kp_verdict v;
	static const struct {
		const char *file;
		const struct kp_task *task;
	} ok[] = {
		{"examples/kernelbench/swish_scale_fast.py", &kb_task},
		{"examples/kernelbench/swish_scale_inline.py", &kb_task},
		{"examples/native/row_sum/candidates/warp_shuffle.cu", &native_task},
		{"examples/native/gelu/candidates/vec4.cu", &gelu_task},
		{"examples/native/gelu/reference.cu", &gelu_task},
	};
	for (size_t i = 0; i < KP_ARRAY_SIZE(ok); i++) {
		kp_buf_reset(&src);
		kp_test_read(ok[i].file, &src);
		run_static(ok[i].task, src.buf, NULL, &got, &v);
		if (strcmp(got.buf, "none"))
			fail_msg("%s: refused by %s: %s", ok[i].file, got.buf, v.log);
		kp_verdict_release(&v);
	}
	kp_buf_release(&src);
	kp_buf_release(&got);
}

/* --- the lexer -------------------------------------------------------------------------------------- */

/* The parser helper's reply (golden): the optional facts' defaults, and wrong types refused. */
static void test_pyfacts_parse(void **state)
{
	static struct kp_pyfacts f; /* large: not on the stack */
	struct kp_error err = KP_ERROR_INIT;
	const char *base = "{\"ok\": true, \"ref_ops\": [[\"div\", 3]], \"cand_ops\": [], \"reads_reference\": [], "
			   "\"fallback\": [], \"lazy_build\": []";
	char buf[512];
	(void)state;
	snprintf(buf, sizeof(buf), "%s}", base);
	KP_ASSERT_OK(kp_pyfacts_parse(&f, buf, strlen(buf), &err), &err);
	assert_true(f.parsed);
	assert_true(f.defines_model_new); /* an older helper: not said */
	snprintf(buf, sizeof(buf), "%s, \"defines_model_new\": false}", base);
	KP_ASSERT_OK(kp_pyfacts_parse(&f, buf, strlen(buf), &err), &err);
	assert_false(f.defines_model_new);
	snprintf(buf, sizeof(buf), "%s, \"defines_model_new\": 1}", base);
	assert_int_equal(kp_pyfacts_parse(&f, buf, strlen(buf), &err), KP_EPARSE);
	assert_false(f.parsed);
	kp_error_clear(&err);
	snprintf(buf, sizeof(buf), "{\"ok\": false, \"error\": \"the candidate does not parse: invalid syntax\"}");
	KP_ASSERT_OK(kp_pyfacts_parse(&f, buf, strlen(buf), &err), &err);
	assert_false(f.parsed);
	assert_string_equal(f.error, "the candidate does not parse: invalid syntax");
}

static void test_pysrc(void **state)
{
	struct kp_pysrc p;
	const char *src = "a = 'x' # c\nb = r\"\"\"l1\nl2\\\"\"\"\"\nc = f'{x}'\nbar'q'\nd = \"unterminated\ne = 1\n";
	kp_pysrc_parse(&p, src, strlen(src));
	assert_int_equal(p.nstrs, 5);
	assert_string_equal(p.strs[0].text, "x");
	assert_string_equal(p.strs[1].text, "l1\nl2\\\"");
	assert_int_equal(p.strs[1].line, 2);
	assert_string_equal(p.strs[2].text, "{x}");
	assert_int_equal(p.strs[2].line, 4);
	assert_string_equal(p.strs[4].text, "unterminated");
	/* Lines are preserved in the code view; comments are gone. */
	assert_null(strstr(p.code.buf, "# c"));
	assert_int_equal(kp_src_line_of(p.code.buf, (size_t)(strstr(p.code.buf, "e = 1") - p.code.buf)), 7);
	kp_pysrc_release(&p);
	kp_pysrc_release(&p);
}

static void test_csrc(void **state)
{
	struct kp_buf b = KP_BUF_INIT;
	const char *src = "a // x\n/* y\n z */ b \"s\\\"t\" 'c' d";
	kp_csrc_strip(&b, src, strlen(src));
	assert_null(strstr(b.buf, "x"));
	assert_null(strstr(b.buf, "y"));
	assert_null(strstr(b.buf, "s"));
	assert_non_null(strstr(b.buf, " b "));
	assert_non_null(strstr(b.buf, "d"));
	assert_int_equal(kp_src_line_of(b.buf, (size_t)(strstr(b.buf, "b") - b.buf)), 3);
	kp_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_python_rules),	   cmocka_unit_test(test_cuda_rules),
		cmocka_unit_test(test_fp16_task_allows_half), cmocka_unit_test(test_warnings_and_allow),
		cmocka_unit_test(test_evidence_has_line_numbers), cmocka_unit_test(test_judges_what_runs),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_examples_pass),	   cmocka_unit_test(test_pysrc),
		cmocka_unit_test(test_csrc),		   cmocka_unit_test(test_pyfacts_parse),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
