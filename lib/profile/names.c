/*
 * Kernel names: a small Itanium C++ name reader that recovers a function's
 * qualified name from its mangled form, and the same key from the demangled
 * names ncu prints, so SASS and ptxas functions join to ncu launches.
 */
#include "base/setup.h"

#include <ctype.h>

#include "kernelpro/buf.h"
#include "kernelpro/profile.h"

struct dm {
	const char *p, *end;
	int bad;
};

static int peek(const struct dm *d, size_t k)
{
	return d->p + k < d->end ? (unsigned char)d->p[k] : 0;
}

/* <number>: decimal length of a source name; -1 when none. */
static long number(struct dm *d)
{
	long n = 0;
	if (!isdigit(peek(d, 0)))
		return -1;
	while (isdigit(peek(d, 0))) {
		n = n * 10 + (*d->p++ - '0');
		if (n > 4096)
			return -1;
	}
	return n;
}

/* Skips <source-name>; appends it to out when out != NULL. */
static int source_name(struct dm *d, struct kp_buf *out)
{
	long n = number(d);
	if (n <= 0 || d->end - d->p < n)
		return -1;
	if (out) {
		if (n >= 12 && !strncmp(d->p, "_GLOBAL__N_", 11))
			kp_buf_adds(out, "(anonymous namespace)");
		else
			kp_buf_add(out, d->p, (size_t)n);
	}
	d->p += n;
	return 0;
}

/* Skips a literal's value up to and including its closing 'E'. */
static int skip_to_e(struct dm *d)
{
	while (d->p < d->end && *d->p != 'E')
		d->p++;
	if (d->p >= d->end)
		return -1;
	d->p++;
	return 0;
}

/* Skips everything up to the 'E' that closes the group just opened (template args, nested names...). */
static int skip_group(struct dm *d)
{
	int depth = 1;
	while (d->p < d->end) {
		int c = peek(d, 0);
		if (isdigit(c)) {
			if (source_name(d, NULL))
				return -1;
			continue;
		}
		switch (c) {
		case 'E':
			d->p++;
			if (--depth == 0)
				return 0;
			break;
		case 'I': case 'N': case 'X': case 'J':
			d->p++;
			depth++;
			break;
		case 'L':
			d->p++;
			if (peek(d, 0) == '_' && peek(d, 1) == 'Z') { /* L <encoding> E */
				d->p += 2;
				depth++;
			} else {
				if (isdigit(peek(d, 0))) { /* enum type */
					if (source_name(d, NULL))
						return -1;
				} else if (peek(d, 0) == 'D') {
					d->p += 2;
				} else {
					d->p++;
				}
				if (skip_to_e(d))
					return -1;
			}
			break;
		case 'S': case 'T':
			d->p++;
			if (c == 'S' && (peek(d, 0) == 't' || peek(d, 0) == 'a' || peek(d, 0) == 'b' ||
					 peek(d, 0) == 's' || peek(d, 0) == 'i' || peek(d, 0) == 'o' ||
					 peek(d, 0) == 'd')) {
				d->p++;
				break;
			}
			while (d->p < d->end && *d->p != '_')
				d->p++;
			if (d->p >= d->end)
				return -1;
			d->p++;
			break;
		case 'D':
			d->p++;
			if (peek(d, 0) == 'T' || peek(d, 0) == 't') {
				d->p++;
				depth++;
			} else if (peek(d, 0) == 'v') { /* Dv <number> _ <type> */
				d->p++;
				while (isdigit(peek(d, 0)))
					d->p++;
				if (peek(d, 0) == '_')
					d->p++;
			} else {
				d->p++;
			}
			break;
		default:
			d->p++;
			break;
		}
	}
	return -1;
}

static const char *std_abbrev(int c)
{
	switch (c) {
	case 't': return "std";
	case 'a': return "std::allocator";
	case 'b': return "std::basic_string";
	case 's': return "std::string";
	case 'i': return "std::istream";
	case 'o': return "std::ostream";
	case 'd': return "std::iostream";
	}
	return NULL;
}

/* One component of a name: a source name, with template args skipped. */
static int component(struct dm *d, struct kp_buf *out)
{
	if (peek(d, 0) == 'L') /* internal linkage */
		d->p++;
	if (out->len)
		kp_buf_adds(out, "::");
	if (source_name(d, out))
		return -1;
	if (peek(d, 0) == 'B') { /* ABI tag: B <source-name> */
		d->p++;
		struct kp_buf ignore = KP_BUF_INIT;
		int rc = source_name(d, &ignore);
		kp_buf_release(&ignore);
		if (rc)
			return -1;
	}
	if (peek(d, 0) == 'I') {
		d->p++;
		if (skip_group(d))
			return -1;
	}
	return 0;
}

char *kp_demangle_qualname(const char *mangled)
{
	struct dm d;
	struct kp_buf out = KP_BUF_INIT;
	if (!mangled || strncmp(mangled, "_Z", 2))
		return NULL;
	d.p = mangled + 2;
	d.end = mangled + strlen(mangled);
	d.bad = 0;
	if (peek(&d, 0) == 'N') {
		d.p++;
		while (peek(&d, 0) == 'r' || peek(&d, 0) == 'V' || peek(&d, 0) == 'K')
			d.p++;
		if (peek(&d, 0) == 'R' || peek(&d, 0) == 'O')
			d.p++;
		if (peek(&d, 0) == 'S' && std_abbrev(peek(&d, 1))) {
			kp_buf_adds(&out, std_abbrev(peek(&d, 1)));
			d.p += 2;
		}
		while (peek(&d, 0) && peek(&d, 0) != 'E') {
			if (component(&d, &out))
				goto bad;
		}
		if (peek(&d, 0) != 'E')
			goto bad;
	} else if (peek(&d, 0) == 'S' && peek(&d, 1) == 't') {
		kp_buf_adds(&out, "std");
		d.p += 2;
		if (component(&d, &out))
			goto bad;
	} else if (isdigit(peek(&d, 0)) || peek(&d, 0) == 'L') {
		if (component(&d, &out))
			goto bad;
	} else {
		goto bad;
	}
	return kp_buf_detach(&out, NULL);
bad:
	kp_buf_release(&out);
	return NULL;
}

char *kp_kernel_name_key(const char *name)
{
	const char *s, *e, *open = NULL;
	struct kp_buf tmp = KP_BUF_INIT;
	int depth;
	char *r;
	if (!name)
		return NULL;
	while (isspace((unsigned char)*name))
		name++;
	if (!strncmp(name, "_Z", 2)) {
		r = kp_demangle_qualname(name);
		return r ? r : kp_xstrdup(name);
	}
	e = name + strlen(name);
	while (e > name && isspace((unsigned char)e[-1]))
		e--;
	/* Drop the parameter list: the last top-level (...) group at the end. */
	if (e > name && e[-1] == ')') {
		depth = 0;
		for (s = e - 1; s >= name; s--) {
			if (*s == ')')
				depth++;
			else if (*s == '(' && --depth == 0) {
				open = s;
				break;
			}
		}
		if (open && open > name)
			e = open;
	}
	/* Drop template arguments and keep the last top-level word (no return type). */
	depth = 0;
	int paren = 0;
	for (s = name; s < e; s++) {
		if (*s == '<') {
			depth++;
			continue;
		}
		if (*s == '>' && depth > 0) {
			depth--;
			continue;
		}
		if (depth)
			continue;
		if (*s == '(')
			paren++;
		else if (*s == ')' && paren > 0)
			paren--;
		if (*s == ' ' && !paren) {
			kp_buf_reset(&tmp);
			continue;
		}
		kp_buf_addch(&tmp, *s);
	}
	r = kp_buf_detach(&tmp, NULL);
	if (!*r) {
		free(r);
		r = kp_xstrndup(name, (size_t)(e - name));
	}
	return r;
}

/* ---- Template arguments, to tell instantiations of one kernel apart ------------------------ */

static const struct {
	char code;
	const char *name;
} builtin[] = {
	{'f', "float"}, {'d', "double"}, {'i', "int"}, {'j', "unsigned int"}, {'l', "long"},
	{'m', "unsigned long"}, {'x', "long long"}, {'y', "unsigned long long"}, {'s', "short"},
	{'t', "unsigned short"}, {'c', "char"}, {'a', "signed char"}, {'h', "unsigned char"}, {'b', "bool"},
};

/* "_Z16maxpool2d_kernelIfEvPKT_..." -> "float": an unqualified name's template arguments, builtin types only. */
static int mangled_args(const char *s, struct kp_buf *out)
{
	char *e;
	unsigned long n;
	if (strncmp(s, "_Z", 2) || !isdigit((unsigned char)s[2]))
		return 0;
	n = strtoul(s + 2, &e, 10);
	if (strnlen(e, n) < n || e[n] != 'I')
		return 0;
	for (s = e + n + 1; *s && *s != 'E'; s++) {
		size_t i;
		for (i = 0; i < KP_ARRAY_SIZE(builtin) && builtin[i].code != *s; i++)
			;
		if (i == KP_ARRAY_SIZE(builtin))
			return 0;
		kp_buf_addf(out, "%s%s", out->len ? "," : "", builtin[i].name);
	}
	return *s == 'E' && out->len;
}

/* "void argmin_kernel<float>(const T1 *, ...)" -> "float": the first top-level <...>, spaces after commas dropped. */
static int demangled_args(const char *s, struct kp_buf *out)
{
	const char *open = strchr(s, '<'), *paren = strchr(s, '(');
	int depth = 0;
	if (!open || (paren && paren < open))
		return 0;
	for (s = open + 1; *s; s++) {
		if (*s == '<')
			depth++;
		else if (*s == '>' && depth-- == 0)
			return out->len > 0;
		if (*s == ' ' && out->len && out->buf[out->len - 1] == ',')
			continue;
		kp_buf_addf(out, "%c", *s);
	}
	return 0;
}

int kp_kernel_template_args_equal(const char *a, const char *b)
{
	struct kp_buf x = KP_BUF_INIT, y = KP_BUF_INIT;
	int same;
	if (!a || !b)
		return 0;
	same = (mangled_args(a, &x) || demangled_args(a, &x)) && (mangled_args(b, &y) || demangled_args(b, &y)) &&
	       !strcmp(x.buf, y.buf);
	kp_buf_release(&x);
	kp_buf_release(&y);
	return same;
}
