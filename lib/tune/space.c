/* The space once read: constants and binding, feasibility, points in text, variant sources, and the
 * space in words and JSON. */
#include "base/setup.h"

#include <ctype.h>

#include "kernelpro/json.h"
#include "kernelpro/str.h"
#include "tune/tune_int.h"

const char *kp_tune_origin_name(enum kp_tune_origin o)
{
	switch (o) {
	case KP_TUNE_DECLARED: return "declared";
	case KP_TUNE_BLOCK: return "block";
	case KP_TUNE_BLOCK_DIM: return "block_dim";
	case KP_TUNE_GRID_MULT: return "grid_mult";
	case KP_TUNE_MAX_THREADS: return "max_threads";
	case KP_TUNE_MIN_BLOCKS: return "min_blocks";
	case KP_TUNE_UNROLL: return "unroll";
	}
	return "unknown";
}

size_t kp_tune_nknobs(const struct kp_tune_space *s)
{
	return s->nknobs;
}

const struct kp_tune_knob *kp_tune_knob_at(const struct kp_tune_space *s, size_t i)
{
	return i < s->nknobs ? &s->knobs[i] : NULL;
}

size_t kp_tune_nconstraints(const struct kp_tune_space *s)
{
	return s->ncons;
}

const char *kp_tune_constraint_text(const struct kp_tune_space *s, size_t i)
{
	return i < s->ncons ? s->cons[i].text : NULL;
}

uint64_t kp_tune_space_size(const struct kp_tune_space *s)
{
	uint64_t n = 1;
	for (size_t k = 0; k < s->nknobs; k++)
		if (__builtin_mul_overflow(n, (uint64_t)s->knobs[k].nvalues, &n))
			return UINT64_MAX;
	return n;
}

const char *kp_tune_space_hash(const struct kp_tune_space *s)
{
	return s->hash;
}

/* ---- overrides ------------------------------------------------------------------------------------- */

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

int kp_tune_set_values(struct kp_tune_space *s, const char *name, const long long *values, size_t n,
                       struct kp_error *err)
{
	struct kp_tune_knob *kn = NULL;
	long long v[KP_TUNE_MAX_VALUES + 1], def;
	size_t m = 0, nv = 0;

	if (s->bound)
		return kp_error_set(err, KP_EINVAL, "%s: set a knob's values before binding the space",
		                    s->what);
	for (size_t k = 0; k < s->nknobs && !kn; k++)
		if (!strcmp(s->knobs[k].name, name))
			kn = &s->knobs[k];
	if (!kn) {
		struct kp_buf names = KP_BUF_INIT;
		int rc;
		for (size_t k = 0; k < s->nknobs; k++)
			kp_buf_addf(&names, "%s%s", k ? ", " : "", s->knobs[k].name);
		rc = kp_error_set(err, KP_ENOENT, "%s has no knob '%s'; its knobs: %s", s->what, name,
		                  s->nknobs ? names.buf : "none");
		kp_buf_release(&names);
		return rc;
	}
	if (n < 1 || n > KP_TUNE_MAX_VALUES)
		return kp_error_set(err, KP_EINVAL, "knob '%s': give 1 to %d values, not %zu", name,
		                    KP_TUNE_MAX_VALUES, n);
	def = kn->values[kn->def];
	for (size_t i = 0; i < n; i++) {
		if (kn->origin != KP_TUNE_DECLARED && values[i] < 1)
			return kp_error_set(err, KP_EINVAL, "knob '%s' (%s) takes positive values, not %lld",
			                    name, kp_tune_origin_name(kn->origin), values[i]);
		v[m++] = values[i];
	}
	v[m++] = def; /* the untuned point stays in the space */
	qsort(v, m, sizeof(v[0]), cmp_ll);
	for (size_t i = 0; i < m; i++)
		if (i == 0 || v[i] != v[nv - 1])
			v[nv++] = v[i];
	if (nv > KP_TUNE_MAX_VALUES)
		return kp_error_set(err, KP_EINVAL,
		                    "knob '%s': %d values at most, the source's own (%lld) included", name,
		                    KP_TUNE_MAX_VALUES, def);
	kn->nvalues = nv;
	memcpy(kn->values, v, kn->nvalues * sizeof(v[0]));
	for (size_t i = 0; i < kn->nvalues; i++)
		if (kn->values[i] == def)
			kn->def = (uint16_t)i;
	kp__tune_space_rehash(s);
	return 0;
}

int kp_tune_set_values_text(struct kp_tune_space *s, const char *text, struct kp_error *err)
{
	const char *eq = strchr(text, '=');
	char name[KP_TUNE_NAME_MAX];
	long long v[KP_TUNE_MAX_VALUES];
	size_t n = 0;

	if (!eq || eq == text || (size_t)(eq - text) >= sizeof(name))
		return kp_error_set(err, KP_EPARSE, "knob override '%.80s': write NAME=v1,v2,...", text);
	memcpy(name, text, (size_t)(eq - text));
	name[eq - text] = '\0';
	for (const char *p = eq + 1;;) {
		char num[32];
		size_t len = strcspn(p, ",");
		long x;
		while (len && *p == ' ')
			p++, len--;
		if (len == 0 || len >= sizeof(num))
			return kp_error_set(err, KP_EPARSE,
			                    "knob override '%.80s': expected an integer at '%.20s'", text, p);
		memcpy(num, p, len);
		num[len] = '\0';
		if (kp_parse_long(kp_str_trim(num), &x))
			return kp_error_set(err, KP_EPARSE, "knob override '%.80s': '%s' is not an integer",
			                    text, num);
		if (n >= KP_TUNE_MAX_VALUES)
			return kp_error_set(err, KP_EINVAL, "knob override '%.80s': more than %d values",
			                    text, KP_TUNE_MAX_VALUES);
		v[n++] = x;
		p += len;
		if (*p != ',')
			break;
		p++;
	}
	return kp_tune_set_values(s, name, v, n, err);
}

/* ---- constants ------------------------------------------------------------------------------------- */

void kp_tune_env_init(struct kp_tune_env *e)
{
	memset(e, 0, sizeof(*e));
}

static int is_identifier(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
	return strlen(s) < KP_TUNE_NAME_MAX;
}

int kp_tune_env_set(struct kp_tune_env *e, const char *name, long long value, struct kp_error *err)
{
	if (!is_identifier(name))
		return kp_error_set(err, KP_EINVAL, "constant name '%s' is not an identifier",
		                    name ? name : "(null)");
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].name, name)) {
			e->v[i].value = value;
			return 0;
		}
	if (e->n >= KP_TUNE_MAX_CONSTS)
		return kp_error_set(err, KP_ETOOBIG, "more than %d constants for the constraints",
		                    KP_TUNE_MAX_CONSTS);
	snprintf(e->v[e->n].name, sizeof(e->v[e->n].name), "%s", name);
	e->v[e->n++].value = value;
	return 0;
}

void kp_tune_env_add_hw(struct kp_tune_env *e, const struct kp_hw_spec *spec)
{
	/* Architectural limits of every GPU kernelpro knows (compute capability 8.0 and later). */
	kp_tune_env_set(e, "WARP_SIZE", 32, NULL);
	kp_tune_env_set(e, "MAX_THREADS_PER_BLOCK", 1024, NULL);
	kp_tune_env_set(e, "SMEM_STATIC_PER_BLOCK", 48 * 1024, NULL);
	kp_tune_env_set(e, "REGS_PER_BLOCK", 65536, NULL);
	kp_tune_env_set(e, "REGS_PER_THREAD", 255, NULL);
	kp_tune_env_set(e, "MAX_THREADS_PER_SM", spec->max_threads_per_sm, NULL);
	kp_tune_env_set(e, "MAX_BLOCKS_PER_SM", spec->max_blocks_per_sm, NULL);
	kp_tune_env_set(e, "SM_COUNT", spec->sm_count, NULL);
	kp_tune_env_set(e, "SMEM_PER_BLOCK", (long long)spec->smem_per_sm - 1024, NULL);
	kp_tune_env_set(e, "REGS_PER_SM", spec->regs_per_sm, NULL);
}

void kp_tune_env_add_local_hw(struct kp_tune_env *e)
{
	const struct kp_hw_spec *spec = kp_hw_spec_find("h200-sxm");
	struct kp_hw hw;

	if (kp_hw_load(&hw, NULL, 0, NULL) == 0)
		spec = &hw.spec;
	kp_tune_env_add_hw(e, spec);
}

int kp_tune_env_add_task(struct kp_tune_env *e, const struct kp_task *t, struct kp_error *err)
{
	for (int io = 0; io < 2; io++) {
		const struct kp_tensor_spec *ts = io ? t->outputs : t->inputs;
		size_t n = io ? t->noutputs : t->ninputs;
		for (size_t i = 0; i < n; i++)
			for (int d = 0; d < ts[i].ndim; d++) {
				char name[KP_TUNE_NAME_MAX];
				int rc;
				snprintf(name, sizeof(name), "%.50s_%d", ts[i].name, d);
				if ((rc = kp_tune_env_set(e, name, (long long)ts[i].shape[d], err)))
					return rc;
			}
	}
	return 0;
}

/* ---- binding and feasibility ----------------------------------------------------------------------- */

static int lookup(void *ctx, const char *name, size_t n, int *knob, long long *value)
{
	const struct kp_tune_space *s = ctx;
	for (size_t k = 0; k < s->nknobs; k++)
		if (strlen(s->knobs[k].name) == n && !memcmp(s->knobs[k].name, name, n)) {
			*knob = (int)k;
			return 0;
		}
	for (size_t i = 0; i < s->env.n; i++)
		if (strlen(s->env.v[i].name) == n && !memcmp(s->env.v[i].name, name, n)) {
			*knob = -1;
			*value = s->env.v[i].value;
			return 0;
		}
	return KP_ENOENT;
}

static void point_values(const struct kp_tune_space *s, const struct kp_tune_point *p, long long *vals)
{
	for (size_t k = 0; k < s->nknobs; k++)
		vals[k] = s->knobs[k].values[p->v[k] < s->knobs[k].nvalues ? p->v[k] : 0];
}

int kp_tune_bind(struct kp_tune_space *s, const struct kp_tune_env *e, struct kp_error *err)
{
	struct kp_tune_point def;
	long long vals[KP_TUNE_MAX_KNOBS];
	size_t keep = 0;
	int rc;

	s->bound = 0;
	s->env = *e;
	for (size_t i = 0; i < s->ncons; i++) {
		struct kp_error why = KP_ERROR_INIT;
		if ((rc = kp__tune_expr_bind(&s->cons[i], lookup, s, &why)))
			return kp_error_set(
			    err, rc,
			    "%s: line %d: %s; constraints name knobs and the constants of docs/tune.md "
			    "(WARP_SIZE, SMEM_PER_BLOCK, ..., and <tensor>_<dim> for a native task)",
			    s->what, s->cons[i].line, kp_error_msg(&why));
	}
	/* A derived constraint that the source's own values break is a wrong guess about the source. */
	kp_tune_default_point(s, &def);
	point_values(s, &def, vals);
	for (size_t i = 0; i < s->ncons; i++) {
		if (s->cons[i].line == 0 && !kp__tune_expr_holds(&s->cons[i], vals)) {
			kp__tune_expr_release(&s->cons[i]);
			continue;
		}
		s->cons[keep++] = s->cons[i];
	}
	s->ncons = keep;
	s->bound = 1;
	return 0;
}

int kp_tune_feasible(const struct kp_tune_space *s, const struct kp_tune_point *p)
{
	long long vals[KP_TUNE_MAX_KNOBS];
	if (!s->bound)
		return 0;
	for (size_t k = 0; k < s->nknobs; k++)
		if (p->v[k] >= s->knobs[k].nvalues)
			return 0;
	point_values(s, p, vals);
	for (size_t i = 0; i < s->ncons; i++)
		if (!kp__tune_expr_holds(&s->cons[i], vals))
			return 0;
	return 1;
}

int kp_tune_count_feasible(const struct kp_tune_space *s, uint64_t *count, struct kp_error *err)
{
	uint64_t size = kp_tune_space_size(s), n = 0;
	*count = 0;
	if (!s->bound)
		return kp_error_set(err, KP_EINVAL, "%s: bind the space before counting its feasible points",
		                    s->what);
	if (size > KP_TUNE_ENUM_MAX)
		return kp_error_set(err, KP_ETOOBIG, "%s: more than %u points to count", s->what,
		                    KP_TUNE_ENUM_MAX);
	for (uint64_t c = 0; c < size; c++) {
		struct kp_tune_point p;
		kp__tune_point_decode(s, c, &p);
		n += (uint64_t)kp_tune_feasible(s, &p);
	}
	*count = n;
	return 0;
}

/* ---- points ------------------------------------------------------------------------------------- */

void kp_tune_default_point(const struct kp_tune_space *s, struct kp_tune_point *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t k = 0; k < s->nknobs; k++)
		p->v[k] = s->knobs[k].def;
}

void kp_tune_point_format(const struct kp_tune_space *s, const struct kp_tune_point *p, struct kp_buf *out)
{
	for (size_t k = 0; k < s->nknobs; k++) {
		const struct kp_tune_knob *kn = &s->knobs[k];
		kp_buf_addf(out, "%s%s=%lld", k ? " " : "", kn->name,
		            kn->values[p->v[k] < kn->nvalues ? p->v[k] : 0]);
	}
}

int kp_tune_point_parse(const struct kp_tune_space *s, const char *text, struct kp_tune_point *p,
                        struct kp_error *err)
{
	const char *c = text;
	kp_tune_default_point(s, p);
	while (*c) {
		char name[KP_TUNE_NAME_MAX], num[32];
		size_t n = 0, m = 0;
		long v;
		int k = -1;
		while (*c == ' ' || *c == ',' || *c == '\t')
			c++;
		if (!*c)
			break;
		while (c[n] && c[n] != '=' && c[n] != ' ' && c[n] != ',')
			n++;
		if (c[n] != '=' || n == 0 || n >= sizeof(name))
			return kp_error_set(err, KP_EPARSE, "point '%.80s': expected NAME=VALUE at '%.20s'",
			                    text, c);
		memcpy(name, c, n);
		name[n] = '\0';
		c += n + 1;
		while (c[m] && c[m] != ' ' && c[m] != ',' && c[m] != '\t')
			m++;
		if (m == 0 || m >= sizeof(num))
			return kp_error_set(err, KP_EPARSE, "point '%.80s': '%s' has no value", text, name);
		memcpy(num, c, m);
		num[m] = '\0';
		c += m;
		for (size_t i = 0; i < s->nknobs; i++)
			if (!strcmp(s->knobs[i].name, name))
				k = (int)i;
		if (k < 0)
			return kp_error_set(err, KP_ENOENT, "point '%.80s': no knob named '%s'", text, name);
		if (kp_parse_long(num, &v))
			return kp_error_set(err, KP_EPARSE, "point '%.80s': '%s' is not an integer", text,
			                    num);
		p->v[k] = UINT16_MAX;
		for (size_t i = 0; i < s->knobs[k].nvalues; i++)
			if (s->knobs[k].values[i] == v)
				p->v[k] = (uint16_t)i;
		if (p->v[k] == UINT16_MAX)
			return kp_error_set(err, KP_EINVAL,
			                    "point '%.80s': %ld is not one of the values of '%s'", text, v,
			                    name);
	}
	return 0;
}

/* ---- variants ------------------------------------------------------------------------------------ */

int kp_tune_variant(const struct kp_tune_space *s, const struct kp_tune_point *p, struct kp_buf *out,
                    struct kp_error *err)
{
	size_t pos = 0;
	for (size_t k = 0; k < s->nknobs; k++)
		if (p->v[k] >= s->knobs[k].nvalues)
			return kp_error_set(err, KP_EINVAL, "knob '%s': value index %u out of range",
			                    s->knobs[k].name, p->v[k]);
	for (size_t i = 0; i < s->nsites; i++) {
		const struct tune_site *site = &s->sites[i];
		const struct kp_tune_knob *kn = &s->knobs[site->knob];
		long long v = kn->values[p->v[site->knob]];
		kp_buf_add(out, s->src + pos, site->off - pos);
		pos = site->off + site->len;
		if (p->v[site->knob] == kn->def) {
			kp_buf_add(out, s->src + site->off, site->len); /* unchanged, spacing included */
			continue;
		}
		switch (site->kind) {
		case SITE_LITERAL: kp_buf_addf(out, "%lld", v); break;
		case SITE_LITERAL_M1: kp_buf_addf(out, "%lld", v - 1); break;
		case SITE_LIST: {
			const struct tune_written *w = &s->written[site->knob];
			kp_buf_addf(out, "%lld", v);
			for (size_t j = 0; j < w->n; j++)
				if (w->v[j] != v)
					kp_buf_addf(out, ", %lld", w->v[j]);
			break;
		}
		}
	}
	kp_buf_add(out, s->src + pos, s->len - pos);
	return 0;
}

/* ---- describing -------------------------------------------------------------------------------------- */

void kp_tune_space_describe(const struct kp_tune_space *s, struct kp_buf *out)
{
	uint64_t size = kp_tune_space_size(s);
	kp_buf_addf(out, "%zu knob%s, ", s->nknobs, s->nknobs == 1 ? "" : "s");
	if (size == UINT64_MAX)
		kp_buf_adds(out, "more than 2^64 points");
	else
		kp_buf_addf(out, "%llu point%s", (unsigned long long)size, size == 1 ? "" : "s");
	kp_buf_addf(out, ", %zu constraint%s\n", s->ncons, s->ncons == 1 ? "" : "s");
	for (size_t k = 0; k < s->nknobs; k++) {
		const struct kp_tune_knob *kn = &s->knobs[k];
		kp_buf_addf(out, "  %s (%s, line %d, %zu place%s): ", kn->name,
		            kp_tune_origin_name(kn->origin), kn->line, kn->nsites,
		            kn->nsites == 1 ? "" : "s");
		for (size_t i = 0; i < kn->nvalues; i++)
			kp_buf_addf(out, i == kn->def ? "%s[%lld]" : "%s%lld", i ? " " : "", kn->values[i]);
		kp_buf_addch(out, '\n');
	}
	for (size_t i = 0; i < s->ncons; i++) {
		kp_buf_addf(out, "  where %s", s->cons[i].text);
		if (s->cons[i].line)
			kp_buf_addf(out, " (line %d)", s->cons[i].line);
		kp_buf_addch(out, '\n');
	}
}

json_t *kp_tune_space_to_json(const struct kp_tune_space *s)
{
	json_t *o = json_object(), *knobs = json_array(), *cons = json_array();
	uint64_t size = kp_tune_space_size(s), feasible;
	kp_json_set(o, "hash", json_string(s->hash));
	kp_json_set(o, "size", size == UINT64_MAX ? json_null() : json_integer((json_int_t)size));
	if (s->bound && kp_tune_count_feasible(s, &feasible, NULL) == 0)
		kp_json_set(o, "feasible", json_integer((json_int_t)feasible));
	for (size_t k = 0; k < s->nknobs; k++) {
		const struct kp_tune_knob *kn = &s->knobs[k];
		json_t *j = json_object(), *vals = json_array();
		for (size_t i = 0; i < kn->nvalues; i++)
			json_array_append_new(vals, json_integer(kn->values[i]));
		kp_json_set(j, "name", json_string(kn->name));
		kp_json_set(j, "origin", json_string(kp_tune_origin_name(kn->origin)));
		kp_json_set(j, "line", json_integer(kn->line));
		kp_json_set(j, "values", vals);
		kp_json_set(j, "default", json_integer(kn->values[kn->def]));
		json_array_append_new(knobs, j);
	}
	for (size_t i = 0; i < s->ncons; i++) {
		json_t *j = json_object();
		kp_json_set(j, "text", json_string(s->cons[i].text));
		if (s->bound) {
			struct kp_buf py = KP_BUF_INIT;
			kp__tune_expr_python(&s->cons[i], &py);
			kp_json_set(j, "python", json_string(py.buf));
			kp_buf_release(&py);
		}
		json_array_append_new(cons, j);
	}
	kp_json_set(o, "knobs", knobs);
	kp_json_set(o, "constraints", cons);
	return o;
}

/* ---- after the build ----------------------------------------------------------------------------- */

int kp_tune_launch_fits(const struct kp_hw_spec *hw, long threads, int regs, long smem, char *why, size_t n)
{
	long warps = (threads + 31) / 32, per_warp = ((long)regs * 32 + 255) / 256 * 256;
	if (threads < 1 || threads > 1024) {
		if (why)
			snprintf(why, n, "%ld threads per block (1 to 1024)", threads);
		return 0;
	}
	if (regs > 255 || warps * per_warp > hw->regs_per_sm || warps * per_warp > 65536) {
		if (why)
			snprintf(why, n,
			         "%d registers per thread x %ld threads exceed the %d registers of an SM",
			         regs, threads, hw->regs_per_sm);
		return 0;
	}
	if (smem > (long)hw->smem_per_sm - 1024) {
		if (why)
			snprintf(why, n, "%ld bytes of shared memory per block exceed the %ld available",
			         smem, (long)hw->smem_per_sm - 1024);
		return 0;
	}
	return 1;
}
