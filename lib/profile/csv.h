/* kp_csv: an RFC 4180 reader over a mutable copy of the text, for ncu and nsys CSV output (internal). */
#ifndef KP_PROFILE_CSV_H
#define KP_PROFILE_CSV_H

#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "profile/budget.h"

/*
 * Fields are unquoted in place ("" becomes ") and NUL-terminated inside the
 * text, so they stay valid as long as the text does. Lines may end in LF or
 * CRLF; a quoted field may span lines.
 */
struct kp_csv {
	const char *what;   /* file name for errors */
	char *p, *end;
	int line;           /* 1-based line of the next record */
	unsigned skip_unquoted : 1; /* skip whole lines that do not start with '"' (tool noise) */
	struct kp_pbudget *budget;  /* NULL, or charged for the field arrays of the rows */
};

struct kp_csv_row {
	char **f;
	size_t n, alloc;
	int line;           /* line the record started on */
	unsigned truncated : 1; /* the text ended inside a quoted field: the last field is cut */
};

/* text[len] must be writable (a NUL byte): the last field is terminated there. */
void kp_csv_init(struct kp_csv *c, const char *what, char *text, size_t len);
/*
 * Reads the next record into row. Returns 1 for a record, 0 at the end, KP_EPARSE on malformed
 * quoting, KP_ETOOBIG when the row's fields pass the budget.
 */
int kp_csv_next(struct kp_csv *c, struct kp_csv_row *row, struct kp_error *err);
void kp_csv_row_release(struct kp_csv_row *row);
/* Index of the field equal to `name`, or -1. */
long kp_csv_col(const struct kp_csv_row *row, const char *name);

/*
 * Appends one printf-formatted line to a parser's warnings buffer (capped at
 * 1 MiB: a flood of warnings from a broken file cannot exhaust memory).
 */
void kp_profile_warn(struct kp_buf *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
