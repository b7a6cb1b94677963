/*
 * A backend is one table of operations (as curl's vtls backends are): llm.c reaches every
 * backend through it, and a backend sees only the core (llm/core.h), never llm.c.
 * Adding one: a file defining its `const struct kp_llm_backend`, a line in backends.c
 * (docs/internals/adding.md).
 */
#ifndef KP_LLM_BACKEND_H
#define KP_LLM_BACKEND_H

#include "llm/core.h"

struct kp_llm_backend {
	enum kp_llm_provider id;
	const char *name; /* "openai": in messages, recordings and kp_llm_provider_name() */
	/* The PROVIDER words of a spec this backend answers to (NULL-terminated; name first). */
	const char *const *words;
	const char *arg; /* what follows the colon, for messages: "MODEL" in "openai:MODEL" */
	unsigned free_of_charge : 1; /* its exchanges cost nothing (replay): no price needed */

	/* Fills cfg's fields for this backend from the text after "word:". Required. */
	int (*parse_spec)(struct kp_llm_config *cfg, const char *word, const char *rest, struct kp_error *err);
	/* Appends the spec that selects this configuration again (a resumed run's; never a key). Required. */
	void (*format_spec)(const struct kp_llm_config *cfg, struct kp_buf *out);
	/*
	 * Optional. A resumed run made `done` exchanges before: returns 1 when replies follow request
	 * order (the backend then starts after those), 0 otherwise.
	 */
	int (*resume)(struct kp_llm_config *cfg, long done);

	/* Checks llm->cfg and makes llm->be_data. Required. On failure cleanup still runs. */
	int (*setup)(struct kp_llm *llm, struct kp_error *err);
	/*
	 * Runs jobs[0..n) to completion: each ends with kp_llm_job_done() or kp_llm_fail(). Jobs
	 * already done on entry (a malformed request) are skipped. May run in several threads at
	 * once over different batches. Required.
	 */
	void (*run)(struct kp_llm *llm, struct kp_llm_job *jobs, size_t n);
	/* Frees llm->be_data; safe on what a failed setup left. NULL: the backend holds nothing. */
	void (*cleanup)(struct kp_llm *llm);
};

extern const struct kp_llm_backend kp_llm_backend_openai;    /* http.c */
extern const struct kp_llm_backend kp_llm_backend_anthropic; /* http.c */
extern const struct kp_llm_backend kp_llm_backend_exec;      /* exec.c */
extern const struct kp_llm_backend kp_llm_backend_replay;    /* replay.c */

/* The table (backends.c). NULL when no backend has that id or word. */
const struct kp_llm_backend *kp_llm_backend_get(enum kp_llm_provider id);
const struct kp_llm_backend *kp_llm_backend_find(const char *word, size_t len);
/* Every spec word, "openai, anthropic, ... or replay-hash" (with_arg: "openai:MODEL, ..."), for messages. */
void kp_llm_backend_list(struct kp_buf *out, int with_arg);

#endif
