/* Inside lib/search: what the tune action's files share (tunevar.c, tune.c, harness_eval.c). */
#ifndef KP_SEARCH_TUNE_INT_H
#define KP_SEARCH_TUNE_INT_H

#include "kernelpro/search.h"
#include "kernelpro/tune.h"

/* lib/tune's language for a run database's ("cuda", "python"); -1 for one that has no knobs. */
int kp__search_tune_lang(const char *lang);

/* 1 when `source` has knobs under `derive` that give more than one variant; 0 otherwise. No GPU. */
int kp__search_tunable(const char *lang, const char *source, enum kp_tune_derive derive);

/*
 * What a tuning found, from its space and trials, into out (its strategy, space, trials, the untuned
 * and the best points, and up to `children` variants measured faster than the untuned one, fastest
 * first, with their sources); a note when there is none. The caller sets evaluated, wall_s, gpu_s, gpu.
 */
int kp__search_tuning_fill(const struct kp_tune_space *s, const struct kp_tune_result *r, int children,
                           struct kp_search_tuning *out, struct kp_error *err);

/* Whether a tuner's error is about the version (a note: nothing to tune) rather than the evaluation. */
int kp__search_tune_note_error(int code);

#endif
