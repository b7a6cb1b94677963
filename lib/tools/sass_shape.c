/*
 * The shape of a kernel's FP32 work, read from its SASS: the hot inner loop (a backward branch
 * with the most FFMAs; the whole function when nothing loops) and, in it, the FFMAs that
 * accumulate a product of two values loaded in the loop by different loads (a dot product's
 * `acc += a[i] * b[j]`), against those that multiply a running value (a recurrence, a
 * polynomial) or a constant (a stencil). The tensor_cores tool uses it to tell matrix products
 * from other FMA chains. Reads cuobjdump, nvdisasm and ncu's source page (which adds executed
 * counts, so the hot loop is the one that ran most).
 */
#include "base/setup.h"

#include <ctype.h>

#include "kernelpro/tools.h"

enum def_kind { D_NONE = 0, D_LOAD, D_FMA, D_MOVE, D_CONV, D_OTHER };

struct sinstr {
	unsigned long addr;
	char op[48];              /* opcode with modifiers: "LDS.U.128" */
	char opnd[4][40];         /* the first four operands, trimmed */
	int nopnd;
	char target[40];          /* a branch's target: hex address or nvdisasm label */
	double executed;          /* warp-level executions (ncu source page), else -1 */
};

struct label {
	char name[40];
	size_t at;                /* index of the next instruction */
};

struct reader {
	struct sinstr *v;
	size_t n, alloc;
	struct label *lab;
	size_t nlab, laballoc;
};

/* ---- Reading one function's instructions ---------------------------------------------------- */

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Copies s[0..n) trimmed into out (at most cap-1 bytes). */
static void copy_trim(char *out, size_t cap, const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= cap)
		n = cap - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* "[@!P0] OPCODE a, b, c [;]" into one instruction; 0 when it holds an opcode. */
static int read_instr(const char *s, unsigned long addr, double executed, struct sinstr *in)
{
	const char *e;
	memset(in, 0, sizeof(*in));
	in->addr = addr;
	in->executed = executed;
	s = skip_ws(s);
	if (*s == '{')
		s = skip_ws(s + 1);
	if (*s == '@') {
		while (*s && !isspace((unsigned char)*s))
			s++;
		s = skip_ws(s);
	}
	for (e = s; isalnum((unsigned char)*e) || *e == '_' || *e == '.'; e++)
		;
	if (e == s || !isupper((unsigned char)*s))
		return -1;
	copy_trim(in->op, sizeof(in->op), s, (size_t)(e - s));
	for (s = e; *s && *s != ';' && *s != '}' && *s != '\n';) {
		const char *c = s;
		while (*c && *c != ',' && *c != ';' && *c != '}' && *c != '\n')
			c++;
		if (in->nopnd < 4)
			copy_trim(in->opnd[in->nopnd], sizeof(in->opnd[0]), s, (size_t)(c - s));
		in->nopnd++;
		s = *c == ',' ? c + 1 : c;
		if (s == c)
			break;
	}
	if (!strncmp(in->op, "BRA", 3) && in->nopnd > 0) {
		/* the target is the last operand: "0x140", "`(.L_x_1)" */
		const char *t = in->opnd[in->nopnd > 4 ? 3 : in->nopnd - 1];
		while (*t == '`' || *t == '(')
			t++;
		copy_trim(in->target, sizeof(in->target), t, strcspn(t, ")"));
	}
	return 0;
}

static void push(struct reader *r, const struct sinstr *in)
{
	KP_ALLOC_GROW(r->v, r->n + 1, r->alloc);
	r->v[r->n++] = *in;
}

static void push_label(struct reader *r, const char *s, size_t n)
{
	KP_ALLOC_GROW(r->lab, r->nlab + 1, r->laballoc);
	copy_trim(r->lab[r->nlab].name, sizeof(r->lab[0].name), s, n);
	r->lab[r->nlab++].at = r->n;
}

/* One line of cuobjdump/nvdisasm output inside the function (trimmed, NUL-terminated): an instruction or a label. */
static void text_line(struct reader *r, const char *l, const char *end)
{
	struct sinstr in;
	size_t n = (size_t)(end - l);
	if (l[0] == '/' && l[1] == '*' && isxdigit((unsigned char)l[2])) {
		const char *close = strstr(l, "*/");
		unsigned long addr = strtoul(l + 2, NULL, 16);
		if (close && !read_instr(close + 2, addr, -1, &in))
			push(r, &in);
	} else if (l[0] == '.' && n > 1 && l[n - 1] == ':' && strncmp(l, ".text.", 6)) {
		push_label(r, l, n - 1);
	}
}

/* The next quoted CSV field of s into out; returns where the following field starts, or NULL. */
static const char *csv_field(const char *s, const char *end, char *out, size_t cap)
{
	size_t k = 0;
	if (s >= end || *s != '"')
		return NULL;
	for (s++; s < end; s++) {
		if (*s == '"') {
			if (s + 1 < end && s[1] == '"') {
				s++;
			} else {
				s++;
				break;
			}
		}
		if (k + 1 < cap)
			out[k++] = *s;
	}
	out[k] = '\0';
	return s < end && *s == ',' ? s + 1 : s;
}

/* One row of ncu's source page: "ADDRESS","SOURCE","EXECUTED",... */
static void csv_line(struct reader *r, const char *l, const char *end)
{
	char addr[40], src[400], ex[40];
	struct sinstr in;
	char *e;
	double executed;
	if (!(l = csv_field(l, end, addr, sizeof(addr))) || strncmp(addr, "0x", 2) ||
	    !(l = csv_field(l, end, src, sizeof(src))))
		return;
	executed = csv_field(l, end, ex, sizeof(ex)) ? strtod(ex, &e) : -1;
	if (executed >= 0 && *e)
		executed = -1;
	if (!read_instr(src, strtoul(addr, NULL, 16), executed, &in))
		push(r, &in);
}

/* Whether line l (trimmed) opens the function `name`, in any of the three formats; *csv is set for ncu's. */
static int opens(const char *l, const char *end, const char *name, size_t nlen, int *csv)
{
	size_t n = (size_t)(end - l);
	if (n > 11 && !strncmp(l, "Function : ", 11)) {
		const char *s = skip_ws(l + 11);
		size_t k = (size_t)(end - s);
		while (k && isspace((unsigned char)s[k - 1]))
			k--;
		return k == nlen && !memcmp(s, name, nlen);
	}
	if (n > 8 && !strncmp(l, ".section", 8)) {
		const char *s = skip_ws(l + 8);
		return (size_t)(end - s) > nlen + 6 && !strncmp(s, ".text.", 6) && !memcmp(s + 6, name, nlen) &&
		       (s[6 + nlen] == ',' || isspace((unsigned char)s[6 + nlen]));
	}
	if (n > 15 && !strncmp(l, "\"Kernel Name\",\"", 15)) {
		*csv = 1;
		return n >= 15 + nlen + 1 && !memcmp(l + 15, name, nlen) && l[15 + nlen] == '"';
	}
	return 0;
}

static int closes(const char *l, const char *end)
{
	size_t n = (size_t)(end - l);
	return (n >= 10 && !strncmp(l, "..........", 10)) || (n > 11 && !strncmp(l, "Function : ", 11)) ||
	       (n > 8 && !strncmp(l, ".section", 8)) || (n > 14 && !strncmp(l, "\"Kernel Name\"", 13));
}

/* The instructions of function `name`; 1 when it was found, 0 when not. Lines are read into a
   bounded copy (the text need not end in a NUL; longer lines are cut, no instruction is that long). */
static int read_function(struct reader *r, const char *text, size_t len, const char *name)
{
	const char *q = text, *end = text + len;
	size_t nlen = strlen(name);
	int in = 0, csv = 0, found = 0;
	char line[1024];
	while (q < end) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		size_t n = (size_t)((nl ? nl : end) - q);
		const char *l, *le;
		copy_trim(line, sizeof(line), q, n);
		q = nl ? nl + 1 : end;
		l = line;
		le = line + strlen(line);
		if (in && closes(l, le))
			break;
		if (!in) {
			int c = 0;
			if (opens(l, le, name, nlen, &c))
				in = found = 1, csv = c;
			continue;
		}
		if (csv)
			csv_line(r, l, le);
		else
			text_line(r, l, le);
	}
	return found;
}

/* ---- The hot loop and its data flow --------------------------------------------------------- */

/* "R12", "-R12.reuse", "|R3|" -> 12; -1 for RZ, predicates, immediates, memory operands. */
static int reg_of(const char *o)
{
	char *e;
	long v;
	while (*o == '-' || *o == '|' || *o == '!')
		o++;
	if (o[0] != 'R' || !isdigit((unsigned char)o[1]))
		return -1;
	v = strtol(o + 1, &e, 10);
	return *e && *e != '.' && *e != '|' ? -1 : (int)v;
}

static int base_is(const char *op, const char *base)
{
	size_t n = strlen(base);
	return !strncmp(op, base, n) && (op[n] == '\0' || op[n] == '.');
}

static int has_mod(const char *op, const char *mod)
{
	const char *p = strchr(op, '.');
	size_t n = strlen(mod);
	for (; p; p = strchr(p + 1, '.'))
		if (!strncmp(p + 1, mod, n) && (p[1 + n] == '\0' || p[1 + n] == '.'))
			return 1;
	return 0;
}

/* The multiply-adds a matrix product's inner loop is made of on the CUDA cores: FFMA, and HFMA2
   (two FP16 lanes; HFMA2.MMA is the same operation issued to another pipe) that multiplies two
   registers: ptxas also materializes constants with "HFMA2.MMA Rd, -RZ, RZ, imm, imm". */
static int is_ffma(const struct sinstr *in)
{
	if (base_is(in->op, "FFMA"))
		return 1;
	return base_is(in->op, "HFMA2") && in->nopnd >= 3 && reg_of(in->opnd[1]) >= 0 && reg_of(in->opnd[2]) >= 0;
}

static int is_load(const char *op)
{
	return base_is(op, "LDS") || base_is(op, "LDG") || base_is(op, "LDSM") || base_is(op, "LD") ||
	       base_is(op, "LDL");
}

/*
 * A 16-bit value widened to FP32 on its way from a load to an FFMA: HADD2.F32 (FP16 -> FP32),
 * F2F, PRMT (unpacking), and bf16's shift into the upper half (SHF.L.U32 x, 0x10; IMAD.U32 x,
 * 0x10000; IMAD.SHL.U32 x, 0x10; LOP3.LUT x & 0xffff0000). Other shifts and multiplies are
 * address arithmetic and stay D_OTHER.
 */
static int is_widening(const struct sinstr *in)
{
	const char *op = in->op, *k = in->nopnd > 2 ? in->opnd[2] : "";
	if ((base_is(op, "HADD2") && has_mod(op, "F32")) || base_is(op, "F2F") || base_is(op, "PRMT"))
		return 1;
	if (base_is(op, "SHF") && has_mod(op, "L") && !strcmp(k, "0x10"))
		return 1;
	if (base_is(op, "IMAD") && has_mod(op, "U32") && (!strcmp(k, "0x10000") || (has_mod(op, "SHL") && !strcmp(k, "0x10"))))
		return 1;
	return base_is(op, "LOP3") && !strcmp(k, "0xffff0000");
}

static enum def_kind kind_of(const char *op)
{
	if (is_load(op))
		return D_LOAD;
	if (base_is(op, "FFMA") || base_is(op, "FMUL") || base_is(op, "FADD") || base_is(op, "HFMA2") ||
	    base_is(op, "DFMA"))
		return D_FMA;
	if (base_is(op, "MOV") || (base_is(op, "IMAD") && has_mod(op, "MOV")))
		return D_MOVE;
	return D_OTHER;
}

/* Registers an instruction writes: its first operand, widened by a vector load's width. */
static int defines(const struct sinstr *in, int reg)
{
	int d = in->nopnd ? reg_of(in->opnd[0]) : -1, w = 1;
	if (d < 0 || base_is(in->op, "BRA"))
		return 0;
	if (is_load(in->op))
		w = has_mod(in->op, "128") ? 4 : has_mod(in->op, "64") ? 2 : 1;
	return reg >= d && reg < d + w;
}

/* The source register a move copies (the last operand), -1 when it copies no register. */
static int move_source(const struct sinstr *in)
{
	return in->nopnd > 1 ? reg_of(in->opnd[in->nopnd > 4 ? 3 : in->nopnd - 1]) : -1;
}

struct origin {
	enum def_kind kind;
	long at;     /* the defining instruction, -1 when defined before the region */
	int widened; /* a load's 16-bit value reached the reader through a widening conversion */
};

/*
 * What defines `reg` as read by instruction i of region [b, e]: the last write before i, else
 * (a loop) the last write in the rest of the body, the value carried from the previous
 * iteration; moves are followed to what they copy.
 */
static struct origin origin_of(const struct reader *r, size_t b, size_t e, int loop, size_t i, int reg, int depth)
{
	struct origin o = {D_NONE, -1, 0};
	if (reg < 0)
		return o;
	for (size_t k = i; k-- > b;)
		if (defines(&r->v[k], reg)) {
			o.at = (long)k;
			break;
		}
	if (o.at < 0 && loop)
		for (size_t k = e + 1; k-- > i;)
			if (defines(&r->v[k], reg)) {
				o.at = (long)k;
				break;
			}
	if (o.at < 0)
		return o;
	o.kind = is_widening(&r->v[o.at]) ? D_CONV : kind_of(r->v[o.at].op);
	if (o.kind == D_MOVE && depth < 4)
		return origin_of(r, b, e, loop, (size_t)o.at, move_source(&r->v[o.at]), depth + 1);
	if (o.kind == D_CONV && depth < 4) { /* the widened value's origin: the first register operand from a load */
		const struct sinstr *cv = &r->v[o.at];
		for (int k = 1; k < cv->nopnd && k < 4; k++) {
			struct origin src = origin_of(r, b, e, loop, (size_t)o.at, reg_of(cv->opnd[k]), depth + 1);
			if (src.kind == D_LOAD) {
				src.widened = 1;
				return src;
			}
		}
	}
	return o;
}

/* The index of the instruction a branch goes to, or -1 (a computed or unknown target). */
static long branch_to(const struct reader *r, const struct sinstr *br)
{
	if (!strncmp(br->target, "0x", 2)) {
		unsigned long a = strtoul(br->target, NULL, 16);
		for (size_t i = 0; i < r->n; i++)
			if (r->v[i].addr == a)
				return (long)i;
		return -1;
	}
	for (size_t i = 0; i < r->nlab; i++)
		if (!strcmp(r->lab[i].name, br->target))
			return r->lab[i].at < r->n ? (long)r->lab[i].at : -1;
	return -1;
}

/* FFMAs of [b, e], weighted by their executions when known. */
static double ffma_weight(const struct reader *r, size_t b, size_t e)
{
	double w = 0;
	for (size_t i = b; i <= e; i++)
		if (is_ffma(&r->v[i]))
			w += r->v[i].executed >= 0 ? r->v[i].executed : 1;
	return w;
}

/* The innermost loop with the most FFMA work: [*b, *e]; 0 when nothing loops. */
static int hot_loop(const struct reader *r, size_t *b, size_t *e, unsigned *nloops)
{
	double best = 0;
	int found = 0;
	*nloops = 0;
	for (size_t i = 0; i < r->n; i++) {
		long t = base_is(r->v[i].op, "BRA") ? branch_to(r, &r->v[i]) : -1;
		int inner = 1;
		double w;
		if (t < 0 || (size_t)t > i)
			continue;
		(*nloops)++;
		for (size_t j = (size_t)t; j < i && inner; j++) { /* another backward branch inside: not innermost */
			long t2 = base_is(r->v[j].op, "BRA") ? branch_to(r, &r->v[j]) : -1;
			inner = !(t2 >= t && (size_t)t2 <= j);
		}
		if (!inner)
			continue;
		w = ffma_weight(r, (size_t)t, i);
		if (!found || w > best) {
			best = w;
			*b = (size_t)t;
			*e = i;
			found = 1;
		}
	}
	return found && best > 0;
}

struct mult {
	long load;
	int reg;
	unsigned uses;
};

static void count_use(struct mult *m, size_t *nm, size_t cap, long load, int reg)
{
	for (size_t i = 0; i < *nm; i++)
		if (m[i].load == load && m[i].reg == reg) {
			m[i].uses++;
			return;
		}
	if (*nm < cap)
		m[(*nm)++] = (struct mult){load, reg, 1};
}

static void analyze_region(const struct reader *r, size_t b, size_t e, int loop, struct kp_sass_shape *s)
{
	struct mult m[256];
	size_t nm = 0;
	for (size_t i = b; i <= e; i++) {
		const struct sinstr *in = &r->v[i];
		struct origin x, y, c;
		if (is_load(in->op)) {
			s->loads++;
			s->ldg += base_is(in->op, "LDG");
			s->lds += base_is(in->op, "LDS") || base_is(in->op, "LDSM");
		}
		if (!is_ffma(in) || in->nopnd < 4)
			continue;
		s->ffma++;
		if (base_is(in->op, "HFMA2"))
			s->hfma2++;
		x = origin_of(r, b, e, loop, i, reg_of(in->opnd[1]), 0);
		y = origin_of(r, b, e, loop, i, reg_of(in->opnd[2]), 0);
		c = origin_of(r, b, e, loop, i, reg_of(in->opnd[3]), 0);
		if (c.kind == D_FMA)
			s->accumulating++;
		if (x.kind == D_LOAD && y.kind == D_LOAD && x.at != y.at && c.kind == D_FMA) {
			s->dot_ffma++;
			s->widened += x.widened || y.widened;
			count_use(m, &nm, KP_ARRAY_SIZE(m), x.at, reg_of(in->opnd[1]));
			count_use(m, &nm, KP_ARRAY_SIZE(m), y.at, reg_of(in->opnd[2]));
		}
	}
	s->reuse = nm ? 2.0 * s->dot_ffma / (double)nm : 0;
}

int kp_sass_shape_read(struct kp_sass_shape *s, const char *text, size_t len, const char *function)
{
	struct reader r = {0};
	size_t b = 0, e = 0;

	memset(s, 0, sizeof(*s));
	if (!text || !function || !*function || !read_function(&r, text, len, function) || !r.n)
		goto out;
	s->found = 1;
	s->ninstr = (unsigned)r.n;
	s->in_loop = hot_loop(&r, &b, &e, &s->nloops);
	if (!s->in_loop) { /* straight-line code: the whole function */
		b = 0;
		e = r.n - 1;
	}
	s->begin = r.v[b].addr;
	s->end = r.v[e].addr;
	analyze_region(&r, b, e, s->in_loop, s);
out:
	free(r.v);
	free(r.lab);
	return s->found;
}

int kp_sass_shape_is_product(const struct kp_sass_shape *s)
{
	return s->found && s->ffma > 0 && 2 * s->dot_ffma >= s->ffma;
}
