/* libFuzzer target: code extraction, request lines and log trimming over arbitrary model replies. */
#include "base/setup.h"

#include "kernelpro/programmer.h"
#include "programmer/prog_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A NUL-terminated copy: replies reach the extractor as C strings. */
	char *s = kp_xstrndup((const char *)data, size);
	size_t len = strlen(s);
	struct kp_prog_request rq[KP_PROG_MAX_REQUESTS];
	struct kp_buf code = KP_BUF_INIT, trimmed = KP_BUF_INIT;
	char reason[512];

	for (int f = KP_CAND_CUDA; f <= KP_CAND_TORCH; f++) {
		kp_buf_reset(&code);
		reason[0] = '\0';
		if (kp_prog_extract(s, len, (enum kp_cand_format)f, NULL, (int)(size & 1), &code, reason, sizeof(reason)) == 0) {
			/* Extracted code is a piece of the reply (plus a final newline). */
			if (!code.len || code.len > len + 1)
				__builtin_trap();
		} else if (!reason[0]) {
			__builtin_trap(); /* every rejection says why */
		}
	}
	size_t n = kp_prog_parse_requests(s, len, rq, KP_PROG_MAX_REQUESTS);
	for (size_t i = 0; i < n; i++)
		if (!rq[i].is_tool && !rq[i].text[0])
			__builtin_trap();
	kp_prog_trim_log(s, 1000, &trimmed);
	if (trimmed.len > 1000 + 400)
		__builtin_trap();
	kp_buf_release(&code);
	kp_buf_release(&trimmed);
	free(s);
	return 0;
}
