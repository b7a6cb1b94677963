/* libFuzzer target: the prompt template parser and renderer (users write their own templates). */
#include "base/setup.h"

#include "programmer/prog_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_tmpl t;
	struct kp_error err = KP_ERROR_INIT;
	const char *vals[KP_NSLOTS] = {0};
	vals[KP_SLOT_task_name] = "t";
	vals[KP_SLOT_memory] = "m\n\n";
	if (kp_tmpl_parse(&t, "fuzz.txt", kp_xstrndup((const char *)data, size), &err) == 0) {
		struct kp_buf out = KP_BUF_INIT;
		kp_tmpl_render(&t, vals, &out);
		kp_buf_release(&out);
		kp_tmpl_release(&t);
	} else if (!err.msg[0]) {
		__builtin_trap();
	}
	return 0;
}
