/*
 * What a task kind means to everything after loading: the candidates' language and file extension,
 * the programmer's candidate format, the best version's file name, how the reference is profiled,
 * whether energy can be measured, the warm worker, the suite's baseline and identity, the entry
 * point, and whether the task declares its tensors. One row per kind (lib/task/kind.c); code asks the table
 * instead of comparing kinds, so a new kind is one row plus its adapters
 * (docs/internals/adding.md, "a task kind").
 */
#ifndef KERNELPRO_TASK_KIND_H
#define KERNELPRO_TASK_KIND_H

#include "kernelpro/task.h"

struct kp_task_kind_info {
	enum kp_task_kind kind;
	const char *name;      /* "kernelbench", "native", "triton": in task JSON, summaries and messages */
	const char *what;      /* for people: "a KernelBench .py file" */
	const char *lang;      /* the candidates' language as the run database records it: "python", "cuda" */
	const char *ext;       /* a candidate file's extension, without the dot: "py", "cu" */
	const char *format;    /* the programmer's default candidate format (kp_cand_format_parse): "torch", "cuda", "triton" */
	const char *best_file; /* the run's best version: "best.py", "best.cu" */
	/*
	 * Appended to the reference's source to profile it as a candidate ("ModelNew = Model");
	 * NULL when the reference already is one (a native reference.cu exports kp_run).
	 */
	const char *reference_as_candidate;
	int energy; /* the kp-energy driver can measure its candidates (lib/energy) */
	/*
	 * 1: the reference and the candidates are Python modules the PyTorch adapter runs
	 * (harness/kp_torch.py); 0: CUDA libraries the native harness runs.
	 */
	int python;
	/*
	 * 1: optimize evaluates its candidates in the warm worker (harness/kp_worker.py: PyTorch imported
	 * once) unless told otherwise; 0: a fresh harness each time, unless kp_eval_opts.worker asks.
	 */
	int warm_worker;
	/* 1: a suite's baseline of the task times torch.compile beside eager PyTorch. */
	int compile_baseline;
	/*
	 * The file beside the reference that belongs to the task's identity (a suite hashes it with the
	 * reference: "task.json"); NULL: the reference alone.
	 */
	const char *spec_file;
	/*
	 * 1: that spec declares the tensors (shapes, per-output tolerances), the FLOPs and the bytes, and
	 * they take the place of what the harness counts; 0: the harness's counts stand.
	 */
	int spec_tensors;
	/*
	 * The symbol every candidate must define, checked before any build ("kp_run"), and the compile
	 * error a candidate without it gets; NULL: none checked.
	 */
	const char *entry_point;
	const char *entry_missing;
	/* 1: its path names KernelBench's level and problem (level<L>/<P>_<Name>.py), which results keep. */
	int kernelbench_ids;
	/* The candidate formats the kind's harness takes, `format` first; NULL-terminated. */
	const char *formats[4];
};

/* The row of a kind; the first row for a value that is no kind (never NULL). */
const struct kp_task_kind_info *kp_task_kind_info(enum kp_task_kind k);
/* The row named `name` ("native"), NULL when none is. */
const struct kp_task_kind_info *kp_task_kind_find(const char *name);
/* The first row whose candidates are in `lang` ("python"), NULL when none are. */
const struct kp_task_kind_info *kp_task_kind_for_lang(const char *lang);
/* Every row, in table order: for (i = 0; i < n; i++). */
const struct kp_task_kind_info *kp_task_kinds(size_t *n);

/*
 * The candidate format a language word names for a kind: "cuda" is CUDA in the kind's candidates
 * ("torch", a ModelNew with CUDA kernels, for Python kinds; "cuda" for native tasks), "triton"
 * Triton kernels; a format name ("torch") names itself. NULL when the kind's candidates cannot
 * be in it (Triton for a native task) or the word is none of these.
 */
const char *kp_task_kind_format_for(const struct kp_task_kind_info *k, const char *word);
/* The language of a candidate format for people: "cuda" for "cuda" and "torch", "triton"; NULL: unknown. */
const char *kp_cand_format_language(const char *format);

#endif
