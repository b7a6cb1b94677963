/* Unit tests: option tables, usage errors (exit 2), help text from the tables, global options. */
#include "base/setup.h"

#include "kp_test.h"
#include "cli.h"
#include "kernelpro/str.h"
#include "suggest.h"

static int ran;
static int run_fake(struct kp_cli *cli, const struct kp_args *a)
{
	ran++;
	return KP_EXIT_OK;
}

static const struct kp_opt fake_opts[] = {
	{"budget", 'b', KP_OPT_INT, "N", "evaluations", "10"},
	{"ratio", 0, KP_OPT_NUM, "X", "a number", NULL},
	{"mode", 0, KP_OPT_CHOICE, "fast|slow", "how", "fast"},
	{"tag", 't', KP_OPT_LIST, "TAG", "tags", NULL},
	{"dry-run", 0, KP_OPT_FLAG, NULL, "do nothing", NULL},
	{"name", 0, KP_OPT_STR, "NAME", "a name", NULL},
	KP_OPT_TABLE_END,
};

static const struct kp_cmd fake = {
	.name = "fake", .summary = "A command for tests", .usage = "[options] TASK",
	.flags = KP_CMD_JSON, .opts = fake_opts, .min_args = 1, .max_args = 1, .run = run_fake,
};

static int parse(struct kp_args *a, char **argv, int argc, char **errtext)
{
	size_t n;
	FILE *err = open_memstream(errtext, &n);
	FILE *out = fopen("/dev/null", "w");
	int rc = kp_args_parse(a, &fake, "kernelpro fake", argc, argv, err, out);
	fclose(err);
	fclose(out);
	return rc;
}

static void test_parse_ok(void **state)
{
	struct kp_args a;
	char *e = NULL;
	char *argv[] = {"fake", "-b", "5", "--ratio=0.5", "--tag", "x", "-t", "y", "--json", "task.py", "--dry-run"};
	assert_int_equal(parse(&a, argv, 11, &e), 0);
	assert_int_equal(kp_arg_int(&a, "budget", 0), 5);
	assert_true(kp_arg_num(&a, "ratio", 0) == 0.5);
	assert_string_equal(kp_arg_str(&a, "mode"), "fast"); /* default applied */
	assert_int_equal(kp_arg_list(&a, "tag")->n, 2);
	assert_string_equal(kp_arg_list(&a, "tag")->v[1], "y");
	assert_true(kp_arg_flag(&a, "json"));
	assert_true(kp_arg_flag(&a, "dry-run"));
	assert_null(kp_arg_str(&a, "name"));
	assert_string_equal(kp_arg_pos(&a, 0), "task.py");
	kp_args_release(&a);
	free(e);
}

static void check_usage_error(char **argv, int argc, const char *want)
{
	struct kp_args a;
	char *e = NULL;
	assert_int_equal(parse(&a, argv, argc, &e), KP_EXIT_USAGE);
	if (!strstr(e, want))
		fail_msg("expected '%s' in: %s", want, e);
	assert_non_null(strstr(e, "usage: kernelpro fake [options] TASK"));
	kp_args_release(&a);
	free(e);
}

static void test_usage_errors(void **state)
{
	char *a1[] = {"fake", "--frobnicate", "t"};
	char *a2[] = {"fake", "-b", "many", "t"};
	char *a3[] = {"fake", "--mode", "medium", "t"};
	char *a4[] = {"fake"};
	char *a5[] = {"fake", "t", "u"};
	char *a6[] = {"fake", "t", "--budget"};
	char *a7[] = {"fake", "--dry-run=yes", "t"};
	char *a8[] = {"fake", "-Z", "t"};
	check_usage_error(a1, 3, "unknown option '--frobnicate'");
	check_usage_error(a2, 4, "expects a whole number, not 'many'");
	check_usage_error(a3, 4, "expects one of fast|slow");
	check_usage_error(a4, 1, "missing argument");
	check_usage_error(a5, 3, "unexpected argument 'u'");
	check_usage_error(a6, 3, "needs a value");
	check_usage_error(a7, 3, "takes no value");
	check_usage_error(a8, 3, "unknown option '-Z'");
}

static void test_help_from_table(void **state)
{
	char *buf = NULL;
	size_t n;
	FILE *fp = open_memstream(&buf, &n);
	kp_cmd_print_help(&fake, "kernelpro fake", fp);
	fclose(fp);
	/* Every option of the table appears, with its default and choices. */
	for (const struct kp_opt *o = fake_opts; o->name; o++) {
		char want[64];
		snprintf(want, sizeof(want), "--%s", o->name);
		assert_non_null(strstr(buf, want));
	}
	assert_non_null(strstr(buf, "[default: 10]"));
	assert_non_null(strstr(buf, "(fast|slow)"));
	assert_non_null(strstr(buf, "--json"));
	assert_non_null(strstr(buf, "--verbose"));
	free(buf);
}

static int run_main(char **argv, int argc, char **out, char **err)
{
	size_t n1, n2;
	FILE *o = open_memstream(out, &n1), *e = open_memstream(err, &n2);
	int rc = kp_cli_main(argc, argv, o, e, NULL);
	fclose(o);
	fclose(e);
	return rc;
}

static void test_main_dispatch(void **state)
{
	char *out = NULL, *err = NULL;
	char *v[] = {"kernelpro", "--version"};
	char *u[] = {"kernelpro", "frobnicate"};
	char *f[] = {"kernelpro", "doctor", "--nope"};
	char *g[] = {"kernelpro", "--bogus"};
	char *h[] = {"kernelpro", "--help"};
	char *c[] = {"kernelpro", "--color=sometimes", "doctor"};
	char *n[] = {"kernelpro"};

	assert_int_equal(run_main(v, 2, &out, &err), 0);
	assert_true(kp_starts_with(out, "kernelpro "));
	free(out), free(err);

	assert_int_equal(run_main(u, 2, &out, &err), KP_EXIT_USAGE);
	assert_non_null(strstr(err, "unknown command 'frobnicate'"));
	assert_non_null(strstr(err, "usage: kernelpro"));
	free(out), free(err);

	assert_int_equal(run_main(f, 3, &out, &err), KP_EXIT_USAGE);
	assert_non_null(strstr(err, "unknown option '--nope'"));
	free(out), free(err);

	assert_int_equal(run_main(g, 2, &out, &err), KP_EXIT_USAGE);
	free(out), free(err);

	assert_int_equal(run_main(h, 2, &out, &err), 0);
	for (const struct kp_cmd *const *cmd = kp_commands(); *cmd; cmd++)
		assert_non_null(strstr(out, (*cmd)->name));
	free(out), free(err);

	assert_int_equal(run_main(c, 3, &out, &err), KP_EXIT_USAGE);
	free(out), free(err);

	assert_int_equal(run_main(n, 1, &out, &err), KP_EXIT_USAGE);
	free(out), free(err);
}

static void test_every_command_has_help(void **state)
{
	for (const struct kp_cmd *const *cmd = kp_commands(); *cmd; cmd++) {
		char *out = NULL, *err = NULL;
		char *argv[] = {"kernelpro", (char *)(*cmd)->name, "--help"};
		assert_int_equal(run_main(argv, 3, &out, &err), 0);
		assert_non_null(strstr(out, "usage: kernelpro"));
		assert_non_null((*cmd)->summary);
		free(out), free(err);
	}
}

/* Help text: examples in every command's help, and every name a --help brief list keeps is an option. */
static void check_examples_and_brief(const struct kp_cmd *cmd, const char *parent)
{
	char p[128];
	snprintf(p, sizeof(p), "%s %s", parent, cmd->name);
	if (!cmd->examples || !strstr(cmd->examples, "kernelpro "))
		fail_msg("'%s --help' has no examples", p);
	for (const char *const *b = cmd->brief; b && *b; b++) {
		const struct kp_opt *o = cmd->opts;
		while (o && o->type != KP_OPT_END && strcmp(o->name, *b))
			o++;
		if (!o || o->type == KP_OPT_END || o->type == KP_OPT_ALIAS)
			fail_msg("'%s': --help keeps '--%s', which is no option of it", p, *b);
	}
	for (const struct kp_cmd *const *s = cmd->subs; s && *s; s++)
		check_examples_and_brief(*s, p);
}

static void test_help_examples_and_brief(void **state)
{
	for (const struct kp_cmd *const *cmd = kp_commands(); *cmd; cmd++)
		check_examples_and_brief(*cmd, "kernelpro");
}

/* --help shows the brief options and how many it left out; --help-all every one. */
static const struct kp_opt many_opts[] = {
	{"common", 0, KP_OPT_FLAG, NULL, "the one users need", NULL},
	{"rare", 0, KP_OPT_FLAG, NULL, "a detail", NULL},
	{"rarer", 0, KP_OPT_STR, "X", "another detail", NULL},
	KP_OPT_TABLE_END,
};
static const char *const many_brief[] = {"common", NULL};
static const struct kp_cmd many = {
	.name = "many", .summary = "Many options", .usage = "[options]", .opts = many_opts, .max_args = 0,
	.run = run_fake, .brief = many_brief, .more = "docs/many.md", .examples = "kernelpro many --common",
};

static void test_help_brief(void **state)
{
	char *h = NULL, *e = NULL;
	size_t n;
	FILE *err, *out;
	struct kp_args a;
	char *argv[] = {"many", "--help-all"};

	out = open_memstream(&h, &n);
	kp_cmd_print_help(&many, "kernelpro many", out);
	fclose(out);
	assert_non_null(strstr(h, "--common"));
	assert_null(strstr(h, "--rare"));
	assert_non_null(strstr(h, "... and 2 more: 'kernelpro many --help-all' lists every option; docs/many.md"));
	assert_non_null(strstr(h, "examples:\n  kernelpro many --common\n"));
	free(h);
	err = open_memstream(&e, &n);
	out = open_memstream(&h, &n);
	assert_int_equal(kp_args_parse(&a, &many, "kernelpro many", 2, argv, err, out), -1);
	fclose(err);
	fclose(out);
	kp_args_release(&a);
	assert_non_null(strstr(h, "--rarer X"));
	assert_non_null(strstr(h, "--help-all"));
	assert_null(strstr(h, "more:"));
	free(h);
	free(e);
}

static const struct kp_opt ranged_opts[] = {
	{"jobs", 'j', KP_OPT_INT, "N:1..64", "in flight", NULL},
	{"wait", 0, KP_OPT_NUM, "SECONDS:>0", "a time", NULL},
	{"temp", 0, KP_OPT_NUM, "T:0..2", "a temperature", NULL},
	{"most", 0, KP_OPT_INT, "N:..5", "at most five", NULL},
	{"all", 'a', KP_OPT_FLAG, NULL, "a flag", NULL},
	{"tag", 't', KP_OPT_LIST, "TAG", "tags", NULL},
	KP_OPT_TABLE_END,
};

static const struct kp_cmd ranged = {
	.name = "ranged", .summary = "Ranges", .usage = "[options]", .opts = ranged_opts, .max_args = 0,
	.run = run_fake,
};

static int parse_ranged(struct kp_args *a, char **argv, int argc, char **errtext)
{
	size_t n;
	FILE *err = open_memstream(errtext, &n);
	FILE *out = fopen("/dev/null", "w");
	int rc = kp_args_parse(a, &ranged, "kernelpro top ranged", argc, argv, err, out);
	fclose(err);
	fclose(out);
	return rc;
}

/* Ranges from the table (exit 2 with what is allowed), finite numbers, bundled short flags. */
static void test_ranges_and_bundles(void **state)
{
	static const struct {
		const char *arg, *want;
	} bad[] = {
		{"--jobs=0", "option '--jobs' must be 1..64, not '0'"},
		{"--jobs=65", "must be 1..64"},
		{"--wait=0", "option '--wait' must be more than 0, not '0'"},
		{"--wait=nan", "option '--wait' expects a number, not 'nan'"},
		{"--wait=inf", "expects a number"},
		{"--temp=2.5", "must be 0..2"},
		{"--most=6", "must be at most 5"},
		{"-j0", "must be 1..64"},
		{"-ax", "unknown option '-x' in '-ax'"},
	};
	struct kp_args a;
	char *e = NULL;
	char *ok[] = {"ranged", "-aa", "-j4", "--wait", "0.5", "--temp=2", "--most=-3", "-t", "x", "-at", "y"};

	assert_int_equal(parse_ranged(&a, ok, 11, &e), 0);
	assert_int_equal(kp_arg_given(&a, "all"), 3);
	assert_int_equal(kp_arg_int(&a, "jobs", 0), 4);
	assert_true(kp_arg_num(&a, "wait", 0) == 0.5);
	assert_int_equal(kp_arg_list(&a, "tag")->n, 2);
	assert_string_equal(kp_arg_list(&a, "tag")->v[1], "y");
	kp_args_release(&a);
	free(e);
	for (size_t i = 0; i < KP_ARRAY_SIZE(bad); i++) {
		char *argv[] = {"ranged", (char *)bad[i].arg};
		e = NULL;
		assert_int_equal(parse_ranged(&a, argv, 2, &e), KP_EXIT_USAGE);
		if (!strstr(e, bad[i].want) || !strstr(e, "kernelpro top ranged: ") ||
		    !strstr(e, "usage: kernelpro top ranged"))
			fail_msg("'%s': %s", bad[i].arg, e);
		kp_args_release(&a);
		free(e);
	}
}

/* Every range in every command's table is well formed (a malformed one aborts) and shows in help. */
static void check_ranges(const struct kp_cmd *cmd, const char *prefix)
{
	char p[128];
	snprintf(p, sizeof(p), "%s %s", prefix, cmd->name);
	for (const struct kp_opt *o = cmd->opts; o && o->name; o++) {
		struct kp_args a;
		char opt[96], *e = NULL, *h = NULL;
		char *argv[] = {(char *)cmd->name, opt};
		size_t n;
		FILE *err, *out;
		if ((o->type != KP_OPT_INT && o->type != KP_OPT_NUM) || !o->arg || !strchr(o->arg, ':'))
			continue;
		snprintf(opt, sizeof(opt), "--%s=0", o->name);
		err = open_memstream(&e, &n);
		out = fopen("/dev/null", "w");
		kp_args_parse(&a, cmd, p, 2, argv, err, out);
		fclose(err);
		fclose(out);
		kp_args_release(&a);
		out = open_memstream(&h, &n);
		kp_cmd_print_help_all(cmd, p, out);
		fclose(out);
		snprintf(opt, sizeof(opt), "--%s %.*s ", o->name, (int)(strchr(o->arg, ':') - o->arg), o->arg);
		if (!strstr(h, opt))
			fail_msg("%s: help shows '%s' wrongly:\n%s", p, o->name, h);
		free(e);
		free(h);
	}
	for (const struct kp_cmd *const *s = cmd->subs; s && *s; s++)
		check_ranges(*s, p);
}

static void test_every_range(void **state)
{
	for (const struct kp_cmd *const *cmd = kp_commands(); *cmd; cmd++)
		check_ranges(*cmd, "kernelpro");
}

static const char *suggest(const char *word, const char *const *cands)
{
	struct kp_suggest sg;
	kp_suggest_init(&sg, word, strlen(word));
	for (; *cands; cands++)
		kp_suggest_offer(&sg, *cands);
	return sg.best;
}

/* "Did you mean": typos within reach, swaps counted once, prefixes, and nothing for a stranger. */
static void test_suggest(void **state)
{
	static const char *const cmds[] = {"optimize", "bench", "runs", "show", "report", "eval", "energy", NULL};
	static const char *const opts[] = {"evals", "time", "tokens", "cost", "evaluator", NULL};
	assert_int_equal(kp_suggest_distance("optimze", 7, "optimize", 8), 1);
	assert_int_equal(kp_suggest_distance("optimzie", 8, "optimize", 8), 1); /* a swap */
	assert_int_equal(kp_suggest_distance("", 0, "abc", 3), 3);
	assert_int_equal(kp_suggest_distance("kitten", 6, "sitting", 7), 3);
	assert_string_equal(suggest("optimze", cmds), "optimize");
	assert_string_equal(suggest("bnech", cmds), "bench");
	assert_string_equal(suggest("shwo", cmds), "show");
	assert_string_equal(suggest("eval", opts), "evals");    /* one letter short */
	assert_string_equal(suggest("evaluat", opts), "evaluator"); /* a prefix, past the reach */
	assert_string_equal(suggest("tokns", opts), "tokens");
	assert_null(suggest("frobnicate", cmds));
	assert_null(suggest("x", opts));
	assert_null(suggest("eval", (const char *const[]){"eval", NULL})); /* the word itself */
}

/* Counts read right: "1 evaluation", "0 evaluations", "2 evaluations". */
static void test_plural(void **state)
{
	assert_string_equal(kp_plural(1, "evaluation", "evaluations"), "evaluation");
	assert_string_equal(kp_plural(-1, "degree", "degrees"), "degree");
	assert_string_equal(kp_plural(0, "evaluation", "evaluations"), "evaluations");
	assert_string_equal(kp_plural(2, "baseline", "baselines"), "baselines");
	assert_string_equal(kp_plural(11, "task", "tasks"), "tasks");
}

/* An unknown option names the one meant. */
static void test_unknown_option_suggests(void **state)
{
	char *argv[] = {"fake", "--dryrun", "task.py"};
	check_usage_error(argv, 3, "unknown option '--dryrun'; did you mean '--dry-run'?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_help_from_table),
		cmocka_unit_test(test_main_dispatch),
		cmocka_unit_test(test_every_command_has_help),
		cmocka_unit_test(test_ranges_and_bundles),
		cmocka_unit_test(test_every_range),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_plural),
		cmocka_unit_test(test_unknown_option_suggests),
		cmocka_unit_test(test_help_examples_and_brief),
		cmocka_unit_test(test_help_brief),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
