/*
 * The diagnosis report: every launch of a profile with its Stage-1 numbers
 * and class and the tools' findings (lib/tools/pipeline.c makes them), as
 * text or JSON; a trace alone gives the timing-only report.
 */
#include "base/setup.h"

#include <math.h>

#include "diagnose.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

static int wanted(const struct kp_diagnose_opts *o, int id)
{
	if (!o->launches || !o->launches->n)
		return 1;
	for (size_t i = 0; i < o->launches->n; i++) {
		long v;
		if (kp_parse_long(o->launches->v[i], &v) == 0 && v == id)
			return 1;
	}
	return 0;
}

/* The parsers' warnings, one buffer per source. */
#define NWARN 4
static void warning_bufs(const struct kp_profile_set *ps, const struct kp_buf *bufs[NWARN])
{
	bufs[0] = &ps->ncu.warnings;
	bufs[1] = &ps->sass.warnings;
	bufs[2] = &ps->ptxas.warnings;
	bufs[3] = &ps->trace.warnings;
}

static json_t *warnings_json(const struct kp_profile_set *ps)
{
	const struct kp_buf *bufs[NWARN];
	json_t *a = json_array();
	warning_bufs(ps, bufs);
	for (size_t i = 0; i < NWARN; i++) {
		const char *p = bufs[i]->buf;
		while (p && *p) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			json_array_append_new(a, json_stringn(p, n));
			p = nl ? nl + 1 : NULL;
		}
	}
	return a;
}

static json_t *inputs_json(const struct kp_profile_files *f)
{
	json_t *o = json_object();
	kp_json_set(o, "ncu_csv", f->ncu_csv ? json_string(f->ncu_csv) : NULL);
	kp_json_set(o, "ncu_details", f->ncu_details ? json_string(f->ncu_details) : NULL);
	kp_json_set(o, "sass", f->sass ? json_string(f->sass) : NULL);
	kp_json_set(o, "ptxas", f->ptxas ? json_string(f->ptxas) : NULL);
	kp_json_set(o, "trace", f->trace ? json_string(f->trace) : NULL);
	return o;
}

static void print_launch(struct kp_cli *cli, const struct kp_kernel_profile *k, const struct kp_stage1 *s1)
{
	struct kp_buf b = KP_BUF_INIT;
	const struct kp_launch *l = k->launch;
	fprintf(cli->out, "%slaunch %d%s  %s  grid (%u,%u,%u) block (%u,%u,%u)  %.4g ms\n", kp_cli_color(cli, "bold"),
		l->id, kp_cli_reset(cli), l->function, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
		l->block[2], s1->time_s * 1e3);
	kp_stage1_describe(s1, &b);
	fputs(b.buf, cli->out);
	fprintf(cli->out, "  sources: ncu%s%s%s\n", k->sass ? ", sass" : "", k->ptxas ? ", ptxas" : "",
		k->trace ? ", trace" : "");
	kp_buf_release(&b);
}

static void print_warnings(struct kp_cli *cli, const struct kp_profile_set *ps)
{
	const struct kp_buf *bufs[NWARN];
	warning_bufs(ps, bufs);
	for (size_t i = 0; i < NWARN && cli->verbosity >= 0; i++)
		if (bufs[i]->len)
			fprintf(cli->err, "%s", bufs[i]->buf);
}

/*
 * The whole task (a profile of more than one launch, or --task): the ranking first; with --task
 * also the selected kernels' reports and nothing else. JSON: root "task". Returns 1 when the
 * report is complete (--task, or an error: *rc is then the exit code), 0 to go on with the launches.
 */
static int task_report(struct kp_cli *cli, const struct kp_diagnose_opts *o, struct kp_pipeline *p, json_t *root,
		       int *rc)
{
	struct kp_pipeline_task t;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT;
	int done = 0;

	*rc = 0;
	if ((o->launches && o->launches->n) || (p->set.nkernels < 2 && !o->task))
		return 0;
	if (kp_pipeline_task(p, &t, &err)) {
		*rc = kp_cli_fail(cli, &err);
		kp_pipeline_task_release(&t);
		return 1;
	}
	if (root) {
		json_t *tj = kp_task_stage1_to_json(&t.task, p->set.kernels);
		if (o->pipe.toolset) {
			kp_pipeline_task_feedback_text(&t, &b);
			kp_json_set(tj, "feedback_text", json_string(b.buf ? b.buf : ""));
		}
		kp_json_set(root, "task", tj);
	} else if (o->task && o->text) {
		kp_pipeline_task_feedback_text(&t, &b);
		fprintf(cli->out, "\n%s", b.buf ? b.buf : "");
		done = 1;
	} else {
		kp_task_stage1_describe(&t.task, o->task ? 20 : 10, &b);
		fprintf(cli->out, "%s", b.buf ? b.buf : "");
		if (!o->task)
			fprintf(cli->out, "(the task's feedback, --task, diagnoses only the kernels not marked; every "
					  "launch below is diagnosed on its own)\n");
		if (o->task) {
			for (size_t i = 0; i < t.nresults; i++) {
				fprintf(cli->out, "\n");
				print_launch(cli, t.results[i].kernel, &t.results[i].stage1);
				kp_diagnose_tools(cli, o, &t.results[i], NULL);
			}
			done = 1;
		}
		fprintf(cli->out, "\n");
	}
	kp_buf_release(&b);
	kp_pipeline_task_release(&t);
	return done || (root && o->task);
}

/* Every wanted launch through the pipeline, reported as it comes. */
static int launches_report(struct kp_cli *cli, const struct kp_diagnose_opts *o, struct kp_pipeline *p)
{
	const struct kp_profile_set *ps = &p->set;
	struct kp_error err = KP_ERROR_INIT;
	json_t *root = NULL, *launches = NULL;
	int rc, incomplete = ps->ncu.incomplete || ps->sass.incomplete || ps->ptxas.incomplete, shown = 0;

	if (cli->json) {
		root = json_object();
		launches = json_array();
		kp_json_set(root, "schema", json_integer(1));
		kp_json_set(root, "gpu", kp_hw_to_json(&p->hw));
		kp_json_set(root, "inputs", inputs_json(&p->files));
		kp_json_set(root, "warnings", warnings_json(ps));
	} else {
		fprintf(cli->out, "GPU model: %s (%s), %s: DRAM %.3g TB/s, FP32 %.3g TFLOP/s\n", p->hw.spec.name,
			p->hw.spec.key, p->hw.source, p->hw.dram_bw / 1e12, p->hw.fp32 / 1e12);
		print_warnings(cli, ps);
	}
	if (task_report(cli, o, p, root, &rc)) {
		if (!rc && root) { /* --task: the launches are in the task's feedback */
			kp_json_set(root, "incomplete", json_boolean(incomplete));
			kp_json_set(root, "launches", launches);
			launches = NULL;
			kp_cli_print_json(cli, root);
		}
		goto out;
	}
	for (size_t i = 0; i < ps->nkernels; i++) {
		const struct kp_kernel_profile *k = &ps->kernels[i];
		struct kp_pipeline_result r;
		if (!wanted(o, k->launch->id))
			continue;
		shown++;
		rc = kp_pipeline_kernel(p, k, &r, &err);
		if (rc) {
			kp_pipeline_result_release(&r);
			rc = kp_cli_fail(cli, &err);
			goto out;
		}
		incomplete |= r.stage1.incomplete;
		if (cli->json) {
			json_t *lj = kp_diagnose_launch_json(k, &r.stage1);
			json_array_append_new(launches, lj);
			kp_diagnose_tools(cli, o, &r, lj);
		} else {
			print_launch(cli, k, &r.stage1);
			kp_diagnose_tools(cli, o, &r, NULL);
		}
		kp_pipeline_result_release(&r);
	}
	if (!shown) {
		kp_cli_error(cli, "no launch with the requested ID in '%s'", p->files.ncu_csv);
		rc = KP_EXIT_FAIL;
		goto out;
	}
	if (cli->json) {
		kp_json_set(root, "incomplete", json_boolean(incomplete));
		kp_json_set(root, "launches", launches);
		launches = NULL;
		kp_cli_print_json(cli, root);
	} else if (incomplete) {
		fprintf(cli->out, "note: some inputs were missing or cut short; numbers marked incomplete are partial\n");
	}
	rc = KP_EXIT_OK;
out:
	json_decref(launches);
	json_decref(root);
	return rc;
}

/* The trace tools (launch_overhead) on a trace without ncu data. */
static int trace_tools(struct kp_cli *cli, const struct kp_diagnose_opts *o, struct kp_pipeline *p, json_t *j)
{
	struct kp_pipeline_result r;
	struct kp_error err = KP_ERROR_INIT;
	if (!o->pipe.toolset)
		return 0;
	if (kp_pipeline_kernel(p, kp_pipeline_trace_kernel(p), &r, &err)) {
		kp_pipeline_result_release(&r);
		return kp_cli_fail(cli, &err);
	}
	if (!j)
		fprintf(cli->out, "trace tools:\n");
	kp_diagnose_tools(cli, o, &r, j);
	kp_pipeline_result_release(&r);
	return 0;
}

struct kgroup {
	const char *name;
	uint64_t n, ns;
};

/* Timing only (no ncu): the trace's kernels by name, launches, GPU time and gaps, and the trace tools. */
static int trace_report(struct kp_cli *cli, const struct kp_diagnose_opts *o, struct kp_pipeline *p)
{
	const struct kp_trace *tr = &p->set.trace;
	struct kgroup *g = NULL;
	size_t ng = 0, alloc = 0;
	int rc = KP_EXIT_OK;

	for (size_t i = 0; i < tr->nevents; i++) {
		const struct kp_trace_event *e = &tr->events[i];
		size_t j;
		if (e->kind != KP_TRACE_KERNEL)
			continue;
		for (j = 0; j < ng && strcmp(g[j].name, e->name); j++)
			;
		if (j == ng) {
			KP_ALLOC_GROW(g, ng + 1, alloc);
			g[ng].name = e->name;
			g[ng].n = g[ng].ns = 0;
			ng++;
		}
		g[j].n += e->count;
		g[j].ns += e->end_ns - e->start_ns;
	}
	if (cli->json) {
		json_t *j = json_object(), *ks = json_array();
		for (size_t i = 0; i < ng; i++) {
			json_t *k = json_object();
			kp_json_set(k, "name", json_string(g[i].name));
			kp_json_set(k, "launches", json_integer((json_int_t)g[i].n));
			kp_json_set(k, "gpu_ns", json_integer((json_int_t)g[i].ns));
			json_array_append_new(ks, k);
		}
		kp_json_set(j, "schema", json_integer(1));
		kp_json_set(j, "timing_only", json_true());
		kp_json_set(j, "trace", json_string(p->files.trace));
		kp_json_set(j, "timeline", json_boolean(tr->timeline));
		kp_json_set(j, "kernels", ks);
		kp_json_set(j, "launches", json_integer((json_int_t)tr->nkernels));
		kp_json_set(j, "kernel_ns", json_integer((json_int_t)tr->kernel_ns));
		kp_json_set(j, "span_ns", tr->timeline ? json_integer((json_int_t)tr->span_ns) : NULL);
		kp_json_set(j, "gap_ns", tr->timeline ? json_integer((json_int_t)tr->gap_ns) : NULL);
		kp_json_set(j, "syncs", json_integer((json_int_t)tr->nsyncs));
		kp_json_set(j, "memcpys", json_integer((json_int_t)tr->nmemcpys));
		kp_json_set(j, "api_calls", json_integer((json_int_t)tr->napi));
		if ((rc = trace_tools(cli, o, p, j))) {
			json_decref(j);
			goto out;
		}
		kp_cli_print_json_new(cli, j);
	} else {
		fprintf(cli->out, "timing only (no ncu counters): %zu kernel launches, %.4g ms on the GPU", tr->nkernels,
			tr->kernel_ns / 1e6);
		if (tr->timeline)
			fprintf(cli->out, " in a %.4g ms span (%.4g ms idle between kernels)", tr->span_ns / 1e6,
				tr->gap_ns / 1e6);
		fprintf(cli->out, ", %zu synchronizations, %zu copies\n", tr->nsyncs, tr->nmemcpys);
		for (size_t i = 0; i < ng; i++)
			fprintf(cli->out, "  %6llu x %-40s %10.4g ms total, %8.4g us each\n", (unsigned long long)g[i].n,
				g[i].name, g[i].ns / 1e6, g[i].n ? g[i].ns / 1e3 / g[i].n : 0.0);
		if ((rc = trace_tools(cli, o, p, NULL)))
			goto out;
	}
	if (tr->warnings.len && cli->verbosity >= 0)
		fprintf(cli->err, "%s", tr->warnings.buf);
out:
	free(g);
	return rc;
}

void kp_diagnose_opts_args(struct kp_diagnose_opts *o, const struct kp_args *args)
{
	o->pipe.gpu_key = kp_arg_str(args, "gpu-model");
	o->pipe.gpu_index = (int)kp_arg_int(args, "gpu-index", 0);
	o->pipe.task.min_bytes = kp_arg_num(args, "min-bytes", NAN);
	o->pipe.task.flops_hint = NAN;
	o->launches = kp_arg_list(args, "launch");
	o->task = kp_arg_flag(args, "task");
}

int kp_diagnose_report(struct kp_cli *cli, const struct kp_diagnose_opts *o)
{
	struct kp_pipeline p;
	struct kp_error err = KP_ERROR_INIT;
	int rc;

	rc = o->dir ? kp_pipeline_open_dir(&p, o->dir, &o->files, &o->pipe, &err)
		    : kp_pipeline_open(&p, &o->files, &o->pipe, &err);
	if (rc == KP_EMISSING && o->dir && o->dir_hint) {
		kp_cli_error(cli, "%s; %s", kp_error_msg(&err), o->dir_hint);
		rc = KP_EXIT_FAIL;
	} else if (rc) {
		rc = kp_cli_fail(cli, &err);
	} else {
		rc = p.files.ncu_csv ? launches_report(cli, o, &p) : trace_report(cli, o, &p);
	}
	kp_pipeline_release(&p);
	return rc;
}
