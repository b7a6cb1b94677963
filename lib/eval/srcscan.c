/* A small Python lexer (comments, string literals with prefixes and triple quotes) and a C comment
 * stripper: just enough structure for the static checks to tell code from text. */
#include "base/setup.h"

#include <ctype.h>

#include "eval/srcscan.h"

static void add_str(struct kp_pysrc *p, const char *s, size_t n, int line)
{
	KP_ALLOC_GROW(p->strs, p->nstrs + 1, p->alloc);
	p->strs[p->nstrs].text = kp_xstrndup(s, n);
	p->strs[p->nstrs].line = line;
	p->nstrs++;
}

/* Length of a string prefix (r, b, u, f, rb, br, fr, rf in any case) at s, if a quote follows. */
static size_t string_prefix(const char *s, const char *end, int *raw)
{
	size_t n = 0;
	*raw = 0;
	while (n < 2 && s + n < end && strchr("rRbBuUfF", s[n])) {
		if (s[n] == 'r' || s[n] == 'R')
			*raw = 1;
		n++;
	}
	if (s + n < end && (s[n] == '"' || s[n] == '\''))
		return n;
	*raw = 0;
	return (size_t)-1;
}

void kp_pysrc_parse(struct kp_pysrc *p, const char *src, size_t len)
{
	const char *s = src, *end = src + len;
	int line = 1;

	memset(p, 0, sizeof(*p));
	p->code = (struct kp_buf)KP_BUF_INIT;
	while (s < end) {
		char c = *s;
		int raw = 0;
		size_t pre;

		if (c == '#') {
			while (s < end && *s != '\n')
				s++;
			continue;
		}
		/* A prefix only counts at the start of a token, not inside an identifier ("bar'..."). */
		pre = (s == src || !(isalnum((unsigned char)s[-1]) || s[-1] == '_')) ? string_prefix(s, end, &raw)
										    : (size_t)-1;
		if (pre != (size_t)-1) {
			const char *q = s + pre, *body, *close = NULL;
			char quote = *q;
			int triple = q + 2 < end && q[1] == quote && q[2] == quote;
			int start_line = line, nl = 0;
			size_t qn = triple ? 3 : 1;

			body = q + qn;
			for (const char *t = body; t < end; t++) {
				if (*t == '\\' && t + 1 < end) {
					if (t[1] == '\n')
						nl++;
					t++;
					continue;
				}
				if (*t == '\n') {
					if (!triple)
						break; /* unterminated single-quoted literal ends at the line */
					nl++;
					continue;
				}
				if (*t == quote && (!triple || (t + 2 < end && t[1] == quote && t[2] == quote))) {
					close = t;
					break;
				}
			}
			(void)raw; /* raw or not, a backslash keeps the next character inside the literal */
			if (!close) {
				const char *stop = body;
				while (stop < end && (triple || *stop != '\n'))
					stop++;
				add_str(p, body, (size_t)(stop - body), start_line);
				s = stop;
			} else {
				add_str(p, body, (size_t)(close - body), start_line);
				s = close + qn;
			}
			kp_buf_adds(&p->code, "\"\"");
			for (int i = 0; i < nl; i++)
				kp_buf_addch(&p->code, '\n');
			line += nl;
			continue;
		}
		if (c == '\n')
			line++;
		kp_buf_addch(&p->code, c == '\0' ? ' ' : c);
		s++;
	}
}

void kp_pysrc_release(struct kp_pysrc *p)
{
	kp_buf_release(&p->code);
	for (size_t i = 0; i < p->nstrs; i++)
		free(p->strs[i].text);
	free(p->strs);
	p->strs = NULL;
	p->nstrs = p->alloc = 0;
}

void kp_csrc_strip(struct kp_buf *out, const char *src, size_t len)
{
	const char *s = src, *end = src + len;
	while (s < end) {
		if (s + 1 < end && s[0] == '/' && s[1] == '/') {
			while (s < end && *s != '\n')
				s++;
			continue;
		}
		if (s + 1 < end && s[0] == '/' && s[1] == '*') {
			s += 2;
			while (s < end && !(s + 1 < end && s[0] == '*' && s[1] == '/')) {
				if (*s == '\n')
					kp_buf_addch(out, '\n');
				s++;
			}
			s = s < end ? s + 2 : end;
			kp_buf_addch(out, ' ');
			continue;
		}
		if (*s == '"' || *s == '\'') {
			char q = *s++;
			kp_buf_addch(out, q);
			while (s < end && *s != q && *s != '\n') {
				if (*s == '\\' && s + 1 < end)
					s++;
				s++;
			}
			kp_buf_addch(out, q);
			if (s < end && *s == q)
				s++;
			continue;
		}
		kp_buf_addch(out, *s == '\0' ? ' ' : *s);
		s++;
	}
}

int kp_src_line_of(const char *text, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off && text[i]; i++)
		if (text[i] == '\n')
			line++;
	return line;
}
