/* "Did you mean": edit distance over short names, and the closest one within a typo's reach. */
#include "base/setup.h"

#include "suggest.h"

#define MAX_LEN 64 /* names are short; anything longer is compared on its first 64 characters */

void kp_suggest_init(struct kp_suggest *s, const char *word, size_t len)
{
	s->word = word;
	s->len = len < MAX_LEN ? len : MAX_LEN;
	s->best = NULL;
	s->best_dist = MAX_LEN + 1;
}

int kp_suggest_distance(const char *a, size_t alen, const char *b, size_t blen)
{
	int d[MAX_LEN + 1][MAX_LEN + 1];

	alen = alen < MAX_LEN ? alen : MAX_LEN;
	blen = blen < MAX_LEN ? blen : MAX_LEN;
	for (size_t i = 0; i <= alen; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= blen; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= alen; i++) {
		for (size_t j = 1; j <= blen; j++) {
			int cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1; /* two neighbours swapped: "optimzie" */
			d[i][j] = v;
		}
	}
	return d[alen][blen];
}

/* How far a typo may be from the word meant, by the word's length. */
static int reach(size_t len)
{
	return len <= 4 ? 1 : len <= 8 ? 2 : 3;
}

void kp_suggest_offer(struct kp_suggest *s, const char *candidate)
{
	size_t clen = strlen(candidate), shorter = clen < s->len ? clen : s->len;
	int dist;

	if (!s->len || (clen == s->len && !memcmp(candidate, s->word, clen)))
		return; /* the word itself is no suggestion */
	dist = kp_suggest_distance(s->word, s->len, candidate, clen);
	if (dist > reach(s->len) && !(shorter >= 3 && !memcmp(candidate, s->word, shorter)))
		return;
	if (dist < s->best_dist) {
		s->best = candidate;
		s->best_dist = dist;
	}
}
