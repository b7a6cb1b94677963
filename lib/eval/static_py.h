/* The Python parser's facts about a KernelBench candidate (harness/kp_pystatic.py, Python's ast): what
 * ModelNew.forward reaches, for the static checks in static.c. The reply is outside data: parsed
 * strictly and bounded (tests/fuzz/fuzz_pyfacts.c). */
#ifndef KP_EVAL_STATIC_PY_H
#define KP_EVAL_STATIC_PY_H

#include <stddef.h>

#include "kernelpro/error.h"

#define KP_PYFACTS_MAX_OPS 256
#define KP_PYFACTS_MAX_EV 16

struct kp_pyop {
	char name[48]; /* raw: the last name of a call chain, a module class, an operator (add, div ...) */
	int line;
};

struct kp_pyev {
	int line;
	char what[128];
	char text[64];
};

struct kp_pyev_list {
	struct kp_pyev ev[KP_PYFACTS_MAX_EV];
	size_t n;
};

struct kp_pyfacts {
	int parsed;      /* the candidate parsed (when not, `error` says why; its import will fail too) */
	char error[256];
	struct kp_pyop ref_ops[KP_PYFACTS_MAX_OPS], cand_ops[KP_PYFACTS_MAX_OPS];
	size_t nref, ncand;
	struct kp_pyev_list reads;    /* calls of get_inputs/get_init_inputs from code ModelNew runs */
	struct kp_pyev_list fallback; /* ModelNew running the reference Model's forward */
	struct kp_pyev_list lazy;     /* extension builds reached from forward */
	int defines_model_new;        /* 0: nothing in the file can bind ModelNew (its import leaves none) */
};

/* Parses the helper's JSON reply into `f` (zeroed first). KP_EPARSE with a message on anything
 * malformed; over-long lists are cut at the caps, names and texts truncated. */
int kp_pyfacts_parse(struct kp_pyfacts *f, const char *json, size_t len, struct kp_error *err);

/* Runs harness/kp_pystatic.py with `python` (NULL: $KERNELPRO_PYTHON, else python3) on the task's and
 * the candidate's sources and parses its reply. Errors (no python3, no helper, a crash) say what to do. */
int kp_pyfacts_run(struct kp_pyfacts *f, const char *python, const char *task_src, const char *cand,
		   size_t cand_len, struct kp_error *err);

#endif
