/*
 * Nsight Compute CSV: the raw page (one row per launch, one column per
 * metric, a units row) and the details page (rule results). Values are
 * normalized to base units; empty, "n/a" and non-numeric fields are missing,
 * never 0.
 */
#include "base/setup.h"

#include <ctype.h>
#include <math.h>

#include "kernelpro/arena.h"
#include "kernelpro/ncu_metrics.h"
#include "kernelpro/profile.h"
#include "kernelpro/str.h"
#include "profile/budget.h"
#include "profile/csv.h"
#include "profile/strmap.h"

struct ncu_priv {
	struct kp_arena arena;
	size_t rules_alloc;
	struct kp_pbudget budget;
};

static struct ncu_priv *priv_of(struct kp_ncu_report *r)
{
	if (!r->priv)
		r->priv = kp_xcalloc(1, sizeof(struct ncu_priv));
	return r->priv;
}

void kp_ncu_report_release(struct kp_ncu_report *r)
{
	struct ncu_priv *p = r->priv;
	if (p) {
		kp_arena_release(&p->arena);
		free(p);
	}
	free(r->rules);
	kp_buf_release(&r->warnings);
	memset(r, 0, sizeof(*r));
	r->warnings = (struct kp_buf)KP_BUF_INIT;
}

#define warn(x, ...) kp_profile_warn(&(x)->warnings, __VA_ARGS__)

/* ---- units ------------------------------------------------------------------------------------ */

static double time_ns(const char *u)
{
	if (!strcmp(u, "nsecond") || !strcmp(u, "ns"))
		return 1;
	if (!strcmp(u, "usecond") || !strcmp(u, "us"))
		return 1e3;
	if (!strcmp(u, "msecond") || !strcmp(u, "ms"))
		return 1e6;
	if (!strcmp(u, "second") || !strcmp(u, "s") || !strcmp(u, "sec"))
		return 1e9;
	return 0;
}

static int is_count_word(const char *u)
{
	static const char *const words[] = {"byte", "sector", "sectors", "inst", "warp", "request", "wavefront",
					    "cycle", "thread", "block", "register", "branches", "ops", "sample",
					    "pass", "transaction", "transactions", "flop"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(words); i++)
		if (!strcmp(u, words[i]))
			return 1;
	return 0;
}

/* A plain (non-rate) unit: scale and base name. */
static double plain_factor(const char *u, char *base, size_t n)
{
	double t = time_ns(u);
	if (t) {
		kp_strlcpy(base, "ns", n);
		return t;
	}
	if (kp_str_ieq(u, "hz") || kp_str_ieq(u, "khz") || kp_str_ieq(u, "mhz") || kp_str_ieq(u, "ghz")) {
		kp_strlcpy(base, "hz", n);
		switch (tolower((unsigned char)u[0])) {
		case 'k': return 1e3;
		case 'm': return 1e6;
		case 'g': return 1e9;
		}
		return 1;
	}
	if (u[0] && strchr("KMGT", u[0]) && is_count_word(u + 1)) {
		kp_strlcpy(base, u + 1, n);
		switch (u[0]) {
		case 'K': return 1e3;
		case 'M': return 1e6;
		case 'G': return 1e9;
		}
		return 1e12;
	}
	kp_strlcpy(base, u, n);
	return 1;
}

double kp_ncu_unit_factor(const char *unit, const char **base_unit)
{
	static _Thread_local char last[160];
	char num[64], nb[64];
	const char *slash;
	double f;
	if (!unit)
		unit = "";
	slash = strchr(unit, '/');
	if (!slash || (size_t)(slash - unit) >= sizeof(num)) {
		f = plain_factor(unit, last, sizeof(last));
		if (base_unit)
			*base_unit = last;
		return f;
	}
	memcpy(num, unit, (size_t)(slash - unit));
	num[slash - unit] = '\0';
	f = plain_factor(num, nb, sizeof(nb));
	if (time_ns(slash + 1)) {
		/* a rate: per second */
		f = f * 1e9 / time_ns(slash + 1);
		snprintf(last, sizeof(last), "%.63s/s", nb);
	} else {
		snprintf(last, sizeof(last), "%.63s/%.63s", nb, slash + 1);
	}
	if (base_unit)
		*base_unit = last;
	return f;
}

/* ---- values ----------------------------------------------------------------------------------- */

/* 0 and *out on a number; -1 for a field that holds no number (missing). Grouping commas are dropped. */
static int parse_value(const char *s, double *out)
{
	char buf[96];
	size_t n = 0;
	char *end;
	double v;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || !strcmp(s, "n/a") || !strcmp(s, "N/A") || !strcmp(s, "-"))
		return -1;
	for (; *s && n + 1 < sizeof(buf); s++) {
		if (*s == ',')
			continue;
		buf[n++] = *s;
	}
	if (*s)
		return -1;
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	if (!n || !(isdigit((unsigned char)buf[0]) || buf[0] == '-' || buf[0] == '+' || buf[0] == '.'))
		return -1; /* "nan", "inf", words */
	errno = 0;
	v = strtod(buf, &end);
	if (end == buf || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* "(256, 1, 1)" */
static int parse_dim3(const char *s, unsigned d[3])
{
	unsigned long v[3];
	char *end;
	const char *p = s;
	while (isspace((unsigned char)*p))
		p++;
	if (*p++ != '(')
		return -1;
	for (int i = 0; i < 3; i++) {
		while (isspace((unsigned char)*p))
			p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		errno = 0;
		v[i] = strtoul(p, &end, 10);
		if (errno || v[i] > 0xffffffffUL)
			return -1;
		p = end;
		while (isspace((unsigned char)*p))
			p++;
		if (*p != (i < 2 ? ',' : ')'))
			return -1;
		p++;
	}
	for (int i = 0; i < 3; i++)
		d[i] = (unsigned)v[i];
	return 0;
}

/* ---- raw page --------------------------------------------------------------------------------- */

/* Columns that describe the launch rather than measure it. */
static const char *const id_columns[] = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name",
					 "Kernel Time", "Context", "Green Context", "Stream", "Block Size",
					 "Grid Size", "Device", "CC", "Function Name"};

static int is_id_column(const char *name)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(id_columns); i++)
		if (!strcmp(name, id_columns[i]))
			return 1;
	return 0;
}

/* "FBSP.TriageCompute.dramc__x.avg" -> "dramc__x.avg": drop dotted parts before the one holding "__". */
static const char *strip_prefix(const char *col)
{
	const char *u = strstr(col, "__"), *dot = NULL;
	if (!u)
		return col;
	for (const char *s = col; s < u; s++)
		if (*s == '.')
			dot = s;
	return dot ? dot + 1 : col;
}

struct mcol {
	long col;
	const char *name, *column, *unit;
	double factor;
};

static int mcol_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mcol *)a)->name, ((const struct mcol *)b)->name);
}

static int metric_cmp(const void *key, const void *m)
{
	return strcmp(key, ((const struct kp_metric *)m)->name);
}

/* Reads the first quoted row that starts with "ID". */
static int read_header(struct kp_csv *c, struct kp_csv_row *h, const char *what, struct kp_error *err)
{
	int rc;
	while ((rc = kp_csv_next(c, h, err)) == 1) {
		if (h->n && !strcmp(h->f[0], "ID"))
			return 0;
	}
	if (rc < 0)
		return rc;
	return kp_error_set(err, KP_EPARSE,
			    "%s: no ncu CSV header (a row starting with \"ID\"); expected the output of "
			    "'ncu --csv --page raw' or '--page details'",
			    what);
}

static int build_columns(struct kp_ncu_report *r, struct ncu_priv *p, const struct kp_csv_row *h,
			 const struct kp_csv_row *units, struct mcol **out, size_t *nout, struct kp_error *err)
{
	struct kp_strmap names = {0};
	struct mcol *m;
	size_t n = 0;
	int rc;
	if ((rc = kp_pbudget_add(&p->budget, h->n * (sizeof(*m) + 2 * sizeof(struct kp_strmap_ent)), h->line,
				 err)))
		return rc;
	m = kp_arena_calloc(&p->arena, h->n ? h->n : 1, sizeof(*m));
	for (size_t i = 0; i < h->n; i++)
		kp_strmap_set(&names, h->f[i], i);
	for (size_t i = 0; i < h->n; i++) {
		const char *col = h->f[i];
		if (is_id_column(col) || !*col)
			continue;
		m[n].col = (long)i;
		m[n].column = col;
		m[n].name = strip_prefix(col);
		/* A plain column of the same name wins; the prefixed one keeps its full name. */
		if (m[n].name != col && kp_strmap_find(&names, m[n].name))
			m[n].name = col;
		{
			const char *base;
			const char *raw = units && i < units->n ? units->f[i] : "";
			m[n].factor = kp_ncu_unit_factor(raw, &base);
			m[n].unit = kp_arena_strdup(&p->arena, base);
		}
		n++;
	}
	kp_strmap_release(&names);
	qsort(m, n, sizeof(*m), mcol_cmp);
	/* Two prefixed columns can strip to the same name: keep the first under the short name. */
	for (size_t i = 1; i < n; i++)
		if (!strcmp(m[i].name, m[i - 1].name)) {
			struct mcol t = m[i];
			t.name = t.column;
			m[i] = t;
		}
	qsort(m, n, sizeof(*m), mcol_cmp);
	/* Columns that still collide (the same header twice): the first is used. */
	{
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (k && !strcmp(m[i].name, m[k - 1].name)) {
				warn(r, "column '%s' appears twice; only the first is used", m[i].name);
				continue;
			}
			m[k++] = m[i];
		}
		n = k;
	}
	*out = m;
	*nout = n;
	return 0;
}

/* Where the raw page keeps each launch's identity (-1: no such column). */
struct raw_cols {
	long id, name, block, grid, dev, cc, stream;
};

/* The field of `row` in column `col`, or NULL when the column is absent or the row too short. */
static const char *field(const struct kp_csv_row *row, long col)
{
	return col >= 0 && (size_t)col < row->n ? row->f[col] : NULL;
}

/* The header row of a raw page and where its identity columns are. */
static int raw_header(struct kp_csv *c, struct kp_csv_row *h, struct raw_cols *k, const char *what,
		      struct kp_error *err)
{
	int rc;
	if ((rc = read_header(c, h, what, err)))
		return rc;
	if (kp_csv_col(h, "Section Name") >= 0 && kp_csv_col(h, "Metric Name") >= 0)
		return kp_error_set(err, KP_EPARSE,
				    "%s:%d: this is a details page (--page details), not the raw page; "
				    "collect with 'ncu --csv --page raw --print-units base'",
				    what, h->line);
	k->id = kp_csv_col(h, "ID");
	k->name = kp_csv_col(h, "Kernel Name");
	if (k->name < 0)
		return kp_error_set(err, KP_EPARSE, "%s:%d: header has no \"Kernel Name\" column", what, h->line);
	k->block = kp_csv_col(h, "Block Size");
	k->grid = kp_csv_col(h, "Grid Size");
	k->dev = kp_csv_col(h, "Device");
	k->cc = kp_csv_col(h, "CC");
	k->stream = kp_csv_col(h, "Stream");
	return 0;
}

/*
 * The row after the header: the units (`--print-units base`, first field empty), else already
 * the first launch (*launch_row). Returns 0, or a negative code.
 */
static int raw_units(struct kp_ncu_report *r, struct kp_csv *c, const struct kp_csv_row *h,
		     struct kp_csv_row *units, int *have_units, int *launch_row, const char *what,
		     struct kp_error *err)
{
	int rc = kp_csv_next(c, units, err);
	*have_units = *launch_row = 0;
	if (rc < 0)
		return rc;
	if (rc == 1 && units->n && !*units->f[0]) {
		*have_units = 1;
		if (units->n != h->n)
			return kp_error_set(err, KP_EPARSE, "%s:%d: units row has %zu fields, the header %zu", what,
					    units->line, units->n, h->n);
		return 0;
	}
	warn(r, "%s: no units row after the header; values are taken as printed", what);
	*launch_row = rc == 1;
	return 0;
}

/* A launch's identity from its row: ID (its index when absent), names, grid, block, device, stream, cc. */
static void launch_identity(struct kp_ncu_report *r, struct ncu_priv *p, const struct raw_cols *k,
			    const struct kp_csv_row *row, size_t index, const char *what, struct kp_launch *l)
{
	const char *f;
	long v;
	char *key;

	memset(l, 0, sizeof(*l));
	l->line = row->line;
	if ((f = field(row, k->id)) && kp_parse_long(f, &v) == 0 && v >= 0 && v <= 0x7fffffff) {
		l->id = (int)v;
	} else {
		l->id = (int)index;
		warn(r, "%s:%d: launch has no numeric ID; using %d", what, row->line, l->id);
	}
	l->kernel = (f = field(row, k->name)) ? f : "";
	key = kp_kernel_name_key(l->kernel);
	l->function = kp_arena_strdup(&p->arena, key);
	free(key);
	if (!strncmp(l->kernel, "_Z", 2))
		l->mangled = l->kernel;
	if ((f = field(row, k->block)) && parse_dim3(f, l->block))
		warn(r, "%s:%d: unreadable Block Size '%s'", what, row->line, f);
	if ((f = field(row, k->grid)) && parse_dim3(f, l->grid))
		warn(r, "%s:%d: unreadable Grid Size '%s'", what, row->line, f);
	l->device = (f = field(row, k->dev)) && kp_parse_long(f, &v) == 0 ? (int)v : -1;
	l->stream = (f = field(row, k->stream)) && kp_parse_long(f, &v) == 0 ? (int)v : -1;
	l->cc = (f = field(row, k->cc)) ? f : "";
}

/* A launch's metric values, in the columns' (sorted) order; a short or cut row leaves the rest missing. */
static void launch_metrics(struct kp_ncu_report *r, struct ncu_priv *p, const struct mcol *cols, size_t ncols,
			   const struct kp_csv_row *row, size_t nheader, const char *what, struct kp_launch *l)
{
	l->nmetrics = ncols;
	l->metrics = kp_arena_calloc(&p->arena, ncols ? ncols : 1, sizeof(*l->metrics));
	if (row->n < nheader || row->truncated) {
		l->incomplete = 1;
		r->incomplete = 1;
		warn(r, "%s:%d: launch %d has %zu of %zu fields (truncated file?); the rest are missing", what,
		     row->line, l->id, row->truncated ? row->n - 1 : row->n, nheader);
	}
	for (size_t i = 0; i < ncols; i++) {
		struct kp_metric *m = &l->metrics[i];
		size_t col = (size_t)cols[i].col;
		int usable = col < row->n && !(row->truncated && col == row->n - 1);
		m->name = cols[i].name;
		m->column = cols[i].column;
		m->unit = cols[i].unit;
		m->text = usable ? row->f[col] : NULL;
		if (usable && parse_value(row->f[col], &m->value) == 0) {
			m->value *= cols[i].factor;
		} else {
			m->missing = 1;
			m->value = NAN;
		}
	}
}

int kp_ncu_parse_raw(struct kp_ncu_report *r, const char *what, const char *text, size_t len,
		     struct kp_error *err)
{
	struct ncu_priv *p = priv_of(r);
	struct kp_csv c;
	struct kp_csv_row h = {0}, units = {0}, row = {0};
	struct raw_cols k = {-1, -1, -1, -1, -1, -1, -1};
	struct mcol *cols = NULL;
	size_t ncols = 0, alloc = 0, nl = 0;
	struct kp_launch *launches = NULL;
	int rc, have_units, launch_row;
	char *copy;

	if (r->nlaunches)
		return kp_error_set(err, KP_EINVAL, "%s: report already holds a raw page", what);
	if ((rc = kp_pbudget_init(&p->budget, what, len, err)))
		return rc;
	copy = kp_arena_strndup(&p->arena, text, len);
	kp_csv_init(&c, what, copy, len);
	c.budget = &p->budget;
	c.skip_unquoted = 1;
	if ((rc = raw_header(&c, &h, &k, what, err)) ||
	    (rc = raw_units(r, &c, &h, &units, &have_units, &launch_row, what, err)))
		goto out;
	if ((rc = build_columns(r, p, &h, have_units ? &units : NULL, &cols, &ncols, err)))
		goto out;

	for (;;) {
		const struct kp_csv_row *cur = &row;
		if (launch_row) {
			cur = &units; /* the row after the header was a launch */
			launch_row = 0;
		} else {
			rc = kp_csv_next(&c, &row, err);
			if (rc < 0)
				goto out;
			if (rc == 0)
				break;
		}
		if (cur->n == 1 && !*cur->f[0])
			continue;
		if (cur->n > h.n) {
			rc = kp_error_set(err, KP_EPARSE, "%s:%d: row has %zu fields but the header has %zu", what,
					  cur->line, cur->n, h.n);
			goto out;
		}
		if (!strcmp(cur->f[0], "ID")) /* a second report appended: same columns expected */
			continue;
		/* the launch twice (growing array, then the report's), its metrics, its function's name */
		if ((rc = kp_pbudget_add(&p->budget,
					 3 * sizeof(*launches) + ncols * sizeof(struct kp_metric) +
						 strlen(field(cur, k.name) ? field(cur, k.name) : "") + 1,
					 cur->line, err)))
			goto out;
		KP_ALLOC_GROW(launches, nl + 1, alloc);
		launch_identity(r, p, &k, cur, nl, what, &launches[nl]);
		launch_metrics(r, p, cols, ncols, cur, h.n, what, &launches[nl]);
		nl++;
	}
	if (!nl) {
		rc = kp_error_set(err, KP_EPARSE, "%s: header but no launch rows (did ncu profile any kernel?)", what);
		goto out;
	}
	r->launches = kp_arena_calloc(&p->arena, nl, sizeof(*r->launches));
	memcpy(r->launches, launches, nl * sizeof(*launches));
	r->nlaunches = nl;
	rc = 0;
out:
	free(launches);
	kp_csv_row_release(&h);
	kp_csv_row_release(&units);
	kp_csv_row_release(&row);
	return rc;
}

const struct kp_metric *kp_launch_metric(const struct kp_launch *l, const char *name)
{
	if (!l || !l->nmetrics)
		return NULL;
	return bsearch(name, l->metrics, l->nmetrics, sizeof(*l->metrics), metric_cmp);
}

int kp_launch_get(const struct kp_launch *l, const char *name, double *out)
{
	const struct kp_metric *m = kp_launch_metric(l, name);
	if (!m || m->missing)
		return KP_EMISSING;
	*out = m->value;
	return 0;
}

double kp_launch_getd(const struct kp_launch *l, const char *name, double def)
{
	double v;
	return kp_launch_get(l, name, &v) == 0 ? v : def;
}

const struct kp_launch *kp_ncu_find_launch(const struct kp_ncu_report *r, int id)
{
	for (size_t i = 0; i < r->nlaunches; i++)
		if (r->launches[i].id == id)
			return &r->launches[i];
	return NULL;
}

const char *kp_ncu_report_device(const struct kp_ncu_report *r)
{
	for (size_t i = 0; i < r->nlaunches; i++) {
		const struct kp_metric *m = kp_launch_metric(&r->launches[i], KP_M_DEVICE_NAME);
		if (m && m->text && *m->text)
			return m->text;
	}
	return NULL;
}

size_t kp_ncu_require(struct kp_ncu_report *r, const char *what, const char *const *names, size_t n)
{
	size_t missing = 0;
	if (!r->nlaunches)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (kp_launch_metric(&r->launches[0], names[i]))
			continue;
		missing++;
		warn(r, "%s: metric '%s' is not in the report (not collected, or another ncu version names it differently)",
		     what, names[i]);
	}
	if (missing)
		r->incomplete = 1;
	return missing;
}

/* ---- details page ------------------------------------------------------------------------------ */

int kp_ncu_parse_details(struct kp_ncu_report *r, const char *what, const char *text, size_t len,
			 struct kp_error *err)
{
	struct ncu_priv *p = priv_of(r);
	struct kp_csv c;
	struct kp_csv_row h = {0}, row = {0};
	long c_id, c_sec, c_rule, c_type, c_desc, c_stype, c_speed;
	int rc;
	char *copy;

	if ((rc = kp_pbudget_init(&p->budget, what, len, err)))
		return rc;
	copy = kp_arena_strndup(&p->arena, text, len);
	kp_csv_init(&c, what, copy, len);
	c.budget = &p->budget;
	c.skip_unquoted = 1;
	if ((rc = read_header(&c, &h, what, err)))
		goto out;
	c_id = kp_csv_col(&h, "ID");
	c_sec = kp_csv_col(&h, "Section Name");
	c_rule = kp_csv_col(&h, "Rule Name");
	c_type = kp_csv_col(&h, "Rule Type");
	c_desc = kp_csv_col(&h, "Rule Description");
	c_stype = kp_csv_col(&h, "Estimated Speedup Type");
	c_speed = kp_csv_col(&h, "Estimated Speedup");
	if (c_sec < 0 || kp_csv_col(&h, "Metric Name") < 0) {
		rc = kp_error_set(err, KP_EPARSE,
				  "%s:%d: not a details page (no \"Section Name\"/\"Metric Name\" columns); "
				  "collect with 'ncu --csv --page details'",
				  what, h.line);
		goto out;
	}
	if (c_rule < 0) {
		warn(r, "%s: details page has no rule columns (older ncu?); no rule results", what);
		rc = 0;
		goto out;
	}
	while ((rc = kp_csv_next(&c, &row, err)) == 1) {
		struct kp_ncu_rule *ru;
		long id;
		double sp;
#define FIELD(ix) ((ix) >= 0 && (size_t)(ix) < row.n ? row.f[ix] : "")
		if (!*FIELD(c_rule) || !strcmp(row.f[0], "ID"))
			continue;
		if ((rc = kp_pbudget_add(&p->budget, 2 * sizeof(*ru), row.line, err)))
			goto out;
		KP_ALLOC_GROW(r->rules, r->nrules + 1, p->rules_alloc);
		ru = &r->rules[r->nrules++];
		memset(ru, 0, sizeof(*ru));
		ru->launch_id = kp_parse_long(FIELD(c_id), &id) == 0 ? (int)id : -1;
		ru->section = FIELD(c_sec);
		ru->rule = FIELD(c_rule);
		ru->type = FIELD(c_type);
		ru->description = FIELD(c_desc);
		ru->speedup_type = FIELD(c_stype);
		ru->est_speedup = parse_value(FIELD(c_speed), &sp) == 0 ? sp : NAN;
		if (row.truncated) {
			r->incomplete = 1;
			warn(r, "%s:%d: rule '%s' is cut short (truncated file?)", what, row.line, ru->rule);
		}
#undef FIELD
	}
	if (rc < 0)
		goto out;
	rc = 0;
out:
	kp_csv_row_release(&h);
	kp_csv_row_release(&row);
	return rc;
}
