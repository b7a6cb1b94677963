/*
 * The diagnosis report: every launch of a profile with its Stage-1 numbers
 * and class (and, from the tools, its findings), as text or JSON.
 */
#include "base/setup.h"

#include <math.h>

#include "diagnose.h"
#include "kernelpro/analyze.h"
#include "kernelpro/fs.h"
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

static json_t *warnings_json(const struct kp_profile_set *ps)
{
	const struct kp_buf *bufs[] = {&ps->ncu.warnings, &ps->sass.warnings, &ps->ptxas.warnings, &ps->trace.warnings};
	json_t *a = json_array();
	for (size_t i = 0; i < KP_ARRAY_SIZE(bufs); i++) {
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

/* --gpu KEY, else the GPU the report names, else the local device. */
static int load_hw(struct kp_hw *hw, const struct kp_diagnose_opts *o, const struct kp_ncu_report *r,
		   struct kp_error *err)
{
	const struct kp_hw_spec *s;
	if (o->gpu_key)
		return kp_hw_load(hw, o->gpu_key, 0, err);
	s = kp_hw_spec_for_report(r);
	if (!s && o->device_name)
		s = kp_hw_spec_find(o->device_name);
	if (s)
		return kp_hw_load(hw, s->key, 0, err);
	return kp_hw_load(hw, NULL, o->gpu_index, err);
}

static void print_text(struct kp_cli *cli, const struct kp_hw *hw, const struct kp_profile_set *ps,
		       const struct kp_kernel_profile *k, const struct kp_stage1 *s1)
{
	struct kp_buf b = KP_BUF_INIT;
	const struct kp_launch *l = k->launch;
	(void)hw;
	(void)ps;
	fprintf(cli->out, "%slaunch %d%s  %s  grid (%u,%u,%u) block (%u,%u,%u)  %.4g ms\n", kp_cli_color(cli, "bold"),
		l->id, kp_cli_reset(cli), l->function, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
		l->block[2], s1->time_s * 1e3);
	kp_stage1_describe(s1, &b);
	fputs(b.buf, cli->out);
	fprintf(cli->out, "  sources: ncu%s%s%s\n", k->sass ? ", sass" : "", k->ptxas ? ", ptxas" : "",
		k->trace ? ", trace" : "");
	kp_buf_release(&b);
}

int kp_diagnose_report(struct kp_cli *cli, const struct kp_diagnose_opts *o)
{
	struct kp_profile_set ps;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_hw hw;
	struct kp_stage1_thresholds th;
	struct kp_task_bytes task = {o->min_bytes, NAN};
	json_t *root = NULL, *launches = NULL;
	int rc, incomplete = 0, shown = 0;

	memset(&ps, 0, sizeof(ps));
	kp_stage1_thresholds_default(&th);
	if ((rc = kp_profile_set_load(&ps, &o->files, &err)) || (rc = load_hw(&hw, o, &ps.ncu, &err))) {
		rc = kp_cli_fail(cli, &err);
		goto out;
	}
	incomplete = ps.ncu.incomplete || ps.sass.incomplete || ps.ptxas.incomplete;
	if (cli->json) {
		root = json_object();
		launches = json_array();
		kp_json_set(root, "schema", json_integer(1));
		kp_json_set(root, "gpu", kp_hw_to_json(&hw));
		kp_json_set(root, "inputs", inputs_json(&o->files));
		kp_json_set(root, "warnings", warnings_json(&ps));
	} else {
		fprintf(cli->out, "GPU model: %s (%s), %s: DRAM %.3g TB/s, FP32 %.3g TFLOP/s\n", hw.spec.name, hw.spec.key,
			hw.source, hw.dram_bw / 1e12, hw.fp32 / 1e12);
		if (ps.ncu.warnings.len && cli->verbosity >= 0)
			fprintf(cli->err, "%s", ps.ncu.warnings.buf);
		if (ps.sass.warnings.len && cli->verbosity >= 0)
			fprintf(cli->err, "%s", ps.sass.warnings.buf);
		if (ps.ptxas.warnings.len && cli->verbosity >= 0)
			fprintf(cli->err, "%s", ps.ptxas.warnings.buf);
		if (ps.trace.warnings.len && cli->verbosity >= 0)
			fprintf(cli->err, "%s", ps.trace.warnings.buf);
	}
	for (size_t i = 0; i < ps.nkernels; i++) {
		const struct kp_kernel_profile *k = &ps.kernels[i];
		struct kp_stage1 s1;
		if (!wanted(o, k->launch->id))
			continue;
		shown++;
		if ((rc = kp_stage1_run(&s1, k, &hw, &task, &th, &err))) {
			rc = kp_cli_fail(cli, &err);
			goto out;
		}
		incomplete |= s1.incomplete;
		if (cli->json) {
			json_t *lj = kp_diagnose_launch_json(k, &s1);
			json_array_append_new(launches, lj);
			if ((rc = kp_diagnose_tools(cli, o, k, &s1, &hw, lj)))
				goto out;
		} else {
			print_text(cli, &hw, &ps, k, &s1);
			if ((rc = kp_diagnose_tools(cli, o, k, &s1, &hw, NULL)))
				goto out;
		}
	}
	if (!shown) {
		kp_cli_error(cli, "no launch with the requested ID in '%s'", o->files.ncu_csv);
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
	kp_profile_set_release(&ps);
	return rc;
}

/* The trace tools (launch_overhead) on a trace without ncu data. */
static int trace_tools(struct kp_cli *cli, const struct kp_diagnose_opts *o, const struct kp_trace *t, json_t *j)
{
	struct kp_kernel_profile k = {NULL, NULL, NULL, t};
	int rc;
	if (!o->tools.ts)
		return 0;
	if (j)
		return kp_diagnose_tools(cli, o, &k, NULL, NULL, j);
	fprintf(cli->out, "trace tools:\n");
	rc = kp_diagnose_tools(cli, o, &k, NULL, NULL, NULL);
	return rc;
}

const char *kp_profile_dir_device(const char *dir, struct kp_strvec *sv)
{
	struct kp_buf p = KP_BUF_INIT;
	json_t *o = NULL;
	const char *name = NULL;
	kp_path_join(&p, dir, "profile.json");
	if (kp_path_exists(p.buf) && kp_json_load_file(p.buf, 1 << 20, &o, NULL) == 0 && kp_json_str(o, "device", NULL)) {
		kp_strvec_push(sv, kp_json_str(o, "device", NULL));
		name = sv->v[sv->n - 1];
	}
	json_decref(o);
	kp_buf_release(&p);
	return name;
}

struct kgroup {
	const char *name;
	uint64_t n, ns;
};

int kp_trace_report(struct kp_cli *cli, const char *path, const struct kp_diagnose_opts *opts)
{
	struct kp_profile_set ps;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT;
	struct kgroup *g = NULL;
	size_t ng = 0, alloc = 0;
	const char *t;
	int rc;
	memset(&ps, 0, sizeof(ps));
	if ((rc = kp_read_file(path, KP_PROFILE_MAX_FILE, &b, &err)))
		goto fail;
	for (t = b.buf; *t == ' ' || *t == '\n' || *t == '\t' || *t == '\r'; t++)
		;
	rc = *t == '{' ? kp_trace_parse_json(&ps.trace, path, b.buf, b.len, &err)
		       : kp_trace_parse_nsys_csv(&ps.trace, path, b.buf, b.len, &err);
	if (rc)
		goto fail;
	for (size_t i = 0; i < ps.trace.nevents; i++) {
		const struct kp_trace_event *e = &ps.trace.events[i];
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
		json_t *o = json_object(), *ks = json_array();
		for (size_t j = 0; j < ng; j++) {
			json_t *k = json_object();
			kp_json_set(k, "name", json_string(g[j].name));
			kp_json_set(k, "launches", json_integer((json_int_t)g[j].n));
			kp_json_set(k, "gpu_ns", json_integer((json_int_t)g[j].ns));
			json_array_append_new(ks, k);
		}
		kp_json_set(o, "schema", json_integer(1));
		kp_json_set(o, "timing_only", json_true());
		kp_json_set(o, "trace", json_string(path));
		kp_json_set(o, "timeline", json_boolean(ps.trace.timeline));
		kp_json_set(o, "kernels", ks);
		kp_json_set(o, "launches", json_integer((json_int_t)ps.trace.nkernels));
		kp_json_set(o, "kernel_ns", json_integer((json_int_t)ps.trace.kernel_ns));
		kp_json_set(o, "span_ns", ps.trace.timeline ? json_integer((json_int_t)ps.trace.span_ns) : NULL);
		kp_json_set(o, "gap_ns", ps.trace.timeline ? json_integer((json_int_t)ps.trace.gap_ns) : NULL);
		kp_json_set(o, "syncs", json_integer((json_int_t)ps.trace.nsyncs));
		kp_json_set(o, "memcpys", json_integer((json_int_t)ps.trace.nmemcpys));
		kp_json_set(o, "api_calls", json_integer((json_int_t)ps.trace.napi));
		if (opts && (rc = trace_tools(cli, opts, &ps.trace, o))) {
			json_decref(o);
			goto fail_rc;
		}
		kp_cli_print_json_new(cli, o);
	} else {
		fprintf(cli->out, "timing only (no ncu counters): %zu kernel launches, %.4g ms on the GPU", ps.trace.nkernels,
			ps.trace.kernel_ns / 1e6);
		if (ps.trace.timeline)
			fprintf(cli->out, " in a %.4g ms span (%.4g ms idle between kernels)", ps.trace.span_ns / 1e6,
				ps.trace.gap_ns / 1e6);
		fprintf(cli->out, ", %zu synchronizations, %zu copies\n", ps.trace.nsyncs, ps.trace.nmemcpys);
		for (size_t j = 0; j < ng; j++)
			fprintf(cli->out, "  %6llu x %-40s %10.4g ms total, %8.4g us each\n", (unsigned long long)g[j].n,
				g[j].name, g[j].ns / 1e6, g[j].n ? g[j].ns / 1e3 / g[j].n : 0.0);
		if (opts && (rc = trace_tools(cli, opts, &ps.trace, NULL)))
			goto fail_rc;
	}
	if (ps.trace.warnings.len && cli->verbosity >= 0)
		fprintf(cli->err, "%s", ps.trace.warnings.buf);
	free(g);
	kp_buf_release(&b);
	kp_profile_set_release(&ps);
	return KP_EXIT_OK;
fail:
	rc = kp_cli_fail(cli, &err);
fail_rc:
	free(g);
	kp_buf_release(&b);
	kp_profile_set_release(&ps);
	return rc;
}
