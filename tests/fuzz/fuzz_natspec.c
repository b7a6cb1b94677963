/* Fuzz target: the native harness's spec reader (kp_natspec_parse); what parses must write back and
 * parse again to the same text. */
#include "base/setup.h"

#include "eval/natspec.h"
#include "kernelpro/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kp_natspec s, r;
	struct kp_buf a = KP_BUF_INIT, b = KP_BUF_INIT;

	kp_natspec_init(&s);
	if (kp_natspec_parse(&s, (const char *)data, size, NULL) == 0) {
		kp_natspec_write(&s, &a);
		kp_natspec_init(&r);
		if (kp_natspec_parse(&r, a.buf, a.len, NULL) != 0)
			abort();
		kp_natspec_write(&r, &b);
		if (a.len != b.len || memcmp(a.buf, b.buf, a.len))
			abort();
	}
	kp_buf_release(&a);
	kp_buf_release(&b);
	return 0;
}
