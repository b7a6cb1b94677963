/*
 * Whole-task Stage 1: the launches of one task (a PyTorch module's forward, a native task's
 * calls) grouped by kernel, each kernel's share of the time, class, roofline point and the time
 * that could be saved; the task's own roofline point and floor; which kernels hold most of the
 * savings (the cut-off the tools run under). docs/analyze.md, "The whole task".
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/analyze.h"
#include "kernelpro/json.h"

void kp_task_cutoff_default(struct kp_task_cutoff *c)
{
	c->share = 0.80;
	c->max_kernels = 5;
	c->min_saving = 0.01;
}

/*
 * The time a launch's work needs at the roofs, with the traffic it measured: its FLOPs at their
 * peaks, or its DRAM bytes at the bandwidth a streaming kernel reaches in practice, whichever is
 * longer. The rest of its time is what a better version of the same kernel could save.
 */
static double roofline_time(const struct kp_stage1 *s)
{
	double c = s->flops > 0 && s->compute_peak > 0 ? s->flops / s->compute_peak : 0;
	double m = s->dram_bytes > 0 && s->memory_peak > 0 ? s->dram_bytes / (KP_DRAM_PRACTICAL * s->memory_peak) : 0;
	return s->time_s > 0 ? fmin(s->time_s, fmax(c, m)) : 0;
}

static size_t group_of(struct kp_task_stage1 *t, const struct kp_launch *l, size_t *alloc)
{
	const char *name = l->kernel ? l->kernel : l->function ? l->function : "?";
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->kernels[i].name, name))
			return i;
	KP_ALLOC_GROW(t->kernels, t->n + 1, *alloc);
	memset(&t->kernels[t->n], 0, sizeof(t->kernels[0]));
	t->kernels[t->n].name = name;
	t->kernels[t->n].function = l->function ? l->function : name;
	return t->n++;
}

static int by_saving(const void *a, const void *b)
{
	const struct kp_task_kernel *x = a, *y = b;
	if (x->saving_s != y->saving_s)
		return x->saving_s < y->saving_s ? 1 : -1;
	return x->time_s < y->time_s ? 1 : x->time_s > y->time_s ? -1 : 0;
}

/* Sums of one kernel's launches: time, FLOPs, bytes, the savings and the longest launch. */
static void add_launch(struct kp_task_kernel *k, const struct kp_stage1 *s, size_t idx)
{
	double t = s->time_s > 0 ? s->time_s : 0;
	if (!k->nlaunches || t > k->longest_s) {
		k->longest = idx;
		k->longest_s = t;
		k->bound = s->bound;
		k->rule = s->rule;
	}
	k->nlaunches++;
	k->time_s += t;
	k->flops += s->flops > 0 ? s->flops : 0;
	k->dram_bytes += s->dram_bytes > 0 ? s->dram_bytes : 0;
	k->compute_s += s->flops > 0 && s->compute_peak > 0 ? s->flops / s->compute_peak : 0;
	k->roofline_s += roofline_time(s);
}

static void select_kernels(struct kp_task_stage1 *t, const struct kp_task_cutoff *c)
{
	double acc = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct kp_task_kernel *k = &t->kernels[i];
		if (t->nselected >= c->max_kernels || (t->saving_s > 0 && acc >= c->share * t->saving_s))
			break;
		if (k->saving_s < c->min_saving * t->time_s)
			break; /* ranked by saving: the rest save even less */
		k->selected = 1;
		t->nselected++;
		acc += k->saving_s;
	}
	t->selected_saving_s = acc;
	/* nothing worth saving anywhere (every kernel at its roof): the longest still gets the tools */
	if (!t->nselected && t->n) {
		size_t best = 0;
		for (size_t i = 1; i < t->n; i++)
			if (t->kernels[i].time_s > t->kernels[best].time_s)
				best = i;
		t->kernels[best].selected = 1;
		t->nselected = 1;
	}
}

void kp_task_stage1_build(struct kp_task_stage1 *t, const struct kp_kernel_profile *ks, const struct kp_stage1 *s1,
			  size_t n, const struct kp_task_bytes *task, const struct kp_task_cutoff *cut)
{
	struct kp_task_cutoff def;
	size_t alloc = 0;
	double compute_s = 0;

	memset(t, 0, sizeof(*t));
	if (!cut) {
		kp_task_cutoff_default(&def);
		cut = &def;
	}
	t->cutoff = *cut;
	t->memory_peak = n ? s1[0].memory_peak : NAN;
	for (size_t i = 0; i < n; i++) {
		size_t g;
		if (!ks[i].launch)
			continue;
		g = group_of(t, ks[i].launch, &alloc); /* may move t->kernels */
		add_launch(&t->kernels[g], &s1[i], i);
		t->nlaunches++;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct kp_task_kernel *k = &t->kernels[i];
		t->time_s += k->time_s;
		t->flops += k->flops;
		t->dram_bytes += k->dram_bytes;
		t->roofline_s += k->roofline_s;
		compute_s += k->compute_s;
		k->saving_s = fmax(0, k->time_s - k->roofline_s);
		k->ai = k->dram_bytes > 0 ? k->flops / k->dram_bytes : NAN;
		k->compute_frac = k->time_s > 0 && k->compute_s > 0 ? k->compute_s / k->time_s : 0;
		k->memory_frac = k->time_s > 0 && t->memory_peak > 0 ? k->dram_bytes / t->memory_peak / k->time_s : NAN;
		t->saving_s += k->saving_s;
	}
	for (size_t i = 0; i < t->n; i++)
		t->kernels[i].share = t->time_s > 0 ? t->kernels[i].time_s / t->time_s : NAN;
	qsort(t->kernels, t->n, sizeof(t->kernels[0]), by_saving);
	/* The task's point: all its FLOPs over all its bytes, at the mix of roofs its kernels use. */
	t->compute_peak = compute_s > 0 ? t->flops / compute_s : NAN;
	t->ai = t->dram_bytes > 0 ? t->flops / t->dram_bytes : NAN;
	t->ridge_ai = t->compute_peak / t->memory_peak;
	t->compute_frac = t->time_s > 0 && compute_s > 0 ? compute_s / t->time_s : 0;
	t->memory_frac = t->time_s > 0 ? t->dram_bytes / t->memory_peak / t->time_s : NAN;
	t->min_bytes = task ? task->min_bytes : NAN;
	t->floor_s = t->min_bytes > 0 && t->memory_peak > 0 ? fmax(compute_s, t->min_bytes / t->memory_peak) : NAN;
	select_kernels(t, cut);
}

void kp_task_stage1_release(struct kp_task_stage1 *t)
{
	free(t->kernels);
	t->kernels = NULL;
	t->n = 0;
}

json_t *kp_task_stage1_to_json(const struct kp_task_stage1 *t, const struct kp_kernel_profile *ks)
{
	json_t *o = json_object(), *a = json_array(), *cut = json_object();
	for (size_t i = 0; i < t->n; i++) {
		const struct kp_task_kernel *k = &t->kernels[i];
		json_t *j = json_object();
		kp_json_set(j, "rank", json_integer((json_int_t)i + 1));
		kp_json_set(j, "kernel", json_string(k->name));
		kp_json_set(j, "function", json_string(k->function));
		kp_json_set(j, "launches", json_integer((json_int_t)k->nlaunches));
		kp_json_set(j, "longest_launch_id", ks ? json_integer(ks[k->longest].launch->id) : NULL);
		kp_json_set(j, "time_s", kp_json_real(k->time_s));
		kp_json_set(j, "share", kp_json_real(k->share));
		kp_json_set(j, "class", json_string(kp_bound_name(k->bound)));
		kp_json_set(j, "rule", k->rule ? json_string(k->rule) : NULL);
		kp_json_set(j, "flops", kp_json_real(k->flops));
		kp_json_set(j, "dram_bytes", kp_json_real(k->dram_bytes));
		kp_json_set(j, "ai", kp_json_real(k->ai));
		kp_json_set(j, "compute_frac", kp_json_real(k->compute_frac));
		kp_json_set(j, "memory_frac", kp_json_real(k->memory_frac));
		kp_json_set(j, "roofline_s", kp_json_real(k->roofline_s));
		kp_json_set(j, "saving_s", kp_json_real(k->saving_s));
		kp_json_set(j, "saving_share", kp_json_real(t->time_s > 0 ? k->saving_s / t->time_s : NAN));
		kp_json_set(j, "tools", json_boolean(k->selected));
		json_array_append_new(a, j);
	}
	kp_json_set(cut, "share", kp_json_real(t->cutoff.share));
	kp_json_set(cut, "max_kernels", json_integer((json_int_t)t->cutoff.max_kernels));
	kp_json_set(cut, "min_saving", kp_json_real(t->cutoff.min_saving));
	kp_json_set(o, "launches", json_integer((json_int_t)t->nlaunches));
	kp_json_set(o, "time_s", kp_json_real(t->time_s));
	kp_json_set(o, "flops", kp_json_real(t->flops));
	kp_json_set(o, "dram_bytes", kp_json_real(t->dram_bytes));
	kp_json_set(o, "ai", kp_json_real(t->ai));
	kp_json_set(o, "ridge_ai", kp_json_real(t->ridge_ai));
	kp_json_set(o, "compute_peak", kp_json_real(t->compute_peak));
	kp_json_set(o, "memory_peak", kp_json_real(t->memory_peak));
	kp_json_set(o, "compute_frac", kp_json_real(t->compute_frac));
	kp_json_set(o, "memory_frac", kp_json_real(t->memory_frac));
	kp_json_set(o, "min_bytes", kp_json_real(t->min_bytes));
	kp_json_set(o, "floor_s", kp_json_real(t->floor_s));
	kp_json_set(o, "roofline_s", kp_json_real(t->roofline_s));
	kp_json_set(o, "saving_s", kp_json_real(t->saving_s));
	kp_json_set(o, "selected_saving_s", kp_json_real(t->selected_saving_s));
	kp_json_set(o, "cutoff", cut);
	kp_json_set(o, "kernels", a);
	return o;
}

static void ms(struct kp_buf *b, double s)
{
	if (isnan(s))
		kp_buf_adds(b, "?");
	else if (s >= 1e-3)
		kp_buf_addf(b, "%.3g ms", s * 1e3);
	else
		kp_buf_addf(b, "%.3g us", s * 1e6);
}

void kp_task_stage1_describe(const struct kp_task_stage1 *t, size_t max_rows, struct kp_buf *out)
{
	size_t shown = t->n < max_rows ? t->n : max_rows;
	kp_buf_addf(out, "Whole task: %zu kernel%s in %zu launch%s, ", t->n, t->n == 1 ? "" : "s", t->nlaunches,
		    t->nlaunches == 1 ? "" : "es");
	ms(out, t->time_s);
	kp_buf_addf(out, " on the GPU; AI %.3g FLOP/B (ridge %.3g), %.0f%% of the compute roof, %.0f%% of DRAM "
			 "bandwidth.\n",
		    t->ai, t->ridge_ai, 100 * t->compute_frac, 100 * t->memory_frac);
	kp_buf_adds(out, "The same kernels at their roofs: ");
	ms(out, t->roofline_s);
	if (!isnan(t->floor_s)) {
		kp_buf_adds(out, "; with the task's minimum traffic no version runs faster than ");
		ms(out, t->floor_s);
	}
	kp_buf_adds(out, ". Time that could be saved, by kernel (largest first):\n");
	for (size_t i = 0; i < shown; i++) {
		const struct kp_task_kernel *k = &t->kernels[i];
		kp_buf_addf(out, "%zu. %s%.60s: %.0f%% of the time (", i + 1, k->selected ? "" : "(not diagnosed) ", k->function,
			    100 * k->share);
		ms(out, k->time_s);
		kp_buf_addf(out, ", %zu launch%s), %s-bound; could save ", k->nlaunches, k->nlaunches == 1 ? "" : "es",
			    kp_bound_name(k->bound));
		ms(out, k->saving_s);
		kp_buf_addf(out, " (%.0f%% of the task)\n", t->time_s > 0 ? 100 * k->saving_s / t->time_s : 0.0);
	}
	if (shown < t->n) {
		double rest = 0;
		for (size_t i = shown; i < t->n; i++)
			rest += t->kernels[i].share;
		kp_buf_addf(out, "(%zu more kernels, together %.0f%% of the time)\n", t->n - shown, 100 * rest);
	}
}
