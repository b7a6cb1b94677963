/*
 * Launch traces: the JSON kernelpro's CUPTI tracer writes (a timeline of
 * kernels, copies, sets, synchronizations and runtime calls) and the CSV of
 * `nsys stats` summaries (cuda_gpu_kern_sum, cuda_api_sum), for machines
 * where nsys works. Both become a kp_trace with the same summaries.
 */
#include "base/setup.h"

#include <ctype.h>
#include <math.h>

#include "kernelpro/arena.h"
#include "kernelpro/json.h"
#include "kernelpro/profile.h"
#include "kernelpro/str.h"
#include "profile/budget.h"
#include "profile/csv.h"

struct trace_priv {
	struct kp_arena arena;
	size_t alloc;
	struct kp_pbudget budget;
};

static const char *const kind_names[] = {"kernel", "memcpy", "memset", "sync", "api"};

const char *kp_trace_kind_name(enum kp_trace_kind k)
{
	return (unsigned)k < KP_ARRAY_SIZE(kind_names) ? kind_names[k] : "?";
}

#define warn(x, ...) kp_profile_warn(&(x)->warnings, __VA_ARGS__)

static struct trace_priv *priv_of(struct kp_trace *t)
{
	if (!t->priv)
		t->priv = kp_xcalloc(1, sizeof(struct trace_priv));
	return t->priv;
}

/* A new event (NULL past the memory cap: err says so). */
static struct kp_trace_event *push(struct kp_trace *t, size_t name_len, int line, struct kp_error *err)
{
	struct trace_priv *p = priv_of(t);
	struct kp_trace_event *e;
	if (kp_pbudget_add(&p->budget, 2 * sizeof(*e) + name_len + 1, line, err))
		return NULL;
	KP_ALLOC_GROW(t->events, t->nevents + 1, p->alloc);
	e = &t->events[t->nevents++];
	memset(e, 0, sizeof(*e));
	e->stream = -1;
	e->count = 1;
	return e;
}

void kp_trace_release(struct kp_trace *t)
{
	struct trace_priv *p = t->priv;
	if (p) {
		kp_arena_release(&p->arena);
		free(p);
	}
	free(t->events);
	kp_buf_release(&t->warnings);
	memset(t, 0, sizeof(*t));
	t->warnings = (struct kp_buf)KP_BUF_INIT;
}

static int is_launch_api(const char *name)
{
	return strstr(name, "LaunchKernel") || strstr(name, "cuLaunch") || strstr(name, "GraphLaunch");
}

static int is_sync_api(const char *name)
{
	return strstr(name, "Synchronize") != NULL;
}

static int start_cmp(const void *a, const void *b)
{
	const struct kp_trace_event *x = a, *y = b;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

/* Fills the summaries from the events. */
static void summarize(struct kp_trace *t)
{
	uint64_t first = UINT64_MAX, last = 0, busy_end = 0;
	int any = 0;
	if (t->timeline && t->nevents)
		qsort(t->events, t->nevents, sizeof(*t->events), start_cmp);
	t->nkernels = t->nsyncs = t->nmemcpys = t->napi = 0;
	t->kernel_ns = t->gap_ns = t->span_ns = t->api_launch_ns = 0;
	for (size_t i = 0; i < t->nevents; i++) {
		const struct kp_trace_event *e = &t->events[i];
		uint64_t d = e->end_ns - e->start_ns;
		switch (e->kind) {
		case KP_TRACE_KERNEL:
			t->nkernels += e->count;
			t->kernel_ns += d;
			if (t->timeline) {
				if (any && e->start_ns > busy_end)
					t->gap_ns += e->start_ns - busy_end;
				if (e->end_ns > busy_end)
					busy_end = e->end_ns;
				if (e->start_ns < first)
					first = e->start_ns;
				if (e->end_ns > last)
					last = e->end_ns;
				any = 1;
			}
			break;
		case KP_TRACE_MEMCPY: t->nmemcpys += e->count; break;
		case KP_TRACE_MEMSET: break;
		case KP_TRACE_SYNC: t->nsyncs += e->count; break;
		case KP_TRACE_API:
			t->napi += e->count;
			if (is_launch_api(e->name))
				t->api_launch_ns += d;
			if (!t->timeline && is_sync_api(e->name))
				t->nsyncs += e->count;
			if (!t->timeline && strstr(e->name, "Memcpy"))
				t->nmemcpys += e->count;
			break;
		}
	}
	if (any)
		t->span_ns = last - first;
}

/* ---- tracer JSON --------------------------------------------------------------------------------- */

/*
 * What jansson will allocate for this text, from a linear scan before it parses anything (it
 * has no size limit of its own): measured on tracer files, an object costs ~256 bytes and every
 * value or member ~64, strings their length. Upper estimate; the text itself not included.
 */
static size_t json_cost(const char *text, size_t len)
{
	size_t cost = 0;
	int in_str = 0;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			cost++;
			continue;
		}
		switch (c) {
		case '"': in_str = 1; break;
		case '{': cost += 256 + 64; break;
		case '[':
		case ',':
		case ':': cost += 64; break;
		}
	}
	return cost;
}

static int get_u64(const json_t *o, const char *k, uint64_t *out)
{
	const json_t *v = json_object_get(o, k);
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 1.8e19) {
		*out = (uint64_t)json_real_value(v);
		return 0;
	}
	return -1;
}

static void get_dim3(const json_t *o, const char *k, unsigned d[3])
{
	const json_t *a = json_object_get(o, k);
	for (size_t i = 0; i < 3; i++) {
		const json_t *v = json_is_array(a) ? json_array_get(a, i) : NULL;
		d[i] = json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 0xffffffff
			       ? (unsigned)json_integer_value(v)
			       : 0;
	}
}

int kp_trace_parse_json(struct kp_trace *t, const char *what, const char *text, size_t len, struct kp_error *err)
{
	json_t *root = NULL, *events;
	struct trace_priv *p = priv_of(t);
	int rc;
	size_t i;
	if ((rc = kp_pbudget_init(&p->budget, what, 0, err)) ||
	    (rc = kp_pbudget_add(&p->budget, json_cost(text, len), 0, err)) ||
	    (rc = kp_json_load_mem(what, text, len, &root, err)))
		return rc;
	if (!json_is_object(root) || strcmp(kp_json_str(root, "format", ""), "kernelpro-trace")) {
		rc = kp_error_set(err, KP_EPARSE, "%s: not a kernelpro trace (\"format\": \"kernelpro-trace\" missing)",
				  what);
		goto out;
	}
	if (kp_json_int(root, "version", 0) != 1) {
		rc = kp_error_set(err, KP_EPARSE, "%s: trace version %lld is not supported (want 1)", what,
				  kp_json_int(root, "version", 0));
		goto out;
	}
	events = json_object_get(root, "events");
	if (!json_is_array(events)) {
		rc = kp_error_set(err, KP_EPARSE, "%s: no \"events\" array", what);
		goto out;
	}
	t->timeline = 1;
	t->ndropped = (size_t)kp_json_int(root, "dropped", 0);
	if (t->ndropped)
		warn(t, "%s: the tracer lost %zu records (buffers full); counts are low", what, t->ndropped);
	if (!json_is_true(json_object_get(root, "complete")))
		warn(t, "%s: the traced program did not reach a clean exit; the trace may be cut short", what);
	for (i = 0; i < json_array_size(events); i++) {
		const json_t *o = json_array_get(events, i);
		const char *kind = kp_json_str(o, "kind", NULL), *name = kp_json_str(o, "name", "");
		struct kp_trace_event *e;
		uint64_t s, en;
		int k = -1;
		if (!kind) {
			rc = kp_error_set(err, KP_EPARSE, "%s: events[%zu]: no \"kind\"", what, i);
			goto out;
		}
		for (size_t j = 0; j < KP_ARRAY_SIZE(kind_names); j++)
			if (!strcmp(kind, kind_names[j]))
				k = (int)j;
		if (k < 0) {
			warn(t, "%s: events[%zu]: unknown kind '%s' skipped", what, i, kind);
			continue;
		}
		if (get_u64(o, "start", &s) || get_u64(o, "end", &en)) {
			rc = kp_error_set(err, KP_EPARSE, "%s: events[%zu]: \"start\" and \"end\" must be non-negative ns",
					  what, i);
			goto out;
		}
		if (en < s) {
			rc = kp_error_set(err, KP_EPARSE, "%s: events[%zu]: \"end\" is before \"start\"", what, i);
			goto out;
		}
		if (!(e = push(t, strlen(name), 0, err))) {
			rc = KP_ETOOBIG;
			goto out;
		}
		e->kind = (enum kp_trace_kind)k;
		e->name = kp_arena_strdup(&p->arena, name);
		e->start_ns = s;
		e->end_ns = en;
		get_u64(o, "bytes", &e->bytes);
		get_dim3(o, "grid", e->grid);
		get_dim3(o, "block", e->block);
		e->stream = (int)kp_json_int(o, "stream", -1);
		e->correlation = (uint32_t)kp_json_int(o, "correlation", 0);
	}
	summarize(t);
	rc = 0;
out:
	json_decref(root);
	return rc;
}

/* ---- nsys stats CSV ------------------------------------------------------------------------------- */

/* A number nsys printed, maybe grouped ("5,850,000"); -1 when not a number. */
static int num(const char *s, double *out)
{
	char buf[64];
	size_t n = 0;
	char *end;
	for (; *s && n + 1 < sizeof(buf); s++)
		if (*s != ',')
			buf[n++] = *s;
	buf[n] = '\0';
	if (*s || !n)
		return -1;
	*out = strtod(buf, &end);
	return *kp_str_trim(end) || !isfinite(*out) ? -1 : 0;
}

int kp_trace_parse_nsys_csv(struct kp_trace *t, const char *what, const char *text, size_t len, struct kp_error *err)
{
	struct trace_priv *p = priv_of(t);
	struct kp_csv c;
	struct kp_csv_row row = {0};
	char *copy;
	long c_total = -1, c_count = -1, c_name = -1;
	int report = -1, nreports = 0, rc; /* report: KP_TRACE_KERNEL or KP_TRACE_API of the current table */
	double scale = 1;

	if ((rc = kp_pbudget_init(&p->budget, what, len, err)))
		return rc;
	copy = kp_arena_strndup(&p->arena, text, len);
	kp_csv_init(&c, what, copy, len);
	c.budget = &p->budget;
	while ((rc = kp_csv_next(&c, &row, err)) == 1) {
		if (row.n >= 3 && kp_csv_col(&row, "Time (%)") == 0) {
			c_name = kp_csv_col(&row, "Name");
			c_count = kp_csv_col(&row, "Instances");
			report = KP_TRACE_KERNEL;
			if (c_count < 0) {
				c_count = kp_csv_col(&row, "Num Calls");
				report = KP_TRACE_API;
			}
			c_total = kp_csv_col(&row, "Total Time (ns)");
			scale = 1;
			if (c_total < 0 && (c_total = kp_csv_col(&row, "Total Time (us)")) >= 0)
				scale = 1e3;
			if (c_total < 0 && (c_total = kp_csv_col(&row, "Total Time (ms)")) >= 0)
				scale = 1e6;
			if (c_name < 0 || c_count < 0 || c_total < 0) {
				warn(t, "%s:%d: a table without Name/Instances/Total Time columns skipped", what, row.line);
				report = -1;
			} else {
				nreports++;
			}
			continue;
		}
		if (report < 0 || row.n <= (size_t)c_name || row.n <= (size_t)c_total || row.n <= (size_t)c_count)
			continue; /* preamble ("Generating SQLite file...") or another report's lines */
		{
			double total, count;
			struct kp_trace_event *e;
			if (num(row.f[c_total], &total) || num(row.f[c_count], &count) || total < 0 || count < 0) {
				warn(t, "%s:%d: unreadable row skipped", what, row.line);
				continue;
			}
			if (!(e = push(t, 0, row.line, err))) {
				rc = KP_ETOOBIG;
				break;
			}
			e->kind = (enum kp_trace_kind)report;
			e->name = row.f[c_name];
			e->start_ns = 0;
			e->end_ns = (uint64_t)llround(total * scale);
			e->count = (uint64_t)llround(count);
		}
	}
	kp_csv_row_release(&row);
	if (rc < 0)
		return rc;
	if (!nreports)
		return kp_error_set(err, KP_EPARSE,
				    "%s: no nsys summary table found; expected 'nsys stats --report "
				    "cuda_gpu_kern_sum,cuda_api_sum --format csv' output",
				    what);
	t->timeline = 0;
	summarize(t);
	return 0;
}
