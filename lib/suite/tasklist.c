/*
 * What a suite is made of: task files and directories, directories of tasks (a KernelBench level),
 * globs, and list files with per-task settings (docs/bench.md, "Suites").
 */
#include "base/setup.h"

#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>

#include "kernelpro/bench.h"
#include "kernelpro/fs.h"
#include "kernelpro/str.h"
#include "kernelpro/strvec.h"

/* A list file longer than this is not a list of tasks. */
#define LIST_CAP     (4u << 20)
#define LINE_MAX_LEN 4096

void kp_bench_list_init(struct kp_bench_list *l)
{
	memset(l, 0, sizeof(*l));
}

static void settings_release(struct kp_bench_task_settings *s)
{
	free(s->llm);
	free(s->name);
	free(s->kernel);
	free(s->kernel_source);
	free(s->recorded);
	memset(s, 0, sizeof(*s));
}

void kp_bench_list_release(struct kp_bench_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		settings_release(&l->v[i].set);
	}
	free(l->v);
	kp_bench_list_init(l);
}

#define DUP(s) ((s) ? kp_xstrdup(s) : NULL)

void kp_bench_list_push(struct kp_bench_list *l, const char *path, const struct kp_bench_task_settings *set)
{
	struct kp_bench_entry *e;
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 16;
		l->v = kp_xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	e = &l->v[l->n++];
	memset(e, 0, sizeof(*e));
	e->path = kp_xstrdup(path);
	if (set) {
		e->set = *set;
		e->set.llm = DUP(set->llm);
		e->set.name = DUP(set->name);
		e->set.kernel = DUP(set->kernel);
		e->set.kernel_source = DUP(set->kernel_source);
		e->set.recorded = DUP(set->recorded);
	}
}

/* ---- ordering: names with numbers in numeric order (1_A.py, 2_B.py, ..., 10_C.py) --------------- */

static int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *sa = a, *sb = b;
			size_t la, lb;
			while (*sa == '0' && isdigit((unsigned char)sa[1]))
				sa++;
			while (*sb == '0' && isdigit((unsigned char)sb[1]))
				sb++;
			for (a = sa; isdigit((unsigned char)*a); a++)
				;
			for (b = sb; isdigit((unsigned char)*b); b++)
				;
			la = (size_t)(a - sa);
			lb = (size_t)(b - sb);
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = memcmp(sa, sb, la);
			if (c)
				return c;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int natural_qsort(const void *x, const void *y)
{
	const char *a = *(char *const *)x, *b = *(char *const *)y;
	int c = natural_cmp(a, b);
	return c ? c : strcmp(a, b);
}

/* ---- what a path is ------------------------------------------------------------------------------ */

enum path_kind { P_NONE, P_PY_TASK, P_NATIVE_TASK, P_DIR, P_LIST };

static int has_task_json(const char *dir)
{
	struct kp_buf p = KP_BUF_INIT;
	int yes;
	kp_path_join(&p, dir, "task.json");
	yes = kp_path_exists(p.buf) && !kp_path_is_dir(p.buf);
	kp_buf_release(&p);
	return yes;
}

static enum path_kind path_kind(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return P_NONE;
	if (S_ISDIR(st.st_mode))
		return has_task_json(path) ? P_NATIVE_TASK : P_DIR;
	if (!S_ISREG(st.st_mode))
		return P_NONE;
	if (kp_ends_with(path, ".py"))
		return P_PY_TASK;
	if (!strcmp(strrchr(path, '/') ? strrchr(path, '/') + 1 : path, "task.json"))
		return P_NATIVE_TASK;
	return P_LIST;
}

static int is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* The task's absolute path: a native task's directory for its task.json. */
static int add_task(struct kp_bench_list *l, const char *path, const struct kp_bench_task_settings *set,
                    struct kp_error *err)
{
	char *real = realpath(path, NULL);
	if (!real)
		return kp_error_set(err, KP_ENOENT, "task '%s': %s", path, strerror(errno));
	if (kp_ends_with(real, "/task.json"))
		real[strlen(real) - strlen("/task.json")] = '\0';
	kp_bench_list_push(l, real, set);
	free(real);
	return 0;
}

/* The tasks of a directory: *.py files and native task directories, in natural order; dot files skipped. */
static int add_dir(struct kp_bench_list *l, const char *dir, const struct kp_bench_task_settings *set,
                   struct kp_error *err)
{
	struct kp_strvec names = KP_STRVEC_INIT;
	struct kp_buf p = KP_BUF_INIT;
	struct dirent *e;
	size_t before = l->n;
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d)
		return kp_error_set(err, KP_EIO, "cannot read directory '%s': %s", dir, strerror(errno));
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			kp_strvec_push(&names, e->d_name);
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), natural_qsort);
	for (size_t i = 0; i < names.n && !rc; i++) {
		enum path_kind k;
		kp_buf_reset(&p);
		kp_path_join(&p, dir, names.v[i]);
		k = path_kind(p.buf);
		if (k == P_PY_TASK || k == P_NATIVE_TASK)
			rc = add_task(l, p.buf, set, err);
	}
	if (!rc && l->n == before)
		rc = kp_error_set(
		    err, KP_ENOENT,
		    "'%s' holds no tasks (KernelBench .py files or directories with a task.json)", dir);
	kp_strvec_release(&names);
	kp_buf_release(&p);
	return rc;
}

static int add_path(struct kp_bench_list *l, const char *path, const struct kp_bench_task_settings *set,
                    int lists_ok, struct kp_error *err);

static int add_glob(struct kp_bench_list *l, const char *pattern, const struct kp_bench_task_settings *set,
                    struct kp_error *err)
{
	glob_t g;
	char **v;
	size_t before = l->n;
	int rc = 0, gr = glob(pattern, GLOB_NOSORT, NULL, &g);

	if (gr == GLOB_NOMATCH || (gr == 0 && g.gl_pathc == 0)) {
		if (gr == 0)
			globfree(&g);
		return kp_error_set(err, KP_ENOENT, "'%s' matches nothing", pattern);
	}
	if (gr != 0)
		return kp_error_set(err, KP_EIO, "'%s': the pattern could not be expanded", pattern);
	v = kp_xcalloc(g.gl_pathc, sizeof(*v));
	for (size_t i = 0; i < g.gl_pathc; i++)
		v[i] = g.gl_pathv[i];
	qsort(v, g.gl_pathc, sizeof(*v), natural_qsort);
	for (size_t i = 0; i < g.gl_pathc && !rc; i++) {
		enum path_kind k = path_kind(v[i]);
		if (k == P_PY_TASK || k == P_NATIVE_TASK || k == P_DIR)
			rc = add_path(l, v[i], set, 0, err);
	}
	if (!rc && l->n == before)
		rc = kp_error_set(err, KP_ENOENT, "'%s' matches no task", pattern);
	free(v);
	globfree(&g);
	return rc;
}

static int add_list_file(struct kp_bench_list *l, const char *path, struct kp_error *err)
{
	struct kp_buf text = KP_BUF_INIT;
	char *real = realpath(path, NULL), *slash;
	int rc;

	if (!real)
		return kp_error_set(err, KP_ENOENT, "'%s': %s", path, strerror(errno));
	slash = strrchr(real, '/');
	*slash = '\0';
	if (!(rc = kp_read_file(path, LIST_CAP, &text, err)))
		rc =
		    kp_bench_list_parse(l, text.buf ? text.buf : "", text.len, *real ? real : "/", path, err);
	free(real);
	kp_buf_release(&text);
	return rc;
}

static int add_path(struct kp_bench_list *l, const char *path, const struct kp_bench_task_settings *set,
                    int lists_ok, struct kp_error *err)
{
	switch (path_kind(path)) {
	case P_PY_TASK:
	case P_NATIVE_TASK: return add_task(l, path, set, err);
	case P_DIR: return add_dir(l, path, set, err);
	case P_LIST:
		if (lists_ok)
			return add_list_file(l, path, err);
		return kp_error_set(
		    err, KP_EINVAL,
		    "'%s' is neither a KernelBench .py file nor a task directory (a list file cannot "
		    "name another)",
		    path);
	default:
		if (is_glob(path))
			return add_glob(l, path, set, err);
		return kp_error_set(err, KP_ENOENT, "no task or list '%s'", path);
	}
}

int kp_bench_list_add_source(struct kp_bench_list *l, const char *source, struct kp_error *err)
{
	if (!source || !*source)
		return kp_error_set(err, KP_EINVAL, "an empty task source");
	return add_path(l, source, NULL, 1, err);
}

/* ---- list files ---------------------------------------------------------------------------------- */

static int bad_line(struct kp_error *err, const char *what, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad_line(struct kp_error *err, const char *what, long line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kp_error_set(err, KP_EPARSE, "%s:%ld: %s", what, line, msg);
}

/* Makes a relative path absolute against base (appended to out). */
static void absolute(struct kp_buf *out, const char *base, const char *path)
{
	if (path[0] == '/')
		kp_buf_adds(out, path);
	else
		kp_path_join(out, base, path);
}

/* A --llm spec, with a replay directory made absolute so the suite can run from anywhere. */
static void llm_spec(struct kp_buf *out, const char *base, const char *spec)
{
	static const char *const dir_prefixes[] = {"replay:", "replay-hash:"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(dir_prefixes); i++) {
		size_t n = strlen(dir_prefixes[i]);
		if (!strncmp(spec, dir_prefixes[i], n) && spec[n]) {
			kp_buf_adds(out, dir_prefixes[i]);
			absolute(out, base, spec + n);
			return;
		}
	}
	kp_buf_adds(out, spec);
}

static int name_ok(const char *s)
{
	if (!*s || *s == '.' || strlen(s) > 120)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-.+", *s))
			return 0;
	return 1;
}

/* One KEY=VALUE of a line into set. */
static int setting(struct kp_bench_task_settings *set, const char *kv, const char *base, const char *what,
                   long line, struct kp_error *err)
{
	const char *eq = strchr(kv, '=');
	char key[32];
	const char *v;
	long n;
	size_t klen;

	if (!eq || eq == kv || (klen = (size_t)(eq - kv)) >= sizeof(key))
		return bad_line(err, what, line,
		                "'%s' is not KEY=VALUE (keys: evals, time, tokens, cost, llm, name)", kv);
	memcpy(key, kv, klen);
	key[klen] = '\0';
	v = eq + 1;
	if (!*v)
		return bad_line(err, what, line, "'%s' has no value", key);
	if (!strcmp(key, "evals") || !strcmp(key, "tokens")) {
		if (kp_parse_long(v, &n) || n < 1 || n > 1000000000L)
			return bad_line(err, what, line, "%s must be a whole number 1..1000000000, not '%s'",
			                key, v);
		if (key[0] == 'e') {
			set->budget.evals = n;
			set->which |= KP_RUN_LIMIT_EVALS;
		} else {
			set->budget.tokens = n;
			set->which |= KP_RUN_LIMIT_TOKENS;
		}
	} else if (!strcmp(key, "time")) {
		if (kp_parse_duration(v, &set->budget.wall_s))
			return bad_line(err, what, line,
			                "time must be a duration like 90s, 30m or 2h, not '%s'", v);
		set->which |= KP_RUN_LIMIT_WALL;
	} else if (!strcmp(key, "cost")) {
		if (kp_parse_double(v, &set->budget.cost) || !(set->budget.cost > 0) ||
		    !isfinite(set->budget.cost))
			return bad_line(err, what, line,
			                "cost must be a positive number of US dollars, not '%s'", v);
		set->which |= KP_RUN_LIMIT_COST;
	} else if (!strcmp(key, "llm")) {
		struct kp_buf b = KP_BUF_INIT;
		llm_spec(&b, base, v);
		free(set->llm);
		set->llm = kp_buf_detach(&b, NULL);
	} else if (!strcmp(key, "name")) {
		if (!name_ok(v))
			return bad_line(
			    err, what, line,
			    "name '%s' must be letters, digits and _ - . + (not starting with '.')", v);
		free(set->name);
		set->name = kp_xstrdup(v);
	} else {
		return bad_line(err, what, line,
		                "unknown key '%s' (keys: evals, time, tokens, cost, llm, name)", key);
	}
	return 0;
}

/* One line without its comment: PATH [KEY=VALUE]... into *path (absolute) and *set. 0 with no path: blank. */
static int parse_line(char *s, const char *base, const char *what, long line, struct kp_buf *path,
                      struct kp_bench_task_settings *set, struct kp_error *err)
{
	char *tok, *save = NULL;
	int rc = 0;

	memset(set, 0, sizeof(*set));
	tok = strtok_r(s, " \t", &save);
	if (!tok)
		return 0;
	for (char *kv; !rc && (kv = strtok_r(NULL, " \t", &save));)
		rc = setting(set, kv, base, what, line, err);
	if (!rc)
		absolute(path, base, tok);
	return rc;
}

/*
 * Calls fn for each task line of a list file's text, with the line's absolute path and settings
 * (borrowed for the call); fn's nonzero return stops and is returned.
 */
static int each_line(const char *text, size_t len, const char *base, const char *what,
                     int (*fn)(const char *path, const struct kp_bench_task_settings *set, long line,
                               void *ud),
                     void *ud, struct kp_error *err)
{
	long line = 0;
	size_t pos = 0;
	char buf[LINE_MAX_LEN + 1];
	int rc = 0;

	if (memchr(text, '\0', len))
		return kp_error_set(err, KP_EPARSE, "%s: a list of tasks is text, and this has a NUL byte",
		                    what);
	while (pos < len && !rc) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		struct kp_bench_task_settings set;
		struct kp_buf path = KP_BUF_INIT;
		char *hash;

		line++;
		if (n > LINE_MAX_LEN)
			return bad_line(err, what, line, "the line is longer than %d bytes", LINE_MAX_LEN);
		memcpy(buf, text + pos, n);
		buf[n] = '\0';
		pos += n + 1;
		if (n && buf[n - 1] == '\r')
			buf[n - 1] = '\0';
		if ((hash = strchr(buf, '#')))
			*hash = '\0';
		rc = parse_line(buf, base, what, line, &path, &set, err);
		if (!rc && path.len)
			rc = fn(path.buf, &set, line, ud);
		settings_release(&set);
		kp_buf_release(&path);
	}
	return rc;
}

struct lines {
	struct kp_bench_list *l;
	const char *what;
	struct kp_error *err;
};

/* A parsed line's tasks: PATH may be a task, a directory of tasks or a glob. */
static int resolve_line(const char *path, const struct kp_bench_task_settings *set, long line, void *ud)
{
	struct lines *L = ud;
	size_t before = L->l->n;
	int rc = add_path(L->l, path, set, 0, L->err);
	if (rc) {
		kp_error_prefix(L->err, "%s:%ld", L->what, line);
		return rc;
	}
	if (set->name && L->l->n - before > 1)
		return bad_line(L->err, L->what, line, "name=%s names one task, but '%s' is %zu tasks",
		                set->name, path, L->l->n - before);
	return 0;
}

static int push_line(const char *path, const struct kp_bench_task_settings *set, long line, void *ud)
{
	kp_bench_list_push(ud, path, set);
	return 0;
}

int kp_bench_list_parse_lines(struct kp_bench_list *l, const char *text, size_t len, const char *base_dir,
                              const char *what, struct kp_error *err)
{
	return each_line(text, len, base_dir, what, push_line, l, err);
}

int kp_bench_list_parse(struct kp_bench_list *l, const char *text, size_t len, const char *base_dir,
                        const char *what, struct kp_error *err)
{
	struct lines L = {l, what, err};
	size_t before = l->n;
	int rc = each_line(text, len, base_dir, what, resolve_line, &L, err);
	if (!rc && l->n == before)
		return kp_error_set(err, KP_ENOENT, "%s names no task", what);
	return rc;
}
