/* Log excerpts for verdicts: error lines with context, else the tail; always within a size cap. */
#include "base/setup.h"

#include "eval/excerpt.h"

static const char *const error_words[] = {"error", "Error", "ERROR", "fatal", "undefined", "Traceback",
					  "Exception", "illegal", "out of memory", "Timeout", "assert",
					  "Segmentation", "Aborted"};

static int is_error_line(const char *s, size_t n)
{
	for (size_t w = 0; w < KP_ARRAY_SIZE(error_words); w++) {
		size_t wl = strlen(error_words[w]);
		for (size_t i = 0; i + wl <= n; i++)
			if (!memcmp(s + i, error_words[w], wl))
				return 1;
	}
	return 0;
}

void kp_excerpt(const char *text, size_t len, size_t cap, int context, struct kp_buf *out)
{
	size_t nlines = 0, *starts, *ends;
	unsigned char *keep;
	size_t i, base = out->len;
	int any = 0;
	long last = -2;

	if (!text || !len)
		return;
	if (len <= cap) {
		kp_buf_add(out, text, len);
		return;
	}
	for (i = 0; i < len; i++)
		if (text[i] == '\n')
			nlines++;
	nlines++;
	starts = kp_xcalloc(nlines, sizeof(*starts));
	ends = kp_xcalloc(nlines, sizeof(*ends));
	keep = kp_xcalloc(nlines, 1);
	nlines = 0;
	starts[0] = 0;
	for (i = 0; i <= len; i++)
		if (i == len || text[i] == '\n') {
			ends[nlines] = i;
			nlines++;
			if (i < len)
				starts[nlines] = i + 1;
		}
	for (i = 0; i < nlines; i++)
		if (is_error_line(text + starts[i], ends[i] - starts[i])) {
			size_t lo = i >= (size_t)context ? i - (size_t)context : 0;
			for (size_t j = lo; j < nlines && j <= i + (size_t)context; j++)
				keep[j] = 1;
			any = 1;
		}
	if (any) {
		for (i = 0; i < nlines; i++) {
			size_t n = ends[i] - starts[i];
			if (!keep[i])
				continue;
			if ((long)i != last + 1 && out->len > base)
				kp_buf_adds(out, "...\n");
			if (out->len - base + n + 1 > cap) {
				kp_buf_adds(out, "...\n");
				break;
			}
			kp_buf_add(out, text + starts[i], n);
			kp_buf_addch(out, '\n');
			last = (long)i;
		}
	} else {
		size_t from = len - (cap > 4 ? cap - 4 : 0);
		while (from < len && text[from] != '\n')
			from++;
		kp_buf_adds(out, "...");
		kp_buf_add(out, text + from, len - from);
	}
	free(starts);
	free(ends);
	free(keep);
}
