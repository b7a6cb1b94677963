/* libFuzzer target: the SASS parser (cuobjdump, nvdisasm, ncu source page), the name reader and the launch join. */
#include "base/setup.h"

#include "kernelpro/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_sass s = KP_SASS_INIT;
	struct kp_error err = KP_ERROR_INIT;
	char *name = kp_xstrndup((const char *)data, size < 512 ? size : 512);
	char *key = kp_kernel_name_key(name);
	free(key);
	key = kp_demangle_qualname(name);
	free(key);
	(void)kp_kernel_template_args_equal(name, name);
	(void)kp_kernel_template_args_equal(name, "void k<float>(T1 *)");
	if (kp_sass_parse(&s, "fuzz.sass", (const char *)data, size, &err) == 0) {
		struct kp_launch l = {0};
		kp_sass_find(&s, name);
		l.kernel = name; /* the launch join, template-argument tie-break included */
		l.cc = "9.0";
		kp_sass_find_launch(&s, &l);
	}
	free(name);
	kp_sass_release(&s);
	return 0;
}
