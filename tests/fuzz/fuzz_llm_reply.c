/*
 * libFuzzer target: the providers' reply and error-body parsers (what an HTTP server sends back),
 * and the scrubber that runs over every such text before it is shown or saved.
 */
#include "base/setup.h"

#include "kernelpro/llm.h"
#include "llm/redact.h"
#include "llm/wire.h"

#define SECRET "sk-TESTfuzz0123456789abcdefXYZ"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *body = (const char *)data;
	char msg[256];
	static const struct kp_llm_wire *const wires[] = {&kp_llm_wire_openai, &kp_llm_wire_anthropic};
	for (size_t w = 0; w < sizeof(wires) / sizeof(wires[0]); w++) {
		struct kp_llm_reply r;
		struct kp_error err = KP_ERROR_INIT;
		memset(&r, 0, sizeof(r));
		if (kp_llm_wire_parse_reply(wires[w], body, size, &r, &err) == 0) {
			/* The text as received (a NUL inside is kept for kp_llm_check_text to refuse). */
			if (!r.text || r.text[r.len] != '\0' || strlen(r.text) > r.len)
				__builtin_trap();
		}
		kp_llm_reply_release(&r);
	}
	kp_llm_parse_error(body, size, msg, sizeof(msg));
	if (strlen(msg) >= sizeof(msg) || strchr(msg, '\n'))
		__builtin_trap();
	{
		/* The input with the key spliced into its middle: it never survives the scrubber. */
		struct kp_redactor rd;
		struct kp_buf b = KP_BUF_INIT;
		kp_redactor_init(&rd);
		kp_redactor_add(&rd, SECRET);
		kp_buf_add(&b, body, size / 2);
		kp_buf_adds(&b, SECRET);
		kp_buf_add(&b, body + size / 2, size - size / 2);
		kp_redact_buf(&rd, &b, 1);
		if (b.buf[b.len] != '\0' || memmem(b.buf, b.len, SECRET, strlen(SECRET)))
			__builtin_trap();
		kp_buf_release(&b);
		kp_redactor_release(&rd);
	}
	return 0;
}
