/*
 * What a task kind means to everything after loading: the candidates' language and file extension,
 * the programmer's candidate format, the best version's file name, how the reference is profiled,
 * and whether energy can be measured. One row per kind (lib/task/kind.c); code asks the table
 * instead of comparing kinds, so a new kind is one row plus its adapters
 * (docs/internals/adding.md, "a task kind").
 */
#ifndef KERNELPRO_TASK_KIND_H
#define KERNELPRO_TASK_KIND_H

#include "kernelpro/task.h"

struct kp_task_kind_info {
	enum kp_task_kind kind;
	const char *name;      /* "kernelbench", "native": in task JSON, summaries and messages */
	const char *what;      /* for people: "a KernelBench .py file" */
	const char *lang;      /* the candidates' language as the run database records it: "python", "cuda" */
	const char *ext;       /* a candidate file's extension, without the dot: "py", "cu" */
	const char *format;    /* the programmer's candidate format (kp_cand_format_parse): "torch", "cuda" */
	const char *best_file; /* the run's best version: "best.py", "best.cu" */
	/*
	 * Appended to the reference's source to profile it as a candidate ("ModelNew = Model");
	 * NULL when the reference already is one (a native reference.cu exports kp_run).
	 */
	const char *reference_as_candidate;
	int energy; /* the kp-energy driver can measure its candidates (lib/energy) */
};

/* The row of a kind; the first row for a value that is no kind (never NULL). */
const struct kp_task_kind_info *kp_task_kind_info(enum kp_task_kind k);
/* The row named `name` ("native"), NULL when none is. */
const struct kp_task_kind_info *kp_task_kind_find(const char *name);
/* The first row whose candidates are in `lang` ("python"), NULL when none are. */
const struct kp_task_kind_info *kp_task_kind_for_lang(const char *lang);
/* Every row, in table order: for (i = 0; i < n; i++). */
const struct kp_task_kind_info *kp_task_kinds(size_t *n);

#endif
