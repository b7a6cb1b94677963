/* Fuzz target: a model-written KernelBench kernel made self-contained for export
 * (kp__suite_kb_kernel): never a crash; the kernel's own lines all come back; a kernel it did not
 * rewrite comes back whole. */
#include "base/setup.h"

#include "kernelpro/buf.h"
#include "suite/kbexport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_buf out = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	char *src = kp_xstrndup((const char *)data, size); /* a text: up to its first NUL */
	int rewritten = 0;

	if (kp__suite_kb_kernel(src, &out, &rewritten, &err) == 0) {
		if (!rewritten && !strstr(out.buf, src))
			abort();
		if (rewritten &&
		    (!strstr(out.buf, "_kp_fast = _kp_inline_fast(") || out.len < strlen(src) / 2))
			abort();
	} else if (!err.msg[0]) {
		abort(); /* a refusal always says why */
	}
	kp_buf_release(&out);
	free(src);
	return 0;
}
