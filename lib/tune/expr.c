/* The constraint language (expr.h): a recursive-descent parser with size and depth caps, binding of
 * names to knobs and constants, checked 64-bit evaluation, and rendering in Python syntax. */
#include "base/setup.h"

#include <ctype.h>
#include <limits.h>

#include "tune/expr.h"

struct parser {
	struct tune_expr *e;
	const char *t;
	size_t len, pos;
	int depth;
	struct kp_error *err;
};

static int fail(struct parser *p, const char *what)
{
	return kp_error_set(p->err, KP_EPARSE, "constraint '%s': column %zu: %s", p->e->text, p->pos + 1,
	                    what);
}

static void skip_space(struct parser *p)
{
	while (p->pos < p->len && isspace((unsigned char)p->t[p->pos]))
		p->pos++;
}

static int is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* The word at pos when it is exactly `w` (not a prefix of a longer name). */
static int at_word(struct parser *p, const char *w)
{
	size_t n = strlen(w);
	if (p->len - p->pos < n || memcmp(p->t + p->pos, w, n))
		return 0;
	return p->pos + n == p->len || !is_ident((unsigned char)p->t[p->pos + n]);
}

static int at_op(struct parser *p, const char *op)
{
	size_t n = strlen(op);
	return p->len - p->pos >= n && !memcmp(p->t + p->pos, op, n);
}

static int new_node(struct parser *p, enum tune_op op, int a, int b)
{
	struct tune_node *n;
	if (p->e->nn >= TUNE_EXPR_MAX_NODES)
		return fail(p, "too long (at most 256 terms)");
	n = &p->e->n[p->e->nn];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->a = a;
	n->b = b;
	n->knob = -1;
	return (int)p->e->nn++;
}

static int parse_or(struct parser *p);

static int parse_atom(struct parser *p)
{
	int c, id;
	skip_space(p);
	if (p->pos >= p->len)
		return fail(p, "expected a number, a name or '('");
	c = (unsigned char)p->t[p->pos];
	if (c == '(') {
		p->pos++;
		if ((id = parse_or(p)) < 0)
			return id;
		skip_space(p);
		if (p->pos >= p->len || p->t[p->pos] != ')')
			return fail(p, "expected ')'");
		p->pos++;
		return id;
	}
	if (isdigit(c)) {
		long long v = 0;
		size_t start = p->pos;
		while (p->pos < p->len && isdigit((unsigned char)p->t[p->pos])) {
			if (v > (LLONG_MAX - 9) / 10)
				return fail(p, "number too large");
			v = v * 10 + (p->t[p->pos++] - '0');
		}
		if (p->pos < p->len && is_ident((unsigned char)p->t[p->pos])) {
			p->pos = start;
			return fail(p, "numbers are decimal integers without suffixes");
		}
		if ((id = new_node(p, OP_NUM, -1, -1)) < 0)
			return id;
		p->e->n[id].num = v;
		return id;
	}
	if (is_ident_start(c)) {
		size_t start = p->pos;
		if (at_word(p, "and") || at_word(p, "or") || at_word(p, "not"))
			return fail(p, "expected a number, a name or '('");
		while (p->pos < p->len && is_ident((unsigned char)p->t[p->pos]))
			p->pos++;
		if (p->pos - start >= 64) {
			p->pos = start;
			return fail(p, "name longer than 63 characters");
		}
		if ((id = new_node(p, OP_NAME, -1, -1)) < 0)
			return id;
		p->e->n[id].name = start;
		p->e->n[id].nlen = p->pos - start;
		skip_space(p);
		if (p->pos < p->len && p->t[p->pos] == '(')
			return fail(p, "calls are not part of the constraint language");
		return id;
	}
	return fail(p, "expected a number, a name or '('");
}

static int parse_unary(struct parser *p)
{
	int id;
	skip_space(p);
	if (++p->depth > TUNE_EXPR_MAX_DEPTH)
		return fail(p, "nested too deeply");
	if (p->pos < p->len && p->t[p->pos] == '-') {
		p->pos++;
		if ((id = parse_unary(p)) < 0)
			return id;
		id = new_node(p, OP_NEG, id, -1);
	} else if ((p->pos < p->len && p->t[p->pos] == '!' && !at_op(p, "!=")) || at_word(p, "not")) {
		p->pos += p->t[p->pos] == '!' ? 1 : 3;
		if ((id = parse_unary(p)) < 0)
			return id;
		id = new_node(p, OP_NOT, id, -1);
	} else {
		id = parse_atom(p);
	}
	p->depth--;
	return id;
}

static int parse_mul(struct parser *p)
{
	int a = parse_unary(p), b;
	while (a >= 0) {
		enum tune_op op;
		skip_space(p);
		if (at_op(p, "//")) {
			op = OP_DIV;
			p->pos += 2;
		} else if (at_op(p, "*") && !at_op(p, "**")) {
			op = OP_MUL;
			p->pos++;
		} else if (at_op(p, "/")) {
			op = OP_DIV;
			p->pos++;
		} else if (at_op(p, "%")) {
			op = OP_MOD;
			p->pos++;
		} else if (at_op(p, "**")) {
			return fail(p, "no powers: write the product");
		} else {
			break;
		}
		if ((b = parse_unary(p)) < 0)
			return b;
		a = new_node(p, op, a, b);
	}
	return a;
}

static int parse_add(struct parser *p)
{
	int a = parse_mul(p), b;
	while (a >= 0) {
		enum tune_op op;
		skip_space(p);
		if (at_op(p, "+"))
			op = OP_ADD;
		else if (at_op(p, "-"))
			op = OP_SUB;
		else
			break;
		p->pos++;
		if ((b = parse_mul(p)) < 0)
			return b;
		a = new_node(p, op, a, b);
	}
	return a;
}

/* One comparison at most: `a < b < c` means different things in C and Python, so it is refused. */
static int parse_cmp(struct parser *p)
{
	static const struct {
		const char *s;
		enum tune_op op;
	} ops[] = {{"<=", OP_LE}, {">=", OP_GE}, {"==", OP_EQ}, {"!=", OP_NE}, {"<", OP_LT}, {">", OP_GT}};
	int a = parse_add(p), b;
	if (a < 0)
		return a;
	for (int round = 0; round < 2; round++) {
		size_t i;
		skip_space(p);
		for (i = 0; i < KP_ARRAY_SIZE(ops); i++)
			if (at_op(p, ops[i].s))
				break;
		if (i == KP_ARRAY_SIZE(ops)) {
			if (at_op(p, "=") || at_op(p, "<<") || at_op(p, ">>"))
				return fail(p, "unknown operator (comparisons are == != < <= > >=)");
			return a;
		}
		if (round == 1)
			return fail(p, "chained comparison: join two comparisons with &&");
		p->pos += strlen(ops[i].s);
		if ((b = parse_add(p)) < 0)
			return b;
		a = new_node(p, ops[i].op, a, b);
		if (a < 0)
			return a;
	}
	return a;
}

static int parse_and(struct parser *p)
{
	int a = parse_cmp(p), b;
	while (a >= 0) {
		skip_space(p);
		if (at_op(p, "&&"))
			p->pos += 2;
		else if (at_word(p, "and"))
			p->pos += 3;
		else if (at_op(p, "&"))
			return fail(p, "no bitwise operators: use && for 'and'");
		else
			break;
		if ((b = parse_cmp(p)) < 0)
			return b;
		a = new_node(p, OP_AND, a, b);
	}
	return a;
}

static int parse_or(struct parser *p)
{
	int a, b;
	if (++p->depth > TUNE_EXPR_MAX_DEPTH)
		return fail(p, "nested too deeply");
	a = parse_and(p);
	while (a >= 0) {
		skip_space(p);
		if (at_op(p, "||"))
			p->pos += 2;
		else if (at_word(p, "or"))
			p->pos += 2;
		else if (at_op(p, "|"))
			return fail(p, "no bitwise operators: use || for 'or'");
		else
			break;
		if ((b = parse_and(p)) < 0)
			return b;
		a = new_node(p, OP_OR, a, b);
	}
	p->depth--;
	return a;
}

int kp__tune_expr_parse(struct tune_expr *e, const char *text, size_t len, struct kp_error *err)
{
	struct parser p = {.e = e, .err = err};
	size_t a = 0, b = len;
	int root;

	memset(e, 0, sizeof(*e));
	e->root = -1;
	while (a < b && isspace((unsigned char)text[a]))
		a++;
	while (b > a && isspace((unsigned char)text[b - 1]))
		b--;
	if (b - a > TUNE_EXPR_MAX_TEXT)
		return kp_error_set(err, KP_EPARSE, "constraint '%.40s...': longer than %d characters",
		                    text + a, TUNE_EXPR_MAX_TEXT);
	if (memchr(text + a, '\0', b - a))
		return kp_error_set(err, KP_EPARSE, "constraint with a NUL byte");
	e->text = kp_xstrndup(text + a, b - a);
	for (size_t i = 0; i < b - a; i++)
		if (!isprint((unsigned char)e->text[i]) && !isspace((unsigned char)e->text[i]))
			e->text[i] = '?';
	e->n = kp_xcalloc(TUNE_EXPR_MAX_NODES, sizeof(*e->n));
	p.t = e->text;
	p.len = b - a;
	if (p.len == 0) {
		fail(&p, "empty constraint");
		kp__tune_expr_release(e);
		return KP_EPARSE;
	}
	root = parse_or(&p);
	if (root >= 0) {
		skip_space(&p);
		if (p.pos < p.len)
			root = fail(&p, "unexpected text (operators are + - * / % == != < <= > >= && || !)");
	}
	if (root < 0) {
		kp__tune_expr_release(e);
		return root;
	}
	e->root = root;
	return 0;
}

void kp__tune_expr_release(struct tune_expr *e)
{
	free(e->text);
	free(e->n);
	memset(e, 0, sizeof(*e));
	e->root = -1;
}

int kp__tune_expr_bind(struct tune_expr *e, tune_lookup_fn lookup, void *ctx, struct kp_error *err)
{
	for (size_t i = 0; i < e->nn; i++) {
		struct tune_node *n = &e->n[i];
		if (n->op != OP_NAME)
			continue;
		if (lookup(ctx, e->text + n->name, n->nlen, &n->knob, &n->num))
			return kp_error_set(err, KP_EPARSE,
			                    "constraint '%s': '%.*s' is neither a knob nor a known constant",
			                    e->text, (int)n->nlen, e->text + n->name);
	}
	return 0;
}

/* Python's floor division and modulo (the result of % takes the divisor's sign). */
static int floor_div(long long a, long long b, long long *q, long long *r)
{
	if (b == 0 || (a == LLONG_MIN && b == -1))
		return -1;
	*q = a / b;
	*r = a % b;
	if (*r != 0 && ((*r < 0) != (b < 0))) {
		*q -= 1;
		*r += b;
	}
	return 0;
}

static int eval(const struct tune_expr *e, int id, const long long *vals, long long *out)
{
	const struct tune_node *n = &e->n[id];
	long long a = 0, b = 0, q, r;

	switch (n->op) {
	case OP_NUM: *out = n->num; return 0;
	case OP_NAME: *out = n->knob >= 0 ? vals[n->knob] : n->num; return 0;
	case OP_AND:
	case OP_OR:
		if (eval(e, n->a, vals, &a))
			return -1;
		if ((n->op == OP_AND && !a) || (n->op == OP_OR && a)) {
			*out = n->op == OP_OR;
			return 0;
		}
		if (eval(e, n->b, vals, &b))
			return -1;
		*out = b != 0;
		return 0;
	default: break;
	}
	if (eval(e, n->a, vals, &a))
		return -1;
	if (n->b >= 0 && eval(e, n->b, vals, &b))
		return -1;
	switch (n->op) {
	case OP_NEG:
		if (a == LLONG_MIN)
			return -1;
		*out = -a;
		return 0;
	case OP_NOT: *out = !a; return 0;
	case OP_MUL: return __builtin_mul_overflow(a, b, out) ? -1 : 0;
	case OP_ADD: return __builtin_add_overflow(a, b, out) ? -1 : 0;
	case OP_SUB: return __builtin_sub_overflow(a, b, out) ? -1 : 0;
	case OP_DIV:
		if (floor_div(a, b, &q, &r))
			return -1;
		*out = q;
		return 0;
	case OP_MOD:
		if (floor_div(a, b, &q, &r))
			return -1;
		*out = r;
		return 0;
	case OP_LT: *out = a < b; return 0;
	case OP_LE: *out = a <= b; return 0;
	case OP_GT: *out = a > b; return 0;
	case OP_GE: *out = a >= b; return 0;
	case OP_EQ: *out = a == b; return 0;
	case OP_NE: *out = a != b; return 0;
	default: KP_BUG("constraint node %d", (int)n->op);
	}
}

int kp__tune_expr_holds(const struct tune_expr *e, const long long *vals)
{
	long long v;
	if (e->root < 0)
		return 0;
	return eval(e, e->root, vals, &v) == 0 && v != 0;
}

static const char *py_op(enum tune_op op)
{
	switch (op) {
	case OP_MUL: return "*";
	case OP_DIV: return "//";
	case OP_MOD: return "%";
	case OP_ADD: return "+";
	case OP_SUB: return "-";
	case OP_LT: return "<";
	case OP_LE: return "<=";
	case OP_GT: return ">";
	case OP_GE: return ">=";
	case OP_EQ: return "==";
	case OP_NE: return "!=";
	case OP_AND: return "and";
	case OP_OR: return "or";
	default: KP_BUG("constraint node %d", (int)op);
	}
}

static void python(const struct tune_expr *e, int id, struct kp_buf *out)
{
	const struct tune_node *n = &e->n[id];
	switch (n->op) {
	case OP_NUM: kp_buf_addf(out, "%lld", n->num); return;
	case OP_NAME:
		if (n->knob < 0)
			kp_buf_addf(out, "%lld", n->num);
		else
			kp_buf_add(out, e->text + n->name, n->nlen);
		return;
	case OP_NEG:
	case OP_NOT:
		kp_buf_adds(out, n->op == OP_NEG ? "(-" : "(not ");
		python(e, n->a, out);
		kp_buf_addch(out, ')');
		return;
	default:
		kp_buf_addch(out, '(');
		python(e, n->a, out);
		kp_buf_addf(out, " %s ", py_op(n->op));
		python(e, n->b, out);
		kp_buf_addch(out, ')');
	}
}

void kp__tune_expr_python(const struct tune_expr *e, struct kp_buf *out)
{
	if (e->root >= 0)
		python(e, e->root, out);
}
