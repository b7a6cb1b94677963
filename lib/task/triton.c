/*
 * Triton tasks: a KernelBench-layout .py file (Model, get_inputs, get_init_inputs) whose Model
 * launches @triton.jit kernels; how such a file is told from a KernelBench one, and its Stage-1 hints.
 */
#include "base/setup.h"

#include <ctype.h>
#include <math.h>

#include "task/task_int.h"

/* The decorators that make a function a Triton kernel (or wrap one). */
static const char *const decorators[] = {"@triton.jit", "@triton.autotune", "@triton.heuristics", "@jit"};

/* A line, without the trailing newline, and where the next one starts. */
static size_t line_at(const char *s, size_t len, size_t i, size_t *next)
{
	size_t e = i;
	while (e < len && s[e] != '\n')
		e++;
	*next = e < len ? e + 1 : e;
	return e;
}

/* Updates the triple-quote state with the quotes on s[i, e) that are outside '#' comments. */
static void track_triple(const char *s, size_t i, size_t e, char *open)
{
	for (size_t k = i; k < e; k++) {
		if (!*open && s[k] == '#')
			return;
		if (k + 3 <= e && (s[k] == '"' || s[k] == '\'') && s[k + 1] == s[k] && s[k + 2] == s[k]) {
			if (!*open)
				*open = s[k];
			else if (*open == s[k])
				*open = 0;
			k += 2;
		}
	}
}

int kp_py_has_triton(const char *src, size_t len)
{
	char open = 0; /* inside a """ or ''' string */
	int imports = 0, decorated = 0;

	for (size_t i = 0, next; i < len; i = next) {
		size_t e = line_at(src, len, i, &next), k = i;
		char was = open;
		track_triple(src, i, e, &open);
		if (was)
			continue;
		while (k < e && (src[k] == ' ' || src[k] == '\t'))
			k++;
		if (e - k >= 13 && (!strncmp(src + k, "import triton", 13) || !strncmp(src + k, "from triton", 11)))
			imports = 1;
		for (size_t d = 0; d < KP_ARRAY_SIZE(decorators); d++) {
			size_t n = strlen(decorators[d]);
			if (e - k >= n && !strncmp(src + k, decorators[d], n) &&
			    (k + n == e || !(isalnum((unsigned char)src[k + n]) || src[k + n] == '_')))
				decorated = 1;
		}
		/* kernel = triton.jit(fn) */
		for (const char *p = src + k; p + 11 <= src + e; p++) {
			if (*p == '#')
				break;
			if (!strncmp(p, "triton.jit(", 11) && (p == src + k || !isalnum((unsigned char)p[-1])))
				decorated = 1;
		}
	}
	return imports && decorated;
}

/*
 * "KERNELPRO_FLOPS = 2 * 4096 * 4096 * 4096  # comment": the product, into *out. 0 when the line
 * does not assign `name`; KP_EPARSE when it does but the value is not a product of integers.
 */
static int hint_line(const char *s, size_t e, const char *name, double *out, struct kp_error *err)
{
	size_t n = strlen(name), k = 0;
	double v = 1;
	int terms = 0;

	if (e < n || strncmp(s, name, n))
		return 0;
	k = n;
	while (k < e && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (k >= e || s[k] != '=' || (k + 1 < e && s[k + 1] == '='))
		return 0;
	k++;
	for (;;) {
		double term = 0;
		int digits = 0;
		while (k < e && (s[k] == ' ' || s[k] == '\t'))
			k++;
		while (k < e && (isdigit((unsigned char)s[k]) || (s[k] == '_' && digits))) {
			if (s[k] != '_') {
				term = term * 10 + (s[k] - '0');
				digits++;
			}
			k++;
		}
		if (!digits || digits > 18)
			break;
		v *= term;
		terms++;
		while (k < e && (s[k] == ' ' || s[k] == '\t'))
			k++;
		if (k < e && s[k] == '*' && (k + 1 >= e || s[k + 1] != '*')) {
			k++;
			continue;
		}
		if (k == e || s[k] == '#')
			break;
		terms = 0; /* anything else: not a product of integer literals */
		break;
	}
	if (!terms || !isfinite(v) || v > 1e30)
		return kp_error_set(err, KP_EPARSE,
				    "%s must be an integer or a product of integers (e.g. 2 * 4096 * 4096 * 4096)", name);
	*out = v;
	return 1;
}

int kp__task_triton_hints(struct kp_task *t, struct kp_error *err)
{
	static const char *const names[] = {"KERNELPRO_FLOPS", "KERNELPRO_MIN_BYTES"};
	double *dst[] = {&t->flops, &t->min_bytes};
	const char *s = t->source;
	size_t len = strlen(s);

	for (size_t i = 0, next; i < len; i = next) {
		size_t e = line_at(s, len, i, &next);
		for (size_t h = 0; h < KP_ARRAY_SIZE(names); h++) {
			int rc = hint_line(s + i, e - i, names[h], dst[h], err);
			if (rc < 0) {
				kp_error_prefix(err, "'%s'", t->path ? t->path : "task");
				return rc;
			}
		}
	}
	return 0;
}
