/*
 * KernelBench interop for an exported suite: kernels that KernelBench runs unmodified (kernelpro's
 * fast path inlined, so a kernel needs PyTorch and nvcc, not kernelpro), and kernelpro's verdicts and
 * baselines in the files KernelBench's own analysis reads (scripts/benchmark_eval_analysis.py:
 * <dir>/<run_name>/eval_results.json and a results/timing-style baseline file). docs/report.md.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/suite.h"
#include "suite/kbexport.h"

#define FAST_PY         "harness/kernelpro/fast.py"
#define BUILD_PY        "harness/kernelpro/build.py"
#define PY_CAP          (1u << 20)
#define RELATIVE_IMPORT "from . import build as _build\n"

/* ---- self-contained kernels ------------------------------------------------------------------------ */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* An identifier at p into out (at most n - 1 bytes); its end, or NULL when there is none. */
static const char *ident(const char *p, char *out, size_t n)
{
	size_t k = 0;
	if (!ident_char(*p) || (*p >= '0' && *p <= '9'))
		return NULL;
	while (ident_char(*p)) {
		if (k + 1 < n)
			out[k++] = *p;
		p++;
	}
	out[k] = '\0';
	return k + 1 < n ? p : NULL;
}

/* `word` at p followed by a space or the line's end; past it, or NULL. */
static const char *word(const char *p, const char *w)
{
	size_t n = strlen(w);
	if (strncmp(p, w, n) || ident_char(p[n]) || p[n] == '.')
		return NULL;
	return p + n;
}

/* The rest of a line after an import: nothing but a comment. */
static int line_ends(const char *p)
{
	p = skip_ws(p);
	return !*p || *p == '\n' || *p == '#' || (*p == '\r' && p[1] == '\n');
}

/*
 * One line of the candidate (without its newline): the assignments that replace it when it imports
 * the fast path (appended to out with the line's indentation; returns 1), 0 when it does not mention
 * kernelpro, -1 when it imports kernelpro in a form this rewrite does not know.
 */
static int rewrite_import(const char *line, struct kp_buf *out)
{
	const char *p = skip_ws(line), *q;
	size_t indent = (size_t)(p - line);
	char a[128], b[128];
	int paren = 0, n = 0;

	if (!strstr(p, "kernelpro"))
		return 0;
	if ((q = word(p, "from")) && (q = word(skip_ws(q), "kernelpro.fast")) &&
	    (q = word(skip_ws(q), "import"))) {
		/* from kernelpro.fast import a, b as c  ->  a = _kp_fast.a; c = _kp_fast.b */
		q = skip_ws(q);
		if (*q == '(')
			paren = 1, q = skip_ws(q + 1);
		kp_buf_add(out, line, indent);
		for (;;) {
			if (!(q = ident(q, a, sizeof(a))))
				return -1;
			q = skip_ws(q);
			memcpy(b, a, sizeof(b)); /* the same size */
			if (word(q, "as") && !(q = ident(skip_ws(word(q, "as")), b, sizeof(b))))
				return -1;
			q = skip_ws(q);
			kp_buf_addf(out, "%s%s = _kp_fast.%s", n++ ? "; " : "", b, a);
			if (*q != ',')
				break;
			q = skip_ws(q + 1);
			if (paren && *q == ')')
				break;
		}
		if (paren && *q++ != ')')
			return -1;
		return line_ends(q) ? (kp_buf_addch(out, '\n'), 1) : -1;
	}
	if ((q = word(p, "from")) && (q = word(skip_ws(q), "kernelpro")) &&
	    (q = word(skip_ws(q), "import")) && (q = word(skip_ws(q), "fast"))) {
		/* from kernelpro import fast [as x] */
		snprintf(a, sizeof(a), "fast");
		q = skip_ws(q);
		if (word(q, "as") && !(q = ident(skip_ws(word(q, "as")), a, sizeof(a))))
			return -1;
		if (!line_ends(q))
			return -1;
		kp_buf_add(out, line, indent);
		kp_buf_addf(out, "%s = _kp_fast\n", a);
		return 1;
	}
	if ((q = word(p, "import")) && (q = word(skip_ws(q), "kernelpro.fast"))) {
		/* import kernelpro.fast [as x]: without an alias the name bound is kernelpro */
		q = skip_ws(q);
		kp_buf_add(out, line, indent);
		if (word(q, "as")) {
			if (!(q = ident(skip_ws(word(q, "as")), a, sizeof(a))) || !line_ends(q))
				return -1;
			kp_buf_addf(out, "%s = _kp_fast\n", a);
			return 1;
		}
		if (!line_ends(q))
			return -1;
		kp_buf_adds(
		    out, "import types as _kp_types; kernelpro = _kp_types.SimpleNamespace(fast=_kp_fast)\n");
		return 1;
	}
	/* "kernelpro" in a comment or a string is not an import. */
	if (!word(p, "import") && !word(p, "from"))
		return 0;
	return -1;
}

/* A Python text as a '''-quoted literal that gives it back exactly. */
static void py_literal(struct kp_buf *b, const char *s)
{
	kp_buf_adds(b, "'''");
	for (; *s; s++) {
		if (*s == '\\' || *s == '\'')
			kp_buf_addch(b, '\\');
		kp_buf_addch(b, *s);
	}
	kp_buf_adds(b, "'''");
}

/* The fast path's two modules, built from their text, bound to _kp_fast. */
static int inline_block(struct kp_buf *b, struct kp_error *err)
{
	char *fast_path = kp_find_data(FAST_PY), *build_path = kp_find_data(BUILD_PY);
	struct kp_buf fast = KP_BUF_INIT, build = KP_BUF_INIT, fixed = KP_BUF_INIT;
	char *at;
	int rc = 0;

	if (!fast_path || !build_path) {
		rc = kp_error_set(
		    err, KP_ENOTOOL,
		    "%s not found: run kernelpro from its build or install tree, or set KERNELPRO_HOME",
		    !fast_path ? FAST_PY : BUILD_PY);
		goto out;
	}
	if ((rc = kp_read_file(fast_path, PY_CAP, &fast, err)) ||
	    (rc = kp_read_file(build_path, PY_CAP, &build, err)))
		goto out;
	/* The one relative import becomes the module object handed in. */
	if (!(at = strstr(fast.buf, RELATIVE_IMPORT)) || strstr(at + 1, RELATIVE_IMPORT)) {
		rc = kp_error_set(err, KP_EPARSE, "%s: expected one line '%.*s' to inline", fast_path,
		                  (int)strlen(RELATIVE_IMPORT) - 1, RELATIVE_IMPORT);
		goto out;
	}
	kp_buf_add(&fixed, fast.buf, (size_t)(at - fast.buf));
	kp_buf_adds(&fixed, "_build = __kp_build__  # inlined; was: " RELATIVE_IMPORT);
	kp_buf_adds(&fixed, at + strlen(RELATIVE_IMPORT));
	kp_buf_adds(
	    b, "# ---- kernelpro.fast, inlined by kernelpro's export (kernelpro " KP_VERSION "): this file\n"
	       "# ---- needs PyTorch and nvcc, not kernelpro. The two texts below are kernelpro's\n"
	       "# ---- harness/kernelpro/build.py and fast.py, unchanged but for fast.py's import of "
	       "build.\n"
	       "def _kp_inline_fast(build_py, fast_py):\n"
	       "    import os, types\n"
	       "    build = types.ModuleType('kernelpro_inline.build')\n"
	       "    exec(compile(build_py, 'kernelpro/build.py', 'exec'), build.__dict__)\n"
	       "    fast = types.ModuleType('kernelpro_inline.fast')\n"
	       "    fast.__dict__['__kp_build__'] = build\n"
	       "    exec(compile(fast_py, 'kernelpro/fast.py', 'exec'), fast.__dict__)\n"
	       "    if not os.environ.get('KP_ARCH'):  # kernelpro's harness says; here, the GPU does\n"
	       "        import torch\n"
	       "        major, minor = torch.cuda.get_device_capability()\n"
	       "        fast._toolchain = build.Toolchain(arch='sm_%d%d' % (major, minor))\n"
	       "    return fast\n\n\n"
	       "_kp_fast = _kp_inline_fast(\n");
	py_literal(b, build.buf);
	kp_buf_adds(b, ",\n");
	py_literal(b, fixed.buf);
	kp_buf_adds(b, ")\n# ---- end of kernelpro.fast\n\n");
out:
	free(fast_path);
	free(build_path);
	kp_buf_release(&fast);
	kp_buf_release(&build);
	kp_buf_release(&fixed);
	return rc;
}

/* Calls rewrite_import on every line of src; the replaced text (or the line) goes to out when given. */
struct scan {
	int uses, unknown, future, first_unindented; /* first_unindented: line index, -1 none */
};

static void scan_lines(const char *src, struct scan *sc)
{
	struct kp_buf line = KP_BUF_INIT, ignore = KP_BUF_INIT;
	int idx = 0;
	memset(sc, 0, sizeof(*sc));
	sc->first_unindented = -1;
	for (const char *p = src; *p; idx++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		int r;
		kp_buf_reset(&line);
		kp_buf_add(&line, p, n);
		r = rewrite_import(line.buf, &ignore);
		sc->uses += r > 0;
		sc->unknown += r < 0;
		sc->future |= word(skip_ws(line.buf), "from") && strstr(line.buf, "__future__");
		if (r > 0 && sc->first_unindented < 0 && line.buf[0] != ' ' && line.buf[0] != '\t')
			sc->first_unindented = idx;
		p += n + (nl ? 1 : 0);
	}
	kp_buf_release(&line);
	kp_buf_release(&ignore);
}

int kp__suite_kb_kernel(const char *src, struct kp_buf *out, int *rewritten, struct kp_error *err)
{
	struct kp_buf line = KP_BUF_INIT, repl = KP_BUF_INIT;
	struct scan sc;
	int idx = 0, rc = 0;

	*rewritten = 0;
	scan_lines(src, &sc);
	/* Nothing to inline; or a form this rewrite does not know, or an import of the fast path that is
	 * only indented in a file with `from __future__` lines (the block could go nowhere): as it is. */
	if (!sc.uses || sc.unknown || (sc.first_unindented < 0 && sc.future)) {
		if (sc.uses || sc.unknown)
			kp_buf_adds(out, "# kernelpro's export: this kernel imports kernelpro in a form the "
			                 "export does not\n"
			                 "# rewrite; run it with PYTHONPATH=<kernelpro>/harness.\n");
		kp_buf_adds(out, src);
		return 0;
	}
	/* The block right before the first unindented import of the fast path (after any `from
	 * __future__` lines, which come first), else at the top. */
	if (sc.first_unindented < 0 && (rc = inline_block(out, err)))
		return rc;
	for (const char *p = src; *p && !rc; idx++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		kp_buf_reset(&line);
		kp_buf_reset(&repl);
		kp_buf_add(&line, p, n);
		if (idx == sc.first_unindented)
			rc = inline_block(out, err);
		if (rewrite_import(line.buf, &repl) > 0) {
			kp_buf_add(out, repl.buf, repl.len);
		} else {
			kp_buf_add(out, p, n);
			if (nl)
				kp_buf_addch(out, '\n');
		}
		p += n + (nl ? 1 : 0);
	}
	kp_buf_release(&line);
	kp_buf_release(&repl);
	if (!rc)
		*rewritten = 1;
	return rc;
}

/* ---- KernelBench's result files ------------------------------------------------------------------- */

static int is_kb(const struct kp_suite_task *t)
{
	return t->level > 0 && t->problem_id > 0 && t->problem_file;
}

/* One statistic for the task's runtime and its baselines: the mean when all of them have it. */
static int use_mean(const struct kp_suite_task *t)
{
	if (t->correct && !isfinite(t->best_mean_ms))
		return 0;
	for (int b = 0; b < KP_SUITE_NBASE; b++)
		if (isfinite(t->base_ms[b]) && !isfinite(t->base_mean_ms[b]))
			return 0;
	return 1;
}

static int compiled(const struct kp_suite_task *t)
{
	if (t->correct)
		return 1;
	return t->failure_outcome && strcmp(t->failure_outcome, "compile_error");
}

static json_t *eval_entry(const struct kp_suite_task *t, int sample)
{
	int mean = use_mean(t);
	json_t *o = json_object(), *meta = json_object(), *kp = json_object(), *stats = json_object();
	double rt = t->correct ? (mean ? t->best_mean_ms : t->best_ms) : -1.0; /* KernelBench's "none" */

	kp_json_set(o, "sample_id", json_integer(sample));
	kp_json_set(o, "compiled", json_boolean(compiled(t)));
	kp_json_set(o, "correctness", json_boolean(t->correct));
	kp_json_set(o, "runtime", json_real(rt));
	if (t->correct) {
		kp_json_set(stats, "mean", kp_json_real(t->best_mean_ms));
		kp_json_set(stats, "median", kp_json_real(t->best_ms));
	}
	kp_json_set(o, "runtime_stats", stats);
	kp_json_set(meta, "hardware", t->gpu ? json_string(t->gpu) : NULL);
	kp_json_set(meta, "device", json_string("cuda"));
	kp_json_set(kp, "statistic", json_string(mean ? "mean" : "median"));
	kp_json_set(kp, "task", json_string(t->name));
	kp_json_set(kp, "run", t->run ? json_string(t->run) : NULL);
	kp_json_set(kp, "state", json_string(kp_suite_state_name(t->state)));
	kp_json_set(kp, "node", json_integer(t->correct ? t->best_node : t->failure_node));
	kp_json_set(kp, "kernel", t->kernel ? json_string(t->kernel) : NULL);
	kp_json_set(kp, "outcome",
	            t->correct           ? json_string("correct")
	            : t->failure_outcome ? json_string(t->failure_outcome)
	                                 : NULL);
	kp_json_set(kp, "check", t->failure_check ? json_string(t->failure_check) : NULL);
	kp_json_set(kp, "message", t->failure_message ? json_string(t->failure_message) : NULL);
	kp_json_set(meta, "kernelpro", kp);
	kp_json_set(o, "metadata", meta);
	return o;
}

static json_t *baseline_entry(const struct kp_suite_task *t, enum kp_suite_baseline b)
{
	int mean = use_mean(t);
	json_t *o = json_object();
	kp_json_set(o, "mean", json_real(mean ? t->base_mean_ms[b] : t->base_ms[b]));
	kp_json_set(o, "median", json_real(t->base_ms[b]));
	kp_json_set(o, "statistic", json_string(mean ? "mean" : "median"));
	kp_json_set(o, "hardware", t->gpu ? json_string(t->gpu) : NULL);
	kp_json_set(o, "device", json_string("cuda"));
	kp_json_set(o, "source",
	            json_string(t->eager_from && b == KP_SUITE_EAGER && !strcmp(t->eager_from, "run")
	                            ? "kernelpro run (the reference timed beside the candidates)"
	                            : "kernelpro baseline"));
	return o;
}

static int write_json(const char *dir, const char *sub, const char *name, json_t *doc, struct kp_error *err)
{
	struct kp_buf p = KP_BUF_INIT;
	int rc;
	kp_path_join(&p, dir, sub);
	if (!(rc = kp_mkdir_p(p.buf, 0755, err))) {
		kp_buf_addch(&p, '/');
		kp_buf_adds(&p, name);
		rc = kp_json_write_file(p.buf, doc, err);
	}
	kp_buf_release(&p);
	return rc;
}

int kp_suite_write_kernelbench(const struct kp_suite *s, const char *dir, struct kp_error *err)
{
	static const char *const base_file[KP_SUITE_NBASE] = {
	    "baseline_time_torch.json", "baseline_time_torch_compile_inductor_default.json"};
	json_t *levels = json_object(), *bases[KP_SUITE_NBASE];
	struct kp_buf sub = KP_BUF_INIT, key = KP_BUF_INIT;
	const char *lk;
	json_t *lv;
	int rc = 0, any = 0;

	for (int b = 0; b < KP_SUITE_NBASE; b++)
		bases[b] = json_object();
	for (size_t i = 0; i < s->n; i++) {
		const struct kp_suite_task *t = &s->v[i];
		json_t *per, *list;
		int sample = 0;
		if (!is_kb(t))
			continue;
		any = 1;
		for (size_t j = 0; j < i; j++)
			sample += is_kb(&s->v[j]) && s->v[j].level == t->level &&
			          s->v[j].problem_id == t->problem_id;
		kp_buf_reset(&key);
		kp_buf_addf(&key, "level%d", t->level);
		if (!(per = json_object_get(levels, key.buf)))
			json_object_set_new(levels, key.buf, per = json_object());
		kp_buf_reset(&sub);
		kp_buf_addf(&sub, "%d", t->problem_id);
		if (!(list = json_object_get(per, sub.buf)))
			json_object_set_new(per, sub.buf, list = json_array());
		json_array_append_new(list, eval_entry(t, sample));
		/* KernelBench keys baselines by the problem's file name; a repeat keeps the first. */
		for (int b = 0; b < KP_SUITE_NBASE; b++) {
			json_t *lvl;
			if (isnan(t->base_ms[b]) || sample)
				continue;
			if (!(lvl = json_object_get(bases[b], key.buf)))
				json_object_set_new(bases[b], key.buf, lvl = json_object());
			json_object_set_new(lvl, t->problem_file, baseline_entry(t, b));
		}
	}
	if (!any)
		goto out;
	json_object_foreach(levels, lk, lv)
	{
		kp_buf_reset(&sub);
		kp_buf_addf(&sub, "kernelbench/%s", lk);
		if ((rc = write_json(dir, sub.buf, "eval_results.json", lv, err)))
			goto out;
	}
	for (int b = 0; b < KP_SUITE_NBASE && !rc; b++)
		rc = write_json(dir, "kernelbench", base_file[b], bases[b], err);
out:
	json_decref(levels);
	for (int b = 0; b < KP_SUITE_NBASE; b++)
		json_decref(bases[b]);
	kp_buf_release(&sub);
	kp_buf_release(&key);
	return rc;
}
