/*
 * Which language the next version is asked in, when a run has several (optimize --formats
 * cuda,triton): the tree records every version's format, and this rule picks the child's from its
 * parent's (docs/triton.md, "Several languages in one search").
 */
#include "base/setup.h"

#include "kernelpro/search.h"
#include "kernelpro/task.h"
#include "kernelpro/task_kind.h"

static size_t count(const char *const *formats)
{
	size_t n = 0;
	while (formats && formats[n])
		n++;
	return n;
}

static size_t index_of(const char *const *formats, size_t n, const char *f)
{
	for (size_t i = 0; f && i < n; i++)
		if (!strcmp(formats[i], f))
			return i;
	return n;
}

/* How many versions of the tree are in formats[i] (the root, in none, is not counted). */
static size_t versions_in(const struct kp_tree *t, const char *format)
{
	size_t n = 0;
	for (size_t i = 0; i < t->count; i++)
		n += t->n[i].parent >= 0 && !strcmp(t->n[i].format, format);
	return n;
}

const char *kp_search_child_format(const struct kp_tree *t, int parent, enum kp_prog_mode mode,
				   const char *const *formats)
{
	size_t n = count(formats), have, least = 0, least_n = (size_t)-1;

	if (!n)
		return NULL;
	if (n == 1 || parent < 0 || (size_t)parent >= t->count)
		return formats[0];
	have = index_of(formats, n, t->n[parent].format);
	if (mode == KP_PROG_DEBUG && have < n)
		return formats[have]; /* a repair fixes its parent's code */
	for (size_t i = 0; i < n; i++) {
		size_t v = versions_in(t, formats[i]);
		if (v < least_n) {
			least_n = v;
			least = i;
		}
	}
	/* The reference's children and versions of no language of the run start the least-used one; a
	 * refinement keeps its parent's until that language leads the least-used one by two versions. */
	if (have == n || versions_in(t, formats[have]) >= least_n + 2)
		return formats[least];
	return formats[have];
}

const char *kp_search_version_format(const struct kp_search_task *task, const char *asked, const char *source)
{
	const char *f = asked ? asked : task->kind->format;
	/* A CUDA (torch-format) request answered with Triton kernels is a Triton version. */
	if (task->kind->python && !strcmp(f, "torch") && source && kp_py_has_triton(source, strlen(source)))
		return "triton";
	return f;
}
