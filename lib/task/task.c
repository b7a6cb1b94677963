/* Task loading: KernelBench .py files and native task directories (task.json + reference.cu). */
#include "base/setup.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "kernelpro/task.h"
#include "task/task_int.h"

#define TASK_FILE_CAP (1u << 20)  /* a task or reference source larger than 1 MiB is a mistake */
#define MAX_TENSORS 64
#define MAX_TENSOR_BYTES (64ull << 30)

static const struct {
	const char *name;
	size_t size;
	int is_float;
	double tol;
} dtypes[KP_DTYPE_COUNT] = {
	[KP_DTYPE_F32] = {"f32", 4, 1, 1e-4},  [KP_DTYPE_F16] = {"f16", 2, 1, 1e-2},
	[KP_DTYPE_BF16] = {"bf16", 2, 1, 1e-2}, [KP_DTYPE_F64] = {"f64", 8, 1, 1e-4},
	[KP_DTYPE_I32] = {"i32", 4, 0, 0},      [KP_DTYPE_I64] = {"i64", 8, 0, 0},
	[KP_DTYPE_I8] = {"i8", 1, 0, 0},        [KP_DTYPE_U8] = {"u8", 1, 0, 0},
};

static const struct {
	const char *alias;
	enum kp_dtype t;
} dtype_aliases[] = {
	{"float32", KP_DTYPE_F32}, {"fp32", KP_DTYPE_F32},   {"float", KP_DTYPE_F32},
	{"float16", KP_DTYPE_F16}, {"fp16", KP_DTYPE_F16},   {"half", KP_DTYPE_F16},
	{"bfloat16", KP_DTYPE_BF16}, {"float64", KP_DTYPE_F64}, {"fp64", KP_DTYPE_F64},
	{"double", KP_DTYPE_F64},  {"int32", KP_DTYPE_I32},  {"int", KP_DTYPE_I32},
	{"int64", KP_DTYPE_I64},   {"long", KP_DTYPE_I64},   {"int8", KP_DTYPE_I8},
	{"uint8", KP_DTYPE_U8},    {"bool", KP_DTYPE_U8},
};

const char *kp_dtype_name(enum kp_dtype t)
{
	return (unsigned)t < KP_DTYPE_COUNT ? dtypes[t].name : "unknown";
}

int kp_dtype_parse(const char *s, enum kp_dtype *out)
{
	for (int i = 0; i < KP_DTYPE_COUNT; i++)
		if (kp_str_ieq(s, dtypes[i].name)) {
			*out = (enum kp_dtype)i;
			return 0;
		}
	for (size_t i = 0; i < KP_ARRAY_SIZE(dtype_aliases); i++)
		if (kp_str_ieq(s, dtype_aliases[i].alias)) {
			*out = dtype_aliases[i].t;
			return 0;
		}
	return KP_EINVAL;
}

size_t kp_dtype_size(enum kp_dtype t)
{
	return (unsigned)t < KP_DTYPE_COUNT ? dtypes[t].size : 0;
}

int kp_dtype_is_float(enum kp_dtype t)
{
	return (unsigned)t < KP_DTYPE_COUNT && dtypes[t].is_float;
}

double kp_dtype_default_tol(enum kp_dtype t)
{
	return (unsigned)t < KP_DTYPE_COUNT ? dtypes[t].tol : 0;
}

static const char *const fill_names[] = {"uniform", "normal", "randint", "const", "arange"};

const char *kp_fill_name(enum kp_fill_kind k)
{
	return (unsigned)k < KP_ARRAY_SIZE(fill_names) ? fill_names[k] : "unknown";
}

int64_t kp_tensor_spec_numel(const struct kp_tensor_spec *s)
{
	int64_t n = 1;
	for (int i = 0; i < s->ndim; i++) {
		if (s->shape[i] <= 0 || n > INT64_MAX / s->shape[i])
			return 0;
		n *= s->shape[i];
	}
	return n;
}

uint64_t kp_tensor_spec_bytes(const struct kp_tensor_spec *s)
{
	uint64_t n = (uint64_t)kp_tensor_spec_numel(s);
	size_t sz = kp_dtype_size(s->dtype);
	if (!n || !sz || n > UINT64_MAX / sz)
		return 0;
	return n * sz;
}

void kp_task_init(struct kp_task *t)
{
	memset(t, 0, sizeof(*t));
	t->atol = t->rtol = NAN;
	t->flops = t->min_bytes = NAN;
}

static void spec_release(struct kp_tensor_spec *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].name);
	free(s);
}

void kp_task_release(struct kp_task *t)
{
	free(t->name);
	free(t->path);
	free(t->dir);
	free(t->reference);
	free(t->source);
	free(t->description);
	spec_release(t->inputs, t->ninputs);
	spec_release(t->outputs, t->noutputs);
	kp_task_init(t);
}

void kp_task_tolerance(const struct kp_task *t, size_t i, double *atol, double *rtol)
{
	double def = kp_dtype_default_tol(t->precision);
	*atol = isnan(t->atol) ? def : t->atol;
	*rtol = isnan(t->rtol) ? def : t->rtol;
	if (t->kind == KP_TASK_NATIVE && i < t->noutputs) {
		const struct kp_tensor_spec *o = &t->outputs[i];
		double odef = kp_dtype_default_tol(o->dtype);
		*atol = !isnan(o->atol) ? o->atol : !isnan(t->atol) ? t->atol : odef;
		*rtol = !isnan(o->rtol) ? o->rtol : !isnan(t->rtol) ? t->rtol : odef;
	}
}

int kp_task_read_file(const char *path, size_t cap, struct kp_buf *out, struct kp_error *err)
{
	struct stat st;
	/* O_NONBLOCK: opening a FIFO with no writer must not wait for one. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), regular;
	if (fd < 0)
		return kp_error_set(err, errno == ENOENT ? KP_ENOENT : (errno == EACCES ? KP_EPERM : KP_EIO),
				    "cannot read '%s': %s", path, strerror(errno));
	regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	close(fd);
	if (!regular)
		return kp_error_set(err, KP_EINVAL,
				    "'%s' is not a regular file (a FIFO, socket or device would block or never end): give "
				    "the file itself",
				    path);
	return kp_read_file(path, cap, out, err);
}

/* --- task.json ------------------------------------------------------------------------------- */

static int valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 63 || isdigit((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

/* Fails on keys outside `allowed` (a typo such as "shpae" must not be silently ignored). */
static int check_keys(const json_t *obj, const char *const *allowed, const char *what, struct kp_error *err)
{
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)obj, key, v) {
		int ok = key[0] == '_'; /* "_comment" and friends */
		for (size_t i = 0; !ok && allowed[i]; i++)
			ok = !strcmp(key, allowed[i]);
		if (!ok)
			return kp_error_set(err, KP_EPARSE, "%s: unknown key '%s'", what, key);
	}
	return 0;
}

static int get_opt_num(const json_t *obj, const char *key, const char *what, double *out, struct kp_error *err)
{
	const json_t *v = json_object_get(obj, key);
	if (!v)
		return 0;
	if (!json_is_number(v))
		return kp_error_set(err, KP_EPARSE, "%s: '%s' must be a number", what, key);
	*out = json_number_value(v);
	if (!isfinite(*out))
		return kp_error_set(err, KP_EPARSE, "%s: '%s' must be finite", what, key);
	return 0;
}

static int parse_tol(const json_t *obj, const char *what, double *atol, double *rtol, struct kp_error *err)
{
	int rc = get_opt_num(obj, "atol", what, atol, err);
	if (!rc)
		rc = get_opt_num(obj, "rtol", what, rtol, err);
	if (!rc && ((!isnan(*atol) && *atol < 0) || (!isnan(*rtol) && *rtol < 0)))
		rc = kp_error_set(err, KP_EPARSE, "%s: tolerances must not be negative", what);
	return rc;
}

static int parse_fill(const json_t *f, enum kp_dtype dt, struct kp_fill *out, const char *what,
		      struct kp_error *err)
{
	static const char *const keys[] = {"kind", "low", "high", "mean", "std", "value", "start", "step", NULL};
	const char *kind;
	double a = NAN, b = NAN;

	/* Defaults: like torch.rand for floating point, small non-negative integers otherwise. */
	*out = kp_dtype_is_float(dt) ? (struct kp_fill){KP_FILL_UNIFORM, 0, 1} : (struct kp_fill){KP_FILL_RANDINT, 0, 16};
	if (!f)
		return 0;
	if (json_is_string(f))
		kind = json_string_value(f);
	else if (json_is_object(f)) {
		int rc = check_keys(f, keys, what, err);
		if (rc)
			return rc;
		kind = kp_json_str(f, "kind", NULL);
		if (!kind)
			return kp_error_set(err, KP_EPARSE, "%s: fill needs a \"kind\"", what);
	} else
		return kp_error_set(err, KP_EPARSE, "%s: \"fill\" must be a string or an object", what);

#define NUM(key, dst)                                                                              \
	do {                                                                                       \
		int rc_ = json_is_object(f) ? get_opt_num(f, key, what, &dst, err) : 0;            \
		if (rc_)                                                                           \
			return rc_;                                                                \
	} while (0)
	if (!strcmp(kind, "uniform")) {
		out->kind = KP_FILL_UNIFORM;
		a = 0, b = 1;
		NUM("low", a);
		NUM("high", b);
		if (!(a < b))
			return kp_error_set(err, KP_EPARSE, "%s: uniform fill needs low < high", what);
	} else if (!strcmp(kind, "normal")) {
		out->kind = KP_FILL_NORMAL;
		a = 0, b = 1;
		NUM("mean", a);
		NUM("std", b);
		if (!(b >= 0))
			return kp_error_set(err, KP_EPARSE, "%s: normal fill needs std >= 0", what);
	} else if (!strcmp(kind, "randint")) {
		out->kind = KP_FILL_RANDINT;
		a = 0, b = 16;
		NUM("low", a);
		NUM("high", b);
		if (a != floor(a) || b != floor(b) || !(a < b) || fabs(a) > 9e15 || fabs(b) > 9e15)
			return kp_error_set(err, KP_EPARSE, "%s: randint fill needs integers low < high", what);
	} else if (!strcmp(kind, "const")) {
		out->kind = KP_FILL_CONST;
		a = 0, b = 0;
		NUM("value", a);
	} else if (!strcmp(kind, "arange")) {
		out->kind = KP_FILL_ARANGE;
		a = 0, b = 1;
		NUM("start", a);
		NUM("step", b);
	} else
		return kp_error_set(err, KP_EPARSE,
				    "%s: unknown fill kind '%s' (use uniform, normal, randint, const or arange)", what,
				    kind);
#undef NUM
	out->a = a;
	out->b = b;
	return 0;
}

static int parse_tensor(const json_t *o, int is_input, size_t idx, struct kp_tensor_spec *s, struct kp_error *err)
{
	static const char *const in_keys[] = {"name", "dtype", "shape", "fill", NULL};
	static const char *const out_keys[] = {"name", "dtype", "shape", "atol", "rtol", NULL};
	char what[96];
	const char *name, *dt;
	const json_t *shape, *dim;
	size_t i;
	int rc;

	snprintf(what, sizeof(what), "task.json: %s[%zu]", is_input ? "inputs" : "outputs", idx);
	s->atol = s->rtol = NAN;
	if (!json_is_object(o))
		return kp_error_set(err, KP_EPARSE, "%s must be an object", what);
	if ((rc = check_keys(o, is_input ? in_keys : out_keys, what, err)))
		return rc;
	if ((rc = kp_json_req_str(o, "name", what, &name, err)))
		return rc;
	if (!valid_name(name))
		return kp_error_set(err, KP_EPARSE,
				    "%s: name '%.64s' must be 1-63 letters, digits or '_', not starting with a digit",
				    what, name);
	s->name = kp_xstrdup(name);
	snprintf(what, sizeof(what), "task.json: %s '%s'", is_input ? "input" : "output", name);
	dt = kp_json_str(o, "dtype", "f32");
	if (!json_is_string(json_object_get(o, "dtype")) && json_object_get(o, "dtype"))
		return kp_error_set(err, KP_EPARSE, "%s: \"dtype\" must be a string", what);
	if (kp_dtype_parse(dt, &s->dtype))
		return kp_error_set(err, KP_EPARSE, "%s: unknown dtype '%.32s' (f32, f16, bf16, f64, i32, i64, i8, u8)",
				    what, dt);
	shape = json_object_get(o, "shape");
	if (!json_is_array(shape))
		return kp_error_set(err, KP_EPARSE, "%s: \"shape\" must be an array of positive integers ([] for a scalar)",
				    what);
	if (json_array_size(shape) > KP_MAX_DIMS)
		return kp_error_set(err, KP_EPARSE, "%s: at most %d dimensions", what, KP_MAX_DIMS);
	s->ndim = (int)json_array_size(shape);
	json_array_foreach(shape, i, dim) {
		if (!json_is_integer(dim) || json_integer_value(dim) <= 0)
			return kp_error_set(err, KP_EPARSE, "%s: shape[%zu] must be a positive integer", what, i);
		s->shape[i] = (int64_t)json_integer_value(dim);
	}
	for (i = (size_t)s->ndim; i < KP_MAX_DIMS; i++)
		s->shape[i] = 1;
	if (!kp_tensor_spec_bytes(s) || kp_tensor_spec_bytes(s) > MAX_TENSOR_BYTES)
		return kp_error_set(err, KP_EPARSE, "%s: the shape is too large (over 64 GiB)", what);
	if (is_input)
		return parse_fill(json_object_get(o, "fill"), s->dtype, &s->fill, what, err);
	return parse_tol(o, what, &s->atol, &s->rtol, err);
}

static int parse_tensors(const json_t *root, const char *key, int is_input, struct kp_tensor_spec **out,
			 size_t *n, struct kp_error *err)
{
	const json_t *arr = json_object_get(root, key);
	const json_t *o;
	size_t i;
	int rc;

	if (!json_is_array(arr))
		return kp_error_set(err, KP_EPARSE, "task.json: \"%s\" must be an array of tensors", key);
	if (json_array_size(arr) > MAX_TENSORS)
		return kp_error_set(err, KP_EPARSE, "task.json: at most %d %s", MAX_TENSORS, key);
	*out = kp_xcalloc(json_array_size(arr) + 1, sizeof(**out));
	json_array_foreach(arr, i, o) {
		(*n)++;
		if ((rc = parse_tensor(o, is_input, i, &(*out)[i], err)))
			return rc;
	}
	return 0;
}

static int check_unique_names(const struct kp_task *t, struct kp_error *err)
{
	size_t n = t->ninputs + t->noutputs;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			const char *a = i < t->ninputs ? t->inputs[i].name : t->outputs[i - t->ninputs].name;
			const char *b = j < t->ninputs ? t->inputs[j].name : t->outputs[j - t->ninputs].name;
			if (!strcmp(a, b))
				return kp_error_set(err, KP_EPARSE, "task.json: tensor name '%s' is used twice", a);
		}
	return 0;
}

/* Strict JSON: a key given twice (which one would win?) and \u0000 (a NUL that would cut names and
 * paths short) are errors. */
static int load_json(const char *text, size_t len, json_t **out, struct kp_error *err)
{
	json_error_t je;
	*out = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
	if (*out)
		return 0;
	if (strstr(je.text, "\\u0000"))
		return kp_error_set(err, KP_EPARSE, "task.json: line %d, column %d: a string holds \\u0000 (NUL)", je.line,
				    je.column);
	return kp_error_set(err, KP_EPARSE, "task.json: line %d, column %d: %s", je.line, je.column, je.text);
}

static int get_count(const json_t *root, const char *key, double *out, struct kp_error *err)
{
	int rc = get_opt_num(root, key, "task.json", out, err);
	if (!rc && *out < 0)
		rc = kp_error_set(err, KP_EPARSE, "task.json: '%s' must not be negative", key);
	return rc;
}

int kp_task_parse_native(struct kp_task *t, const char *text, size_t len, const char *dir, struct kp_error *err)
{
	static const char *const keys[] = {"name", "description", "inputs", "outputs", "atol", "rtol",
					   "flops", "min_bytes", "scaled_trial", NULL};
	json_t *root = NULL;
	const json_t *v;
	int rc;

	kp_task_release(t);
	t->kind = KP_TASK_NATIVE;
	if ((rc = load_json(text, len, &root, err)))
		goto out;
	if (!json_is_object(root)) {
		rc = kp_error_set(err, KP_EPARSE, "task.json: the top level must be an object");
		goto out;
	}
	if ((rc = check_keys(root, keys, "task.json", err)))
		goto out;
	if ((v = json_object_get(root, "name"))) {
		if (!json_is_string(v) || !json_string_length(v) || json_string_length(v) > 128) {
			rc = kp_error_set(err, KP_EPARSE, "task.json: \"name\" must be a string of 1-128 characters");
			goto out;
		}
		t->name = kp_xstrdup(json_string_value(v));
	}
	if ((v = json_object_get(root, "scaled_trial"))) {
		if (!json_is_boolean(v)) {
			rc = kp_error_set(err, KP_EPARSE, "task.json: \"scaled_trial\" must be true or false");
			goto out;
		}
		t->scaled_trial_off = json_is_false(v);
	}
	if ((v = json_object_get(root, "description"))) {
		if (!json_is_string(v)) {
			rc = kp_error_set(err, KP_EPARSE, "task.json: \"description\" must be a string");
			goto out;
		}
		t->description = kp_xstrdup(json_string_value(v));
	}
	if ((rc = parse_tensors(root, "inputs", 1, &t->inputs, &t->ninputs, err)) ||
	    (rc = parse_tensors(root, "outputs", 0, &t->outputs, &t->noutputs, err)))
		goto out;
	if (t->noutputs == 0) {
		rc = kp_error_set(err, KP_EPARSE, "task.json: \"outputs\" must list at least one tensor");
		goto out;
	}
	if ((rc = check_unique_names(t, err)) || (rc = parse_tol(root, "task.json", &t->atol, &t->rtol, err)) ||
	    (rc = get_count(root, "flops", &t->flops, err)) || (rc = get_count(root, "min_bytes", &t->min_bytes, err)))
		goto out;
	t->precision = t->outputs[0].dtype;
	if (isnan(t->min_bytes)) {
		double total = 0;
		for (size_t i = 0; i < t->ninputs; i++)
			total += (double)kp_tensor_spec_bytes(&t->inputs[i]);
		for (size_t i = 0; i < t->noutputs; i++)
			total += (double)kp_tensor_spec_bytes(&t->outputs[i]);
		t->min_bytes = total;
	}
	if (dir)
		t->dir = kp_xstrdup(dir);
out:
	json_decref(root);
	return rc;
}

/* --- KernelBench .py -------------------------------------------------------------------------- */

/* True when a line of `src` starts with `prefix` followed by a non-identifier character. */
static int has_line_starting(const char *src, const char *prefix)
{
	size_t n = strlen(prefix);
	for (const char *p = src; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, prefix, n) && !isalnum((unsigned char)p[n]) && p[n] != '_')
			return 1;
	return 0;
}

/* The first docstring inside `class Model`, squeezed to one paragraph; NULL when there is none. */
static char *model_docstring(const char *src)
{
	const char *p = strstr(src, "\nclass Model");
	const char *q, *end;
	struct kp_buf b = KP_BUF_INIT;

	if (!p)
		p = kp_starts_with(src, "class Model") ? src : NULL;
	if (!p || !(p = strchr(p + 1, '\n')))
		return NULL;
	while (*p == '\n' || *p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "\"\"\"", 3) && strncmp(p, "'''", 3))
		return NULL;
	q = p + 3;
	end = strstr(q, p[0] == '"' ? "\"\"\"" : "'''");
	if (!end || end - q > 4000)
		return NULL;
	for (; q < end; q++) {
		char c = (*q == '\n' || *q == '\t') ? ' ' : *q;
		if (c == ' ' && (b.len == 0 || b.buf[b.len - 1] == ' '))
			continue;
		kp_buf_addch(&b, c);
	}
	kp_buf_rtrim(&b);
	if (!b.len) {
		kp_buf_release(&b);
		return NULL;
	}
	return kp_buf_detach(&b, NULL);
}

static char *stem(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot;
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return dot && dot != base ? kp_xstrndup(base, (size_t)(dot - base)) : kp_xstrdup(base);
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return kp_xstrdup(".");
	if (slash == path)
		return kp_xstrdup("/");
	return kp_xstrndup(path, (size_t)(slash - path));
}

static int load_kernelbench(struct kp_task *t, const char *path, struct kp_error *err)
{
	struct kp_buf b = KP_BUF_INIT;
	static const char *const need[] = {"class Model", "def get_inputs", "def get_init_inputs"};
	int rc = kp_task_read_file(path, TASK_FILE_CAP, &b, err);

	if (rc)
		goto out;
	if (memchr(b.buf, '\0', b.len)) {
		rc = kp_error_set(err, KP_EPARSE, "'%s' is not a text file", path);
		goto out;
	}
	for (size_t i = 0; i < KP_ARRAY_SIZE(need); i++)
		if (!has_line_starting(b.buf, need[i])) {
			rc = kp_error_set(err, KP_EPARSE,
					  "'%s' is not a KernelBench task: no top-level '%s' (a task defines class Model, "
					  "get_inputs() and get_init_inputs())",
					  path, need[i]);
			goto out;
		}
	t->kind = KP_TASK_KERNELBENCH;
	t->name = stem(path);
	t->path = kp_xstrdup(path);
	t->dir = dir_of(path);
	t->reference = kp_xstrdup(path);
	t->description = model_docstring(b.buf);
	t->precision = KP_DTYPE_F32;
	t->source = kp_buf_detach(&b, NULL);
	if (kp_py_has_triton(t->source, strlen(t->source))) { /* its Model launches Triton kernels */
		t->kind = KP_TASK_TRITON;
		rc = kp__task_triton_hints(t, err);
	}
out:
	kp_buf_release(&b);
	return rc;
}

static int load_native(struct kp_task *t, const char *dir, struct kp_error *err)
{
	struct kp_buf json = KP_BUF_INIT, path = KP_BUF_INIT, ref = KP_BUF_INIT;
	int rc;

	kp_path_join(&path, dir, "task.json");
	if ((rc = kp_task_read_file(path.buf, TASK_FILE_CAP, &json, err))) {
		if (rc == KP_ENOENT)
			kp_error_prefix(err, "'%s' is not a task (no task.json; a native task directory holds task.json "
					     "and reference.cu)",
					dir);
		goto out;
	}
	if ((rc = kp_task_parse_native(t, json.buf, json.len, dir, err))) {
		kp_error_prefix(err, "%s", dir);
		goto out;
	}
	kp_buf_reset(&path);
	kp_path_join(&path, dir, "reference.cu");
	if ((rc = kp_task_read_file(path.buf, TASK_FILE_CAP, &ref, err))) {
		if (rc == KP_ENOENT)
			kp_error_prefix(err, "native task '%s' needs reference.cu (exporting kp_run, see "
					     "docs/native-tasks.md)",
					dir);
		goto out;
	}
	if (!strstr(ref.buf, "kp_run")) {
		rc = kp_error_set(err, KP_EPARSE, "'%s' does not define kp_run (see docs/native-tasks.md)", path.buf);
		goto out;
	}
	t->reference = kp_buf_detach(&path, NULL);
	t->source = kp_buf_detach(&ref, NULL);
	t->path = kp_xstrdup(dir);
	if (!t->name)
		t->name = stem(dir);
out:
	kp_buf_release(&json);
	kp_buf_release(&path);
	kp_buf_release(&ref);
	if (rc)
		kp_task_release(t);
	return rc;
}

int kp_task_load(struct kp_task *t, const char *path, struct kp_error *err)
{
	char *real = realpath(path, NULL);
	int rc;

	kp_task_release(t);
	if (!real)
		return kp_error_set(err, errno == ENOENT ? KP_ENOENT : KP_EIO, "cannot open task '%s': %s", path,
				    strerror(errno));
	if (kp_path_is_dir(real))
		rc = load_native(t, real, err);
	else if (kp_ends_with(real, "/task.json")) {
		char *dir = dir_of(real);
		rc = load_native(t, dir, err);
		free(dir);
	} else if (kp_ends_with(real, ".py"))
		rc = load_kernelbench(t, real, err);
	else
		rc = kp_error_set(err, KP_EINVAL,
				  "'%s' is not a task: give a KernelBench .py file or a native task directory", path);
	free(real);
	if (rc)
		kp_task_release(t);
	return rc;
}

/* --- JSON out --------------------------------------------------------------------------------- */

static json_t *spec_json(const struct kp_tensor_spec *s, int is_input)
{
	json_t *o = json_object(), *shape = json_array();
	for (int i = 0; i < s->ndim; i++)
		json_array_append_new(shape, json_integer(s->shape[i]));
	kp_json_set(o, "name", json_string(s->name));
	kp_json_set(o, "dtype", json_string(kp_dtype_name(s->dtype)));
	kp_json_set(o, "shape", shape);
	kp_json_set(o, "bytes", json_integer((json_int_t)kp_tensor_spec_bytes(s)));
	if (is_input) {
		json_t *f = json_object();
		kp_json_set(f, "kind", json_string(kp_fill_name(s->fill.kind)));
		kp_json_set(f, "a", kp_json_real(s->fill.a));
		kp_json_set(f, "b", kp_json_real(s->fill.b));
		kp_json_set(o, "fill", f);
	} else {
		if (!isnan(s->atol))
			kp_json_set(o, "atol", kp_json_real(s->atol));
		if (!isnan(s->rtol))
			kp_json_set(o, "rtol", kp_json_real(s->rtol));
	}
	return o;
}

json_t *kp_task_to_json(const struct kp_task *t)
{
	json_t *o = json_object();
	double atol, rtol;

	kp_task_tolerance(t, (size_t)-1, &atol, &rtol);
	kp_json_set(o, "kind", json_string(kp_task_kind_name(t->kind)));
	kp_json_set(o, "name", t->name ? json_string(t->name) : NULL);
	kp_json_set(o, "path", t->path ? json_string(t->path) : NULL);
	kp_json_set(o, "reference", t->reference ? json_string(t->reference) : NULL);
	kp_json_set(o, "description", t->description ? json_string(t->description) : NULL);
	kp_json_set(o, "precision", json_string(kp_dtype_name(t->precision)));
	kp_json_set(o, "atol", kp_json_real(atol));
	kp_json_set(o, "rtol", kp_json_real(rtol));
	kp_json_set(o, "flops", kp_json_real(t->flops));
	kp_json_set(o, "min_bytes", kp_json_real(t->min_bytes));
	kp_json_set(o, "scaled_trial", json_boolean(!t->scaled_trial_off));
	if (t->kind == KP_TASK_NATIVE) {
		json_t *in = json_array(), *out = json_array();
		for (size_t i = 0; i < t->ninputs; i++)
			json_array_append_new(in, spec_json(&t->inputs[i], 1));
		for (size_t i = 0; i < t->noutputs; i++)
			json_array_append_new(out, spec_json(&t->outputs[i], 0));
		kp_json_set(o, "inputs", in);
		kp_json_set(o, "outputs", out);
	}
	return o;
}

void kp_task_describe(const struct kp_task *t, struct kp_buf *out)
{
	double atol, rtol;
	if (t->description)
		kp_buf_addf(out, "%s\n", t->description);
	for (size_t k = 0; k < 2; k++) {
		const struct kp_tensor_spec *v = k ? t->outputs : t->inputs;
		size_t n = k ? t->noutputs : t->ninputs;
		for (size_t i = 0; i < n; i++) {
			kp_buf_addf(out, "%s %s: %s [", k ? "output" : "input", v[i].name, kp_dtype_name(v[i].dtype));
			for (int d = 0; d < v[i].ndim; d++)
				kp_buf_addf(out, "%s%lld", d ? ", " : "", (long long)v[i].shape[d]);
			kp_buf_adds(out, "]\n");
		}
	}
	kp_task_tolerance(t, 0, &atol, &rtol);
	if (isfinite(atol))
		kp_buf_addf(out, "tolerance: atol %g, rtol %g\n", atol, rtol);
	kp_buf_rtrim(out);
}
