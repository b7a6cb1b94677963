/* JSON Lines, read in place: one record per line, blank lines and '#' comments skipped. */
#ifndef KP_ENERGY_JSONL_H
#define KP_ENERGY_JSONL_H

#include <jansson.h>

#include "kernelpro/error.h"

struct kp_jsonl {
	char *next;
	int lineno;
	const char *what;
	char where[320]; /* "file:line" of the record last returned */
};

/* `text` is modified (lines are cut); `what` names the source in errors. */
void kp_jsonl_init(struct kp_jsonl *it, char *text, const char *what);
/* 1 with a new reference in *v, 0 at the end, or a negative code with "file:line: ..." in err. */
int kp_jsonl_next(struct kp_jsonl *it, json_t **v, struct kp_error *err);

#endif
