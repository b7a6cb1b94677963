/*
 * "Did you mean": the known name closest to a mistyped one (a command, a sub-command, an option),
 * when it is close enough to be a typo. Offer every candidate, then read `best`.
 */
#ifndef KP_SUGGEST_H
#define KP_SUGGEST_H

#include <stddef.h>

struct kp_suggest {
	const char *word; /* what was typed (borrowed) */
	size_t len;
	const char *best; /* the closest candidate so far; NULL: none close enough */
	int best_dist;
};

/* word[0..len) is what was typed; both borrowed until the last kp_suggest_offer. */
void kp_suggest_init(struct kp_suggest *s, const char *word, size_t len);

/*
 * Considers one candidate: kept when its edit distance (insertions, deletions, substitutions and
 * swaps of neighbours) is at most 1 for words up to 4 letters, 2 up to 8, else 3, or when one of
 * the two begins with the other (at least 3 letters); the closest wins, the first on a tie.
 */
void kp_suggest_offer(struct kp_suggest *s, const char *candidate);

/* Edit distance as kp_suggest_offer counts it (optimal string alignment), capped at 64. */
int kp_suggest_distance(const char *a, size_t alen, const char *b, size_t blen);

#endif
