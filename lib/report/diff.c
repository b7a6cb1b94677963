/*
 * A line diff for the run page (a version against its parent and against the reference), written
 * as escaped HTML in unified form: the longest common subsequence of lines, then hunks with a few
 * lines of context. Quadratic in lines, so bounded: larger pairs say so instead.
 */
#include "base/setup.h"

#include "report/report_int.h"

#define DIFF_CELLS (4u << 20) /* lines(a) x lines(b) at most: 16 MiB of the table below */

struct lines {
	const char **at; /* start of each line */
	size_t *len;     /* its length without the newline */
	size_t n;
};

static void split(struct lines *L, const char *s)
{
	size_t cap = 16;
	L->n = 0;
	L->at = kp_xcalloc(cap, sizeof(*L->at));
	L->len = kp_xcalloc(cap, sizeof(*L->len));
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		if (L->n == cap) {
			cap *= 2;
			L->at = kp_xrealloc(L->at, cap * sizeof(*L->at));
			L->len = kp_xrealloc(L->len, cap * sizeof(*L->len));
		}
		L->at[L->n] = s;
		L->len[L->n++] = n;
		s += n + (nl ? 1 : 0);
	}
}

static void lines_release(struct lines *L)
{
	free(L->at);
	free(L->len);
}

static int same(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && !memcmp(a->at[i], b->at[j], a->len[i]);
}

/* One line of the diff: its mark (' ', '-', '+') and its text, escaped, in a span of its class. */
static void emit(struct kp_buf *b, char mark, const char *s, size_t n)
{
	char *line = kp_xstrndup(s, n);
	kp_buf_addf(b, "<span class=\"%s\">%c", mark == '+' ? "add" : mark == '-' ? "del" : "ctx", mark);
	kp_html_escape(b, line);
	kp_buf_adds(b, "</span>");
	free(line);
}

/* The edit script as ops: 0 keep, 1 delete a line of a, 2 insert a line of b. */
static size_t script(const struct lines *a, const struct lines *b, unsigned char **ops)
{
	size_t n = a->n, m = b->n, k = 0;
	/* lcs[i][j]: the common subsequence of a[i..] and b[j..], row-major with m + 1 columns. */
	unsigned *lcs = kp_xcalloc((n + 1) * (m + 1), sizeof(unsigned));
	*ops = kp_xcalloc(n + m + 1, 1);
	for (size_t i = n; i-- > 0;)
		for (size_t j = m; j-- > 0;)
			lcs[i * (m + 1) + j] = same(a, i, b, j) ? lcs[(i + 1) * (m + 1) + j + 1] + 1
			                       : lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1]
			                           ? lcs[(i + 1) * (m + 1) + j]
			                           : lcs[i * (m + 1) + j + 1];
	for (size_t i = 0, j = 0; i < n || j < m;) {
		if (i < n && j < m && same(a, i, b, j)) {
			(*ops)[k++] = 0;
			i++, j++;
		} else if (j >= m || (i < n && lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1])) {
			(*ops)[k++] = 1;
			i++;
		} else {
			(*ops)[k++] = 2;
			j++;
		}
	}
	free(lcs);
	return k;
}

int kp_html_diff(struct kp_buf *b, const char *old, const char *new_, int context)
{
	struct lines a, c;
	unsigned char *ops = NULL;
	size_t k, changed = 0;

	split(&a, old ? old : "");
	split(&c, new_ ? new_ : "");
	if ((a.n + 1) * (c.n + 1) > DIFF_CELLS) {
		kp_buf_addf(b, "<p class=\"note\">Too large to compare here (%zu and %zu lines).</p>\n", a.n,
		            c.n);
		lines_release(&a);
		lines_release(&c);
		return -1;
	}
	k = script(&a, &c, &ops);
	kp_buf_adds(b, "<pre class=\"diff\">");
	for (size_t x = 0, i = 0, j = 0; x < k;) {
		size_t start, end, ia, jc;
		if (!ops[x]) {
			x++, i++, j++;
			continue;
		}
		/* A hunk: this change and every change within 2 x context lines of it, with context around.
		 */
		start = x;
		end = x;
		for (size_t y = x, keep = 0; y < k; y++) {
			keep = ops[y] ? 0 : keep + 1;
			if (ops[y])
				end = y + 1;
			if (keep > (size_t)(2 * context))
				break;
		}
		ia = i;
		jc = j;
		for (size_t back = 0; back < (size_t)context && start > 0 && !ops[start - 1]; back++)
			start--, ia--, jc--;
		kp_buf_addf(b, "<span class=\"hunk\">@@ -%zu +%zu @@</span>", ia + 1, jc + 1);
		for (size_t y = start; y < end + (size_t)context && y < k; y++) {
			if (y >= end && ops[y])
				break;
			if (ops[y] == 0) {
				emit(b, ' ', a.at[ia], a.len[ia]);
				ia++, jc++;
			} else if (ops[y] == 1) {
				emit(b, '-', a.at[ia], a.len[ia]);
				ia++;
				changed++;
			} else {
				emit(b, '+', c.at[jc], c.len[jc]);
				jc++;
				changed++;
			}
		}
		/* Continue after the context written (a later change starts its own hunk there). */
		while (x < k && (x < end || (x < end + (size_t)context && !ops[x]))) {
			i += ops[x] != 2;
			j += ops[x] != 1;
			x++;
		}
	}
	if (!changed)
		kp_buf_adds(b, "(the same source)");
	kp_buf_adds(b, "</pre>\n");
	free(ops);
	lines_release(&a);
	lines_release(&c);
	return (int)(changed > 0x7fffffff ? 0x7fffffff : changed);
}
