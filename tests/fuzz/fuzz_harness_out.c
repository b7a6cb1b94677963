/* Fuzz target: reading a harness child's output (JSON lines) into a verdict, and kernelpro's own
 * checks on it (trust.c: the sandbox object, deaths by SIGSYS/SIGXCPU, impossible numbers). The
 * harness runs candidate code in its process, so its output is outside data. */
#include "base/setup.h"

#include <signal.h>

#include "eval/harness.h"
#include "eval/trust.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_harness_out h;
	struct kp_child c;
	struct kp_verdict v;
	struct kp_error err = KP_ERROR_INIT;
	size_t half = size / 2;

	kp_harness_parse((const char *)data, size, &h);
	kp_child_init(&c);
	c.exit_code = size ? data[0] % 130 : 0;
	c.term_signal = size > 1 && data[1] < 16 ? data[1] : size > 1 && data[1] == 16 ? SIGSYS
							     : size > 1 && data[1] == 17 ? SIGXCPU
											 : 0;
	kp_buf_add(&c.err, data + half, size - half);
	kp_verdict_init(&v);
	if (kp_harness_apply(&h, &c, &v, &err) == 0)
		kp_eval_trust(&h, &c, &v);
	json_decref(kp_verdict_to_json(&v));
	kp_verdict_release(&v);
	kp_child_release(&c);
	kp_harness_release(&h);
	return 0;
}
