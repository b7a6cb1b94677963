/* The state of a suite's Slurm jobs: squeue and sacct run, parsed and combined, element by element. */
#include "base/setup.h"

#include "kernelpro/json.h"
#include "kernelpro/slurm_status.h"
#include "suite/slurm_int.h"

/* Array elements one parse may produce (Slurm's MaxArraySize is ~1001 by default). */
#define MAX_ELEMS 100000
#define CHILD_CAP (4u << 20) /* squeue/sacct output kept */

/* ---- States ------------------------------------------------------------------------------------- */

#define KP__SLURM_NAME(name) #name,
static const char *const state_names[] = {KP_SLURM_STATES(KP__SLURM_NAME)};
#undef KP__SLURM_NAME

const char *kp_slurm_status_state_name(enum kp_slurm_state st)
{
	return (size_t)st < KP_ARRAY_SIZE(state_names) ? state_names[st] : "UNKNOWN";
}

enum kp_slurm_state kp_slurm_status_state_parse(const char *name, size_t len)
{
	size_t n = 0;
	while (n < len && name[n] != ' ')
		n++;
	for (size_t i = 1; i < KP_ARRAY_SIZE(state_names); i++)
		if (i != KP_SLURM_OTHER && strlen(state_names[i]) == n && !memcmp(name, state_names[i], n))
			return (enum kp_slurm_state)i;
	return KP_SLURM_OTHER;
}

int kp_slurm_status_state_final(enum kp_slurm_state st)
{
	switch (st) {
	case KP_SLURM_COMPLETED:
	case KP_SLURM_CANCELLED:
	case KP_SLURM_FAILED:
	case KP_SLURM_TIMEOUT:
	case KP_SLURM_NODE_FAIL:
	case KP_SLURM_PREEMPTED:
	case KP_SLURM_BOOT_FAIL:
	case KP_SLURM_DEADLINE:
	case KP_SLURM_OUT_OF_MEMORY: return 1;
	default: return 0;
	}
}

int kp_slurm_status_state_running(enum kp_slurm_state st)
{
	/* OTHER (CONFIGURING, SIGNALING, STAGE_OUT, ...): a job Slurm still works on. */
	return st == KP_SLURM_RUNNING || st == KP_SLURM_SUSPENDED || st == KP_SLURM_COMPLETING ||
	       st == KP_SLURM_OTHER;
}

/* ---- Parsing squeue and sacct ------------------------------------------------------------------- */

void kp_slurm_status_init(struct kp_slurm_status *st)
{
	memset(st, 0, sizeof(*st));
}

void kp_slurm_status_release(struct kp_slurm_status *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}

/* One line split on '|'. */
struct fields {
	const char *p[8];
	size_t n[8];
	int count;
};

static int split_line(const char *line, size_t len, struct fields *f, int want)
{
	size_t start = 0;
	f->count = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && line[i] != '|')
			continue;
		if (f->count == want)
			return -1;
		f->p[f->count] = line + start;
		f->n[f->count++] = i - start;
		start = i + 1;
	}
	return f->count == want ? 0 : -1;
}

static void copy_field(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static struct kp_slurm_elem *add_elem(struct kp_slurm_status *st, long long job, long task)
{
	struct kp_slurm_elem *e;
	KP_ALLOC_GROW(st->v, st->n + 1, st->alloc);
	e = &st->v[st->n++];
	memset(e, 0, sizeof(*e));
	e->job = job;
	e->task = task;
	e->exit_code = e->exit_signal = -1;
	return e;
}

/* Steps to the next non-empty line at *off: *line and *n; false at the end. `nline` counts from 1. */
static bool next_line(const char *text, size_t len, size_t *off, const char **line, size_t *n, size_t *nline)
{
	while (*off < len) {
		const char *nl = memchr(text + *off, '\n', len - *off);
		*line = text + *off;
		*n = nl ? (size_t)(nl - *line) : len - *off;
		*off += *n + 1;
		++*nline;
		if (*n)
			return true;
	}
	return false;
}

static int bad_line(struct kp_error *err, const char *what, size_t nline, const char *line, size_t n,
                    const char *why)
{
	return kp_error_set(err, KP_EPARSE, "%s output, line %zu ('%.*s'): %s", what, nline,
	                    (int)(n > 80 ? 80 : n), line, why);
}

int kp_slurm_status_parse_squeue(const char *text, size_t len, struct kp_slurm_status *st,
                                 struct kp_error *err)
{
	const char *line;
	size_t off = 0, n, nline = 0;
	while (next_line(text, len, &off, &line, &n, &nline)) {
		struct fields f;
		struct kp_slurm_elem *e;
		long long job, task = -1;
		if (split_line(line, n, &f, 5))
			return bad_line(err, "squeue", nline, line, n, "expected 5 fields (%F|%K|%T|%r|%N)");
		if (!kp__slurm_client_num(f.p[0], f.n[0], INT64_MAX / 2, &job) || job == 0)
			return bad_line(err, "squeue", nline, line, n, "the job id is not a number");
		if (!(f.n[1] == 3 && !memcmp(f.p[1], "N/A", 3)) &&
		    !kp__slurm_client_num(f.p[1], f.n[1], 4000000000LL, &task))
			return bad_line(err, "squeue", nline, line, n, "the array index is not a number");
		if (f.n[2] == 0)
			return bad_line(err, "squeue", nline, line, n, "no state");
		if (st->n >= MAX_ELEMS)
			return kp_error_set(err, KP_ETOOBIG, "squeue output lists more than %d jobs",
			                    MAX_ELEMS);
		e = add_elem(st, job, (long)task);
		e->state = kp_slurm_status_state_parse(f.p[2], f.n[2]);
		if (!(f.n[3] == 4 && !memcmp(f.p[3], "None", 4)))
			copy_field(e->reason, sizeof(e->reason), f.p[3], f.n[3]);
		copy_field(e->nodes, sizeof(e->nodes), f.p[4], f.n[4]);
	}
	return 0;
}

/* One sacct row before folding: its element, order and what it says. */
struct row {
	struct kp_slurm_elem e;
	size_t order;
	int started;
};

/* "12", "12_3", "12_[3-5,7:2%4]"; steps ("12_3.batch") and het-job parts ("12+0") are skipped (0 rows). */
static int parse_job_field(const char *s, size_t n, long long *job, long long *lo, long long *hi,
                           const char **list, size_t *list_n)
{
	size_t u = 0;
	while (u < n && s[u] >= '0' && s[u] <= '9')
		u++;
	if (!kp__slurm_client_num(s, u, INT64_MAX / 2, job) || *job == 0)
		return -1;
	*list = NULL;
	*list_n = 0;
	if (u == n) {
		*lo = *hi = -1;
		return 0;
	}
	if (s[u] == '.' || s[u] == '+')
		return 1;
	if (s[u] != '_' || u + 1 >= n)
		return -1;
	s += u + 1;
	n -= u + 1;
	if (s[0] == '[') {
		if (n < 3 || s[n - 1] != ']')
			return -1;
		*list = s + 1;
		*list_n = n - 2;
		return 0;
	}
	if (memchr(s, '.', n))
		return 1;
	if (!kp__slurm_client_num(s, n, 4000000000LL, lo))
		return -1;
	*hi = *lo;
	return 0;
}

static int add_rows(struct row **rows, size_t *nrows, size_t *alloc, const struct row *r, long long lo,
                    long long hi, long long step)
{
	for (long long t = lo; t <= hi; t += step) {
		if (*nrows >= MAX_ELEMS)
			return -1;
		KP_ALLOC_GROW(*rows, *nrows + 1, *alloc);
		(*rows)[*nrows] = *r;
		(*rows)[*nrows].e.task = (long)t;
		(*rows)[*nrows].order = *nrows;
		(*nrows)++;
	}
	return 0;
}

/* Expands "3-5,7,9-15:2%4" into rows. */
static int add_range_rows(struct row **rows, size_t *nrows, size_t *alloc, const struct row *r, const char *s,
                          size_t n)
{
	size_t pct = 0;
	while (pct < n && s[pct] != '%')
		pct++;
	n = pct;
	for (size_t off = 0; off < n;) {
		size_t len = 0, dash, colon;
		long long lo, hi, step = 1;
		while (off + len < n && s[off + len] != ',')
			len++;
		for (dash = 0; dash < len && s[off + dash] != '-'; dash++)
			;
		for (colon = 0; colon < len && s[off + colon] != ':'; colon++)
			;
		if (!kp__slurm_client_num(s + off, dash < colon ? dash : colon, 4000000000LL, &lo))
			return -2;
		hi = lo;
		if (dash < len &&
		    !kp__slurm_client_num(s + off + dash + 1, colon - dash - 1, 4000000000LL, &hi))
			return -2;
		if (colon < len &&
		    (colon < dash ||
		     !kp__slurm_client_num(s + off + colon + 1, len - colon - 1, 4000000000LL, &step) ||
		     step == 0))
			return -2;
		if (hi < lo)
			return -2;
		if (hi - lo >= MAX_ELEMS || add_rows(rows, nrows, alloc, r, lo, hi, step))
			return -1;
		off += len + 1;
	}
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->e.job != y->e.job)
		return x->e.job < y->e.job ? -1 : 1;
	if (x->e.task != y->e.task)
		return x->e.task < y->e.task ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Reads "code:signal". */
static bool parse_exit(const char *s, size_t n, int *code, int *sig)
{
	const char *colon = memchr(s, ':', n);
	long long c, g;
	if (!colon || !kp__slurm_client_num(s, (size_t)(colon - s), 255, &c) ||
	    !kp__slurm_client_num(colon + 1, n - (size_t)(colon - s) - 1, 255, &g))
		return false;
	*code = (int)c;
	*sig = (int)g;
	return true;
}

int kp_slurm_status_parse_sacct(const char *text, size_t len, struct kp_slurm_status *st,
                                struct kp_error *err)
{
	struct row *rows = NULL;
	size_t nrows = 0, alloc = 0;
	const char *line;
	size_t off = 0, n, nline = 0;
	int rc = 0;
	while (next_line(text, len, &off, &line, &n, &nline)) {
		struct fields f;
		struct row r;
		long long lo = -1, hi = -1;
		const char *list;
		size_t list_n;
		int kind;
		if (split_line(line, n, &f, 4)) {
			rc = bad_line(err, "sacct", nline, line, n,
			              "expected 4 fields (JobID|State|ExitCode|NodeList)");
			goto out;
		}
		memset(&r, 0, sizeof(r));
		kind = parse_job_field(f.p[0], f.n[0], &r.e.job, &lo, &hi, &list, &list_n);
		if (kind < 0) {
			rc = bad_line(err, "sacct", nline, line, n, "the job id is not one Slurm prints");
			goto out;
		}
		if (kind > 0)
			continue;
		if (f.n[1] == 0) {
			rc = bad_line(err, "sacct", nline, line, n, "no state");
			goto out;
		}
		r.e.state = kp_slurm_status_state_parse(f.p[1], f.n[1]);
		r.e.exit_code = r.e.exit_signal = -1;
		if (f.n[2] && !parse_exit(f.p[2], f.n[2], &r.e.exit_code, &r.e.exit_signal)) {
			rc = bad_line(err, "sacct", nline, line, n, "the exit code is not CODE:SIGNAL");
			goto out;
		}
		/* "None assigned": it never got a node, so it never started. */
		if (f.n[3] && !(f.n[3] == 13 && !memcmp(f.p[3], "None assigned", 13))) {
			copy_field(r.e.nodes, sizeof(r.e.nodes), f.p[3], f.n[3]);
			r.started = 1;
		}
		if (list)
			kind = add_range_rows(&rows, &nrows, &alloc, &r, list, list_n);
		else
			kind = add_rows(&rows, &nrows, &alloc, &r, lo, hi, 1);
		if (kind == -2) {
			rc = bad_line(err, "sacct", nline, line, n,
			              "the array index range is not one Slurm prints");
			goto out;
		}
		if (kind < 0) {
			rc = kp_error_set(err, KP_ETOOBIG, "sacct output lists more than %d jobs", MAX_ELEMS);
			goto out;
		}
	}
	/* Rows of one element in the order sacct printed them (older runs first): the last one is now. */
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), row_cmp);
	for (size_t i = 0; i < nrows;) {
		size_t j = i;
		int started = 0;
		struct kp_slurm_elem *e;
		while (j < nrows && rows[j].e.job == rows[i].e.job && rows[j].e.task == rows[i].e.task)
			started += rows[j++].started;
		if (st->n >= MAX_ELEMS) {
			rc = kp_error_set(err, KP_ETOOBIG, "sacct output lists more than %d jobs", MAX_ELEMS);
			goto out;
		}
		e = add_elem(st, 0, 0);
		*e = rows[j - 1].e;
		e->attempts = started;
		i = j;
	}
out:
	free(rows);
	return rc;
}

/* ---- Asking the cluster ------------------------------------------------------------------------- */

/*
 * Copies what `from` knows about `job` into v: element K into v[K], or a plain job (shards 0)
 * into v[0]. Applied first with sacct's rows, then with squeue's, whose word on live state wins.
 */
static void overlay(struct kp_slurm_elem *v, long shards, long long job, const struct kp_slurm_status *from,
                    int live)
{
	for (size_t i = 0; i < from->n; i++) {
		const struct kp_slurm_elem *e = &from->v[i];
		struct kp_slurm_elem *d;
		if (e->job != job || (shards ? e->task < 0 || e->task >= shards : e->task != -1))
			continue;
		d = &v[shards ? e->task : 0];
		d->state = e->state;
		if (live) {
			memcpy(d->reason, e->reason, sizeof(d->reason));
			if (e->nodes[0])
				memcpy(d->nodes, e->nodes, sizeof(d->nodes));
			/* Accounting may not have its start yet: a run on a node is at least the first. */
			if (kp_slurm_status_state_running(e->state) && d->attempts < 1)
				d->attempts = 1;
		} else {
			*d = *e;
		}
	}
}

int kp_slurm_status_query(const char *squeue, const char *sacct, long long job, long shards,
                          struct kp_slurm_status *st, struct kp_error *err)
{
	struct kp_child q = KP_CHILD_INIT, a = KP_CHILD_INIT;
	struct kp_slurm_status live = {0}, acct = {0};
	int rc;
	if (job <= 0 || shards < 0 || shards > KP__SLURM_MAX_SHARDS)
		return kp_error_set(err, KP_EINVAL, "Slurm query: job %lld with %ld shards", job, shards);
	squeue = squeue ? squeue : "squeue";
	sacct = sacct ? sacct : "sacct";
	kp_strvec_pushl(&q.args, squeue, "--noheader", "--array", "--states=all", NULL);
	kp_strvec_pushf(&q.args, "--jobs=%lld", job);
	kp_strvec_push(&q.args, "--format=%F|%K|%T|%r|%N");
	if ((rc = kp__slurm_client_run(&q, squeue, CHILD_CAP, err)))
		goto out;
	/* A job slurmctld has forgotten (MinJobAge) is "Invalid job id": nothing live, not an error. */
	if (!kp_child_ok(&q) && !strstr(q.err.buf, "Invalid job id")) {
		rc = kp__slurm_client_failed(&q, squeue, err);
		goto out;
	}
	if (kp_child_ok(&q) && (rc = kp_slurm_status_parse_squeue(q.out.buf, q.out.len, &live, err)))
		goto out;
	kp_strvec_pushl(&a.args, sacct, "--noheader", "--parsable2", "--allocations", "--duplicates", NULL);
	kp_strvec_pushf(&a.args, "--jobs=%lld", job);
	kp_strvec_push(&a.args, "--format=JobID,State,ExitCode,NodeList");
	if ((rc = kp__slurm_client_run(&a, sacct, CHILD_CAP, err)))
		goto out;
	if (!kp_child_ok(&a) && !strstr(a.err.buf, "accounting storage is disabled") &&
	    !strstr(a.out.buf, "accounting storage is disabled")) {
		rc = kp__slurm_client_failed(&a, sacct, err);
		goto out;
	}
	if (kp_child_ok(&a) && (rc = kp_slurm_status_parse_sacct(a.out.buf, a.out.len, &acct, err)))
		goto out;
	kp_slurm_status_release(st);
	for (long k = 0; k < (shards ? shards : 1); k++)
		add_elem(st, job, shards ? k : -1);
	overlay(st->v, shards, job, &acct, 0);
	overlay(st->v, shards, job, &live, 1);
out:
	kp_child_release(&q);
	kp_child_release(&a);
	kp_slurm_status_release(&live);
	kp_slurm_status_release(&acct);
	return rc;
}

json_t *kp_slurm_status_json(const struct kp_slurm_status *st)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < st->n; i++) {
		const struct kp_slurm_elem *e = &st->v[i];
		json_t *o = json_object();
		kp_json_set(o, "job", json_integer(e->job));
		kp_json_set(o, "task", json_integer(e->task));
		kp_json_set(o, "state", json_string(kp_slurm_status_state_name(e->state)));
		kp_json_set(o, "attempts", json_integer(e->attempts));
		kp_json_set(o, "exit_code", e->exit_code >= 0 ? json_integer(e->exit_code) : NULL);
		kp_json_set(o, "exit_signal", e->exit_signal >= 0 ? json_integer(e->exit_signal) : NULL);
		kp_json_set(o, "reason", json_string(e->reason));
		kp_json_set(o, "nodes", json_string(e->nodes));
		json_array_append_new(arr, o);
	}
	return arr;
}
