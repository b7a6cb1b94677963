/* kp_csv: quote-aware CSV records, unquoted in place; tolerant of tool noise between records. */
#include "base/setup.h"

#include "profile/csv.h"

void kp_csv_init(struct kp_csv *c, const char *what, char *text, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->what = what;
	c->p = text;
	c->end = text + len;
	c->line = 1;
}

void kp_csv_row_release(struct kp_csv_row *row)
{
	free(row->f);
	memset(row, 0, sizeof(*row));
}

/* Adds a field; the row's array growing is charged to the budget, when there is one. */
static int push(struct kp_csv *c, struct kp_csv_row *row, char *f, struct kp_error *err)
{
	size_t before = row->alloc;
	int rc;
	KP_ALLOC_GROW(row->f, row->n + 1, row->alloc);
	if (c->budget && row->alloc > before &&
	    (rc = kp_pbudget_add(c->budget, (row->alloc - before) * sizeof(*row->f), c->line, err)))
		return rc;
	row->f[row->n++] = f;
	return 0;
}

static void skip_line(struct kp_csv *c)
{
	while (c->p < c->end && *c->p != '\n')
		c->p++;
	if (c->p < c->end)
		c->p++;
	c->line++;
}

/* Ends the record at p (a '\n', "\r\n" or the end); returns the position after it. */
static char *end_record(struct kp_csv *c, char *p)
{
	if (p < c->end && *p == '\r')
		*p++ = '\0';
	if (p < c->end && *p == '\n') {
		*p++ = '\0';
		c->line++;
	}
	return p;
}

int kp_csv_next(struct kp_csv *c, struct kp_csv_row *row, struct kp_error *err)
{
	char *p;
	row->n = 0;
	row->truncated = 0;
	for (;;) {
		if (c->p >= c->end)
			return 0;
		if (*c->p == '\n' || (*c->p == '\r' && c->p + 1 < c->end && c->p[1] == '\n') ||
		    (c->skip_unquoted && *c->p != '"')) {
			skip_line(c);
			continue;
		}
		break;
	}
	row->line = c->line;
	p = c->p;
	for (;;) {
		char *start = p, *w = p;
		if (p < c->end && *p == '"') {
			p++;
			start = w = p;
			for (;;) {
				if (p >= c->end) {
					row->truncated = 1;
					break;
				}
				if (*p == '"') {
					if (p + 1 < c->end && p[1] == '"') {
						*w++ = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				if (*p == '\n')
					c->line++;
				*w++ = *p++;
			}
			if (row->truncated) {
				*w = '\0'; /* w <= end, and text[len] is writable */
				c->p = c->end;
				return push(c, row, start, err) ? KP_ETOOBIG : 1;
			}
			if (p < c->end && *p != ',' && *p != '\n' && *p != '\r')
				return kp_error_set(err, KP_EPARSE,
						    "%s:%d: unexpected '%c' after a closing quote in field %zu", c->what,
						    c->line, *p, row->n + 1);
		} else {
			while (p < c->end && *p != ',' && *p != '\n' && !(*p == '\r' && p + 1 < c->end && p[1] == '\n'))
				p++;
			w = p;
		}
		if (p < c->end && *p == ',') {
			*w = '\0';
			if (w != p)
				*p = '\0';
			if (push(c, row, start, err))
				return KP_ETOOBIG;
			p++;
			continue;
		}
		/* End of record. */
		{
			char *next = end_record(c, p);
			*w = '\0';
			c->p = next;
			return push(c, row, start, err) ? KP_ETOOBIG : 1;
		}
	}
}

long kp_csv_col(const struct kp_csv_row *row, const char *name)
{
	for (size_t i = 0; i < row->n; i++)
		if (!strcmp(row->f[i], name))
			return (long)i;
	return -1;
}

void kp_profile_warn(struct kp_buf *w, const char *fmt, ...)
{
	va_list ap;
	if (!w->cap)
		w->cap = 1 << 20;
	va_start(ap, fmt);
	kp_buf_vaddf(w, fmt, ap);
	va_end(ap);
	kp_buf_addch(w, '\n');
}
