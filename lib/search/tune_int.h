/* Inside lib/search: what the tune action's files share (tunevar.c, tune.c). */
#ifndef KP_SEARCH_TUNE_INT_H
#define KP_SEARCH_TUNE_INT_H

#include "kernelpro/search.h"
#include "kernelpro/tune.h"

/* lib/tune's language for a run database's ("cuda", "python"); -1 for one that has no knobs. */
int kp__search_tune_lang(const char *lang);

/* 1 when `source` has knobs under `derive` that give more than one variant; 0 otherwise. No GPU. */
int kp__search_tunable(const char *lang, const char *source, enum kp_tune_derive derive);

#endif
