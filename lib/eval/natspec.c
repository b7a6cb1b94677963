/* The native harness's spec, both ways (natspec.h). */
#include "base/setup.h"

#include <math.h>

#include "eval/natspec.h"
#include "kernelpro/buf.h"
#include "kernelpro/str.h"

static const size_t dtype_size[] = {4, 2, 2, 8, 4, 8, 1, 1}; /* KP_ABI_F32 .. KP_ABI_U8 */

void kp_natspec_init(struct kp_natspec *s)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->mode, "eval", 5);
	s->seed = 42;
	s->correct_trials = 5;
	s->warmup = 3;
	s->trials = 100;
	s->discard = 1;
	s->time_cand = s->time_ref = s->l2_flush = s->scaled_trial = 1;
}

int kp_natspec_add(struct kp_natspec *s, int is_input, const char *name, int dtype, int ndim, const int64_t *shape,
		   int fill, double a, double b, struct kp_error *err)
{
	int *n = is_input ? &s->nin : &s->nout;
	struct kp_natspec_tensor *t;
	uint64_t numel = 1;

	if (*n >= KP_NATSPEC_TENSORS)
		return kp_error_set(err, KP_EINVAL, "more than %d %s", KP_NATSPEC_TENSORS, is_input ? "inputs" : "outputs");
	if (dtype < 0 || (size_t)dtype >= KP_ARRAY_SIZE(dtype_size) || ndim < 0 || ndim > KP_NATSPEC_DIMS)
		return kp_error_set(err, KP_EINVAL, "tensor '%s': dtype %d or %d dimensions out of range", name, dtype, ndim);
	if (!name[0] || strlen(name) >= sizeof(t->name) || strpbrk(name, " \t\r\n"))
		return kp_error_set(err, KP_EINVAL, "tensor name '%s': 1-63 characters without spaces", name);
	t = is_input ? &s->in[*n] : &s->out[*n];
	memset(t, 0, sizeof(*t));
	kp_strlcpy(t->name, name, sizeof(t->name));
	for (int d = 0; d < ndim; d++) {
		if (shape[d] <= 0 || numel > (UINT64_MAX / dtype_size[dtype]) / (uint64_t)shape[d])
			return kp_error_set(err, KP_EINVAL, "tensor '%s': dimension %d is %lld", name, d, (long long)shape[d]);
		numel *= (uint64_t)shape[d];
		t->shape[d] = shape[d];
	}
	if (numel > (uint64_t)INT64_MAX / 8)
		return kp_error_set(err, KP_EINVAL, "tensor '%s' is too large", name);
	t->dtype = dtype;
	t->ndim = ndim;
	t->fill = fill;
	t->a = a;
	t->b = b;
	t->numel = (int64_t)numel;
	t->bytes = (size_t)numel * dtype_size[dtype];
	(*n)++;
	return 0;
}

static void write_tensor(struct kp_buf *b, const char *kind, const struct kp_natspec_tensor *t, int is_input)
{
	kp_buf_addf(b, "%s %s %d %d", kind, t->name, t->dtype, t->ndim);
	for (int d = 0; d < t->ndim; d++)
		kp_buf_addf(b, " %lld", (long long)t->shape[d]);
	if (is_input)
		kp_buf_addf(b, " %d", t->fill);
	kp_buf_addf(b, " %.17g %.17g\n", t->a, t->b);
}

void kp_natspec_write(const struct kp_natspec *s, struct kp_buf *b)
{
	kp_buf_addf(b, "kp-native-spec 1\nmode %s\nref %s\n", s->mode, s->ref);
	if (s->cand[0])
		kp_buf_addf(b, "cand %s\n", s->cand);
	kp_buf_addf(b, "seed %llu\ncorrect_trials %d\nwarmup %d\ntrials %d\ndiscard %d\n", s->seed, s->correct_trials,
		    s->warmup, s->trials, s->discard);
	kp_buf_addf(b, "time_candidate %d\ntime_reference %d\nl2_flush %d\nscaled_trial %d\n", s->time_cand, s->time_ref,
		    s->l2_flush, s->scaled_trial);
	kp_buf_addf(b, "limit_check %.17g\nlimit_timing %.17g\nloop_s %.17g\niters %ld\n", s->limit_check,
		    s->limit_timing, s->loop_s, s->iters);
	for (int i = 0; i < s->noff; i++)
		kp_buf_addf(b, "off %s\n", s->off[i]);
	for (int i = 0; i < s->nin; i++)
		write_tensor(b, "in", &s->in[i], 1);
	for (int i = 0; i < s->nout; i++)
		write_tensor(b, "out", &s->out[i], 0);
	kp_buf_adds(b, "end\n");
}

int kp_natspec_off(const struct kp_natspec *s, const char *check)
{
	for (int i = 0; i < s->noff; i++)
		if (!strcmp(s->off[i], check))
			return 1;
	return 0;
}

/* --- reading ----------------------------------------------------------------------------------- */

struct cursor {
	const char *p, *end;
	int line;
	struct kp_error *err;
};

static int bad(struct cursor *c, const char *what)
{
	return kp_error_set(c->err, KP_EPARSE, "native spec line %d: %s", c->line, what);
}

/* The next space-separated word of [*p, end) into w (NUL-terminated); 0 when there is none. */
static int word(const char **p, const char *end, char *w, size_t n)
{
	size_t k = 0;
	while (*p < end && **p == ' ')
		(*p)++;
	while (*p < end && **p != ' ') {
		if (k + 1 >= n)
			return -1;
		w[k++] = *(*p)++;
	}
	w[k] = '\0';
	return k > 0;
}

static int at_end(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p == end;
}

static int to_ll(const char *w, long long lo, long long hi, long long *out)
{
	char *e;
	long long v;
	errno = 0;
	v = strtoll(w, &e, 10);
	if (!*w || *e || errno || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int to_num(const char *w, double *out)
{
	char *e;
	*out = strtod(w, &e);
	return !*w || *e ? -1 : 0;
}

static int int_field(struct cursor *c, const char *w, long long lo, long long hi, long long *out)
{
	if (to_ll(w, lo, hi, out))
		return bad(c, "expected an integer in range");
	return 0;
}

static int parse_tensor(struct cursor *c, struct kp_natspec *s, int is_input, const char *rest, const char *end)
{
	char name[64], w[64];
	long long dtype, ndim, dim, fill = 0;
	int64_t shape[KP_NATSPEC_DIMS];
	double a, b;
	struct kp_error why = KP_ERROR_INIT;

	if (word(&rest, end, name, sizeof(name)) != 1 || word(&rest, end, w, sizeof(w)) != 1 ||
	    to_ll(w, 0, 7, &dtype) || word(&rest, end, w, sizeof(w)) != 1 || to_ll(w, 0, KP_NATSPEC_DIMS, &ndim))
		return bad(c, "a tensor is NAME DTYPE NDIM D0 .. Dn [FILL] A B");
	for (int d = 0; d < (int)ndim; d++) {
		if (word(&rest, end, w, sizeof(w)) != 1 || to_ll(w, 1, INT64_MAX, &dim))
			return bad(c, "a dimension must be a positive integer");
		shape[d] = dim;
	}
	if (is_input && (word(&rest, end, w, sizeof(w)) != 1 || to_ll(w, 0, 4, &fill)))
		return bad(c, "an input's fill kind must be 0..4");
	if (word(&rest, end, w, sizeof(w)) != 1 || to_num(w, &a) || word(&rest, end, w, sizeof(w)) != 1 ||
	    to_num(w, &b) || !at_end(rest, end))
		return bad(c, "a tensor ends with two numbers");
	if (kp_natspec_add(s, is_input, name, (int)dtype, (int)ndim, shape, (int)fill, a, b, &why))
		return bad(c, why.msg);
	return 0;
}

static int set_str(struct cursor *c, char *dst, size_t n, const char *src, size_t len)
{
	if (!len || len >= n)
		return bad(c, "the value is empty or too long");
	memcpy(dst, src, len);
	dst[len] = '\0';
	return 0;
}

static int parse_line(struct cursor *c, struct kp_natspec *s, const char *p, const char *end)
{
	static const struct {
		const char *key;
		size_t off;
		long long lo, hi;
	} ints[] = {
		{"correct_trials", offsetof(struct kp_natspec, correct_trials), 1, 1000},
		{"warmup", offsetof(struct kp_natspec, warmup), 0, 10000},
		{"trials", offsetof(struct kp_natspec, trials), 1, 100000},
		{"discard", offsetof(struct kp_natspec, discard), 0, 10000},
		{"time_candidate", offsetof(struct kp_natspec, time_cand), 0, 1},
		{"time_reference", offsetof(struct kp_natspec, time_ref), 0, 1},
		{"l2_flush", offsetof(struct kp_natspec, l2_flush), 0, 1},
		{"scaled_trial", offsetof(struct kp_natspec, scaled_trial), 0, 1},
	};
	static const struct {
		const char *key;
		size_t off;
	} nums[] = {
		{"limit_check", offsetof(struct kp_natspec, limit_check)},
		{"limit_timing", offsetof(struct kp_natspec, limit_timing)},
		{"loop_s", offsetof(struct kp_natspec, loop_s)},
	};
	char key[32], w[64];
	const char *rest;
	long long v;
	int k = word(&p, end, key, sizeof(key));

	if (k < 0)
		return bad(c, "unknown key");
	rest = p < end ? p + 1 : p;
	if (!strcmp(key, "mode"))
		return set_str(c, s->mode, sizeof(s->mode), rest, (size_t)(end - rest));
	if (!strcmp(key, "ref"))
		return set_str(c, s->ref, sizeof(s->ref), rest, (size_t)(end - rest));
	if (!strcmp(key, "cand"))
		return set_str(c, s->cand, sizeof(s->cand), rest, (size_t)(end - rest));
	if (!strcmp(key, "in") || !strcmp(key, "out"))
		return parse_tensor(c, s, key[0] == 'i', rest, end);
	if (!strcmp(key, "off")) {
		if (s->noff >= KP_NATSPEC_OFF)
			return bad(c, "too many checks switched off");
		return set_str(c, s->off[s->noff++], sizeof(s->off[0]), rest, (size_t)(end - rest));
	}
	if (word(&p, end, w, sizeof(w)) != 1 || !at_end(p, end))
		return bad(c, "expected KEY VALUE");
	if (!strcmp(key, "seed")) {
		char *e;
		errno = 0;
		s->seed = strtoull(w, &e, 10);
		return *e || errno || w[0] == '-' ? bad(c, "the seed must be an unsigned integer") : 0;
	}
	if (!strcmp(key, "iters")) {
		if (int_field(c, w, 0, 1000000000, &v))
			return KP_EPARSE;
		s->iters = (long)v;
		return 0;
	}
	for (size_t i = 0; i < KP_ARRAY_SIZE(ints); i++)
		if (!strcmp(key, ints[i].key)) {
			if (int_field(c, w, ints[i].lo, ints[i].hi, &v))
				return KP_EPARSE;
			*(int *)((char *)s + ints[i].off) = (int)v;
			return 0;
		}
	for (size_t i = 0; i < KP_ARRAY_SIZE(nums); i++)
		if (!strcmp(key, nums[i].key)) {
			double d;
			if (to_num(w, &d) || !(d >= 0) || d > 1e9)
				return bad(c, "expected a number of seconds");
			*(double *)((char *)s + nums[i].off) = d;
			return 0;
		}
	return bad(c, "unknown key");
}

int kp_natspec_parse(struct kp_natspec *s, const char *text, size_t len, struct kp_error *err)
{
	struct cursor c = {text, text + len, 0, err};
	int rc;

	if (len > KP_NATSPEC_MAX)
		return kp_error_set(err, KP_ETOOBIG, "native spec: larger than %u bytes", KP_NATSPEC_MAX);
	while (c.p < c.end) {
		const char *nl = memchr(c.p, '\n', (size_t)(c.end - c.p));
		const char *e = nl ? nl : c.end;
		c.line++;
		if (memchr(c.p, '\0', (size_t)(e - c.p)))
			return bad(&c, "a NUL byte");
		if (e == c.p) {
			c.p = e + 1;
			continue;
		}
		if ((size_t)(e - c.p) == 3 && !memcmp(c.p, "end", 3)) {
			if (!s->ref[0] || !s->nout)
				return bad(&c, "a spec needs a 'ref' line and at least one output");
			return 0;
		}
		if (c.line == 1) {
			if ((size_t)(e - c.p) != 16 || memcmp(c.p, "kp-native-spec 1", 16))
				return bad(&c, "expected 'kp-native-spec 1'");
		} else if ((rc = parse_line(&c, s, c.p, e)))
			return rc;
		c.p = e + 1;
	}
	return kp_error_set(err, KP_EPARSE, "native spec: no 'end' line");
}
