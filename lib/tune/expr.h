/*
 * The constraint language: integer arithmetic and comparisons over knob names and constants, e.g.
 * `BX * BY <= MAX_THREADS_PER_BLOCK && A_0 % (BY * TM) == 0`. Small on purpose: no calls, no
 * assignments, bounded size and depth, overflow and division by zero make a constraint fail.
 */
#ifndef KP_TUNE_EXPR_H
#define KP_TUNE_EXPR_H

#include <stddef.h>

#include "kernelpro/buf.h"
#include "kernelpro/error.h"

#define TUNE_EXPR_MAX_TEXT  512
#define TUNE_EXPR_MAX_NODES 256
#define TUNE_EXPR_MAX_DEPTH 32

enum tune_op {
	OP_NUM,
	OP_NAME,
	OP_NEG,
	OP_NOT,
	OP_MUL,
	OP_DIV,
	OP_MOD,
	OP_ADD,
	OP_SUB,
	OP_LT,
	OP_LE,
	OP_GT,
	OP_GE,
	OP_EQ,
	OP_NE,
	OP_AND,
	OP_OR,
};

struct tune_node {
	enum tune_op op;
	int a, b;          /* operands (node indices), -1 when unused */
	long long num;     /* OP_NUM: the value; OP_NAME bound to a constant: its value */
	size_t name, nlen; /* OP_NAME: where the name is in text */
	int knob;          /* OP_NAME: the knob it names once bound, -1 for a constant */
};

struct tune_expr {
	char *text; /* as written, trimmed */
	struct tune_node *n;
	size_t nn;
	int root;
	int line; /* where it was declared (0: derived) */
};

/* Parses `len` bytes of text. Errors (KP_EPARSE) quote the constraint and give a column. */
int kp__tune_expr_parse(struct tune_expr *e, const char *text, size_t len, struct kp_error *err);
void kp__tune_expr_release(struct tune_expr *e);

/* Resolves a name: 0 with *knob >= 0 (a knob) or *knob = -1 and *value (a constant); KP_ENOENT else. */
typedef int (*tune_lookup_fn)(void *ctx, const char *name, size_t n, int *knob, long long *value);
int kp__tune_expr_bind(struct tune_expr *e, tune_lookup_fn lookup, void *ctx, struct kp_error *err);

/* Evaluates with knob values vals[knob]; 1 true, 0 false or undefined (overflow, division by zero). */
int kp__tune_expr_holds(const struct tune_expr *e, const long long *vals);

/* Python syntax (and/or/not, //, parenthesised), constants written as their numbers. Bound only. */
void kp__tune_expr_python(const struct tune_expr *e, struct kp_buf *out);

#endif
