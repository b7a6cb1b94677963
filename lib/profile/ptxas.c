/* ptxas -v resource reports: registers, barriers, shared memory, stack frame and spills per function. */
#include "base/setup.h"

#include <ctype.h>

#include "kernelpro/arena.h"
#include "kernelpro/profile.h"
#include "kernelpro/str.h"
#include "profile/csv.h"

struct ptxas_priv {
	struct kp_arena arena;
	size_t alloc;
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

/* The number right before `label` in s ("4224 bytes smem"), or -1. */
static long number_before(const char *s, const char *label)
{
	const char *p = strstr(s, label), *d;
	long v;
	if (!p)
		return -1;
	while (p > s && p[-1] == ' ')
		p--;
	d = p;
	while (d > s && isdigit((unsigned char)d[-1]))
		d--;
	if (d == p)
		return -1;
	{
		char num[24];
		size_t n = (size_t)(p - d);
		if (n >= sizeof(num))
			return -1;
		memcpy(num, d, n);
		num[n] = '\0';
		if (kp_parse_long(num, &v))
			return -1;
	}
	return v;
}

static struct kp_ptxas_func *add(struct kp_ptxas *px, struct ptxas_priv *p, const char *name, const char *arch,
				 int entry)
{
	struct kp_ptxas_func *f;
	KP_ALLOC_GROW(px->funcs, px->nfuncs + 1, p->alloc);
	f = &px->funcs[px->nfuncs++];
	memset(f, 0, sizeof(*f));
	f->mangled = kp_arena_strdup(&p->arena, name);
	f->arch = arch[0] ? kp_arena_strdup(&p->arena, arch) : NULL;
	f->registers = f->barriers = -1;
	f->smem_bytes = f->cmem_bytes = f->stack_frame = f->spill_stores = f->spill_loads = f->cumulative_stack = -1;
	f->entry = entry;
	return f;
}

static long find_index(const struct kp_ptxas *px, const char *name, const char *arch)
{
	for (size_t i = px->nfuncs; i-- > 0;)
		if (!strcmp(px->funcs[i].mangled, name) &&
		    !strcmp(px->funcs[i].arch ? px->funcs[i].arch : "", arch))
			return (long)i;
	return -1;
}

int kp_ptxas_parse(struct kp_ptxas *px, const char *what, const char *text, size_t len, struct kp_error *err)
{
	struct ptxas_priv *p;
	const char *q = text, *end = text + len;
	char arch[32] = "";
	long entry = -1, props = -1; /* the function of the last "Compiling entry" / "Function properties" */
	int line = 0;
	if (px->priv)
		return kp_error_set(err, KP_EINVAL, "%s: ptxas output already parsed into this structure", what);
	p = kp_xcalloc(1, sizeof(*p));
	px->priv = p;
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
			add(px, p, name, arch, 1);
			entry = props = (long)px->nfuncs - 1;
			continue;
		}
		if (strstr(l, "Function properties for ")) {
			const char *s = strstr(l, "Function properties for ") + 24;
			kp_strlcpy(name, kp_str_trim((char *)s), sizeof(name));
			props = find_index(px, name, arch);
			if (props < 0) { /* a device function called by the kernels */
				add(px, p, name, arch, 0);
				props = (long)px->nfuncs - 1;
			}
			continue;
		}
		if (strstr(l, "bytes stack frame")) {
			if (props < 0) {
				warn(px, "%s:%d: stack frame line outside a function", what, line);
				continue;
			}
			px->funcs[props].stack_frame = number_before(l, "bytes stack frame");
			px->funcs[props].spill_stores = number_before(l, "bytes spill stores");
			px->funcs[props].spill_loads = number_before(l, "bytes spill loads");
			continue;
		}
		if (strstr(l, "Used ") && strstr(l, " registers")) {
			struct kp_ptxas_func *f;
			if (entry < 0) {
				warn(px, "%s:%d: register report outside a function", what, line);
				continue;
			}
			f = &px->funcs[entry];
			f->registers = (int)number_before(l, "registers");
			f->barriers = (int)number_before(l, "barriers");
			f->smem_bytes = number_before(l, "bytes smem");
			if (f->smem_bytes < 0)
				f->smem_bytes = 0; /* ptxas omits zero shared memory */
			f->cmem_bytes = number_before(l, "bytes cmem[0]");
			f->cumulative_stack = number_before(l, "bytes cumulative stack size");
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
	return 0;
}

void kp_ptxas_release(struct kp_ptxas *px)
{
	struct ptxas_priv *p = px->priv;
	if (p) {
		kp_arena_release(&p->arena);
		free(p);
	}
	free(px->funcs);
	kp_buf_release(&px->warnings);
	memset(px, 0, sizeof(*px));
	px->warnings = (struct kp_buf)KP_BUF_INIT;
}

static const struct kp_ptxas_func *by_key(const struct kp_ptxas *px, const char *key, const char *arch)
{
	const struct kp_ptxas_func *hit = NULL;
	for (size_t i = 0; i < px->nfuncs; i++) {
		const struct kp_ptxas_func *f = &px->funcs[i];
		if (!f->entry || strcmp(f->key, key) || (arch && f->arch && strcmp(f->arch, arch)))
			continue;
		if (hit)
			return NULL; /* ambiguous */
		hit = f;
	}
	return hit;
}

const struct kp_ptxas_func *kp_ptxas_find(const struct kp_ptxas *px, const char *name)
{
	const struct kp_ptxas_func *f;
	char *key;
	if (!px || !name)
		return NULL;
	for (size_t i = 0; i < px->nfuncs; i++)
		if (!strcmp(px->funcs[i].mangled, name))
			return &px->funcs[i];
	key = kp_kernel_name_key(name);
	f = key ? by_key(px, key, NULL) : NULL;
	free(key);
	return f;
}

const struct kp_ptxas_func *kp_ptxas_find_launch(const struct kp_ptxas *px, const struct kp_launch *l)
{
	const struct kp_ptxas_func *f = NULL;
	char arch[16] = "sm_";
	size_t k = 3;
	char *key;
	if (!px || !l)
		return NULL;
	if (l->mangled && (f = kp_ptxas_find(px, l->mangled)))
		return f;
	for (const char *c = l->cc ? l->cc : ""; *c && k + 1 < sizeof(arch); c++)
		if (isdigit((unsigned char)*c))
			arch[k++] = *c;
	arch[k] = '\0';
	key = kp_kernel_name_key(l->function ? l->function : l->kernel);
	if (key) {
		if (k > 3)
			f = by_key(px, key, arch);
		if (!f)
			f = by_key(px, key, NULL);
	}
	free(key);
	return f;
}
