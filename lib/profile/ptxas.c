/* ptxas -v resource reports: registers, barriers, shared memory, stack frame and spills per function. */
#include "base/setup.h"

#include <ctype.h>
#include <limits.h>

#include "kernelpro/arena.h"
#include "kernelpro/profile.h"
#include "kernelpro/str.h"
#include "profile/budget.h"
#include "profile/csv.h"
#include "profile/nameidx.h"
#include "profile/strmap.h"

struct ptxas_priv {
	struct kp_arena arena;
	size_t alloc;
	struct kp_strmap by_name_arch; /* "arch\x1fname" -> the last function of that name for that arch */
	struct kp_pbudget budget;
	/* After parsing: lookups by mangled name, and entry functions by key (and architecture). */
	struct kp_nameidx by_mangled, by_key;
};

#define warn(x, ...) kp_profile_warn(&(x)->warnings, __VA_ARGS__)

/* Copies the text between the next pair of single quotes after `from`. */
static int quoted(const char *from, char *out, size_t n)
{
	const char *a = strchr(from, '\''), *b;
	if (!a || !(b = strchr(a + 1, '\'')) || (size_t)(b - a - 1) >= n)
		return -1;
	memcpy(out, a + 1, (size_t)(b - a - 1));
	out[b - a - 1] = '\0';
	return 0;
}

enum { NUM_OK = 0, NUM_ABSENT = 1, NUM_BAD = -1 };

/*
 * The count written right before `label` in s ("4224 bytes smem"): NUM_OK and *out; NUM_ABSENT
 * when the label is not there; NUM_BAD when the word before it is not a whole number in 0..max
 * (a sign, an exponent, a fraction, too many digits), with that word in `bad`.
 */
static int number_before(const char *s, const char *label, long max, long *out, char *bad, size_t nbad)
{
	const char *p = strstr(s, label), *end, *d;
	char num[24];
	size_t n;
	long v;
	if (!p)
		return NUM_ABSENT;
	end = p;
	while (end > s && end[-1] == ' ')
		end--;
	for (d = end; d > s && d[-1] != ' ' && d[-1] != ',' && d[-1] != ':'; d--)
		;
	n = (size_t)(end - d);
	snprintf(bad, nbad, "%.*s", (int)n, d);
	if (!n || n >= sizeof(num))
		return NUM_BAD;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)d[i]))
			return NUM_BAD;
	memcpy(num, d, n);
	num[n] = '\0';
	if (kp_parse_long(num, &v) || v > max)
		return NUM_BAD;
	*out = v;
	return NUM_OK;
}

/* A figure of a report line; `absent` when ptxas did not print it, -1 (and a warning) when unreadable. */
static long figure(struct kp_ptxas *px, const char *what, int line, const char *l, const char *label, long max,
		   long absent)
{
	char bad[32];
	long v;
	switch (number_before(l, label, max, &v, bad, sizeof(bad))) {
	case NUM_OK: return v;
	case NUM_ABSENT: return absent;
	default:
		warn(px, "%s:%d: '%s' before '%s' is not a count; left out", what, line, bad, label);
		px->incomplete = 1;
		return -1;
	}
}

/* The map key of a function: its architecture and name. */
static char *name_arch_key(struct kp_arena *a, const char *name, const char *arch)
{
	size_t ln = strlen(name), la = strlen(arch);
	char *k = kp_arena_alloc(a, la + ln + 2);
	memcpy(k, arch, la);
	k[la] = '\x1f';
	memcpy(k + la + 1, name, ln + 1);
	return k;
}

static long add(struct kp_ptxas *px, struct ptxas_priv *p, const char *name, const char *arch, int entry, int line,
		struct kp_error *err)
{
	struct kp_ptxas_func *f;
	if (kp_pbudget_add(&p->budget, 2 * sizeof(*f) + 2 * (strlen(name) + strlen(arch) + 2) + sizeof(struct kp_strmap_ent) * 2,
			   line, err))
		return -1;
	KP_ALLOC_GROW(px->funcs, px->nfuncs + 1, p->alloc);
	f = &px->funcs[px->nfuncs++];
	memset(f, 0, sizeof(*f));
	f->mangled = kp_arena_strdup(&p->arena, name);
	f->arch = arch[0] ? kp_arena_strdup(&p->arena, arch) : NULL;
	f->registers = f->barriers = -1;
	f->smem_bytes = f->cmem_bytes = f->stack_frame = f->spill_stores = f->spill_loads = f->cumulative_stack = -1;
	f->entry = entry;
	kp_strmap_set(&p->by_name_arch, name_arch_key(&p->arena, name, arch), px->nfuncs - 1);
	return (long)px->nfuncs - 1;
}

/* The last function of this name and architecture, or -1. */
static long find_index(const struct ptxas_priv *p, const char *name, const char *arch)
{
	char key[1100];
	size_t *i;
	snprintf(key, sizeof(key), "%s\x1f%s", arch, name);
	i = kp_strmap_find(&p->by_name_arch, key);
	return i ? (long)*i : -1;
}

static int is_entry(const void *f)
{
	return ((const struct kp_ptxas_func *)f)->entry;
}

/* Over 80 lines: one pass over ptxas's lines, one branch per kind of line, sharing the entry and the
 * properties block being read; it reads best as one dispatch. */
int kp_ptxas_parse(struct kp_ptxas *px, const char *what, const char *text, size_t len, struct kp_error *err)
{
	struct ptxas_priv *p;
	const char *q = text, *end = text + len;
	char arch[32] = "";
	long entry = -1, props = -1; /* the function of the last "Compiling entry" / "Function properties" */
	int line = 0, rc;
	if (px->priv)
		return kp_error_set(err, KP_EINVAL, "%s: ptxas output already parsed into this structure", what);
	p = kp_xcalloc(1, sizeof(*p));
	px->priv = p;
	if ((rc = kp_pbudget_init(&p->budget, what, 0, err)))
		return rc;
	while (q < end) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		size_t n = (size_t)((nl ? nl : end) - q);
		char l[2048], name[1024];
		line++;
		if (n >= sizeof(l))
			n = sizeof(l) - 1;
		memcpy(l, q, n);
		l[n] = '\0';
		q = nl ? nl + 1 : end;
		if (strstr(l, "Compiling entry function") && !quoted(l, name, sizeof(name))) {
			const char *f = strstr(l, "' for '");
			arch[0] = '\0';
			if (f)
				quoted(f + 6, arch, sizeof(arch));
			if (entry >= 0 && px->funcs[entry].registers < 0) {
				warn(px, "%s:%d: no 'Used N registers' line for '%s'", what, line, px->funcs[entry].mangled);
				px->incomplete = 1;
			}
			if ((entry = props = add(px, p, name, arch, 1, line, err)) < 0)
				return KP_ETOOBIG;
			continue;
		}
		if (strstr(l, "Function properties for ")) {
			const char *s = strstr(l, "Function properties for ") + 24;
			kp_strlcpy(name, kp_str_trim((char *)s), sizeof(name));
			props = find_index(p, name, arch);
			if (props < 0 && (props = add(px, p, name, arch, 0, line, err)) < 0) /* a device function */
				return KP_ETOOBIG;
			continue;
		}
		if (strstr(l, "bytes stack frame")) {
			struct kp_ptxas_func *f;
			if (props < 0) {
				warn(px, "%s:%d: stack frame line outside a function", what, line);
				continue;
			}
			f = &px->funcs[props];
			f->stack_frame = figure(px, what, line, l, "bytes stack frame", LONG_MAX, -1);
			f->spill_stores = figure(px, what, line, l, "bytes spill stores", LONG_MAX, -1);
			f->spill_loads = figure(px, what, line, l, "bytes spill loads", LONG_MAX, -1);
			continue;
		}
		if (strstr(l, "Used ") && strstr(l, " registers")) {
			struct kp_ptxas_func *f;
			if (entry < 0) {
				warn(px, "%s:%d: register report outside a function", what, line);
				continue;
			}
			f = &px->funcs[entry];
			f->registers = (int)figure(px, what, line, l, "registers", INT_MAX, -1);
			f->barriers = (int)figure(px, what, line, l, "barriers", INT_MAX, -1);
			f->smem_bytes = figure(px, what, line, l, "bytes smem", LONG_MAX, 0); /* omitted when 0 */
			f->cmem_bytes = figure(px, what, line, l, "bytes cmem[0]", LONG_MAX, -1);
			f->cumulative_stack = figure(px, what, line, l, "bytes cumulative stack size", LONG_MAX, -1);
			continue;
		}
	}
	if (entry >= 0 && px->funcs[entry].registers < 0) {
		warn(px, "%s: no 'Used N registers' line for '%s' (truncated output?)", what, px->funcs[entry].mangled);
		px->incomplete = 1;
	}
	if (!px->nfuncs)
		return kp_error_set(err, KP_EPARSE,
				    "%s: no ptxas function reports found; compile with 'nvcc -Xptxas -v' (or --resource-usage)",
				    what);
	for (size_t i = 0; i < px->nfuncs; i++) {
		char *key = kp_kernel_name_key(px->funcs[i].mangled);
		px->funcs[i].key = kp_arena_strdup(&p->arena, key ? key : px->funcs[i].mangled);
		free(key);
	}
	kp_strmap_release(&p->by_name_arch);
	kp_nameidx_build(&p->by_mangled, px->funcs, px->nfuncs, sizeof(*px->funcs),
			 offsetof(struct kp_ptxas_func, mangled), KP_NAMEIDX_NONE, NULL);
	kp_nameidx_build(&p->by_key, px->funcs, px->nfuncs, sizeof(*px->funcs), offsetof(struct kp_ptxas_func, key),
			 offsetof(struct kp_ptxas_func, arch), is_entry);
	return 0;
}

void kp_ptxas_release(struct kp_ptxas *px)
{
	struct ptxas_priv *p = px->priv;
	if (p) {
		kp_arena_release(&p->arena);
		kp_strmap_release(&p->by_name_arch);
		kp_nameidx_release(&p->by_mangled);
		kp_nameidx_release(&p->by_key);
		free(p);
	}
	free(px->funcs);
	kp_buf_release(&px->warnings);
	memset(px, 0, sizeof(*px));
	px->warnings = (struct kp_buf)KP_BUF_INIT;
}

const struct kp_ptxas_func *kp_ptxas_find(const struct kp_ptxas *px, const char *name)
{
	const struct ptxas_priv *p;
	const struct kp_ptxas_func *f;
	char *key;
	if (!px || !name || !px->priv)
		return NULL;
	p = px->priv;
	if ((f = kp_nameidx_first(&p->by_mangled, name)))
		return f;
	key = kp_kernel_name_key(name);
	f = key ? kp_nameidx_unique(&p->by_key, key, NULL) : NULL;
	free(key);
	return f;
}

const struct kp_ptxas_func *kp_ptxas_find_launch(const struct kp_ptxas *px, const struct kp_launch *l)
{
	const struct ptxas_priv *p;
	const struct kp_ptxas_func *f = NULL;
	char arch[16] = "sm_";
	size_t k = 3;
	char *key;
	if (!px || !l || !px->priv)
		return NULL;
	p = px->priv;
	if (l->mangled && (f = kp_ptxas_find(px, l->mangled)))
		return f;
	for (const char *c = l->cc ? l->cc : ""; *c && k + 1 < sizeof(arch); c++)
		if (isdigit((unsigned char)*c))
			arch[k++] = *c;
	arch[k] = '\0';
	key = kp_kernel_name_key(l->function ? l->function : l->kernel);
	if (key) {
		if (k > 3)
			f = kp_nameidx_unique(&p->by_key, key, arch);
		if (!f)
			f = kp_nameidx_unique(&p->by_key, key, NULL);
		for (size_t i = 0; !f && l->kernel && i < px->nfuncs; i++) { /* instances apart by template arguments */
			const struct kp_ptxas_func *c = &px->funcs[i];
			if (c->key && !strcmp(c->key, key) && (k == 3 || !c->arch || !strcmp(c->arch, arch)) &&
			    kp_kernel_template_args_equal(c->mangled, l->kernel)) {
				for (size_t j = i + 1; j < px->nfuncs && c; j++)
					if (px->funcs[j].key && !strcmp(px->funcs[j].key, key) &&
					    (k == 3 || !px->funcs[j].arch || !strcmp(px->funcs[j].arch, arch)) &&
					    kp_kernel_template_args_equal(px->funcs[j].mangled, l->kernel))
						c = NULL; /* two match: ambiguous */
				f = c;
				break;
			}
		}
	}
	free(key);
	return f;
}
