/* libFuzzer target: the providers' reply and error-body parsers (what an HTTP server sends back). */
#include "base/setup.h"

#include "kernelpro/llm.h"
#include "llm/wire.h"

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
			if (!r.text || strlen(r.text) != r.len)
				__builtin_trap();
		}
		kp_llm_reply_release(&r);
	}
	kp_llm_parse_error(body, size, msg, sizeof(msg));
	if (strlen(msg) >= sizeof(msg) || strchr(msg, '\n'))
		__builtin_trap();
	return 0;
}
