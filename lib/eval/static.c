/* Static anti-cheat checks: patterns in the candidate's Python code and CUDA text, and the PyTorch
 * compute ops it shares with the reference. lib/eval/checks.c explains each check. */
#include "base/setup.h"

#include <ctype.h>
#include <pthread.h>
#include <regex.h>

#include "eval/srcscan.h"
#include "eval/static_py.h"
#include "eval/static_triton.h"
#include "kernelpro/eval.h"
#include "kernelpro/str.h"
#include "kernelpro/task_kind.h"

enum {
	IN_PY = 1,   /* Python code, strings and comments removed */
	IN_CUDA = 2, /* C++/CUDA text: a native .cu, or the string literals of a Python candidate */
};
enum {
	WHEN_ALWAYS = 0,
	WHEN_FP32 = 1, /* only when the task runs in fp32/fp64 */
};

struct rule {
	const char *check;
	unsigned where, when;
	const char *re; /* POSIX extended, matched per line (REG_NEWLINE) */
	const char *what;
};

#define B "(^|[^A-Za-z0-9_])" /* a word boundary before */
#define BD "(^|[^A-Za-z0-9_.])" /* ... that is not an attribute access either */
#define BM "(^|[^A-Za-z0-9_.>:]|[^A-Za-z0-9_]::)" /* ... nor a member or namespace function (x.clone(), torch::clone()) */
#define E "([^A-Za-z0-9_]|$)"
#define SP "[[:space:]]*"

static const struct rule rules[] = {
	{"try_fallback", IN_PY, 0, B "try" SP ":", "try/except block (a fallback path)"},
	{"try_fallback", IN_PY, 0, B "except(" SP ":|[[:space:]]+[A-Za-z_(])", "except clause (a fallback path)"},

	{"streams", IN_PY, 0, B "Stream" SP "\\(", "creates a CUDA stream"},
	{"streams", IN_PY, 0, "torch\\.cuda\\.(stream|set_stream|graph|graphs|make_graphed_callables)" E,
	 "switches streams or captures a CUDA graph"},
	{"streams", IN_PY, 0, "\\.(wait_stream|record_stream)" SP "\\(", "cross-stream synchronisation"},
	{"streams", IN_PY, 0, B "(CUDAGraph|ExternalStream)" E, "CUDA graph or external stream"},
	{"streams", IN_CUDA, 0, B "cudaStream(Create|CreateWithFlags|CreateWithPriority|PerThread|BeginCapture)" E,
	 "creates or captures a CUDA stream"},
	{"streams", IN_CUDA, 0, B "(cudaGraph[A-Za-z]*|cudaLaunchHostFunc|cudaStreamAddCallback|cuStreamCreate)" E,
	 "CUDA graph or host callback"},
	{"streams", IN_CUDA, 0, "getStreamFromPool|CUDAStreamGuard|setCurrentCUDAStream", "switches the PyTorch stream"},
	{"streams", IN_CUDA, 0, "default-stream[= ]*per-thread", "per-thread default stream"},

	{"threads", IN_PY, 0, B "(import|from)[[:space:]]+(threading|_thread|multiprocessing|subprocess|concurrent)" E,
	 "imports a thread or process module"},
	{"threads", IN_PY, 0, B "(threading|multiprocessing|subprocess)\\.", "uses threads or processes"},
	{"threads", IN_PY, 0, B "(ThreadPoolExecutor|ProcessPoolExecutor|Thread)" SP "\\(", "starts a thread pool or thread"},
	{"threads", IN_PY, 0, "os\\.(fork|forkpty|spawn[a-z]*|posix_spawn[a-z]*|system|popen)" SP "\\(",
	 "starts a process"},
	{"threads", IN_CUDA, 0, "std::(thread|jthread|async)" E, "starts a host thread"},
	{"threads", IN_CUDA, 0, BM "(pthread_create|fork|vfork|clone)" SP "\\(", "starts a host thread or process"},
	{"threads", IN_CUDA, 0, BM "(system|popen|execv[pe]*|execl[pe]?|fexecve|posix_spawnp?)" SP "\\(",
	 "starts a process"},
	{"threads", IN_CUDA, 0, "#" SP "pragma" SP "omp", "OpenMP"},

	{"timer_patch", IN_PY, 0, BD "(torch|time|cuda)(\\.[A-Za-z_][A-Za-z0-9_]*)+" SP "=[^=]",
	 "assigns to an attribute of torch/time"},
	{"timer_patch", IN_PY, 0, "\\.(elapsed_time|synchronize|perf_counter|perf_counter_ns|Event)" SP "=[^=]",
	 "replaces a timing function"},
	{"timer_patch", IN_PY, 0, B "setattr" SP "\\(" SP "(torch|time|cuda|Event)" E, "setattr on torch/time"},

	{"harness_tamper", IN_PY, 0, "sys\\.(modules|_getframe|settrace|setprofile|exit|meta_path|path_hooks)" E,
	 "reaches into the interpreter"},
	{"harness_tamper", IN_PY, 0, B "(import|from)[[:space:]]+(inspect|gc|builtins|atexit|signal|faulthandler|ctypes\\.pythonapi)" E,
	 "imports an introspection module"},
	{"harness_tamper", IN_PY, 0, BD "(gc|inspect)\\.[a-z_]+", "introspection"},
	{"harness_tamper", IN_PY, 0, B "(__main__|__builtins__|f_back|f_globals|f_locals|__globals__|__code__)" E,
	 "reaches the caller's objects"},
	{"harness_tamper", IN_PY, 0, "os\\._exit" SP "\\(", "exits the process"},
	{"harness_tamper", IN_PY, 0, B "(pythonapi|PyObject_[A-Za-z]+)" E, "calls the Python C API through ctypes"},

	{"dynamic_code", IN_PY, 0, BD "(exec|eval|compile|__import__)" SP "\\(", "runs code built at run time"},
	{"dynamic_code", IN_PY, 0, B "(import|from)[[:space:]]+(importlib|marshal|pickle|dill|base64|codecs|zlib|runpy)" E,
	 "imports a code-loading or decoding module"},
	{"dynamic_code", IN_PY, 0, B "types\\.(FunctionType|CodeType)" E, "builds functions at run time"},

	{"lazy_tensor", IN_PY, 0, "_make_subclass|as_subclass|__torch_function__|__torch_dispatch__|Tensor\\.__new__",
	 "tensor subclass machinery"},
	{"lazy_tensor", IN_PY, 0, B "class[[:space:]]+[A-Za-z_][A-Za-z0-9_]*" SP "\\(([^)]*[^A-Za-z0-9_.])?(torch\\.)?Tensor" SP "[,)]",
	 "defines a torch.Tensor subclass"},

	{"precision", IN_PY, WHEN_FP32, "\\.(half|bfloat16)" SP "\\(", "converts to fp16/bf16"},
	{"precision", IN_PY, WHEN_FP32, "torch\\.(float16|half|bfloat16|float8[A-Za-z0-9_]*)" E, "fp16/bf16/fp8 dtype"},
	{"precision", IN_PY, WHEN_FP32, B "(set_float32_matmul_precision|fp32_precision|autocast|"
					"allow_fp16_reduced_precision_reduction|allow_bf16_reduced_precision_reduction)" E,
	 "changes the global float32 precision or enables autocast"},
	/* allow_tf32 = False (and Triton's tl.dot(..., allow_tf32=False)) keeps fp32: only other uses count */
	{"precision", IN_PY, WHEN_FP32, B "allow_tf32" SP "([^=[:space:]]|=" SP "[^F[:space:]]|$)",
	 "turns TF32 on (allow_tf32)"},
	{"precision", IN_CUDA, WHEN_FP32, B "(__float2half[a-z_0-9]*|__half2float|__float2bfloat16[a-z_0-9]*|"
					  "__bfloat162float|__floats2half2_rn|__float22half2_rn)" E,
	 "converts to fp16/bf16"},
	{"precision", IN_CUDA, WHEN_FP32, B "(__half2?|half2|__nv_bfloat162?|nv_bfloat162?|__nv_fp8[A-Za-z0-9_]*|"
					  "__hmul2?|__hadd2?|__hfma2?)" E,
	 "fp16/bf16/fp8 arithmetic"},
	{"precision", IN_CUDA, WHEN_FP32, "[Tt][Ff]32|CUBLAS_COMPUTE_32F_FAST[A-Z0-9_]*|cublasSetMathMode|"
					  "CUBLAS_TENSOR_OP_MATH",
	 "TF32 or reduced-precision tensor-core math"},
	{"precision", IN_CUDA, WHEN_FP32, "mma\\.sync[.a-z0-9]*\\.(f16|bf16)|wmma::precision|cvt\\.rn[az]?\\.(f16|bf16)",
	 "fp16/bf16/tf32 tensor-core instructions"},

	{"fast_math", IN_CUDA, 0, "use_fast_math|-ffast-math|--ftz=true|prec-div=false|prec-sqrt=false",
	 "fast-math compile flags"},
	{"fast_math", IN_PY, 0, "use_fast_math", "fast-math compile flags"},
	{"fast_math", IN_CUDA, 0, B "(__expf|__logf|__log2f|__log10f|__sinf|__cosf|__tanf|__powf|__fdividef|__exp10f)" SP "\\(",
	 "fast-math intrinsics"},

	{"library_call", IN_CUDA, 0, B "(cublas|cublasLt|cudnn|cufft|cusparse|cusolver)[A-Z][A-Za-z0-9_]*" SP "\\(",
	 "calls a vendor library"},
};

/* Rules for one task kind only. */
static const struct rule kb_rules[] = {
	{"reads_reference", IN_PY, 0, BD "(get_inputs|get_init_inputs)" SP "\\(", "calls the task's input generator"},
	{"torch_fallback", IN_PY, 0, BD "Model" SP "\\(", "instantiates the reference Model"},
	{"torch_fallback", IN_PY, 0, B "class[[:space:]]+[A-Za-z_0-9]+" SP "\\(([^)]*[^A-Za-z0-9_.])?Model" SP "[,)]",
	 "subclasses the reference Model"},
	{"torch_fallback", IN_PY, 0, B "super" SP "\\(" SP "Model" E, "calls into the reference Model"},
};
static const struct rule native_rules[] = {
	{"reads_reference", IN_CUDA, 0, B "(dlopen|dlsym|dlvsym|dladdr|dlinfo|RTLD_[A-Z_]+)" E, "dynamic loading"},
	{"reads_reference", IN_CUDA, 0, "reference\\.(so|cu)|/proc/self|kp_ref", "names the reference"},
};

#undef B
#undef BD
#undef BM
#undef E
#undef SP

/* --- evidence collection ----------------------------------------------------------------------- */

#define MAX_EVIDENCE 3

struct hits {
	const char *check;
	int n;
	struct kp_buf ev; /* "line 12: what (`text`)" entries joined by "; " */
};

struct scan {
	const struct kp_task *task;
	const struct kp_eval_opts *opts;
	const struct kp_pyfacts *facts; /* the Python parser's, for Python candidates; NULL: text rules */
	const char *no_facts;           /* why there are none (said in the text rules' evidence) */
	char why[640];
	struct hits *hits;
	size_t nhits, alloc;
};

static int check_allowed(const struct scan *sc, const char *check)
{
	const struct kp_check_info *ci = kp_check_find(check);
	unsigned kind = kp_task_kind_info(sc->task->kind)->python ? KP_APPLIES_KERNELBENCH : KP_APPLIES_NATIVE;
	if (!ci || !(ci->applies & kind))
		return 0;
	if (sc->opts && sc->opts->allow_checks)
		for (const char *const *a = sc->opts->allow_checks; *a; a++)
			if (!strcmp(*a, check))
				return 0;
	return 1;
}

static struct hits *hits_for(struct scan *sc, const char *check)
{
	for (size_t i = 0; i < sc->nhits; i++)
		if (!strcmp(sc->hits[i].check, check))
			return &sc->hits[i];
	KP_ALLOC_GROW(sc->hits, sc->nhits + 1, sc->alloc);
	sc->hits[sc->nhits] = (struct hits){check, 0, KP_BUF_INIT};
	return &sc->hits[sc->nhits++];
}

static void add_evidence(struct scan *sc, const char *check, int line, const char *what, const char *text, size_t n)
{
	struct hits *h = hits_for(sc, check);
	if (h->n++ >= MAX_EVIDENCE)
		return;
	if (h->ev.len)
		kp_buf_adds(&h->ev, "; ");
	kp_buf_addf(&h->ev, "line %d: %s", line, what);
	if (text && n) {
		kp_buf_adds(&h->ev, " (`");
		for (size_t i = 0; i < n && i < 60; i++)
			kp_buf_addch(&h->ev, isspace((unsigned char)text[i]) ? ' ' : text[i]);
		kp_buf_adds(&h->ev, "`)");
	}
}

/* The rules compiled once per process (regcomp is the cost of a scan; regexec is thread-safe). */
static regex_t compiled_rules[KP_ARRAY_SIZE(rules)], compiled_kb[KP_ARRAY_SIZE(kb_rules)],
	compiled_native[KP_ARRAY_SIZE(native_rules)];
static pthread_once_t compiled_once = PTHREAD_ONCE_INIT;

static void compile_table(const struct rule *rs, size_t n, regex_t *out)
{
	for (size_t i = 0; i < n; i++)
		if (regcomp(&out[i], rs[i].re, REG_EXTENDED | REG_NEWLINE))
			KP_BUG("static check %s: bad pattern '%s'", rs[i].check, rs[i].re);
}

static void compile_all(void)
{
	compile_table(rules, KP_ARRAY_SIZE(rules), compiled_rules);
	compile_table(kb_rules, KP_ARRAY_SIZE(kb_rules), compiled_kb);
	compile_table(native_rules, KP_ARRAY_SIZE(native_rules), compiled_native);
}

/* Matches rule `r` (compiled as `re`) in `text`, whose first line is source line `line0`. */
static void apply_rule(struct scan *sc, const struct rule *r, const regex_t *re, const char *text, int line0)
{
	regmatch_t m[1];

	if (regexec(re, text, 1, m, 0) == 0) {
		const char *s = text + m[0].rm_so;
		size_t n = (size_t)(m[0].rm_eo - m[0].rm_so);
		/* Drop the boundary character the pattern consumed. */
		while (n && !isalnum((unsigned char)*s) && !strchr("_.#-", *s)) {
			s++;
			n--;
		}
		add_evidence(sc, r->check, line0 + kp_src_line_of(text, (size_t)m[0].rm_so) - 1, r->what, s, n);
	}
}

static void apply_rules(struct scan *sc, const struct rule *rs, const regex_t *res, size_t n, unsigned where,
			const char *text, int line0)
{
	int fp32 = sc->task->precision == KP_DTYPE_F32 || sc->task->precision == KP_DTYPE_F64;
	for (size_t i = 0; i < n; i++) {
		if (!(rs[i].where & where) || (rs[i].when == WHEN_FP32 && !fp32))
			continue;
		if (!check_allowed(sc, rs[i].check))
			continue;
		apply_rule(sc, &rs[i], &res[i], text, line0);
	}
}

static void scan_text(struct scan *sc, unsigned where, const char *text, int line0)
{
	pthread_once(&compiled_once, compile_all);
	apply_rules(sc, rules, compiled_rules, KP_ARRAY_SIZE(rules), where, text, line0);
	if (kp_task_kind_info(sc->task->kind)->python && !sc->facts)
		apply_rules(sc, kb_rules, compiled_kb, KP_ARRAY_SIZE(kb_rules), where, text, line0);
	else
		apply_rules(sc, native_rules, compiled_native, KP_ARRAY_SIZE(native_rules), where, text, line0);
}

/* --- PyTorch compute ops ------------------------------------------------------------------------ */

/* Canonical names of the operations whose presence means "PyTorch did the work". */
static const char *const compute_ops[] = {
	"matmul", "conv1d", "conv2d", "conv3d", "convtranspose1d", "convtranspose2d", "convtranspose3d",
	"relu", "relu6", "leakyrelu", "prelu", "sigmoid", "tanh", "gelu", "selu", "elu", "celu", "silu",
	"mish", "softplus", "softsign", "hardsigmoid", "hardtanh", "hardswish", "softmax", "logsoftmax",
	"batchnorm", "layernorm", "groupnorm", "instancenorm", "rmsnorm", "localresponsenorm", "normalize",
	"maxpool1d", "maxpool2d", "maxpool3d", "avgpool1d", "avgpool2d", "avgpool3d", "adaptiveavgpool1d",
	"adaptiveavgpool2d", "adaptiveavgpool3d", "adaptivemaxpool1d", "adaptivemaxpool2d", "adaptivemaxpool3d",
	"sum", "mean", "amax", "amin", "prod", "argmax", "argmin", "cumsum", "cumprod", "norm", "logsumexp",
	"clamp", "dropout", "crossentropy", "mseloss", "kldiv", "huberloss", "smoothl1loss",
	"tripletmarginloss", "cosinesimilarity", "hingeembeddingloss", "scaleddotproductattention",
	"multiheadattention", "lstm", "gru", "rnn", "embedding", "diag", "tril", "triu", "var", "std", "max",
	"min", "exp", "log", "sqrt", "rsqrt", "abs", "pow", "reciprocal", "add", "sub", "mul", "div",
};

/* Spellings that mean the same operation. */
static const struct {
	const char *from, *to;
} op_alias[] = {
	{"mm", "matmul"}, {"bmm", "matmul"}, {"addmm", "matmul"}, {"baddbmm", "matmul"}, {"einsum", "matmul"},
	{"linear", "matmul"}, {"tensordot", "matmul"}, {"mv", "matmul"}, {"addmv", "matmul"},
	{"batchnorm1d", "batchnorm"}, {"batchnorm2d", "batchnorm"}, {"batchnorm3d", "batchnorm"},
	{"instancenorm1d", "instancenorm"}, {"instancenorm2d", "instancenorm"}, {"instancenorm3d", "instancenorm"},
	{"clip", "clamp"}, {"dropout1d", "dropout"}, {"dropout2d", "dropout"}, {"dropout3d", "dropout"},
	{"swish", "silu"}, {"crossentropyloss", "crossentropy"}, {"kldivloss", "kldiv"}, {"mseloss", "mseloss"},
	{"cosinesimilarityloss", "cosinesimilarity"}, {"maximum", "max"}, {"minimum", "min"},
	{"subtract", "sub"}, {"multiply", "mul"}, {"divide", "div"}, {"truediv", "div"},
};

/* Lowercase without underscores, then through the alias table; NULL when not a compute op. */
static const char *canonical_op(const char *name, size_t n, char *tmp, size_t tmpn);

const char *kp__static_compute_op(const char *name, size_t n)
{
	char tmp[64];
	return canonical_op(name, n, tmp, sizeof(tmp));
}

static const char *canonical_op(const char *name, size_t n, char *tmp, size_t tmpn)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 1 < tmpn; i++)
		if (name[i] != '_')
			tmp[k++] = (char)tolower((unsigned char)name[i]);
	tmp[k] = '\0';
	for (size_t i = 0; i < KP_ARRAY_SIZE(op_alias); i++)
		if (!strcmp(tmp, op_alias[i].from)) {
			kp_strlcpy(tmp, op_alias[i].to, tmpn);
			break;
		}
	for (size_t i = 0; i < KP_ARRAY_SIZE(compute_ops); i++)
		if (!strcmp(tmp, compute_ops[i]))
			return compute_ops[i];
	return NULL;
}

#define MAX_OPS 64

struct opset {
	const char *op[MAX_OPS];
	int line[MAX_OPS];  /* the first call's */
	int count[MAX_OPS]; /* how many calls: a reference with two max-pools keeps one if only one is replaced */
	size_t n;
};

static void opset_add(struct opset *s, const char *op, int line)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->op[i] == op) {
			s->count[i]++;
			return;
		}
	if (s->n < MAX_OPS) {
		s->op[s->n] = op;
		s->count[s->n] = 1;
		s->line[s->n++] = line;
	}
}

static int opset_count(const struct opset *s, const char *op)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->op[i] == op)
			return s->count[i];
	return 0;
}

int kp__static_matmul_operator(const char *code, const char *p)
{
	/* An operator when an expression precedes it on the line; a decorator otherwise. */
	const char *q = p;
	while (q > code && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	return q > code && q[-1] != '\n' && (isalnum((unsigned char)q[-1]) || strchr("_)]", q[-1]));
}

/* True when the word before `p` is `def` or `class`: a definition, not a call. */
static int preceded_by_def(const char *code, const char *p)
{
	const char *q = p, *e;
	while (q > code && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	e = q;
	while (q > code && (isalnum((unsigned char)q[-1]) || q[-1] == '_'))
		q--;
	return (e - q == 3 && !strncmp(q, "def", 3)) || (e - q == 5 && !strncmp(q, "class", 5));
}

/* Python: the last name of every call chain `a.b.c(` and the `@` operator. Names that are our own
 * definitions (def/class) are not calls. */
static void py_ops(const char *code, struct opset *s)
{
	const char *p = code;
	int line = 1;
	while (*p) {
		if (*p == '\n') {
			line++;
			p++;
			continue;
		}
		if (*p == '@') {
			if (kp__static_matmul_operator(code, p))
				opset_add(s, "matmul", line);
			p++;
			continue;
		}
		if (isalpha((unsigned char)*p) || *p == '_') {
			const char *last = p, *q;
			int is_def = 0;
			if (p > code && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) {
				p++;
				continue;
			}
			is_def = preceded_by_def(code, p);
			q = p;
			for (;;) {
				last = q;
				while (isalnum((unsigned char)*q) || *q == '_')
					q++;
				if (*q == '.' && (isalpha((unsigned char)q[1]) || q[1] == '_')) {
					q++;
					continue;
				}
				break;
			}
			p = q;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '(' && !is_def) {
				char tmp[64];
				const char *op = canonical_op(last, (size_t)(p - last), tmp, sizeof(tmp));
				if (op)
					opset_add(s, op, line);
			}
			continue;
		}
		p++;
	}
}

/* C++ inside a candidate: torch::op( and at::op( calls, and cuBLAS GEMMs. */
static void cxx_ops(const char *text, int line0, struct opset *s)
{
	static const char *const ns[] = {"torch::", "at::"};
	for (size_t k = 0; k < KP_ARRAY_SIZE(ns); k++) {
		const char *p = text;
		while ((p = strstr(p, ns[k]))) {
			const char *name = p + strlen(ns[k]), *q = name;
			while (isalnum((unsigned char)*q) || *q == '_')
				q++;
			if (*q == '(' || (*q == ' ' && q[1] == '(')) {
				char tmp[64];
				const char *op = canonical_op(name, (size_t)(q - name), tmp, sizeof(tmp));
				if (op)
					opset_add(s, op, line0 + kp_src_line_of(text, (size_t)(p - text)) - 1);
			}
			p = q;
		}
	}
	for (const char *p = text; (p = strstr(p, "cublas")); p += 6) {
		const char *q = p;
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		for (const char *g = p; g + 4 <= q; g++)
			if (!strncmp(g, "emm", 3) && g > p && (g[-1] == 'g' || g[-1] == 'G')) {
				opset_add(s, "matmul", line0 + kp_src_line_of(text, (size_t)(p - text)) - 1);
				break;
			}
	}
}

static void facts_ops(const struct kp_pyop *ops, size_t n, struct opset *s)
{
	for (size_t i = 0; i < n; i++) {
		char tmp[64];
		const char *op = canonical_op(ops[i].name, strlen(ops[i].name), tmp, sizeof(tmp));
		if (op)
			opset_add(s, op, ops[i].line);
	}
}

/* `cand_code`: the candidate's Python (a Triton candidate's host code: tl.sum is not torch.sum); with
 * the parser's facts, the ops reached from the two forwards instead. */
static void torch_op_checks(struct scan *sc, const struct kp_pysrc *cand, const char *cand_code)
{
	struct kp_pysrc ref;
	struct opset rops = {0}, cops = {0}, shared = {0};
	struct kp_buf names = KP_BUF_INIT, ref_host = KP_BUF_INIT;

	kp_pysrc_parse(&ref, sc->task->source ? sc->task->source : "",
		       sc->task->source ? strlen(sc->task->source) : 0);
	if (sc->facts) { /* what Model.forward and ModelNew.forward reach (Triton kernels are not reached) */
		facts_ops(sc->facts->ref_ops, sc->facts->nref, &rops);
		facts_ops(sc->facts->cand_ops, sc->facts->ncand, &cops);
	} else {
		if (kp__static_triton_candidate(&ref)) /* a Triton task: the reference's own kernels are not PyTorch ops */
			kp__static_triton_host_code(ref.code.buf, &ref_host);
		py_ops(ref_host.len ? ref_host.buf : ref.code.buf, &rops);
		py_ops(cand_code, &cops);
	}
	for (size_t i = 0; i < cand->nstrs; i++) {
		struct kp_buf stripped = KP_BUF_INIT;
		kp_csrc_strip(&stripped, cand->strs[i].text, strlen(cand->strs[i].text));
		cxx_ops(stripped.buf, cand->strs[i].line, &cops);
		kp_buf_release(&stripped);
	}
	int all_kept = rops.n > 0; /* every reference op still called, each as often as the reference calls it */
	for (size_t i = 0; i < rops.n; i++) {
		if (opset_count(&cops, rops.op[i]) < rops.count[i])
			all_kept = 0;
		for (size_t j = 0; j < cops.n; j++)
			if (cops.op[j] == rops.op[i])
				opset_add(&shared, cops.op[j], cops.line[j]);
	}
	for (size_t i = 0; i < shared.n && i < 8; i++)
		kp_buf_addf(&names, "%s%s (line %d)", i ? ", " : "", shared.op[i], shared.line[i]);
	if (all_kept && check_allowed(sc, "torch_fallback")) {
		struct hits *h = hits_for(sc, "torch_fallback");
		h->n++;
		if (h->ev.len)
			kp_buf_adds(&h->ev, "; ");
		kp_buf_addf(&h->ev, "calls every compute op the reference uses: %s; nothing was replaced", names.buf);
	} else if (shared.n && check_allowed(sc, "torch_ops")) {
		struct hits *h = hits_for(sc, "torch_ops");
		h->n++;
		kp_buf_addf(&h->ev, "keeps %zu of the reference's %zu compute ops: %s", shared.n, rops.n, names.buf);
	}
	kp_buf_release(&names);
	kp_buf_release(&ref_host);
	kp_pysrc_release(&ref);
}

/* --- the entry point ------------------------------------------------------------------------------ */

/* What the Triton rules found (static_triton.c), kept unless the check is switched off. */
static void triton_evidence(void *ud, const char *check, int line, const char *what, const char *text, size_t n)
{
	struct scan *sc = ud;
	if (check_allowed(sc, check))
		add_evidence(sc, check, line, what, text, n);
}

static int has_kernel(const struct kp_pysrc *p)
{
	for (size_t i = 0; i < p->nstrs; i++)
		if (strstr(p->strs[i].text, "__global__"))
			return 1;
	return strstr(p->code.buf, "triton.jit") != NULL;
}

static const char *fix_hint(const char *check)
{
	static const struct {
		const char *check, *hint;
	} hints[] = {
		{"torch_fallback", "write the computation as your own CUDA kernel instead of calling the reference's ops"},
		{"no_kernel", "define a __global__ kernel (load_inline or the kernelpro.fast path) or a @triton.jit kernel "
			      "and call it in forward()"},
		{"host_compute", "do the work in the Triton kernels; around the launches only allocate (torch.empty) and "
				 "reshape (view, contiguous)"},
		{"try_fallback", "remove the try/except; let build and launch errors surface"},
		{"streams", "launch on the stream you are given (torch.cuda.current_stream() or the ABI's stream)"},
		{"threads", "do all work in the calling thread"},
		{"timer_patch", "do not assign to torch/time attributes"},
		{"harness_tamper", "do not inspect the interpreter or the caller"},
		{"dynamic_code", "write the code directly; no exec/eval/importlib"},
		{"lazy_tensor", "return plain torch.Tensor outputs"},
		{"precision", "compute in the task's precision (fp32): no fp16/bf16/TF32 (in Triton: no allow_tf32=True, "
			      "input_precision=\"tf32\" or .to(tl.float16))"},
		{"reads_reference", "compute the result yourself; do not call the reference or its input generator"},
	};
	for (size_t i = 0; i < KP_ARRAY_SIZE(hints); i++)
		if (!strcmp(hints[i].check, check))
			return hints[i].hint;
	return NULL;
}

/* The verdict's message and log (both taken over) from the static checks: phase "static". */
static void static_verdict(struct kp_verdict *v, char *message, char *log)
{
	free(v->message);
	free(v->log);
	free(v->phase);
	v->message = message;
	v->log = log;
	v->phase = kp_xstrdup("static");
}

/* The Python parser's facts (static_py.c), unless KERNELPRO_PYSTATIC=off (fuzzing the text rules) or
 * it cannot run: then the text rules stand in, and their reads_reference evidence says why. */
static int python_facts(struct scan *sc, struct kp_pyfacts *f, const char *src, size_t len)
{
	struct kp_error e = KP_ERROR_INIT;
	const char *off = getenv("KERNELPRO_PYSTATIC");
	if (off && !strcmp(off, "off")) {
		sc->no_facts = "KERNELPRO_PYSTATIC=off";
		return 0;
	}
	if (kp_pyfacts_run(f, sc->opts ? sc->opts->python : NULL, sc->task->source, src, len, &e)) {
		snprintf(sc->why, sizeof(sc->why), "the Python parser could not run: %s", e.msg);
		sc->no_facts = sc->why;
		return 0;
	}
	return 1; /* one that does not parse has no facts: its import fails, a compile_error, not ours */
}

static void facts_evidence(struct scan *sc)
{
	static const struct {
		const char *check;
		size_t off;
	} lists[] = {
		{"reads_reference", offsetof(struct kp_pyfacts, reads)},
		{"torch_fallback", offsetof(struct kp_pyfacts, fallback)},
	};
	for (size_t k = 0; k < KP_ARRAY_SIZE(lists); k++) {
		const struct kp_pyev_list *l = (const void *)((const char *)sc->facts + lists[k].off);
		if (!check_allowed(sc, lists[k].check))
			continue;
		for (size_t i = 0; i < l->n; i++)
			add_evidence(sc, lists[k].check, l->ev[i].line, l->ev[i].what, l->ev[i].text,
				     strlen(l->ev[i].text));
	}
}

int kp_eval_static(const struct kp_task *task, const char *src, size_t len, const struct kp_eval_opts *o,
		   struct kp_verdict *v, struct kp_error *err)
{
	struct scan sc = {.task = task, .opts = o};
	struct kp_buf log = KP_BUF_INIT, msg = KP_BUF_INIT;
	struct kp_pyfacts facts;
	int refused = 0, is_py = kp_task_kind_info(task->kind)->python;

	if (is_py) {
		struct kp_pysrc p;
		struct kp_buf host = KP_BUF_INIT;
		if (python_facts(&sc, &facts, src, len))
			sc.facts = &facts;
		if (sc.facts && !facts.parsed) {
			/* Not Python (a reply of C++ or prose, a truncated file): its import fails, so it is a compile
			 * error, as KernelBench reports it; no check can say what code that never runs does. */
			v->status = KP_STATUS_COMPILE_ERROR;
			static_verdict(v, kp_xasprintf("the candidate is not valid Python: %s", facts.error),
			               kp_xasprintf("%s\n  fix: the candidate must be a Python file defining class ModelNew "
			                            "(a model's reply may hold C++ or prose around the code)", facts.error));
			return 0;
		}
		kp_pysrc_parse(&p, src, len);
		if (sc.facts)
			facts_evidence(&sc);
		scan_text(&sc, IN_PY, p.code.buf, 1);
		if (kp__static_triton_candidate(&p)) {
			kp__static_triton_host_code(p.code.buf, &host);
			kp__static_triton_scan(
			    &p, host.buf, task->precision == KP_DTYPE_F32 || task->precision == KP_DTYPE_F64,
			    triton_evidence, &sc);
		}
		for (size_t i = 0; i < p.nstrs; i++) {
			struct kp_buf stripped = KP_BUF_INIT;
			kp_csrc_strip(&stripped, p.strs[i].text, strlen(p.strs[i].text));
			scan_text(&sc, IN_CUDA, stripped.buf, p.strs[i].line);
			kp_buf_release(&stripped);
		}
		/* A file that cannot bind ModelNew fails at import with that said (the harness's compile_error):
		 * whether it has a kernel is beside the point. */
		if (!has_kernel(&p) && !(sc.facts && !facts.defines_model_new) && check_allowed(&sc, "no_kernel")) {
			struct hits *h = hits_for(&sc, "no_kernel");
			h->n++;
			kp_buf_adds(&h->ev, "no __global__ function in any source string and no @triton.jit kernel");
		}
		torch_op_checks(&sc, &p, host.len ? host.buf : p.code.buf);
		kp_buf_release(&host);
		kp_pysrc_release(&p);
	} else {
		struct kp_buf stripped = KP_BUF_INIT;
		kp_csrc_strip(&stripped, src, len);
		scan_text(&sc, IN_CUDA, stripped.buf, 1);
		kp_buf_release(&stripped);
	}

	for (size_t i = 0; i < sc.nhits; i++) {
		struct hits *h = &sc.hits[i];
		const struct kp_check_info *ci = kp_check_find(h->check);
		const char *hint = fix_hint(h->check);
		if (!sc.facts && sc.no_facts && is_py && !strcmp(h->check, "reads_reference"))
			kp_buf_addf(&h->ev, " (a text match: %s)", sc.no_facts);
		kp_verdict_flag(v, h->check, ci->severity, "%s%s", h->ev.buf,
				h->n > MAX_EVIDENCE ? " (and more)" : "");
		if (ci->severity == KP_SEV_REFUSE) {
			kp_buf_addf(&msg, "%s%s", refused ? ", " : "", h->check);
			kp_buf_addf(&log, "refused by static check '%s' (%s): %s%s%s\n", h->check, ci->title, h->ev.buf,
				    hint ? "\n  fix: " : "", hint ? hint : "");
			refused++;
		}
	}
	if (refused) {
		kp_buf_rtrim(&log);
		static_verdict(v, kp_xasprintf("refused by static check%s: %s", refused > 1 ? "s" : "", msg.buf),
		               kp_buf_detach(&log, NULL));
	}
	for (size_t i = 0; i < sc.nhits; i++)
		kp_buf_release(&sc.hits[i].ev);
	free(sc.hits);
	kp_buf_release(&log);
	kp_buf_release(&msg);
	(void)err;
	return 0;
}
