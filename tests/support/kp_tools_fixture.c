/* Hand-built kernels for the tools' unit tests. */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kp_tools_fixture.h"

static int cmp_metric(const void *a, const void *b)
{
	return strcmp(((const struct kp_metric *)a)->name, ((const struct kp_metric *)b)->name);
}

void kp_fx_set(struct kp_fx *f, const char *name, double value)
{
	struct kp_launch *l = &f->launch;
	for (size_t i = 0; i < l->nmetrics; i++)
		if (!strcmp(l->metrics[i].name, name)) {
			l->metrics[i].value = value;
			l->metrics[i].missing = isnan(value);
			return;
		}
	assert_true(l->nmetrics < KP_FX_MAX_METRICS);
	f->metrics[l->nmetrics] = (struct kp_metric){name, "", value, NULL, isnan(value), name};
	l->nmetrics++;
	qsort(f->metrics, l->nmetrics, sizeof(f->metrics[0]), cmp_metric);
}

void kp_fx_init(struct kp_fx *f, const struct kp_fx_metric *m, unsigned grid, unsigned block)
{
	struct kp_error err = KP_ERROR_INIT;
	memset(f, 0, sizeof(*f));
	f->launch.kernel = "test_kernel(float *)";
	f->launch.function = "test_kernel";
	f->launch.grid[0] = grid;
	f->launch.grid[1] = f->launch.grid[2] = 1;
	f->launch.block[0] = block;
	f->launch.block[1] = f->launch.block[2] = 1;
	f->launch.cc = "9.0";
	f->launch.metrics = f->metrics;
	for (; m && m->name; m++)
		kp_fx_set(f, m->name, m->value);
	f->prof.launch = &f->launch;
	KP_ASSERT_OK(kp_hw_load(&f->hw, "h200-sxm", 0, &err), &err);
	f->in.profile = &f->prof;
	f->in.hw = &f->hw;
}

struct kp_sass_func *kp_fx_sass(struct kp_fx *f)
{
	f->sass.mangled = "_Z11test_kernelPf";
	f->sass.arch = "sm_90";
	f->prof.sass = &f->sass;
	return &f->sass;
}

struct kp_ptxas_func *kp_fx_ptxas(struct kp_fx *f)
{
	f->ptxas.mangled = "_Z11test_kernelPf";
	f->ptxas.arch = "sm_90";
	f->ptxas.cumulative_stack = -1;
	f->ptxas.entry = 1;
	f->prof.ptxas = &f->ptxas;
	return &f->ptxas;
}

struct kp_stage1 *kp_fx_stage1(struct kp_fx *f, enum kp_bound b)
{
	struct kp_stage1 *s = &f->s1;
	memset(s, 0, sizeof(*s));
	s->time_s = s->flops_fp32 = s->flops_fp64 = s->flops_fp16 = s->flops_tensor = s->flops = NAN;
	s->dram_bytes = s->min_bytes = s->ai = s->ai_min = NAN;
	s->compute_peak = s->memory_peak = s->ridge_ai = s->attainable = NAN;
	s->achieved_flops = s->achieved_bw = s->compute_frac = s->memory_frac = NAN;
	s->sm_sol_pct = s->mem_sol_pct = s->floor_time_s = s->compute_busy = s->memory_busy = NAN;
	s->bound = b;
	s->precision = "fp32";
	f->in.stage1 = s;
	return s;
}

void kp_fx_trace(struct kp_fx *f, const char *name, size_t n, uint64_t dur_ns, uint64_t period_ns)
{
	struct kp_trace *t = &f->trace;
	uint64_t start = 1000000;
	assert_true(n <= KP_ARRAY_SIZE(f->events));
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		struct kp_trace_event *e = &f->events[i];
		memset(e, 0, sizeof(*e));
		e->kind = KP_TRACE_KERNEL;
		e->name = name;
		e->start_ns = start + i * period_ns;
		e->end_ns = e->start_ns + dur_ns;
		e->count = 1;
		t->kernel_ns += dur_ns;
	}
	t->events = f->events;
	t->nevents = t->nkernels = n;
	t->timeline = 1;
	t->span_ns = n ? (n - 1) * period_ns + dur_ns : 0;
	t->gap_ns = t->span_ns - t->kernel_ns;
	f->prof.trace = t;
}

enum kp_tool_status kp_fx_run(struct kp_toolset *ts, const char *tool, struct kp_fx *f, struct kp_diagnosis *d)
{
	struct kp_error err = KP_ERROR_INIT;
	size_t before = d->nresults;
	KP_ASSERT_OK(kp_toolset_run_one(ts, tool, &f->in, d, &err), &err);
	assert_int_equal(d->nresults, before + 1);
	return d->results[before].status;
}
