/*
 * SASS disassembly: per function, static instruction counts by opcode and by
 * the classes the tools ask about (load/store widths, local memory, tensor
 * instructions, FP pipes, MUFU functions, slow-path calls...). Reads
 * `cuobjdump -sass`, `nvdisasm` and ncu's source page.
 */
#include "base/setup.h"

#include <ctype.h>

#include "kernelpro/arena.h"
#include "kernelpro/profile.h"
#include "kernelpro/str.h"
#include "profile/budget.h"
#include "profile/csv.h"
#include "profile/nameidx.h"
#include "profile/strmap.h"

#define KP__SASS_NAME(n) #n,
static const char *const class_names[] = {KP_SASS_CLASSES(KP__SASS_NAME)};
#undef KP__SASS_NAME

const char *kp_sass_class_name(enum kp_sass_class c)
{
	return (unsigned)c < KP_SASS_NCLASSES ? class_names[c] : "?";
}

int kp_sass_arch_known(const char *arch)
{
	static const int known[] = {70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121};
	long v;
	char num[8];
	size_t n = 0;
	if (!arch || strncmp(arch, "sm_", 3))
		return 0;
	for (const char *p = arch + 3; isdigit((unsigned char)*p) && n + 1 < sizeof(num); p++)
		num[n++] = *p;
	num[n] = '\0';
	if (kp_parse_long(num, &v))
		return 0;
	for (size_t i = 0; i < KP_ARRAY_SIZE(known); i++)
		if (known[i] == v)
			return 1;
	return 0;
}

/* ---- classification ---------------------------------------------------------------------------- */

/* Does the dotted opcode carry modifier `mod` exactly ("LDG.E.128" has "128", not "LTC128B")? */
static int has_mod(const char *op, const char *mod)
{
	size_t n = strlen(mod);
	for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.'))
		if (!strncmp(p + 1, mod, n) && (p[1 + n] == '.' || p[1 + n] == '\0'))
			return 1;
	return 0;
}

static int base_is(const char *op, const char *base)
{
	size_t n = strlen(base);
	return !strncmp(op, base, n) && (op[n] == '.' || op[n] == '\0');
}

/* Global load/store width class: 32, 64, 128, or OTHER (sub-word, 256-bit). */
static int width_class(const char *op, int c32, int c64, int c128, int cother)
{
	if (has_mod(op, "U8") || has_mod(op, "S8") || has_mod(op, "U16") || has_mod(op, "S16") ||
	    has_mod(op, "256"))
		return cother;
	if (has_mod(op, "128"))
		return c128;
	if (has_mod(op, "64"))
		return c64;
	return c32;
}

static int call_by_name(const char *operands)
{
	if (!operands || (!strstr(operands, "slowpath") && !strstr(operands, "__internal")))
		return KP_SASS_CALL_OTHER;
	if (strstr(operands, "div") && strstr(operands, "f32"))
		return KP_SASS_CALL_FDIV_SLOW;
	if (strstr(operands, "div") && strstr(operands, "f64"))
		return KP_SASS_CALL_DDIV_SLOW;
	if (strstr(operands, "sqrt") && strstr(operands, "f32"))
		return KP_SASS_CALL_FSQRT_SLOW;
	if (strstr(operands, "rcp") && strstr(operands, "f32"))
		return KP_SASS_CALL_FRCP_SLOW;
	return KP_SASS_CALL_OTHER;
}

int kp_sass_classify(const char *op, const char *operands)
{
	static const struct {
		const char *base;
		int cls;
	} simple[] = {
		{"LDL", KP_SASS_LDL},         {"STL", KP_SASS_STL},         {"LDS", KP_SASS_LDS},
		{"STS", KP_SASS_STS},         {"LDSM", KP_SASS_LDSM},       {"LDGSTS", KP_SASS_LDGSTS},
		{"UTMALDG", KP_SASS_UTMALDG}, {"UTMASTG", KP_SASS_UTMASTG}, {"HGMMA", KP_SASS_HGMMA},
		{"HMMA", KP_SASS_HMMA},       {"IMMA", KP_SASS_IMMA},       {"FFMA", KP_SASS_FFMA},
		{"FADD", KP_SASS_FADD},       {"FMUL", KP_SASS_FMUL},       {"HFMA2", KP_SASS_HFMA2},
		{"DFMA", KP_SASS_DFMA},       {"DADD", KP_SASS_DADD},       {"DMUL", KP_SASS_DMUL},
		{"BAR", KP_SASS_BAR},         {"SHFL", KP_SASS_SHFL},       {"ATOMG", KP_SASS_ATOMG},
		{"ATOMS", KP_SASS_ATOMS},     {"RED", KP_SASS_RED},         {"REDG", KP_SASS_RED},
		{"ATOM", KP_SASS_ATOM_OTHER}, {"IMAD", KP_SASS_IMAD},       {"BRA", KP_SASS_BRA},
		{"LDC", KP_SASS_LDC},         {"LD", KP_SASS_LD_GENERIC},   {"ST", KP_SASS_ST_GENERIC},
		{"IGMMA", KP_SASS_IGMMA},     {"QGMMA", KP_SASS_QGMMA},     {"DMMA", KP_SASS_DMMA},
		{"HADD2", KP_SASS_HADD2},     {"HMUL2", KP_SASS_HMUL2},     {"UBLKCP", KP_SASS_UBLKCP},
		{"UTMAREDG", KP_SASS_UTMAREDG},
	};
	if (base_is(op, "LDG"))
		return width_class(op, KP_SASS_LDG_32, KP_SASS_LDG_64, KP_SASS_LDG_128, KP_SASS_LDG_OTHER);
	if (base_is(op, "STG"))
		return width_class(op, KP_SASS_STG_32, KP_SASS_STG_64, KP_SASS_STG_128, KP_SASS_STG_OTHER);
	if (base_is(op, "MUFU")) {
		static const struct {
			const char *fn;
			int cls;
		} fns[] = {{"EX2", KP_SASS_MUFU_EX2},   {"LG2", KP_SASS_MUFU_LG2},   {"RCP", KP_SASS_MUFU_RCP},
			   {"RSQ", KP_SASS_MUFU_RSQ},   {"SQRT", KP_SASS_MUFU_SQRT}, {"SIN", KP_SASS_MUFU_SIN},
			   {"COS", KP_SASS_MUFU_COS},   {"TANH", KP_SASS_MUFU_TANH}};
		const char *fn = op + 5;
		for (size_t i = 0; i < KP_ARRAY_SIZE(fns); i++)
			if (base_is(fn, fns[i].fn))
				return fns[i].cls;
		return KP_SASS_MUFU_OTHER;
	}
	if (base_is(op, "CALL"))
		return call_by_name(operands);
	if (base_is(op, "F2F"))
		return has_mod(op, "F64") ? KP_SASS_F2F_F64 : -1;
	if (base_is(op, "I2F") || base_is(op, "I2FP"))
		return has_mod(op, "RP") ? KP_SASS_IDIV_SEQ : -1;
	for (size_t i = 0; i < KP_ARRAY_SIZE(simple); i++)
		if (base_is(op, simple[i].base))
			return simple[i].cls;
	return -1;
}

/* ---- building functions ------------------------------------------------------------------------ */

#define WINDOW 12 /* instructions looked back from a CALL to tell which slow path it is */

/*
 * Instructions only ever go to the function read last, so what is needed while counting (its
 * distinct opcodes, a hash map over them, the recent opcodes) exists once, not per function.
 */
struct sass_priv {
	struct kp_arena arena;
	struct kp_sass_func *funcs; /* every function read, in order; after parsing s->funcs */
	size_t nfuncs, alloc;
	struct kp_sass_opcount *ops; /* the current function's distinct opcodes */
	size_t nops, ops_alloc;
	struct kp_strmap opmap;       /* opcode -> index in ops */
	char recent[WINDOW][24]; /* its last opcodes, for CALL classification in cuobjdump output */
	unsigned nrecent;
	struct kp_pbudget budget;
	/* After parsing: lookups by mangled name, demangled name, key (and architecture). */
	struct kp_nameidx by_mangled, by_demangled, by_key;
};

#define warn(x, ...) kp_profile_warn(&(x)->warnings, __VA_ARGS__)

/* The current function's opcodes, counted, sorted, into the arena; the per-function state reset. */
static void finish_func(struct sass_priv *p)
{
	struct kp_sass_func *f;
	if (!p->nfuncs)
		return;
	f = &p->funcs[p->nfuncs - 1];
	f->nops = p->nops;
	f->ops = kp_arena_calloc(&p->arena, p->nops ? p->nops : 1, sizeof(*f->ops));
	if (p->nops)
		memcpy(f->ops, p->ops, p->nops * sizeof(*p->ops));
	p->nops = 0;
	p->nrecent = 0;
	kp_strmap_clear(&p->opmap);
}

static struct kp_sass_func *new_func(struct sass_priv *p, const char *name, size_t n, const char *arch, int line,
				     struct kp_error *err)
{
	struct kp_sass_func *f;
	finish_func(p);
	if (kp_pbudget_add(&p->budget, sizeof(*f) + n + 1, line, err))
		return NULL;
	KP_ALLOC_GROW(p->funcs, p->nfuncs + 1, p->alloc);
	f = &p->funcs[p->nfuncs++];
	memset(f, 0, sizeof(*f));
	f->mangled = kp_arena_strndup(&p->arena, name, n);
	f->arch = arch && *arch ? kp_arena_strdup(&p->arena, arch) : NULL;
	return f;
}

static int window_has(const struct sass_priv *p, const char *base)
{
	unsigned n = p->nrecent < WINDOW ? p->nrecent : WINDOW;
	for (unsigned i = 0; i < n; i++)
		if (base_is(p->recent[(p->nrecent - 1 - i) % WINDOW], base))
			return 1;
	return 0;
}

static int window_has_op(const struct sass_priv *p, const char *op)
{
	unsigned n = p->nrecent < WINDOW ? p->nrecent : WINDOW;
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(p->recent[(p->nrecent - 1 - i) % WINDOW], op))
			return 1;
	return 0;
}

/* The current function's entry for opcode `opc`, added when new; NULL past the memory cap. */
static struct kp_sass_opcount *opcount(struct sass_priv *p, const char *opc, int line, struct kp_error *err)
{
	size_t *i = kp_strmap_find(&p->opmap, opc);
	struct kp_sass_opcount *oc;
	if (i)
		return &p->ops[*i];
	if (kp_pbudget_add(&p->budget, 2 * sizeof(*p->ops) + strlen(opc) + 1, line, err))
		return NULL;
	KP_ALLOC_GROW(p->ops, p->nops + 1, p->ops_alloc);
	oc = &p->ops[p->nops];
	oc->opcode = kp_arena_strdup(&p->arena, opc);
	oc->count = 0;
	oc->executed = 0;
	kp_strmap_set(&p->opmap, oc->opcode, p->nops++);
	return oc;
}

/*
 * Counts one instruction of the current function; `executed` is its warp-level execution count
 * when known (else < 0). Fails only past the memory cap.
 */
static int add_instr(struct sass_priv *p, const char *op, size_t oplen, const char *operands, double executed,
		     int line, struct kp_error *err)
{
	struct kp_sass_func *f = &p->funcs[p->nfuncs - 1];
	struct kp_sass_opcount *oc;
	char opc[64];
	int cls;
	if (oplen >= sizeof(opc))
		oplen = sizeof(opc) - 1;
	memcpy(opc, op, oplen);
	opc[oplen] = '\0';
	if (!strcmp(opc, "NOP")) {
		f->nnop++;
		return 0;
	}
	f->ninstr++;
	cls = kp_sass_classify(opc, operands);
	if (cls == KP_SASS_CALL_OTHER && !(operands && strchr(operands, '`'))) {
		/* cuobjdump prints call targets as addresses: tell the slow path by what precedes it */
		if (window_has(p, "FCHK"))
			cls = KP_SASS_CALL_FDIV_SLOW;
		else if (window_has_op(p, "MUFU.RCP64H"))
			cls = KP_SASS_CALL_DDIV_SLOW;
		else if (window_has(p, "MUFU.RSQ"))
			cls = KP_SASS_CALL_FSQRT_SLOW;
		else if (window_has_op(p, "MUFU.RCP"))
			cls = KP_SASS_CALL_FRCP_SLOW;
	}
	if (cls >= 0) {
		f->counts[cls]++;
		if (executed >= 0)
			f->executed[cls] += executed;
	}
	if (executed >= 0) {
		f->has_executed = 1;
		f->executed_total += executed;
	}
	kp_strlcpy(p->recent[p->nrecent % WINDOW], opc, sizeof(p->recent[0]));
	p->nrecent++;
	if (!(oc = opcount(p, opc, line, err)))
		return KP_ETOOBIG;
	oc->count++;
	if (executed > 0)
		oc->executed += executed;
	return 0;
}

/*
 * Splits an instruction text "[{] [@!P0] OPCODE operands [;] [}]" into opcode and
 * operands. Returns 0, or -1 when there is no opcode.
 */
static int split_instr(const char *s, const char **op, size_t *oplen, char *operands, size_t opsize)
{
	const char *e;
	size_t n;
	while (isspace((unsigned char)*s) || *s == '{')
		s++;
	if (*s == '@') {
		s++;
		if (*s == '!')
			s++;
		if (*s == 'U')
			s++;
		if (*s != 'P')
			return -1;
		while (*s && !isspace((unsigned char)*s))
			s++;
		while (isspace((unsigned char)*s))
			s++;
	}
	e = s;
	while (isalnum((unsigned char)*e) || *e == '_' || *e == '.') /* "HGMMA.64x256x8.F32" */
		e++;
	if (e == s || !isupper((unsigned char)*s) || (*e && !isspace((unsigned char)*e) && *e != ';'))
		return -1;
	*op = s;
	*oplen = (size_t)(e - s);
	while (isspace((unsigned char)*e))
		e++;
	n = strcspn(e, ";");
	if (n >= opsize)
		n = opsize - 1;
	memcpy(operands, e, n);
	operands[n] = '\0';
	return 0;
}

/* ---- cuobjdump / nvdisasm text --------------------------------------------------------------- */

static void set_arch_from_flags(const char *line, char *arch, size_t n)
{
	const char *p = strstr(line, "EF_CUDA_SM");
	if (p) {
		const char *d = p + 10;
		size_t k = 0;
		char num[8];
		while (isdigit((unsigned char)d[k]) && k + 1 < sizeof(num)) {
			num[k] = d[k];
			k++;
		}
		num[k] = '\0';
		if (k)
			snprintf(arch, n, "sm_%s", num);
	}
}

static void copy_token(const char *s, char *out, size_t n)
{
	size_t k = 0;
	while (isspace((unsigned char)*s))
		s++;
	while (s[k] && !isspace((unsigned char)s[k]) && s[k] != ',' && k + 1 < n) {
		out[k] = s[k];
		k++;
	}
	out[k] = '\0';
}

/* Over 80 lines: one pass over the lines with one branch per kind of line (function, arch, section,
 * end marker, instruction), all sharing the current function; it reads best as one dispatch. */
static int parse_text(struct kp_sass *s, struct sass_priv *p, const char *what, char *text, size_t len,
		      struct kp_error *err)
{
	char arch[32] = "";
	long cur = -1;
	int line = 0, bad = 0;
	char *q = text, *end = text + len;
	int nvdisasm = 0;
	while (q < end) {
		char *nl = memchr(q, '\n', (size_t)(end - q));
		char *l = q, *le = nl ? nl : end;
		q = nl ? nl + 1 : end;
		line++;
		if (le > l && le[-1] == '\r')
			le--;
		*le = '\0';
		while (isspace((unsigned char)*l))
			l++;
		if (!*l)
			continue;
		if (!strncmp(l, "Function : ", 11)) {
			const char *name = kp_str_trim(l + 11);
			if (cur >= 0 && !p->funcs[cur].complete)
				warn(s, "%s:%d: function '%s' has no end marker", what, line, p->funcs[cur].mangled);
			if (!new_func(p, name, strlen(name), arch, line, err))
				return KP_ETOOBIG;
			cur = (long)p->nfuncs - 1;
			continue;
		}
		if (!strncmp(l, "arch = ", 7) || !strncmp(l, "code for ", 9) || !strncmp(l, ".target", 7)) {
			copy_token(l + (l[0] == 'a' ? 7 : l[0] == 'c' ? 9 : 7), arch, sizeof(arch));
			continue;
		}
		if (!strncmp(l, "Fatbin ptx code", 15)) {
			cur = -1;
			continue;
		}
		if (!strncmp(l, ".headerflags", 12)) {
			set_arch_from_flags(l, arch, sizeof(arch));
			if (cur >= 0 && !p->funcs[cur].arch && arch[0])
				p->funcs[cur].arch = kp_arena_strdup(&p->arena, arch);
			continue;
		}
		if (!strncmp(l, ".section", 8)) {
			char name[1024];
			copy_token(l + 8, name, sizeof(name));
			nvdisasm = 1;
			if (!strncmp(name, ".text.", 6) && name[6]) {
				if (!new_func(p, name + 6, strlen(name + 6), arch, line, err))
					return KP_ETOOBIG;
				cur = (long)p->nfuncs - 1;
				p->funcs[cur].complete = 1; /* nvdisasm has no end marker: sections are whole */
			} else {
				cur = -1;
			}
			continue;
		}
		if (!strncmp(l, "..........", 10)) {
			if (cur >= 0)
				p->funcs[cur].complete = 1;
			continue;
		}
		if (l[0] == '/' && l[1] == '*' && isxdigit((unsigned char)l[2])) {
			char *close = strstr(l, "*/");
			const char *op;
			size_t oplen;
			char operands[512];
			if (!close)
				continue;
			l = close + 2;
			while (isspace((unsigned char)*l))
				l++;
			if (*l == '.' || !*l) /* .byte / .word data, or an empty slot */
				continue;
			if (cur < 0)
				continue;
			if (split_instr(l, &op, &oplen, operands, sizeof(operands))) {
				if (bad++ < 5)
					warn(s, "%s:%d: unreadable instruction '%.60s'", what, line, l);
				s->incomplete = 1;
				continue;
			}
			if (add_instr(p, op, oplen, operands, -1, line, err))
				return KP_ETOOBIG;
		}
	}
	if (cur >= 0 && !p->funcs[cur].complete) {
		warn(s, "%s: function '%s' is cut off (no end marker; truncated file?)", what, p->funcs[cur].mangled);
		s->incomplete = 1;
	}
	s->format = nvdisasm ? "nvdisasm" : "cuobjdump";
	return 0;
}

/* ---- ncu source page ------------------------------------------------------------------------- */

static int parse_ncu_source(struct kp_sass *s, struct sass_priv *p, const char *what, char *text, size_t len,
			    struct kp_error *err)
{
	struct kp_csv c;
	struct kp_csv_row row = {0};
	long cur = -1, c_src = -1, c_exec = -1;
	int rc;
	kp_csv_init(&c, what, text, len);
	c.budget = &p->budget;
	c.skip_unquoted = 1;
	while ((rc = kp_csv_next(&c, &row, err)) == 1) {
		if (row.n >= 2 && !strcmp(row.f[0], "Kernel Name")) {
			struct kp_sass_func *f = new_func(p, row.f[1], strlen(row.f[1]), NULL, row.line, err);
			if (!f) {
				rc = KP_ETOOBIG;
				break;
			}
			cur = (long)p->nfuncs - 1;
			f->demangled = f->mangled;
			if (strncmp(row.f[1], "_Z", 2))
				f->mangled = NULL;
			f->complete = 1;
			c_src = c_exec = -1;
			continue;
		}
		if (row.n >= 2 && !strcmp(row.f[0], "Address")) {
			c_src = kp_csv_col(&row, "Source");
			c_exec = kp_csv_col(&row, "Instructions Executed");
			continue;
		}
		if (cur < 0 || c_src < 0 || (size_t)c_src >= row.n)
			continue;
		{
			const char *op;
			size_t oplen;
			char operands[512];
			double ex = -1;
			if (split_instr(row.f[c_src], &op, &oplen, operands, sizeof(operands))) {
				warn(s, "%s:%d: unreadable instruction '%.60s'", what, row.line, row.f[c_src]);
				s->incomplete = 1;
				continue;
			}
			if (c_exec >= 0 && (size_t)c_exec < row.n) {
				const char *v = row.f[c_exec];
				char *e;
				double d = strtod(v, &e);
				if (e != v && !*e && d >= 0)
					ex = d;
			}
			if (row.truncated) {
				warn(s, "%s:%d: cut off (truncated file?)", what, row.line);
				s->incomplete = 1;
				p->funcs[cur].complete = 0;
				ex = -1;
			}
			if (add_instr(p, op, oplen, operands, ex, row.line, err)) {
				rc = KP_ETOOBIG;
				break;
			}
		}
	}
	kp_csv_row_release(&row);
	s->format = "ncu-source";
	return rc < 0 ? rc : 0;
}

/* ---- deduplication ------------------------------------------------------------------------------ */

static const char *fname(const struct kp_sass_func *f)
{
	return f->mangled ? f->mangled : f->demangled;
}

static int same_function(const struct kp_sass_func *a, const struct kp_sass_func *b)
{
	const char *aa = a->arch ? a->arch : "", *ab = b->arch ? b->arch : "";
	return fname(a) && fname(b) && !strcmp(fname(a), fname(b)) && !strcmp(aa, ab) && a->ninstr == b->ninstr;
}

/* Orders function indices by name (unnamed first), architecture, size, then file order. */
static int by_identity(const void *x, const void *y, void *ud)
{
	const struct kp_sass_func *fs = ud, *a = &fs[*(const size_t *)x], *b = &fs[*(const size_t *)y];
	const char *na = fname(a), *nb = fname(b);
	int c = !na || !nb ? (na != NULL) - (nb != NULL) : strcmp(na, nb);
	if (!c)
		c = strcmp(a->arch ? a->arch : "", b->arch ? b->arch : "");
	if (!c)
		c = (a->ninstr > b->ninstr) - (a->ninstr < b->ninstr);
	if (!c)
		c = (*(const size_t *)x > *(const size_t *)y) - (*(const size_t *)x < *(const size_t *)y);
	return c;
}

/*
 * Drops repeated functions (same name, architecture and size: the same kernel dumped twice, a
 * repeated source-page block), keeping the first, in O(n log n): sorted by identity, a function
 * equal to its predecessor is a repeat.
 */
static void dedup(struct sass_priv *p)
{
	size_t *ix = kp_xcalloc(p->nfuncs, sizeof(*ix));
	unsigned char *drop = kp_xcalloc(p->nfuncs, 1);
	size_t n = 0;
	for (size_t i = 0; i < p->nfuncs; i++)
		ix[i] = i;
	qsort_r(ix, p->nfuncs, sizeof(*ix), by_identity, p->funcs);
	for (size_t i = 1; i < p->nfuncs; i++)
		if (same_function(&p->funcs[ix[i - 1]], &p->funcs[ix[i]]))
			drop[ix[i]] = 1;
	for (size_t i = 0; i < p->nfuncs; i++)
		if (!drop[i])
			p->funcs[n++] = p->funcs[i];
	p->nfuncs = n;
	free(ix);
	free(drop);
}

/* ---- public ------------------------------------------------------------------------------------- */

static int opcount_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kp_sass_opcount *)a)->opcode, ((const struct kp_sass_opcount *)b)->opcode);
}

int kp_sass_parse(struct kp_sass *s, const char *what, const char *text, size_t len, struct kp_error *err)
{
	struct sass_priv *p;
	char *copy;
	const char *t = text;
	int rc;
	if (s->priv)
		return kp_error_set(err, KP_EINVAL, "%s: SASS already parsed into this structure", what);
	p = kp_xcalloc(1, sizeof(*p));
	s->priv = p;
	if ((rc = kp_pbudget_init(&p->budget, what, len, err)))
		goto out;
	copy = kp_arena_strndup(&p->arena, text, len);
	while (t < text + len && isspace((unsigned char)*t))
		t++;
	if (text + len - t >= 14 && !strncmp(t, "\"Kernel Name\",", 14))
		rc = parse_ncu_source(s, p, what, copy, len, err);
	else
		rc = parse_text(s, p, what, copy, len, err);
	if (rc)
		goto out;
	finish_func(p);
	if (!p->nfuncs) {
		rc = kp_error_set(err, KP_EPARSE,
				  "%s: no SASS functions found; expected 'cuobjdump -sass', 'nvdisasm' or "
				  "'ncu --page source --print-source sass --csv' output",
				  what);
		goto out;
	}
	if ((rc = kp_pbudget_add(&p->budget, p->nfuncs * 5 * sizeof(size_t), 0, err)))
		goto out;
	dedup(p);
	for (size_t i = 0; i < p->nfuncs; i++) {
		struct kp_sass_func *f = &p->funcs[i];
		char *key = kp_kernel_name_key(fname(f));
		if (f->nops)
			qsort(f->ops, f->nops, sizeof(*f->ops), opcount_cmp);
		f->key = kp_arena_strdup(&p->arena, key ? key : "");
		free(key);
		if (f->arch && !kp_sass_arch_known(f->arch) && !s->unknown_arch) {
			s->unknown_arch = 1;
			warn(s, "%s: no opcode table for architecture '%s'; counts for its functions are partial", what,
			     f->arch);
		}
	}
	s->funcs = p->funcs;
	s->nfuncs = p->nfuncs;
	kp_nameidx_build(&p->by_mangled, p->funcs, p->nfuncs, sizeof(*p->funcs), offsetof(struct kp_sass_func, mangled),
			 KP_NAMEIDX_NONE, NULL);
	kp_nameidx_build(&p->by_demangled, p->funcs, p->nfuncs, sizeof(*p->funcs),
			 offsetof(struct kp_sass_func, demangled), KP_NAMEIDX_NONE, NULL);
	kp_nameidx_build(&p->by_key, p->funcs, p->nfuncs, sizeof(*p->funcs), offsetof(struct kp_sass_func, key),
			 offsetof(struct kp_sass_func, arch), NULL);
	rc = 0;
out:
	free(p->ops);
	p->ops = NULL;
	p->nops = p->ops_alloc = 0;
	kp_strmap_release(&p->opmap);
	return rc;
}

void kp_sass_release(struct kp_sass *s)
{
	struct sass_priv *p = s->priv;
	if (p) {
		kp_arena_release(&p->arena);
		free(p->funcs);
		free(p->ops);
		kp_strmap_release(&p->opmap);
		kp_nameidx_release(&p->by_mangled);
		kp_nameidx_release(&p->by_demangled);
		kp_nameidx_release(&p->by_key);
		free(p);
	}
	kp_buf_release(&s->warnings);
	memset(s, 0, sizeof(*s));
	s->warnings = (struct kp_buf)KP_BUF_INIT;
}

const struct kp_sass_func *kp_sass_find(const struct kp_sass *s, const char *name)
{
	const struct sass_priv *p;
	const struct kp_sass_func *a, *b, *f;
	char *key;
	if (!name || !s || !s->priv)
		return NULL;
	p = s->priv;
	a = kp_nameidx_first(&p->by_mangled, name);
	b = kp_nameidx_first(&p->by_demangled, name);
	if (a || b)
		return !b || (a && a < b) ? a : b;
	/* after deduplication, no two functions with one key are the same function: one, or ambiguous */
	key = kp_kernel_name_key(name);
	f = key ? kp_nameidx_unique(&p->by_key, key, NULL) : NULL;
	free(key);
	return f;
}

/* Several instances share the key (AT_DISPATCH's float and double): the one of the launch's
   architecture whose template arguments are the launch's; NULL unless exactly one. */
static const struct kp_sass_func *by_template_args(const struct kp_sass *s, const char *key, const char *arch,
						   const char *kernel)
{
	const struct kp_sass_func *hit = NULL;
	for (size_t i = 0; i < s->nfuncs; i++) {
		const struct kp_sass_func *f = &s->funcs[i];
		if (!f->key || strcmp(f->key, key) || (arch[0] && f->arch && strcmp(f->arch, arch)) ||
		    !kp_kernel_template_args_equal(f->mangled, kernel))
			continue;
		if (hit)
			return NULL;
		hit = f;
	}
	return hit;
}

const struct kp_sass_func *kp_sass_find_launch(const struct kp_sass *s, const struct kp_launch *l)
{
	const struct sass_priv *p;
	const struct kp_sass_func *f;
	char arch[16] = "";
	char *key;
	if (!s || !l || !s->priv)
		return NULL;
	p = s->priv;
	if (l->mangled && (f = kp_sass_find(s, l->mangled)))
		return f;
	if (l->kernel && (f = kp_nameidx_first(&p->by_demangled, l->kernel)))
		return f;
	if (l->cc && isdigit((unsigned char)l->cc[0])) {
		/* "9.0" -> "sm_90" */
		size_t k = 3;
		memcpy(arch, "sm_", 3);
		for (const char *c = l->cc; *c && k + 1 < sizeof(arch); c++)
			if (isdigit((unsigned char)*c))
				arch[k++] = *c;
		arch[k] = '\0';
	}
	key = kp_kernel_name_key(l->function ? l->function : l->kernel);
	f = NULL;
	if (key) {
		if (arch[0])
			f = kp_nameidx_unique(&p->by_key, key, arch);
		if (!f)
			f = kp_nameidx_unique(&p->by_key, key, NULL);
		if (!f && l->kernel)
			f = by_template_args(s, key, arch, l->kernel);
	}
	free(key);
	return f;
}
