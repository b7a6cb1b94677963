/* Fuzz target: task.json parsing (kp_task_parse_native) and the task's JSON form. */
#include "base/setup.h"

#include "kernelpro/task.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_task t;
	struct kp_error err = KP_ERROR_INIT;
	kp_task_init(&t);
	if (kp_task_parse_native(&t, (const char *)data, size, "/tmp", &err) == 0) {
		json_t *j = kp_task_to_json(&t);
		double atol, rtol;
		for (size_t i = 0; i <= t.noutputs; i++)
			kp_task_tolerance(&t, i, &atol, &rtol);
		for (size_t i = 0; i < t.ninputs; i++)
			if (!kp_tensor_spec_bytes(&t.inputs[i]))
				__builtin_trap(); /* the parser must reject shapes whose size overflows */
		json_decref(j);
	}
	kp_task_release(&t);
	return 0;
}
