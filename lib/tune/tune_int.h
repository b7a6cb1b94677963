/* lib/tune internals shared by its files: the space's layout, sites, constraints, random numbers. */
#ifndef KP_TUNE_INT_H
#define KP_TUNE_INT_H

#include <stdint.h>

#include "kernelpro/tune.h"
#include "tune/expr.h"

/* How a knob's value is written at one place in the source. */
enum tune_site_kind {
	SITE_LITERAL,    /* a decimal literal: the value */
	SITE_LITERAL_M1, /* a decimal literal tied to a block size in a ceil-division: the value minus one */
	SITE_LIST,       /* a marker's or Python list's values: rewritten with the chosen one first */
};

struct tune_site {
	size_t off, len;
	int knob;
	enum tune_site_kind kind;
};

/* The order a declared knob's values were written in (first = default), for SITE_LIST rewrites. */
struct tune_written {
	size_t n;
	long long v[KP_TUNE_MAX_VALUES];
};

struct kp_tune_space {
	char *what;
	char *src;
	size_t len;
	enum kp_tune_lang lang;
	size_t nknobs;
	struct kp_tune_knob knobs[KP_TUNE_MAX_KNOBS];
	struct tune_written written[KP_TUNE_MAX_KNOBS];
	struct tune_site *sites; /* sorted by offset, never overlapping */
	size_t nsites, sites_alloc;
	size_t ncons;
	struct tune_expr cons[KP_TUNE_MAX_CONSTRAINTS];
	int bound;
	struct kp_tune_env env;
	char hash[65];
};

/* Building a space (knobs.c): add knobs and sites while reading, then finish. */
struct tune_builder {
	struct kp_tune_space *s;
	const char *src;
	size_t len;
	/* Per knob: the offset its first site was found at (source order) and, for derived knobs, the
	 * anchor literal's offset that identifies it. */
	size_t first_off[KP_TUNE_MAX_KNOBS];
	size_t anchor[KP_TUNE_MAX_KNOBS];
	long long init[KP_TUNE_MAX_KNOBS]; /* the value the source has now */
	char *ctexts[KP_TUNE_MAX_CONSTRAINTS];
	int cline[KP_TUNE_MAX_CONSTRAINTS]; /* the line it was declared on; 0 for a derived one */
	size_t ncons;
	int derived_full; /* derived knobs or constraints were left out: the caps were reached */
};

int kp__tune_line_of(const char *src, size_t off);
/* A new knob whose value in the source is `init`, first seen at `off`; -1 when the space is full. */
int kp__tune_add_knob(struct tune_builder *b, const char *name, enum kp_tune_origin origin, size_t off,
                      long long init);
/* Adds v to knob k's value set (kept sorted); KP_ETOOBIG past KP_TUNE_MAX_VALUES. */
int kp__tune_add_value(struct tune_builder *b, int k, long long v, struct kp_error *err);
/* Records a site; returns 1 if added, 0 if it would overlap an existing one (left out). */
int kp__tune_add_site(struct tune_builder *b, int k, size_t off, size_t len, enum tune_site_kind kind);
int kp__tune_site_taken(const struct tune_builder *b, size_t off, size_t len);
int kp__tune_find_knob(const struct tune_builder *b, const char *name);
/* A constraint's text, parsed at finish time (after every knob exists). line 0: derived, which is
 * left out when full (derived_full) and dropped at bind time when the source's own values break it. */
int kp__tune_add_constraint(struct tune_builder *b, const char *text, size_t n, int line,
                            struct kp_error *err);

/* knobs.c: the space's hash (kp_tune_space_hash) from its template, knobs and constraints. */
void kp__tune_space_rehash(struct kp_tune_space *s);

/* derive.c: knobs from launches, __launch_bounds__ and #pragma unroll in CUDA text [start, end). */
int kp__tune_derive_cuda(struct tune_builder *b, size_t start, size_t end, struct kp_error *err);
/* knobs.c: markers in CUDA text; the Python dict and constraint list. */
int kp__tune_declared_cuda(struct tune_builder *b, struct kp_error *err);
int kp__tune_declared_python(struct tune_builder *b, int derive, struct kp_error *err);

/* ---- random numbers: xoshiro256** seeded by SplitMix64, the same on every machine ------------- */

struct tune_rng {
	uint64_t s[4];
};

void kp__tune_rng_seed(struct tune_rng *r, uint64_t seed);
uint64_t kp__tune_rng_next(struct tune_rng *r);
/* Uniform in [0, n), n > 0, without modulo bias. */
uint64_t kp__tune_rng_below(struct tune_rng *r, uint64_t n);
double kp__tune_rng_uniform(struct tune_rng *r);

/* ---- points as mixed-radix codes (search.c, bayes.c) ------------------------------------------- */

uint64_t kp__tune_point_code(const struct kp_tune_space *s, const struct kp_tune_point *p);
void kp__tune_point_decode(const struct kp_tune_space *s, uint64_t code, struct kp_tune_point *p);

/* ---- the model-based strategy (bayes.c) ------------------------------------------------------------ */

struct tune_obs {
	struct kp_tune_point p;
	int ok;
	double y; /* log seconds when ok */
};

/*
 * Picks up to `want` new points by expected improvement over a Gaussian process fitted to obs (failed
 * points count as the slowest seen). cands are the feasible points it may choose among (codes, none
 * tried yet). Writes the chosen codes into out; returns how many.
 */
size_t kp__tune_bayes_pick(const struct kp_tune_space *s, const struct tune_obs *obs, size_t nobs,
                           const uint64_t *cands, size_t ncands, size_t want, uint64_t *out);

#endif
