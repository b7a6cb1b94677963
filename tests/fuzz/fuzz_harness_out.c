/* Fuzz target: reading a harness child's output (JSON lines) into a verdict. The harness runs
 * candidate code in its process, so its output is outside data. */
#include "base/setup.h"

#include "eval/harness.h"

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
	c.term_signal = size > 1 && data[1] < 16 ? data[1] : 0;
	kp_buf_add(&c.err, data + half, size - half);
	kp_verdict_init(&v);
	kp_harness_apply(&h, &c, &v, &err);
	json_decref(kp_verdict_to_json(&v));
	kp_verdict_release(&v);
	kp_child_release(&c);
	kp_harness_release(&h);
	return 0;
}
