/* Unit tests: which language the search asks each new version in (lib/search/formats.c). */
#include "base/setup.h"

#include "kp_test.h"
#include "kernelpro/search.h"
#include "kernelpro/str.h"
#include "kernelpro/store.h"
#include "kernelpro/task_kind.h"

static const char *const both[] = {"torch", "triton", NULL};

/* Adds node `id` under `parent` (0: the root) written in `format`. */
static void add(struct kp_tree *t, long id, long parent, const char *format)
{
	struct kp_node_row r;
	kp_node_row_init(&r);
	r.id = id;
	r.parent = parent;
	r.kind = parent ? KP_NODE_REFINE : KP_NODE_ROOT;
	kp_strlcpy(r.format, format, sizeof(r.format));
	kp_tree_add(t, &r);
}

static void test_child_format(void **state)
{
	struct kp_tree t;
	const char *const one[] = {"triton", NULL};
	kp_tree_init(&t);
	add(&t, 1, 0, "");
	assert_null(kp_search_child_format(&t, 0, KP_PROG_INITIAL, NULL));
	assert_string_equal(kp_search_child_format(&t, 0, KP_PROG_INITIAL, one), "triton");
	/* the reference's children: the least-used language, the first on a tie */
	assert_string_equal(kp_search_child_format(&t, 0, KP_PROG_INITIAL, both), "torch");
	add(&t, 2, 1, "torch");
	assert_string_equal(kp_search_child_format(&t, 0, KP_PROG_INITIAL, both), "triton");
	/* a refinement keeps its parent's language until it leads by two */
	assert_string_equal(kp_search_child_format(&t, 1, KP_PROG_OPTIMIZE, both), "torch");
	add(&t, 3, 2, "torch");
	assert_string_equal(kp_search_child_format(&t, 2, KP_PROG_OPTIMIZE, both), "triton");
	/* a repair keeps it whatever the counts */
	assert_string_equal(kp_search_child_format(&t, 2, KP_PROG_DEBUG, both), "torch");
	add(&t, 4, 3, "triton");
	add(&t, 5, 4, "triton");
	assert_string_equal(kp_search_child_format(&t, 4, KP_PROG_OPTIMIZE, both), "triton");
	kp_tree_release(&t);
}

static void test_version_format(void **state)
{
	struct kp_search_task kb = {.kind = kp_task_kind_info(KP_TASK_KERNELBENCH)};
	struct kp_search_task nat = {.kind = kp_task_kind_info(KP_TASK_NATIVE)};
	const char *triton_src = "import triton\n@triton.jit\ndef k(x):\n    pass\n";
	assert_string_equal(kp_search_version_format(&kb, NULL, "class ModelNew: pass\n"), "torch");
	assert_string_equal(kp_search_version_format(&kb, "torch", triton_src), "triton");
	assert_string_equal(kp_search_version_format(&kb, "triton", triton_src), "triton");
	assert_string_equal(kp_search_version_format(&nat, NULL, "int kp_run() {}"), "cuda");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_child_format),
		cmocka_unit_test(test_version_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
