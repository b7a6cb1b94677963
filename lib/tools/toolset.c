/*
 * Toolsets: the built-in tools, the user tools found on the tools path (a
 * user tool with a built-in's name replaces it), the threshold values in
 * effect, proactive selection by Stage-1 class, and the metric union the
 * profiler should collect.
 */
#include "base/setup.h"

#include <dirent.h>

#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"
#include "tools/registry.h"
#include "tools/toolset_impl.h"

#define CONFIG_CAP ((size_t)1 << 20)

static void entry_set_values(struct kp_toolset_entry *e)
{
	e->values = e->info.nthresholds ? kp_xcalloc(e->info.nthresholds, sizeof(double)) : NULL;
	for (size_t i = 0; i < e->info.nthresholds; i++)
		e->values[i] = e->info.thresholds[i].def;
	e->info.values = e->values;
}

static size_t count_metrics(const struct kp_tool_metric *m)
{
	size_t n = 0;
	while (m && m[n].name)
		n++;
	return n;
}

static size_t count_thresholds(const struct kp_threshold *t)
{
	size_t n = 0;
	while (t && t[n].name)
		n++;
	return n;
}

static void add_builtins(struct kp_toolset *ts)
{
	for (size_t i = 0; i < kp_builtin_tool_count(); i++) {
		const struct kp_tool *t = kp_builtin_tool_at(i);
		KP_ALLOC_GROW(ts->v, ts->n + 1, ts->alloc);
		struct kp_toolset_entry *e = &ts->v[ts->n++];
		memset(e, 0, sizeof(*e));
		e->info.name = t->name;
		e->info.description = t->description;
		e->info.details = t->details;
		e->info.sources = t->sources;
		e->info.needs = t->needs;
		e->info.metrics = t->metrics;
		e->info.nmetrics = count_metrics(t->metrics);
		e->info.thresholds = t->thresholds;
		e->info.nthresholds = count_thresholds(t->thresholds);
		e->info.classes = kp_builtin_tool_classes(i);
		e->info.builtin = t;
		entry_set_values(e);
	}
}

struct kp_toolset_entry *kp_toolset_entry(const struct kp_toolset *ts, const char *name)
{
	for (size_t i = 0; i < ts->n; i++)
		if (!strcmp(ts->v[i].info.name, name))
			return &ts->v[i];
	return NULL;
}

static void entry_release(struct kp_toolset_entry *e)
{
	free(e->values);
	kp_luatool_free(e->lua);
	memset(e, 0, sizeof(*e));
}

/* Adds (or substitutes) one loaded user tool; takes `lt`. */
static void add_user_tool(struct kp_toolset *ts, struct kp_luatool *lt)
{
	const struct kp_tool_info *li = kp_luatool_info(lt);
	struct kp_toolset_entry *e = kp_toolset_entry(ts, li->name);
	unsigned classes = li->classes;

	if (e && e->lua) {
		kp_strvec_pushf(&ts->problems, "%s: tool '%s' is already defined by %s; this file is ignored",
				li->origin, li->name, e->info.origin);
		kp_luatool_free(lt);
		return;
	}
	if (e) {
		/* Replaces the built-in, in its place in the table; inherits its classes unless told. */
		if (!classes)
			classes = e->info.classes;
		entry_release(e);
		e->info = *li;
		e->info.replaces_builtin = 1;
	} else {
		KP_ALLOC_GROW(ts->v, ts->n + 1, ts->alloc);
		e = &ts->v[ts->n++];
		memset(e, 0, sizeof(*e));
		e->info = *li;
	}
	e->info.classes = classes ? classes : KP_CLASS_ALL;
	e->info.builtin = NULL;
	e->lua = lt;
	entry_set_values(e);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Loads every *.lua in `dir` (sorted by name). A missing directory is an error only when `required`. */
static int load_dir(struct kp_toolset *ts, const char *dir, int required, const struct kp_toolset_opts *o,
		    struct kp_error *err)
{
	struct kp_strvec files = KP_STRVEC_INIT;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d) {
		if (required)
			return kp_error_set(err, KP_ENOENT, "tools directory '%s': %s", dir, strerror(errno));
		kp_strvec_pushf(&ts->problems, "%s: %s (in KERNELPRO_TOOLS_PATH); skipped", dir, strerror(errno));
		return 0;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && kp_ends_with(de->d_name, ".lua"))
			kp_strvec_pushf(&files, "%s/%s", dir, de->d_name);
	closedir(d);
	if (files.n)
		qsort(files.v, files.n, sizeof(*files.v), cmp_str);
	for (size_t i = 0; i < files.n; i++) {
		struct kp_luatool *lt = NULL;
		struct kp_error lerr = KP_ERROR_INIT;
		struct kp_luatool_limits lim = {o->lua_instr_limit, o->lua_mem_limit, o->lua_time_limit_ms};
		if (kp_luatool_load(&lt, files.v[i], &lim, &lerr)) {
			kp_strvec_push(&ts->problems, kp_error_msg(&lerr));
			continue;
		}
		add_user_tool(ts, lt);
	}
	kp_strvec_release(&files);
	return 0;
}

int kp_toolset_open(struct kp_toolset **out, const struct kp_toolset_opts *o, struct kp_error *err)
{
	static const struct kp_toolset_opts none;
	struct kp_toolset *ts = kp_xcalloc(1, sizeof(*ts));
	struct kp_buf cfg = KP_BUF_INIT;
	const char *env;
	int rc = 0;

	*out = NULL;
	if (!o)
		o = &none;
	ts->min_gain = o->min_gain == 0 ? KP_MIN_GAIN : o->min_gain;
	add_builtins(ts);
	for (const char *const *d = o->dirs; d && *d; d++)
		if ((rc = load_dir(ts, *d, 1, o, err)))
			goto out;
	env = o->use_env ? getenv("KERNELPRO_TOOLS_PATH") : NULL;
	if (env && *env) {
		struct kp_strvec dirs = KP_STRVEC_INIT;
		kp_strvec_split(&dirs, env, ':');
		for (size_t i = 0; i < dirs.n && !rc; i++)
			if (*dirs.v[i])
				rc = load_dir(ts, dirs.v[i], 0, o, err);
		kp_strvec_release(&dirs);
		if (rc)
			goto out;
	}
	for (size_t i = 0; i < ts->problems.n; i++)
		kp_warn("user tool not loaded: %s", ts->problems.v[i]);
	if (o->config_path) {
		if ((rc = kp_read_file(o->config_path, CONFIG_CAP, &cfg, err)))
			goto out;
		if ((rc = kp_toolset_load_config(ts, o->config_path, cfg.buf, cfg.len, err)))
			goto out;
	}
	for (const char *const *a = o->overrides; a && *a; a++)
		if ((rc = kp_toolset_override(ts, *a, err)))
			goto out;
out:
	kp_buf_release(&cfg);
	if (rc) {
		kp_toolset_free(ts);
		return rc;
	}
	*out = ts;
	return 0;
}

void kp_toolset_free(struct kp_toolset *ts)
{
	if (!ts)
		return;
	for (size_t i = 0; i < ts->n; i++)
		entry_release(&ts->v[i]);
	free(ts->v);
	kp_strvec_release(&ts->problems);
	free(ts);
}

const struct kp_strvec *kp_toolset_problems(const struct kp_toolset *ts)
{
	return &ts->problems;
}

size_t kp_toolset_count(const struct kp_toolset *ts)
{
	return ts->n;
}

const struct kp_tool_info *kp_toolset_at(const struct kp_toolset *ts, size_t i)
{
	return i < ts->n ? &ts->v[i].info : NULL;
}

const struct kp_tool_info *kp_toolset_find(const struct kp_toolset *ts, const char *name)
{
	struct kp_toolset_entry *e = kp_toolset_entry(ts, name);
	return e ? &e->info : NULL;
}

/* ---- Selection and metric union ------------------------------------------------------------ */

void kp_toolset_select(const struct kp_toolset *ts, enum kp_bound cls, int energy, struct kp_strvec *ids)
{
	unsigned bit = KP_CLASS_BIT((unsigned)cls <= KP_BOUND_MIXED ? cls : KP_BOUND_UNKNOWN);
	for (size_t i = 0; i < ts->n; i++) {
		const struct kp_tool_info *t = &ts->v[i].info;
		if ((t->classes & bit) || (energy && !strcmp(t->name, "instruction_mix")))
			kp_strvec_push(ids, t->name);
	}
}

static void add_metrics(const struct kp_tool_info *t, struct kp_strvec *out, unsigned *sources)
{
	for (size_t j = 0; j < t->nmetrics; j++)
		if (kp_strvec_find(out, t->metrics[j].name) < 0)
			kp_strvec_push(out, t->metrics[j].name);
	if (sources)
		*sources |= t->sources;
}

static void sort_strvec(struct kp_strvec *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
}

int kp_toolset_metrics(const struct kp_toolset *ts, const struct kp_strvec *ids, struct kp_strvec *out,
		       unsigned *sources, struct kp_error *err)
{
	for (size_t i = 0; i < ids->n; i++)
		if (!kp_toolset_entry(ts, ids->v[i]))
			return kp_error_set(err, KP_ENOENT, "unknown tool '%s'; 'kernelpro tools list' shows the ids",
					    ids->v[i]);
	for (size_t i = 0; i < ids->n; i++)
		add_metrics(&kp_toolset_entry(ts, ids->v[i])->info, out, sources);
	sort_strvec(out);
	return 0;
}

void kp_toolset_metrics_for_class(const struct kp_toolset *ts, enum kp_bound cls, int energy,
				  struct kp_strvec *out, unsigned *sources)
{
	struct kp_strvec ids = KP_STRVEC_INIT;
	kp_toolset_select(ts, cls, energy, &ids);
	for (size_t i = 0; i < ids.n; i++)
		add_metrics(&kp_toolset_entry(ts, ids.v[i])->info, out, sources);
	sort_strvec(out);
	kp_strvec_release(&ids);
}

int kp_toolset_collection(const struct kp_toolset *ts, const struct kp_strvec *ids, struct kp_strvec *metrics,
			  struct kp_strvec *sections, struct kp_error *err)
{
	struct kp_strvec all = KP_STRVEC_INIT;
	int rc = kp_toolset_metrics(ts, ids, &all, NULL, err);
	for (size_t i = 0; !rc && i < ids->n; i++) {
		const struct kp_tool_info *t = &kp_toolset_entry(ts, ids->v[i])->info;
		for (size_t j = 0; j < t->nmetrics; j++)
			if ((t->metrics[j].flags & KP_TM_SOURCE) && kp_strvec_find(sections, "SourceCounters") < 0)
				kp_strvec_push(sections, "SourceCounters");
	}
	for (size_t i = 0; !rc && i < all.n; i++) {
		int source = 0;
		for (size_t k = 0; k < ids->n && !source; k++) {
			const struct kp_tool_info *t = &kp_toolset_entry(ts, ids->v[k])->info;
			for (size_t j = 0; j < t->nmetrics; j++)
				if (!strcmp(t->metrics[j].name, all.v[i]) && (t->metrics[j].flags & KP_TM_SOURCE))
					source = 1;
		}
		if (!source && kp_strvec_find(metrics, all.v[i]) < 0)
			kp_strvec_push(metrics, all.v[i]);
	}
	sort_strvec(metrics);
	kp_strvec_release(&all);
	return rc;
}
