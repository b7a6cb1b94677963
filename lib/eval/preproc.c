/*
 * Native candidates as the compiler sees them (issue 30, N3 and N10): includes held to the candidate
 * and the toolkit's headers, lib/eval/static.c's checks again on the `nvcc -E` output, and build
 * logs cut to what the candidate's own files say.
 */
#include "base/setup.h"

#include <limits.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <unistd.h>

#include "eval/build.h"
#include "eval/preproc.h"
#include "eval/srcscan.h"
#include "kernelpro/child.h"
#include "kernelpro/codesearch.h"
#include "kernelpro/fs.h"
#include "kernelpro/str.h"

/* CUTLASS's headers alone preprocess to ~15 MB; a source that expands past this is refused. */
#define PP_CAP        (128u << 20)
#define PP_TIMEOUT_MS 120000
#define MAX_ROOTS     16
#define CAND_FILE     "candidate.cu"

/* --- the include roots ------------------------------------------------------------------------- */

struct roots {
	char *dir[MAX_ROOTS];
	size_t n;
};

static void roots_add(struct roots *r, const char *dir)
{
	char real[PATH_MAX];
	if (!dir || r->n >= MAX_ROOTS || !realpath(dir, real))
		return;
	r->dir[r->n++] = kp_xstrdup(real);
}

static void roots_release(struct roots *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->dir[i]);
	r->n = 0;
}

/* Where a candidate's includes may lead: harness/include, the toolkit, the system's and CUTLASS's
 * headers, and directories the user named with -I in the nvcc flags. */
static void roots_init(struct roots *r, const struct kp_eval_ctx *x, const char *inc)
{
	static const char *const system_dirs[] = {"/usr/include",   "/usr/local/include", "/usr/lib/gcc",
	                                          "/usr/lib64/gcc", "/usr/lib/llvm",      "/usr/lib/clang"};
	const struct kp_cutlass *cl = kp_cutlass_cached(NULL);
	memset(r, 0, sizeof(*r));
	roots_add(r, inc);
	if (x->tc.nvcc) {
		struct kp_buf cuda = KP_BUF_INIT;
		char real[PATH_MAX];
		/* .../bin/nvcc: the toolkit is the directory above bin (resolved: /usr/local/cuda is a link)
		 */
		if (realpath(x->tc.nvcc, real)) {
			char *slash = strrchr(real, '/');
			if (slash)
				*slash = '\0';
			slash = strrchr(real, '/');
			if (slash)
				*slash = '\0';
			kp_buf_adds(&cuda, real);
			roots_add(r, cuda.buf);
		}
		kp_buf_release(&cuda);
	}
	for (size_t i = 0; i < KP_ARRAY_SIZE(system_dirs); i++)
		roots_add(r, system_dirs[i]);
	if (cl)
		roots_add(r, cl->root);
	for (size_t i = 0; i < x->tc.flags.n; i++)
		if (!strncmp(x->tc.flags.v[i], "-I", 2) && x->tc.flags.v[i][2])
			roots_add(r, x->tc.flags.v[i] + 2);
}

/* True when `path` (as the preprocessor or compiler wrote it) is a file under one of the roots. */
static int under_roots(const struct roots *r, const char *path)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return 0;
	for (size_t i = 0; i < r->n; i++) {
		size_t k = strlen(r->dir[i]);
		if (!strncmp(real, r->dir[i], k) && (real[k] == '/' || real[k] == '\0'))
			return 1;
	}
	return 0;
}

/* --- #include lines as written ------------------------------------------------------------------ */

/* The path of an #include directive on the line at p (NULL: none), its length in *n. */
static const char *include_path(const char *p, const char *end, size_t *n)
{
	const char *q;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p++ != '#')
		return NULL;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 7 || strncmp(p, "include", 7))
		return NULL;
	p += 7;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || (*p != '"' && *p != '<'))
		return NULL;
	q = memchr(p + 1, *p == '"' ? '"' : '>', (size_t)(end - p - 1));
	if (!q)
		return NULL;
	*n = (size_t)(q - p - 1);
	return p + 1;
}

static int dotdot(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == '.' && s[i + 1] == '.' && (i == 0 || s[i - 1] == '/') &&
		    (i + 2 == n || s[i + 2] == '/'))
			return 1;
	return 0;
}

/* Refuses the candidate with `msg` (taken) as the evidence of `check`. */
static void refuse(struct kp_verdict *v, const char *check, char *msg)
{
	kp_verdict_flag(v, check, KP_SEV_REFUSE, "%s", msg);
	free(v->message);
	free(v->log);
	free(v->phase);
	v->message = kp_xasprintf("refused by static check: %s", check);
	v->log = kp_xasprintf("refused by static check '%s': %s", check, msg);
	v->phase = kp_xstrdup("static");
	free(msg);
}

/* Absolute and ".." includes, as the text has them (a computed include is seen after -E). */
static int written_includes(const char *src, size_t len, struct kp_verdict *v)
{
	const char *p = src, *end = src + len;
	for (int line = 1; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *path;
		size_t n = 0;
		if ((path = include_path(p, e, &n)) && (n == 0 || path[0] == '/' || dotdot(path, n))) {
			char shown[256];
			snprintf(shown, sizeof(shown), "%.*s", (int)(n < 200 ? n : 200), path);
			refuse(v, "foreign_include",
			       kp_xasprintf(
			           "line %d: includes '%s', a path outside the candidate's directory and the "
			           "include directories (absolute or with '..')",
			           line, shown));
			return 1;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* --- nvcc -E ------------------------------------------------------------------------------------- */

/*
 * A GNU linemarker, "# 12 \"file\" 1 3": its line number and file. Returns 0 when the line is none.
 * The file name keeps its escapes (\\ and \"), which only matter for names no toolkit has.
 */
static int linemarker(const char *p, const char *e, long *line, char *file, size_t fn)
{
	const char *q;
	size_t n;
	if (p >= e || *p != '#')
		return 0;
	p++;
	if (p < e && *p == ' ')
		p++;
	if (p >= e || *p < '0' || *p > '9')
		return 0;
	*line = 0;
	while (p < e && *p >= '0' && *p <= '9')
		*line = *line * 10 + (*p++ - '0');
	if (p + 1 >= e || p[0] != ' ' || p[1] != '"')
		return 0;
	p += 2;
	for (q = p; q < e && *q != '"'; q++)
		if (*q == '\\' && q + 1 < e)
			q++;
	n = (size_t)(q - p);
	if (n >= fn)
		n = fn - 1;
	memcpy(file, p, n);
	file[n] = '\0';
	return 1;
}

/*
 * From the preprocessed translation unit, the candidate's own lines, each at its line number in the
 * source (a continuation joins lines; the rest stay where they were), into `own`. The first file
 * outside the roots is named in `foreign` (empty: none).
 */
static void split_output(const char *pp, size_t len, const struct roots *r, struct kp_buf *own, char *foreign,
                         size_t fn)
{
	const char *p = pp, *end = pp + len;
	char file[PATH_MAX], last_checked[PATH_MAX] = "";
	long line = 1;
	int in_cand = 0;
	int out_line = 1;
	foreign[0] = '\0';
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		long l;
		if (linemarker(p, e, &l, file, sizeof(file))) {
			line = l;
			in_cand = !strcmp(file, CAND_FILE);
			if (!in_cand && file[0] != '<' && strcmp(file, last_checked)) {
				/* "<built-in>", "<command-line>": the preprocessor's own */
				kp_strlcpy(last_checked, file, sizeof(last_checked));
				if (!foreign[0] &&
				    !under_roots(r, file)) /* resolved: ".." and links followed */
					kp_strlcpy(foreign, file, fn);
			}
		} else {
			if (in_cand) {
				for (; out_line < line; out_line++)
					kp_buf_addch(own, '\n');
				kp_buf_add(own, p, (size_t)(e - p));
				kp_buf_addch(own, '\n');
				out_line++;
			}
			line++;
		}
		p = nl ? nl + 1 : end;
	}
}

/* "sys" "call": adjacent literals joined, as the compiler joins them after preprocessing. */
static void join_literals(const char *s, size_t n, struct kp_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"') {
			size_t j = i + 1;
			while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n'))
				j++;
			if (j < n && s[j] == '"') {
				i = j; /* a closing quote, blanks, an opening quote: gone */
				continue;
			}
		}
		kp_buf_addch(out, s[i]);
	}
}

static pthread_once_t asm_once = PTHREAD_ONCE_INIT;
static regex_t asm_re, insn_re;
static int asm_ok;

static void compile_asm(void)
{
	asm_ok =
	    !regcomp(&asm_re,
	             "(^|[^A-Za-z0-9_])(asm|__asm|__asm__)([[:space:]]+(volatile|__volatile__|goto|inline))*"
	             "[[:space:]]*\\(",
	             REG_EXTENDED) &&
	    !regcomp(
	        &insn_re,
	        "(^|[^A-Za-z0-9_.]|\\\\[nt])(syscall|sysenter|int[[:space:]]*\\$?0x80|svc[[:space:]]+#?0)"
	        "([^A-Za-z0-9_]|$)",
	        REG_EXTENDED);
}

/*
 * A system call from inline assembly in the candidate's preprocessed lines. (libc's syscall() is left
 * to the sandbox, which refuses the process-starting ones at run time: tests/adversarial/native/
 * nat_spawn_fork.cu is that case.)
 */
static int raw_syscalls(const char *own, struct kp_verdict *v)
{
	struct kp_buf joined = KP_BUF_INIT;
	regmatch_t m[1];
	int found = 0;
	pthread_once(&asm_once, compile_asm);
	if (!asm_ok)
		return 0;
	join_literals(own, strlen(own), &joined);
	for (const char *p = joined.buf; !found && !regexec(&asm_re, p, 1, m, 0);) {
		const char *start = p + m[0].rm_eo, *q = start;
		int depth = 1;
		while (*q && depth > 0) {
			depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
			q++;
		}
		{
			struct kp_buf stmt = KP_BUF_INIT;
			regmatch_t im[3];
			kp_buf_add(&stmt, start, (size_t)(q - start));
			if (!regexec(&insn_re, stmt.buf, 3, im, 0)) {
				char insn[32];
				snprintf(insn, sizeof(insn), "%.*s", (int)(im[2].rm_eo - im[2].rm_so),
				         stmt.buf + im[2].rm_so);
				refuse(v, "threads",
				       kp_xasprintf(
				           "line %d: a system call in inline assembly ('%s'): it can start a "
				           "process or reach another one past every library-call check",
				           kp_src_line_of(joined.buf, (size_t)(start - joined.buf)), insn));
				found = 1;
			}
			kp_buf_release(&stmt);
		}
		if (!*q)
			break;
		p = q;
	}
	kp_buf_release(&joined);
	return found;
}

/* nvcc -E of the candidate as it will be built; the output in `out`. 0 and empty `out` when nvcc failed. */
static int preprocess(const struct kp_eval_ctx *x, const char *src, size_t len, const char *inc,
                      struct kp_buf *out, int *capped, struct kp_error *err)
{
	struct kp_buf dir = KP_BUF_INIT, path = KP_BUF_INIT;
	struct kp_child c = KP_CHILD_INIT;
	int rc;
	*capped = 0;
	if ((rc = kp_mkdtemp("kp-preproc", &dir, err)))
		return rc;
	kp_path_join(&path, dir.buf, CAND_FILE);
	if ((rc = kp_write_file_atomic(path.buf, src, len, err)))
		goto out;
	kp_strvec_pushl(&c.args, x->tc.nvcc, "-E", "-x", "cu", NULL);
	kp_strvec_pushv(&c.args, (const char *const *)x->tc.flags.v);
	{
		const struct kp_cutlass *cl =
		    kp_cutlass_source_uses(src, len) ? kp_cutlass_cached(NULL) : NULL;
		const char *arch = x->tc.arch;
		kp_cutlass_build_flags(cl, src, len, &c.args, &arch, NULL);
	}
	if (inc) {
		char real[PATH_MAX]; /* nvcc runs in the temporary directory: a relative path would miss */
		kp_strvec_pushf(&c.args, "-I%s", realpath(inc, real) ? real : inc);
	}
	kp_strvec_push(&c.args, CAND_FILE);
	c.cwd = dir.buf;
	c.out_cap = PP_CAP;
	c.err_cap = 64u << 10;
	c.kill_at_cap = 1;
	c.timeout_ms = PP_TIMEOUT_MS;
	if ((rc = kp_child_run(&c, err)))
		goto out;
	*capped = c.output_capped;
	if (kp_child_ok(&c) || c.output_capped)
		kp_buf_add(out, c.out.buf, c.out.len);
out:
	kp_child_release(&c);
	kp_rm_rf(dir.buf, NULL);
	kp_buf_release(&dir);
	kp_buf_release(&path);
	return rc;
}

int kp_preproc_check(const struct kp_eval_ctx *x, const char *src, size_t len, const char *inc,
                     struct kp_verdict *v, struct kp_error *err)
{
	struct kp_buf pp = KP_BUF_INIT, own = KP_BUF_INIT;
	struct kp_verdict after;
	struct roots r;
	char foreign[PATH_MAX];
	int capped = 0, rc = 0;

	if (written_includes(src, len, v))
		return 0;
	if (!x->tc.nvcc)
		return 0;
	if ((rc = preprocess(x, src, len, inc, &pp, &capped, err)) || !pp.len) {
		kp_buf_release(&pp);
		return rc == KP_ECANCELED ? rc : 0; /* nvcc's own complaint comes from the build */
	}
	if (capped) {
		refuse(
		    v, "foreign_include",
		    kp_xasprintf(
		        "the preprocessed source is larger than %u MiB; its includes cannot all be checked",
		        PP_CAP >> 20));
		goto out;
	}
	roots_init(&r, x, inc);
	split_output(pp.buf, pp.len, &r, &own, foreign, sizeof(foreign));
	roots_release(&r);
	if (foreign[0]) {
		refuse(
		    v, "foreign_include",
		    kp_xasprintf("the preprocessor opened '%s', a file outside the candidate and the include "
		                 "directories (a computed #include)",
		                 foreign));
		goto out;
	}
	if (raw_syscalls(own.buf, v))
		goto out;
	/* The text checks once more, on what the compiler will compile. */
	kp_verdict_init(&after);
	kp_eval_static(x->task, own.buf, own.len, x->o, &after, NULL);
	if (after.status == KP_STATUS_CHEAT_SUSPECTED) {
		for (size_t i = 0; i < after.nflags; i++)
			if (after.flags[i].severity == KP_SEV_REFUSE)
				kp_verdict_flag(v, after.flags[i].check, KP_SEV_REFUSE,
				                "after preprocessing (nvcc -E): %s", after.flags[i].message);
		free(v->message);
		free(v->log);
		free(v->phase);
		v->message =
		    kp_xasprintf("%s (seen after preprocessing)", after.message ? after.message : "refused");
		v->log = kp_xasprintf(
		    "after preprocessing (nvcc -E), where macros, token pasting and continuation "
		    "lines are resolved:\n%s",
		    after.log ? after.log : "");
		v->phase = kp_xstrdup("static");
	}
	kp_verdict_release(&after);
out:
	kp_buf_release(&pp);
	kp_buf_release(&own);
	return 0;
}

/* --- build logs ---------------------------------------------------------------------------------- */

/*
 * The file a diagnostic line is about: "FILE(12): error: ..." (nvcc, cudafe), "FILE:12:3: error: ..." or
 * "In file included from FILE:3:" (the host compiler). Copies it into `file`; 0 when the line names none.
 */
static int diag_file(const char *p, const char *e, char *file, size_t fn)
{
	static const char inc_from[] = "In file included from ", from[] = "                 from ";
	const char *q;
	if ((size_t)(e - p) > sizeof(inc_from) - 1 && !strncmp(p, inc_from, sizeof(inc_from) - 1))
		p += sizeof(inc_from) - 1;
	else if ((size_t)(e - p) > sizeof(from) - 1 && !strncmp(p, from, sizeof(from) - 1))
		p += sizeof(from) - 1;
	for (q = p; q < e; q++) {
		if ((*q == '(' || *q == ':') && q + 1 < e && q[1] >= '0' && q[1] <= '9') {
			const char *d = q + 1;
			while (d < e && *d >= '0' && *d <= '9')
				d++;
			if (d < e && ((*q == '(' && *d == ')') || (*q == ':' && (*d == ':' || *d == ','))) &&
			    q > p) {
				size_t n = (size_t)(q - p);
				if (n >= fn)
					return 0;
				memcpy(file, p, n);
				file[n] = '\0';
				return 1;
			}
		}
		if (*q == ' ' && q == p)
			return 0;
	}
	return 0;
}

void kp_preproc_own_log(const struct kp_eval_ctx *x, const char *inc, const char *log, struct kp_buf *out)
{
	struct roots r;
	const char *p = log, *end = log + strlen(log);
	char file[PATH_MAX];
	int withheld = 0, any = 0;
	roots_init(&r, x, inc);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		if (diag_file(p, e, file, sizeof(file))) {
			/* No '/': the build directory, which holds the candidate alone. */
			withheld = strchr(file, '/') && !under_roots(&r, file);
			if (withheld) {
				kp_buf_addf(
				    out,
				    "%s: [what the compiler said about this file is withheld: it is not the "
				    "candidate's and not a toolkit header]\n",
				    file);
				any = 1;
			}
		} else if (withheld && (e == p || p[0] == ' ' || p[0] == '\t')) {
			/* the quoted line and the caret under it */
		} else {
			withheld = 0;
		}
		if (!withheld)
			kp_buf_add(out, p, (size_t)(e - p + (nl ? 1 : 0)));
		p = nl ? nl + 1 : end;
	}
	(void)any;
	roots_release(&r);
}
