/* The task-kind table: one row per kind, read wherever a kind decides something (task_kind.h). */
#include "base/setup.h"

#include "kernelpro/task_kind.h"

static const struct kp_task_kind_info kinds[] = {
	{
		.kind = KP_TASK_KERNELBENCH,
		.name = "kernelbench",
		.what = "a KernelBench .py file (Model, get_inputs, get_init_inputs)",
		.lang = "python",
		.ext = "py",
		.format = "torch",
		.best_file = "best.py",
		/* The reference profiled as a candidate is the reference itself. */
		.reference_as_candidate = "\n\nModelNew = Model\n",
		.energy = 0,
		.python = 1,
		.warm_worker = 1,
		.compile_baseline = 1,
		.spec_file = NULL,
		.spec_tensors = 0,
		.entry_point = NULL,
		.entry_missing = NULL,
		.kernelbench_ids = 1,
		.formats = {"torch", "triton", NULL},
	},
	{
		.kind = KP_TASK_NATIVE,
		.name = "native",
		.what = "a native task directory (task.json and reference.cu)",
		.lang = "cuda",
		.ext = "cu",
		.format = "cuda",
		.best_file = "best.cu",
		.reference_as_candidate = NULL,
		.energy = 1,
		.python = 0,
		.warm_worker = 0,
		.compile_baseline = 0,
		.spec_file = "task.json",
		.spec_tensors = 1,
		.entry_point = "kp_run",
		.entry_missing = "the candidate does not define kp_run (KP_EXPORT int kp_run(...); docs/native-tasks.md)",
		.kernelbench_ids = 0,
		.formats = {"cuda", NULL},
	},
	{
		.kind = KP_TASK_TRITON,
		.name = "triton",
		.what = "a Python file whose Model launches Triton kernels (get_inputs, get_init_inputs)",
		.lang = "python",
		.ext = "py",
		.format = "triton",
		.best_file = "best.py",
		.reference_as_candidate = "\n\nModelNew = Model\n",
		.energy = 0,
		.python = 1,
		.warm_worker = 0,
		.compile_baseline = 0,
		.spec_file = NULL,
		.spec_tensors = 0,
		.entry_point = NULL,
		.entry_missing = NULL,
		.kernelbench_ids = 0,
		.formats = {"triton", "torch", NULL},
	},
};

/* Language words and the formats they name, per harness (docs/triton.md, "Formats"). */
static const struct {
	const char *word;
	int python; /* for Python kinds (1) or native ones (0) */
	const char *format;
} words[] = {
	{"cuda", 1, "torch"},
	{"cuda", 0, "cuda"},
	{"triton", 1, "triton"},
};

const struct kp_task_kind_info *kp_task_kind_info(enum kp_task_kind k)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(kinds); i++)
		if (kinds[i].kind == k)
			return &kinds[i];
	return &kinds[0];
}

const struct kp_task_kind_info *kp_task_kind_find(const char *name)
{
	for (size_t i = 0; name && i < KP_ARRAY_SIZE(kinds); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

const struct kp_task_kind_info *kp_task_kind_for_lang(const char *lang)
{
	for (size_t i = 0; lang && i < KP_ARRAY_SIZE(kinds); i++)
		if (!strcmp(kinds[i].lang, lang))
			return &kinds[i];
	return NULL;
}

const struct kp_task_kind_info *kp_task_kinds(size_t *n)
{
	*n = KP_ARRAY_SIZE(kinds);
	return kinds;
}

const char *kp_task_kind_name(enum kp_task_kind k)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(kinds); i++)
		if (kinds[i].kind == k)
			return kinds[i].name;
	return "unknown";
}

const char *kp_task_kind_format_for(const struct kp_task_kind_info *k, const char *word)
{
	const char *format = NULL;
	if (!k || !word)
		return NULL;
	for (size_t i = 0; i < KP_ARRAY_SIZE(words) && !format; i++)
		if (!strcmp(words[i].word, word) && words[i].python == k->python)
			format = words[i].format;
	if (!format)
		format = word;
	for (size_t i = 0; k->formats[i]; i++)
		if (!strcmp(k->formats[i], format))
			return k->formats[i];
	return NULL;
}

const char *kp_cand_format_language(const char *format)
{
	for (size_t i = 0; format && i < KP_ARRAY_SIZE(words); i++)
		if (!strcmp(words[i].format, format))
			return words[i].word;
	return NULL;
}
