/* Fuzz target: the static anti-cheat checks (Python lexer, C stripper, regex rules, op extraction)
 * on arbitrary candidate text, as a KernelBench and as a native candidate. */
#include "base/setup.h"

#include "eval/srcscan.h"
#include "kernelpro/eval.h"
#include "kernelpro/task.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char reference[] = "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
				"        return torch.relu(x @ x).sum(dim=1)\n"
				"def get_inputs():\n    return [torch.rand(4, 4)]\ndef get_init_inputs():\n    return []\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_task t;
	struct kp_verdict v;
	struct kp_eval_opts o;
	char *src = kp_xstrndup((const char *)data, size); /* candidates are text: stop at a NUL */
	size_t n = strlen(src);

	setenv("KERNELPRO_PYSTATIC", "off", 1); /* the text rules; fuzz_pyfacts.c takes the parser's reply */
	kp_eval_opts_init(&o);
	kp_task_init(&t);
	t.kind = KP_TASK_KERNELBENCH;
	t.precision = KP_DTYPE_F32;
	t.source = kp_xstrdup(reference);
	kp_verdict_init(&v);
	kp_eval_static(&t, src, n, &o, &v, NULL);
	kp_verdict_release(&v);
	t.kind = KP_TASK_NATIVE;
	kp_eval_static(&t, src, n, &o, &v, NULL);
	kp_verdict_release(&v);
	/* The task's own source is outside data too: fuzz it as the reference. */
	free(t.source);
	t.source = kp_xstrdup(src);
	t.kind = KP_TASK_KERNELBENCH;
	kp_eval_static(&t, reference, strlen(reference), &o, &v, NULL);
	kp_verdict_release(&v);
	kp_task_release(&t);
	free(src);
	return 0;
}
