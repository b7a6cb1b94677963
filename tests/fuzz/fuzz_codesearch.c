/* libFuzzer target: the code-search readers of outside text: the symbol extractor and file
 * descriptions (any C++ source), CUTLASS's version.h, the CUTLASS/sm_90a source scans, and the
 * snippet references search memory keeps. */
#include "base/setup.h"

#include "kernelpro/codesearch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct kp_cs_symbols s = {0};
	char desc[64], version[32], name[64], where[64];
	char *z = kp_xstrndup(text, size);

	kp_cs_extract(text, size, 0, &s);
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].line < 1 || s.v[i].end_line < s.v[i].line || s.v[i].doc_line > s.v[i].line)
			__builtin_trap(); /* a line range that does not hold together */
	kp_cs_symbols_release(&s);
	kp_cs_describe(text, size, desc, sizeof(desc));
	if (strlen(desc) >= sizeof(desc))
		__builtin_trap();
	kp_cutlass_parse_version(text, size, version, sizeof(version), NULL);
	kp_cutlass_source_uses(text, size);
	kp_cutlass_source_needs_arch_a(text, size);
	if (kp_cs_ref_parse(z, name, sizeof(name), where, sizeof(where)) == 0 && !strchr(where, ':'))
		__builtin_trap();
	kp_cs_ref_used(z, z);
	free(z);
	return 0;
}
