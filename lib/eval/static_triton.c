/*
 * The static checks' Triton part: a Triton candidate's host code (everything outside its
 * @triton.jit functions) may allocate and reshape around the launches, nothing more; Triton's
 * own ways to leave the current stream or lower the precision of tl.dot are refused too.
 */
#include "base/setup.h"

#include <ctype.h>
#include <pthread.h>
#include <regex.h>
#include <strings.h>

#include "eval/static_triton.h"
#include "kernelpro/str.h"
#include "kernelpro/task.h"

int kp__static_triton_candidate(const struct kp_pysrc *p)
{
	return kp_py_has_triton(p->code.buf, p->code.len);
}

/* --- host code ---------------------------------------------------------------------------------- */

static size_t indent_of(const char *s, size_t i, size_t e)
{
	size_t k = i;
	while (k < e && (s[k] == ' ' || s[k] == '\t'))
		k++;
	return k - i;
}

static int starts(const char *s, size_t e, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(e) >= n && !strncmp(s, word, n) && (e == n || !(isalnum((unsigned char)s[n]) || s[n] == '_'));
}

/* The bracket depth after s[i, e) starting from `depth` (strings are already "" in lexed code). */
static int depth_after(const char *s, size_t i, size_t e, int depth)
{
	for (size_t k = i; k < e; k++)
		depth += (s[k] == '(' || s[k] == '[' || s[k] == '{') - (s[k] == ')' || s[k] == ']' || s[k] == '}');
	return depth < 0 ? 0 : depth;
}

void kp__static_triton_host_code(const char *code, struct kp_buf *out)
{
	static const char *const decos[] = {"@triton.jit", "@triton.autotune", "@triton.heuristics", "@jit"};
	size_t len = strlen(code), start = out->len;
	enum { HOST, DECO, SIG, BODY } st = HOST;
	size_t def_indent = 0;
	int depth = 0;

	kp_buf_add(out, code, len);
	for (size_t i = 0; i < len;) {
		size_t e = i, ind, k;
		while (e < len && code[e] != '\n')
			e++;
		ind = indent_of(code, i, e);
		k = i + ind;
		if (st == BODY) {
			if (k < e && ind <= def_indent) {
				st = HOST; /* the first line back at the def's level ends the kernel */
			} else {
				memset(out->buf + start + i, ' ', e - i);
				i = e < len ? e + 1 : e;
				continue;
			}
		}
		if (st == HOST || st == DECO) {
			int deco = 0;
			for (size_t d = 0; d < KP_ARRAY_SIZE(decos) && !deco; d++)
				deco = starts(code + k, e - k, decos[d]);
			if (deco) {
				st = DECO;
				depth = depth_after(code, k, e, 0);
			} else if (st == DECO && depth > 0) {
				depth = depth_after(code, i, e, depth); /* a decorator's arguments over several lines */
			} else if (st == DECO && starts(code + k, e - k, "def")) {
				st = SIG;
				def_indent = ind;
				depth = 0;
			} else if (st == DECO && k < e && code[k] != '@') {
				st = HOST; /* decorated something else */
			}
		}
		if (st == SIG) {
			depth = depth_after(code, i, e, depth);
			if (!depth) {
				size_t c = e;
				while (c > k && (code[c - 1] == ' ' || code[c - 1] == '\t' || code[c - 1] == '\r'))
					c--;
				st = BODY;
				if (c > k && code[c - 1] != ':') {
					/* "def f(x): return x" on one line: the body follows the colon */
					const char *colon = memchr(code + k, ':', e - k);
					while (colon && memchr(colon + 1, ':', (size_t)(code + e - colon - 1)))
						colon = memchr(colon + 1, ':', (size_t)(code + e - colon - 1));
					if (colon)
						memset(out->buf + start + (size_t)(colon - code) + 1, ' ', (size_t)(code + e - colon - 1));
					st = HOST;
				}
			}
		}
		i = e < len ? e + 1 : e;
	}
}

/* --- pattern rules ------------------------------------------------------------------------------ */

enum { IN_ALL = 1, IN_HOST = 2 };

struct trule {
	const char *check;
	unsigned where;
	int fp32_only;
	const char *re; /* POSIX extended, per line */
	const char *what;
};

#define B "(^|[^A-Za-z0-9_])"
#define E "([^A-Za-z0-9_]|$)"
#define SP "[[:space:]]*"

static const struct trule rules[] = {
	{"precision", IN_ALL, 1, B "(tl|triton\\.language)\\.(float16|bfloat16|float8[A-Za-z0-9_]*)" E,
	 "fp16/bf16/fp8 in a Triton kernel (a conversion or an out_dtype)"},
	{"precision", IN_ALL, 1, B "(fp32_default|TRITON_F32_DEFAULT)" E,
	 "changes Triton's default precision for fp32 tl.dot"},
	{"streams", IN_ALL, 0, B "(get_current_stream|set_current_stream|get_raw_stream)" E,
	 "reaches for the stream Triton launches on"},
	{"streams", IN_HOST, 0, "([(,]" SP "stream" SP "=[^=]|^[[:space:]]+stream=[^=])",
	 "passes a stream to a launch"},
	{"host_compute", IN_HOST, 0, B "torch\\.(compile|_dynamo|_inductor|jit\\.script|jit\\.trace)" E,
	 "lets PyTorch generate the kernels (torch.compile / TorchScript)"},
	{"harness_tamper", IN_ALL, 0,
	 "os\\.environ" SP "(\\[[^]]*\\]" SP "=[^=]|\\.(update|setdefault|pop|clear)" SP "\\()|os\\.(putenv|unsetenv)" SP
	 "\\(",
	 "changes the process environment (Triton reads its settings from it)"},
};

#undef B
#undef E
#undef SP

static regex_t compiled[KP_ARRAY_SIZE(rules)];
static pthread_once_t compiled_once = PTHREAD_ONCE_INIT;

static void compile_rules(void)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(rules); i++)
		if (regcomp(&compiled[i], rules[i].re, REG_EXTENDED | REG_NEWLINE))
			KP_BUG("triton static rule %s: bad pattern '%s'", rules[i].check, rules[i].re);
}

/* The first match of rule i in `text` (one is evidence enough to refuse). */
static void apply(size_t i, const char *text, kp__static_triton_emit emit, void *ud)
{
	regmatch_t m[1];
	const char *s;
	size_t len;

	if (regexec(&compiled[i], text, 1, m, 0))
		return;
	s = text + m[0].rm_so;
	len = (size_t)(m[0].rm_eo - m[0].rm_so);
	while (len && !isalnum((unsigned char)*s) && *s != '_' && *s != '.') {
		s++;
		len--;
	}
	emit(ud, rules[i].check, kp_src_line_of(text, (size_t)m[0].rm_so), rules[i].what, s, len);
}

/* --- PyTorch calls in the host code ---------------------------------------------------------------- */

/* Allocation, views and metadata: what the host code may call on tensors and torch. */
static const char *const host_allowed[] = {
	"empty", "emptylike", "emptystrided", "zeros", "zeroslike", "ones", "oneslike", "full", "fulllike",
	"newempty", "newzeros", "newones", "newfull", "tensor", "astensor", "arange", "view", "viewas", "reshape",
	"contiguous", "flatten", "unflatten", "squeeze", "unsqueeze", "permute", "transpose", "t", "expand",
	"expandas", "asstrided", "narrow", "select", "split", "chunk", "unbind", "size", "stride", "numel", "dim",
	"dataptr", "elementsize", "iscontiguous", "storageoffset", "to", "cuda", "float", "double", "clone",
	"copy", "detach", "requiresgrad", "nograd", "inferencemode", "currentdevice", "currentstream", "device",
	"getdeviceproperties", "getdevicecapability", "synchronize", "manualseed", "cat", "stack", "pad",
	"parameters", "buffers", "modules", "registerbuffer", "registerparameter", "fill", "zero",
};

/* Tensor math the compute-op list of static.c does not name (it names the reference's typical ops). */
static const char *const host_math[] = {
	"add", "sub", "subtract", "mul", "multiply", "div", "divide", "truedivide", "floordivide", "remainder",
	"fmod", "addcmul", "addcdiv", "lerp", "where", "maskedfill", "maskedscatter", "neg", "negative",
	"square", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "erf", "erfc", "expm1",
	"log1p", "log2", "log10", "exp2", "floor", "ceil", "trunc", "sign", "sgn", "sort", "topk", "kthvalue",
	"median", "cummax", "cummin", "logcumsumexp", "scatter", "scatteradd", "scatterreduce", "indexadd",
	"indexput", "gather", "indexselect", "take", "bincount", "histc", "dot", "vdot", "outer", "ger", "kron",
	"cross", "cdist", "addbmm", "addr", "chainmatmul", "eq", "ne", "lt", "le", "gt", "ge", "clampmin",
	"clampmax", "nantonum", "any", "all", "countnonzero", "interpolate", "unfold", "fold", "convolution",
	"linalg", "fft", "special",
};

/* Python builtins a bare call may name without PyTorch being involved (max(a, b) on ints). */
static const char *const builtins[] = {
	"abs", "all", "any", "divmod", "len", "max", "min", "pow", "range", "round", "sum", "int", "float", "bool",
	"tuple", "list", "dict", "set", "print", "isinstance", "getattr", "hasattr", "enumerate", "zip", "sorted",
	"reversed", "map", "filter", "super", "type", "str", "iter", "next", "slice",
};

/* Module classes whose call does no computation. */
static const char *const inert_modules[] = {"Parameter", "ParameterList", "ParameterDict", "ModuleList", "ModuleDict",
					    "Identity", "Dropout", "Buffer"};

static int in_list(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

/* Lowercase, underscores dropped: "empty_like" -> "emptylike", "relu_" -> "relu". */
static void fold(const char *s, size_t n, char *out, size_t outn)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 1 < outn; i++)
		if (s[i] != '_')
			out[k++] = (char)tolower((unsigned char)s[i]);
	out[k] = '\0';
}

#define MAX_NAMES 64

/*
 * Names in the host code: `self.NAME = nn.Class(` / `torch.nn.Class(` assignments (the module
 * attributes that compute), and the functions the file defines itself (a helper named softmax is
 * not torch.softmax).
 */
struct modules {
	char name[MAX_NAMES][48];
	char cls[MAX_NAMES][48];
	size_t n;
	char defined[MAX_NAMES][48];
	size_t ndefined;
};

static int ident(int c)
{
	return isalnum(c) || c == '_';
}

static void find_modules(const char *host, struct modules *m)
{
	for (const char *p = host; (p = strstr(p, "self.")); p += 5) {
		const char *n = p + 5, *q = n, *c;
		size_t nl;
		if (p > host && (ident((unsigned char)p[-1]) || p[-1] == '.'))
			continue;
		while (ident((unsigned char)*q))
			q++;
		nl = (size_t)(q - n);
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '=' || q[1] == '=' || !nl || nl >= sizeof(m->name[0]))
			continue;
		q++;
		while (*q == ' ' || *q == '\t')
			q++;
		if (!strncmp(q, "torch.nn.", 9))
			c = q + 9;
		else if (!strncmp(q, "nn.", 3))
			c = q + 3;
		else
			continue;
		q = c;
		while (ident((unsigned char)*q))
			q++;
		if (*q != '(' || (size_t)(q - c) >= sizeof(m->cls[0]) || !isupper((unsigned char)*c) || m->n >= MAX_NAMES)
			continue;
		snprintf(m->cls[m->n], sizeof(m->cls[0]), "%.*s", (int)(q - c), c);
		if (in_list(inert_modules, KP_ARRAY_SIZE(inert_modules), m->cls[m->n]))
			continue;
		snprintf(m->name[m->n], sizeof(m->name[0]), "%.*s", (int)nl, n);
		m->n++;
	}
	for (const char *p = host; (p = strstr(p, "def ")); p += 4) {
		const char *n = p + 4, *q;
		if (p > host && ident((unsigned char)p[-1]))
			continue;
		while (*n == ' ')
			n++;
		for (q = n; ident((unsigned char)*q); q++)
			;
		if (q > n && (size_t)(q - n) < sizeof(m->defined[0]) && m->ndefined < MAX_NAMES)
			snprintf(m->defined[m->ndefined++], sizeof(m->defined[0]), "%.*s", (int)(q - n), n);
	}
}

static int defined_here(const struct modules *m, const char *name, size_t n)
{
	for (size_t i = 0; i < m->ndefined; i++)
		if (strlen(m->defined[i]) == n && !strncmp(m->defined[i], name, n))
			return 1;
	return 0;
}

/* One call chain `a.b.c(` in the host code: what it calls, or NULL when that is allowed. */
static const char *judge_call(const struct modules *mods, const char *first, size_t fn, const char *last, size_t ln,
			      int chain, char *what, size_t wn)
{
	char f[64], l[64];
	fold(first, fn, f, sizeof(f));
	fold(last, ln, l, sizeof(l));
	if (chain == 2 && fn == 4 && !strncmp(first, "self", 4))
		for (size_t i = 0; i < mods->n; i++)
			if (strlen(mods->name[i]) == ln && !strncmp(mods->name[i], last, ln)) {
				snprintf(what, wn, "calls the nn.%s module self.%s outside the Triton kernels", mods->cls[i],
					 mods->name[i]);
				return what;
			}
	if (!strcmp(f, "tl") || !strcmp(f, "triton") || !strcmp(f, "libdevice") || !strcmp(f, "math"))
		return NULL;
	if (isupper((unsigned char)*last))
		return NULL; /* a class: nn.Linear(...) makes parameters, triton.Config(...) a setting */
	if (chain == 1 && (in_list(builtins, KP_ARRAY_SIZE(builtins), l) || defined_here(mods, first, fn)))
		return NULL;
	if (in_list(host_allowed, KP_ARRAY_SIZE(host_allowed), l))
		return NULL;
	if (kp__static_compute_op(last, ln) || in_list(host_math, KP_ARRAY_SIZE(host_math), l) ||
	    ((!strcmp(f, "f") || !strcmp(f, "functional")) && chain > 1)) {
		snprintf(what, wn, "computes with PyTorch outside the Triton kernels");
		return what;
	}
	return NULL;
}

static int preceded_by_keyword(const char *code, const char *p, const char *kw)
{
	size_t n = strlen(kw);
	const char *q = p;
	while (q > code && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	return (size_t)(q - code) >= n && !strncmp(q - n, kw, n) && (q - n == code || !ident((unsigned char)q[-n - 1]));
}

static void host_calls(const char *host, kp__static_triton_emit emit, void *ud)
{
	struct modules mods = {0};
	int line = 1;

	find_modules(host, &mods);
	for (const char *p = host; *p;) {
		if (*p == '\n') {
			line++;
			p++;
			continue;
		}
		if (*p == '@') {
			if (kp__static_matmul_operator(host, p))
				emit(ud, "host_compute", line, "multiplies matrices with PyTorch's @ outside the Triton kernels",
				     "@", 1);
			p++;
			continue;
		}
		if ((isalpha((unsigned char)*p) || *p == '_') && (p == host || !(ident((unsigned char)p[-1]) || p[-1] == '.'))) {
			const char *first = p, *last = p, *q = p, *start = p;
			size_t fn;
			int chain = 0;
			char what[160];
			while (ident((unsigned char)*q))
				q++;
			fn = (size_t)(q - first);
			chain = 1;
			while (*q == '.' && (isalpha((unsigned char)q[1]) || q[1] == '_')) {
				last = ++q;
				while (ident((unsigned char)*q))
					q++;
				chain++;
			}
			p = q;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '(' && !preceded_by_keyword(host, start, "def") && !preceded_by_keyword(host, start, "class") &&
			    judge_call(&mods, first, fn, last, (size_t)(p - last), chain, what, sizeof(what)))
				emit(ud, "host_compute", line, what, start, (size_t)(q - start) + 1);
			continue;
		}
		p++;
	}
}

/* --- string literals ---------------------------------------------------------------------------------- */

static void literals(const struct kp_pysrc *p, int fp32, kp__static_triton_emit emit, void *ud)
{
	for (size_t i = 0; i < p->nstrs; i++) {
		const char *s = p->strs[i].text;
		if (fp32 && strstr(s, "TRITON_F32_DEFAULT"))
			emit(ud, "precision", p->strs[i].line, "changes Triton's default precision for fp32 tl.dot", s,
			     strlen(s));
		if (fp32 && (!strcasecmp(s, "bf16x3") || !strcasecmp(s, "bf16x6")))
			emit(ud, "precision", p->strs[i].line, "bf16 input precision for tl.dot", s, strlen(s));
	}
}

void kp__static_triton_scan(const struct kp_pysrc *p, const char *host, int fp32, kp__static_triton_emit emit,
                            void *ud)
{
	pthread_once(&compiled_once, compile_rules);
	for (size_t i = 0; i < KP_ARRAY_SIZE(rules); i++) {
		if (rules[i].fp32_only && !fp32)
			continue;
		if (rules[i].where & IN_ALL)
			apply(i, p->code.buf, emit, ud);
		else
			apply(i, host, emit, ud);
	}
	literals(p, fp32, emit, ud);
	host_calls(host, emit, ud);
}
