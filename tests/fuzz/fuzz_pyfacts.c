/* Fuzz target: the reply of the static checks' Python parser (harness/kp_pystatic.py), read by
 * kp_pyfacts_parse: any bytes give facts within their caps or an error, never a crash. */
#include "base/setup.h"

#include "eval/static_py.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kp_pyfacts f; /* ~60 KiB: not on the fuzzer's stack */
	struct kp_error err = KP_ERROR_INIT;
	if (kp_pyfacts_parse(&f, (const char *)data, size, &err) == 0 && f.parsed)
		if (f.nref > KP_PYFACTS_MAX_OPS || f.ncand > KP_PYFACTS_MAX_OPS || f.reads.n > KP_PYFACTS_MAX_EV)
			KP_BUG("python static facts past their caps");
	return 0;
}
