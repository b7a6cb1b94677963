/*
 * Unit tests: Lua user tools. One adds a finding, one replaces a built-in, broken ones (syntax,
 * runtime error, bad table, bad result) name their file and line while the others still run, an
 * endless loop hits the instruction limit, a missing metric gives a "missing metric" result, the
 * sandbox has no io/os/require/load, and thresholds are overridable like the built-ins'.
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kp_test.h"
#include "kp_tools_fixture.h"

#define TOOL_HEAD(name) "return { name = \"" name "\", description = \"test tool\", "

static char *dir;
static struct kp_fx fx;

static void write_tool(const char *file, const char *text)
{
	struct kp_buf p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_buf_addf(&p, "%s/%s", dir, file);
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, text, strlen(text), &err), &err);
	kp_buf_release(&p);
}

static struct kp_toolset *open_dir(long instr_limit)
{
	struct kp_toolset *ts = NULL;
	struct kp_error err = KP_ERROR_INIT;
	const char *dirs[] = {dir, NULL};
	struct kp_toolset_opts o = {0};
	o.dirs = dirs;
	o.lua_instr_limit = instr_limit;
	o.lua_time_limit_ms = 60000; /* what these tests check must not depend on the machine's speed */
	KP_ASSERT_OK(kp_toolset_open(&ts, &o, &err), &err);
	return ts;
}

/* The problem line mentioning `file`, or NULL. */
static const char *problem(const struct kp_toolset *ts, const char *file)
{
	const struct kp_strvec *p = kp_toolset_problems(ts);
	for (size_t i = 0; i < p->n; i++)
		if (strstr(p->v[i], file))
			return p->v[i];
	return NULL;
}

static int setup(void **state)
{
	const struct kp_fx_metric m[] = {{"dram__bytes_read.sum", 1e9}, {"gpu__time_duration.sum", 2e5}, {NULL, 0}};
	dir = kp_test_tmpdir();
	kp_fx_init(&fx, m, 1024, 256);
	return 0;
}

static int teardown(void **state)
{
	kp_test_tmpdir_remove(dir);
	dir = NULL;
	return 0;
}

static const char adds_finding[] = TOOL_HEAD("big_reads")
	"source = \"ncu\", classes = {\"memory\"},\n"
	"metrics = {\"dram__bytes_read.sum\"}, optional_metrics = {\"gpu__time_duration.sum\"},\n"
	"thresholds = { max_bytes = {default = 1e8, unit = \"B\", doc = \"reads above this fire\"}, factor = 2 },\n"
	"trigger = function(m, t) return m.metric(\"dram__bytes_read.sum\") > t.max_bytes end,\n"
	"analyze = function(m, t)\n"
	"  local b = m.metric(\"dram__bytes_read.sum\")\n"
	"  return { title = string.format(\"Reads %.0f MB\", b / 1e6), severity = \"high\",\n"
	"    cause = \"too many bytes\", gain = 0.25, gain_basis = \"a guess for the test\",\n"
	"    evidence = { {metric = \"dram__bytes_read.sum\", value = b, threshold = t.max_bytes, unit = \"B\"} },\n"
	"    recommendations = {\"read less\", \"fuse (factor \" .. t.factor .. \")\"}, explained_by = {\"coalescing\"},\n"
	"    launch = m.launch.name .. \" \" .. m.launch.grid.x, has_sass = m.sass ~= nil }\n"
	"end }\n";

static void test_adds_finding(void **state)
{
	struct kp_toolset *ts;
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	const struct kp_tool_info *t;
	const struct kp_finding *f;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_strvec ids = KP_STRVEC_INIT;

	write_tool("big_reads.lua", adds_finding);
	ts = open_dir(0);
	assert_int_equal(kp_toolset_problems(ts)->n, 0);
	assert_int_equal(kp_toolset_count(ts), 16);
	t = kp_toolset_find(ts, "big_reads");
	assert_non_null(t);
	assert_non_null(strstr(t->origin, "big_reads.lua"));
	assert_false(t->replaces_builtin);
	assert_int_equal(t->classes, KP_CLASS_BIT(KP_BOUND_MEMORY));
	assert_int_equal(t->nmetrics, 2);
	assert_int_equal(t->metrics[1].flags, KP_TM_OPTIONAL);
	assert_int_equal(t->nthresholds, 2); /* sorted: factor, max_bytes */
	assert_string_equal(t->thresholds[1].name, "max_bytes");
	assert_string_equal(t->thresholds[1].doc, "reads above this fire");

	assert_int_equal(kp_fx_run(ts, "big_reads", &fx, &d), KP_TOOL_FIRED);
	f = &d.findings.v[0];
	assert_string_equal(f->tool, "big_reads");
	assert_string_equal(f->title, "Reads 1000 MB");
	assert_int_equal(f->severity, KP_SEV_HIGH);
	assert_true(fabs(f->gain - 0.25) < 1e-9);
	assert_string_equal(f->gain_basis, "a guess for the test");
	assert_int_equal(f->nevidence, 1);
	assert_true(f->evidence[0].threshold == 1e8);
	assert_string_equal(f->recs.v[1], "fuse (factor 2)");
	assert_string_equal(f->explained_by.v[0], "coalescing");

	/* Thresholds override like the built-ins'. */
	KP_ASSERT_OK(kp_toolset_override(ts, "big_reads.max_bytes=2e9", &err), &err);
	assert_int_equal(kp_fx_run(ts, "big_reads", &fx, &d), KP_TOOL_SILENT);
	/* Its metrics join the union the profiler collects; the class selects it. */
	kp_strvec_push(&ids, "big_reads");
	kp_strvec_push(&ids, "divergence");
	kp_diagnosis_release(&d);
	{
		struct kp_strvec m = KP_STRVEC_INIT;
		KP_ASSERT_OK(kp_toolset_metrics(ts, &ids, &m, NULL, &err), &err);
		assert_true(kp_strvec_find(&m, "dram__bytes_read.sum") >= 0);
		kp_strvec_release(&m);
	}
	kp_strvec_release(&ids);
	kp_toolset_select(ts, KP_BOUND_MEMORY, 0, &ids);
	assert_true(kp_strvec_find(&ids, "big_reads") >= 0);
	kp_strvec_release(&ids);
	kp_toolset_select(ts, KP_BOUND_COMPUTE, 0, &ids);
	assert_true(kp_strvec_find(&ids, "big_reads") < 0);
	kp_strvec_release(&ids);
	kp_toolset_free(ts);
}

static void test_replaces_builtin(void **state)
{
	struct kp_toolset *ts;
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	const struct kp_tool_info *t;

	write_tool("my_coalescing.lua", TOOL_HEAD("coalescing") "metrics = {}, "
		   "trigger = function(m, t) return true end, "
		   "analyze = function(m, t) return {{title = \"mine\"}, {title = \"also mine\", severity = \"low\"}} end }");
	ts = open_dir(0);
	assert_int_equal(kp_toolset_count(ts), 15);
	t = kp_toolset_find(ts, "coalescing");
	assert_true(t->replaces_builtin);
	assert_null(t->builtin);
	assert_ptr_equal(kp_toolset_at(ts, 1), t); /* in the built-in's place */
	assert_int_equal(t->classes, KP_CLASS_BIT(KP_BOUND_MEMORY) | KP_CLASS_BIT(KP_BOUND_COMPUTE) |
					     KP_CLASS_BIT(KP_BOUND_MIXED) | KP_CLASS_BIT(KP_BOUND_UNKNOWN));
	assert_int_equal(kp_fx_run(ts, "coalescing", &fx, &d), KP_TOOL_FIRED);
	assert_int_equal(d.findings.n, 2);
	assert_string_equal(d.findings.v[0].title, "mine");
	assert_int_equal(d.findings.v[0].severity, KP_SEV_MEDIUM); /* no severity, no gain */
	kp_diagnosis_release(&d);
	kp_toolset_free(ts);
}

static void test_broken_tools(void **state)
{
	struct kp_toolset *ts;
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	struct kp_strvec ids = KP_STRVEC_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const char *p;

	write_tool("a_good.lua", adds_finding);
	write_tool("syntax.lua", TOOL_HEAD("syntax") "\nmetrics = {,\n}");
	write_tool("no_trigger.lua", TOOL_HEAD("no_trigger") "analyze = function() end }");
	write_tool("bad_name.lua", TOOL_HEAD("Bad-Name") "trigger = print, analyze = print }");
	write_tool("top_error.lua", "local x = nil\nreturn x.field\n");
	write_tool("runtime.lua", TOOL_HEAD("runtime") "trigger = function(m, t) return true end,\n"
		   "analyze = function(m, t)\n  local x = nil\n  return x.boom\nend }\n");
	write_tool("bad_result.lua", TOOL_HEAD("bad_result") "trigger = function() return true end,\n"
		   "analyze = function() return { title = \"x\", severity = \"huge\" } end }\n");
	write_tool("dup.lua", TOOL_HEAD("big_reads") "trigger = print, analyze = print }");
	write_tool("notes.txt", "not a tool");
	ts = open_dir(0);

	p = problem(ts, "syntax.lua");
	assert_non_null(p);
	assert_non_null(strstr(p, "syntax.lua:2:"));
	assert_non_null(strstr(problem(ts, "no_trigger.lua"), "'trigger' must be a function"));
	assert_non_null(strstr(problem(ts, "bad_name.lua"), "must be a lowercase identifier"));
	assert_non_null(strstr(problem(ts, "top_error.lua"), "top_error.lua:2:"));
	assert_non_null(strstr(problem(ts, "dup.lua"), "already defined by"));
	assert_int_equal(kp_toolset_problems(ts)->n, 5);
	assert_non_null(kp_toolset_find(ts, "big_reads"));
	assert_string_equal(kp_toolset_find(ts, "big_reads")->origin + strlen(dir) + 1, "a_good.lua");

	/* A tool failing at run time is reported with its file and line; the others still run. */
	kp_strvec_pushl(&ids, "runtime", "bad_result", "big_reads", "sol_gap", NULL);
	KP_ASSERT_OK(kp_toolset_run(ts, &ids, &fx.in, &d, &err), &err);
	assert_int_equal(d.results[0].status, KP_TOOL_FAILED);
	assert_non_null(strstr(d.results[0].message, "runtime.lua:4: attempt to index a nil value"));
	assert_non_null(strstr(d.results[0].message, "stack traceback"));
	assert_int_equal(d.results[1].status, KP_TOOL_FAILED);
	assert_non_null(strstr(d.results[1].message, "bad_result.lua: analyze returned finding 1: 'severity'"));
	assert_int_equal(d.results[2].status, KP_TOOL_FIRED);
	assert_int_equal(d.findings.n, 1); /* nothing half-made from the failed ones */
	assert_string_equal(d.findings.v[0].tool, "big_reads");
	kp_diagnosis_release(&d);
	kp_strvec_release(&ids);
	kp_toolset_free(ts);
}

static void test_instruction_limit(void **state)
{
	struct kp_toolset *ts;
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	double t0;

	write_tool("loop.lua", TOOL_HEAD("loop") "trigger = function(m, t)\n  local i = 0\n  while true do\n"
		   "    i = i + 1\n  end\nend,\nanalyze = function() end }\n");
	write_tool("loop_at_load.lua", "while true do end\n");
	ts = open_dir(200000);
	assert_non_null(strstr(problem(ts, "loop_at_load.lua"), "instruction limit exceeded"));
	t0 = kp_now();
	assert_int_equal(kp_fx_run(ts, "loop", &fx, &d), KP_TOOL_FAILED);
	assert_true(kp_now() - t0 < 5);
	assert_non_null(strstr(d.results[0].message, "loop.lua:"));
	assert_non_null(strstr(d.results[0].message, "instruction limit exceeded"));
	assert_non_null(strstr(d.results[0].message, "in trigger"));
	/* The state survives: the next call starts a fresh budget and fails the same way. */
	assert_int_equal(kp_fx_run(ts, "loop", &fx, &d), KP_TOOL_FAILED);
	kp_diagnosis_release(&d);
	kp_toolset_free(ts);
}

/*
 * What the instruction count alone did not bound (issue 21): work done in C where the count hook
 * does not run (pattern backtracking, a gsub loop, string.rep of "", table.move over a huge
 * range), pcall and xpcall catching the limit's error, and __gc finalizers (which run with hooks
 * off, also when the state closes). Each ends with a message naming its file; the others run.
 */
static const struct {
	const char *name, *body, *expect;
} hostile[] = {
	{"pattern", "return string.find(string.rep('a', 3000), string.rep('.-', 12) .. 'b')", "limit exceeded"},
	{"gmatch", "for w in string.rep('a', 5000):gmatch(string.rep('a-', 10) .. 'b') do end", "limit exceeded"},
	{"gsub_bomb", "local s = string.rep('ab', 5e5)\nfor i = 1, 1e9 do s:gsub('a', 'a') end", "limit exceeded"},
	{"balance", "local s = string.rep('(', 1e6)\nfor i = 1, 1e9 do s:find('%b()') end", "limit exceeded"},
	{"rep_empty", "for i = 1, 1e9 do string.rep('', math.maxinteger) end", "limit exceeded"},
	{"tmove", "table.move({}, 1, math.maxinteger - 1, 1, {})", "limit exceeded"},
	{"tinsert", "table.insert(setmetatable({}, {__len = function() return 1 << 50 end}), 1, 0)", "limit exceeded"},
	{"tremove", "table.remove(setmetatable({}, {__len = function() return 1 << 50 end}), 1)", "limit exceeded"},
	{"pcall_loop", "while true do pcall(function() while true do end end) end", "limit exceeded"},
	{"xpcall_loop", "while true do xpcall(function() while true do end end, function() while true do end end) end",
	 "limit exceeded"},
	{"close_loop", "while true do local x <close> = setmetatable({}, {__close = function() while true do end end}) end",
	 "limit exceeded"},
	{"gc", "setmetatable({}, {__gc = function() while true do end end})", "__gc metamethods are not allowed"},
	{"sort_long", "local t, s = {}, string.rep('a', 1e7)\nfor i = 1, 1e6 do t[i] = s end\ntable.sort(t)",
	 "time limit exceeded (300 ms) in"},
	{"upper_loop", "local s = string.rep('x', 2e7)\nwhile true do local u = s:upper() end", "limit exceeded"},
	{"error_table", "error(setmetatable({}, {__index = function() while true do end end}))", "error object is a table"},
};

/*
 * Writes each hostile case as NAME.lua (as a trigger when `as_trigger`, else run while loading)
 * next to a good tool, and opens the directory with a 300 ms time limit.
 */
static struct kp_toolset *open_hostile(int as_trigger)
{
	struct kp_toolset *ts = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf src = KP_BUF_INIT;
	struct kp_toolset_opts o = {0};
	const char *dirs[] = {dir, NULL};
	for (size_t i = 0; i < KP_ARRAY_SIZE(hostile); i++) {
		char file[64];
		snprintf(file, sizeof(file), "%s.lua", hostile[i].name);
		kp_buf_reset(&src);
		if (as_trigger)
			kp_buf_addf(&src, TOOL_HEAD("%s") "analyze = function() end,\ntrigger = function(m, t)\n%s\nend }\n",
				    hostile[i].name, hostile[i].body);
		else
			kp_buf_addf(&src, "local function f()\n%s\nend\nf()\nreturn {}\n", hostile[i].body);
		write_tool(file, src.buf);
	}
	write_tool("zz_good.lua", adds_finding);
	o.dirs = dirs;
	o.lua_time_limit_ms = 300;
	KP_ASSERT_OK(kp_toolset_open(&ts, &o, &err), &err);
	kp_buf_release(&src);
	return ts;
}

/* Has msg (NULL: none) the file of hostile case i and its expected words? */
static void expect_hostile(size_t i, const char *msg)
{
	char file[64];
	snprintf(file, sizeof(file), "%s.lua", hostile[i].name);
	if (!msg || !strstr(msg, file) || !strstr(msg, hostile[i].expect))
		fail_msg("%s: '%s' (expected '%s')", file, msg ? msg : "(nothing)", hostile[i].expect);
}

static void test_hostile_runs(void **state)
{
	struct kp_toolset *ts = open_hostile(1);
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	struct kp_strvec ids = KP_STRVEC_INIT;
	struct kp_error err = KP_ERROR_INIT;

	assert_int_equal(kp_toolset_problems(ts)->n, 0);
	for (size_t i = 0; i < KP_ARRAY_SIZE(hostile); i++)
		kp_strvec_push(&ids, hostile[i].name);
	kp_strvec_push(&ids, "big_reads");
	KP_ASSERT_OK(kp_toolset_run(ts, &ids, &fx.in, &d, &err), &err);
	for (size_t i = 0; i < KP_ARRAY_SIZE(hostile); i++) {
		assert_int_equal(d.results[i].status, KP_TOOL_FAILED);
		expect_hostile(i, d.results[i].message);
	}
	assert_int_equal(d.results[KP_ARRAY_SIZE(hostile)].status, KP_TOOL_FIRED);
	assert_int_equal(d.findings.n, 1);
	kp_diagnosis_release(&d);
	kp_strvec_release(&ids);
	kp_toolset_free(ts); /* closes every state: no finalizer can run there either */
}

/* The same at load time: each file is left out with its file and reason; the others load. */
static void test_hostile_loads(void **state)
{
	struct kp_toolset *ts = open_hostile(0);
	for (size_t i = 0; i < KP_ARRAY_SIZE(hostile); i++) {
		char file[64];
		snprintf(file, sizeof(file), "%s.lua", hostile[i].name);
		expect_hostile(i, problem(ts, file));
	}
	assert_int_equal(kp_toolset_problems(ts)->n, KP_ARRAY_SIZE(hostile));
	assert_non_null(kp_toolset_find(ts, "big_reads"));
	kp_toolset_free(ts);
}

/* A limit's error cannot be caught: pcall and xpcall hand it on, the handler is not run. */
static void test_limit_not_catchable(void **state)
{
	struct kp_toolset *ts;
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;

	write_tool("catch.lua", TOOL_HEAD("catch") "analyze = function() return {title = 'went on'} end,\n"
		   "trigger = function()\n  local ok = pcall(function() while true do end end)\n"
		   "  local ok2 = xpcall(function() while true do end end, function(e) return 'handled' end)\n"
		   "  return true\nend }\n");
	write_tool("ordinary.lua", TOOL_HEAD("ordinary") "analyze = function() return {title = 'ok'} end,\n"
		   "trigger = function()\n  local ok, e = pcall(error, 'boom')\n"
		   "  local ok2, e2 = xpcall(error, function(m) return 'handled ' .. m end, 'x')\n"
		   "  return not ok and e == 'boom' and not ok2 and e2 == 'handled x'\nend }\n");
	ts = open_dir(200000);
	assert_int_equal(kp_fx_run(ts, "catch", &fx, &d), KP_TOOL_FAILED);
	assert_non_null(strstr(d.results[0].message, "catch.lua:3: instruction limit exceeded"));
	assert_int_equal(d.findings.n, 0);
	/* pcall and xpcall still work for ordinary errors */
	assert_int_equal(kp_fx_run(ts, "ordinary", &fx, &d), KP_TOOL_FIRED);
	kp_diagnosis_release(&d);
	kp_toolset_free(ts);
}

/* The sandbox's own string.rep, table.*, pcall, xpcall and setmetatable behave as Lua's do. */
static void test_replacements_behave(void **state)
{
	struct kp_toolset *ts;
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;

	write_tool("same.lua", TOOL_HEAD("same") "analyze = function() return {title = 'ok'} end,\n"
		   "trigger = function()\n"
		   "  local function eq(a, b) return table.concat(a, ',') == table.concat(b, ',') end\n"
		   "  assert(string.rep('ab', 3, ',') == 'ab,ab,ab' and string.rep('', 5, '-') == '----')\n"
		   "  assert(string.rep('x', 0) == '' and string.rep('a', -1) == '' and string.rep(12, 2) == '1212')\n"
		   "  assert(string.rep('abc', 1, 'X') == 'abc' and #string.rep('xy', 1000, 'z') == 2999)\n"
		   "  assert(('ab'):rep(1000) == string.rep('ab', 999) .. 'ab')\n"
		   "  local t = {1, 2, 3}\n"
		   "  table.insert(t, 4); table.insert(t, 1, 0); assert(eq(t, {0, 1, 2, 3, 4}))\n"
		   "  assert(table.remove(t) == 4 and table.remove(t, 1) == 0 and eq(t, {1, 2, 3}))\n"
		   "  assert(not pcall(table.insert, t, 9, 1) and not pcall(table.insert, t, 1, 2, 3))\n"
		   "  assert(eq(table.move({1, 2, 3, 4, 5}, 1, 3, 3), {1, 2, 1, 2, 3}))\n"
		   "  assert(eq(table.move({1, 2, 3, 4, 5}, 2, 4, 1), {2, 3, 4, 4, 5}))\n"
		   "  assert(eq(table.move({1, 2}, 1, 2, 2, {9}), {9, 1, 2}))\n"
		   "  local s = {5, 3, 9, 1}; table.sort(s); assert(eq(s, {1, 3, 5, 9}))\n"
		   "  table.sort(s, function(a, b) return a > b end); assert(eq(s, {9, 5, 3, 1}))\n"
		   "  assert(not pcall(table.sort, {1, 'x'}))\n"
		   "  local ok, a, b = pcall(function(x, y) return x + y, x * y end, 2, 3)\n"
		   "  assert(ok and a == 5 and b == 6 and select('#', pcall(print)) == 1)\n"
		   "  local ok2, r = xpcall(function(x) return x * 2 end, print, 21); assert(ok2 and r == 42)\n"
		   "  local ok3, e = xpcall(error, function(m) return 'h:' .. tostring(m) end, {})\n"
		   "  assert(not ok3 and e:sub(1, 8) == 'h:table:')\n"
		   "  local mt = {__index = function(_, k) return k .. '!' end}\n"
		   "  assert(setmetatable({}, mt).x == 'x!' and getmetatable(setmetatable({}, mt)) == mt)\n"
		   "  return true\nend }\n");
	ts = open_dir(0);
	assert_int_equal(kp_fx_run(ts, "same", &fx, &d), KP_TOOL_FIRED);
	kp_diagnosis_release(&d);
	kp_toolset_free(ts);
}

static void test_missing_metric(void **state)
{
	struct kp_toolset *ts;
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;

	write_tool("needs.lua", TOOL_HEAD("needs") "metrics = {\"l1tex__t_sector_hit_rate.pct\"},\n"
		   "trigger = function() return true end, analyze = function() return {title = \"x\"} end }");
	write_tool("reads.lua", TOOL_HEAD("reads") "optional_metrics = {\"lts__t_sector_hit_rate.pct\"},\n"
		   "trigger = function(m) return m.get(\"lts__t_sector_hit_rate.pct\", 7) == 7 end,\n"
		   "analyze = function(m) return {title = \"hit \" .. m.metric(\"lts__t_sector_hit_rate.pct\")} end }");
	write_tool("undeclared.lua", TOOL_HEAD("undeclared") "trigger = function(m) return m.metric(\"x.y\") end,"
		   "analyze = function() end }");
	ts = open_dir(0);
	/* Declared as required: the engine reports it before calling the tool. */
	assert_int_equal(kp_fx_run(ts, "needs", &fx, &d), KP_TOOL_MISSING);
	assert_string_equal(d.results[0].message, "missing metric 'l1tex__t_sector_hit_rate.pct'");
	/* Optional, read with m.metric when absent: a clear "missing metric" result, not a crash or a 0. */
	assert_int_equal(kp_fx_run(ts, "reads", &fx, &d), KP_TOOL_MISSING);
	assert_string_equal(d.results[1].message, "missing metric 'lts__t_sector_hit_rate.pct'");
	kp_fx_set(&fx, "lts__t_sector_hit_rate.pct", 33);
	assert_int_equal(kp_fx_run(ts, "reads", &fx, &d), KP_TOOL_SILENT);
	/* Reading a metric the tool did not declare is an error: the profiler would not collect it. */
	assert_int_equal(kp_fx_run(ts, "undeclared", &fx, &d), KP_TOOL_FAILED);
	assert_non_null(strstr(d.results[3].message, "metric 'x.y' is not declared"));
	assert_int_equal(d.findings.n, 0);
	kp_diagnosis_release(&d);
	kp_toolset_free(ts);
}

static void test_sandbox(void **state)
{
	struct kp_toolset *ts;
	struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
	static const char *const escapes[] = {
		"io.open('/etc/passwd')", "os.execute('true')", "require('os')", "load('return 1')",
		"dofile('/etc/passwd')", "loadfile('/etc/passwd')", "string.dump(print)", "package.loaded",
		"debug.getinfo(1)", "collectgarbage('stop')",
	};
	struct kp_buf src = KP_BUF_INIT;

	for (size_t i = 0; i < KP_ARRAY_SIZE(escapes); i++) {
		char name[32], file[48];
		snprintf(name, sizeof(name), "escape%zu", i);
		snprintf(file, sizeof(file), "escape%zu.lua", i);
		kp_buf_reset(&src);
		kp_buf_addf(&src, "return { name = \"%s\", description = \"d\", trigger = function() return %s end, "
			    "analyze = function() return {title = \"escaped\"} end }", name, escapes[i]);
		write_tool(file, src.buf);
	}
	write_tool("memory.lua", TOOL_HEAD("memory") "trigger = function() local t = {}\n"
		   "for i = 1, 1e9 do t[i] = string.rep('x', 1e6) .. i end end, analyze = function() end }");
	ts = open_dir(0);
	assert_int_equal(kp_toolset_problems(ts)->n, 0);
	for (size_t i = 0; i < KP_ARRAY_SIZE(escapes); i++) {
		char name[32];
		snprintf(name, sizeof(name), "escape%zu", i);
		if (kp_fx_run(ts, name, &fx, &d) != KP_TOOL_FAILED)
			fail_msg("'%s' is reachable from a user tool", escapes[i]);
		assert_non_null(strstr(d.results[d.nresults - 1].message, "escape"));
	}
	assert_int_equal(kp_fx_run(ts, "memory", &fx, &d), KP_TOOL_FAILED);
	assert_non_null(strstr(d.results[d.nresults - 1].message, "memory limit"));
	assert_int_equal(d.findings.n, 0);
	kp_buf_release(&src);
	kp_diagnosis_release(&d);
	kp_toolset_free(ts);
}

static void test_tools_path_env(void **state)
{
	struct kp_toolset *ts = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_toolset_opts o = {0};
	struct kp_buf path = KP_BUF_INIT;
	char *other = kp_test_tmpdir();
	const char *dirs[] = {other, NULL};
	struct kp_buf p = KP_BUF_INIT;

	write_tool("big_reads.lua", adds_finding);
	/* --tools-dir comes first: its big_reads wins over the one on the path. */
	kp_buf_addf(&p, "%s/big_reads.lua", other);
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, adds_finding, strlen(adds_finding), &err), &err);
	kp_buf_addf(&path, "/nonexistent/dir::%s", dir);
	setenv("KERNELPRO_TOOLS_PATH", path.buf, 1);
	o.use_env = 1;
	o.dirs = dirs;
	KP_ASSERT_OK(kp_toolset_open(&ts, &o, &err), &err);
	assert_non_null(strstr(kp_toolset_find(ts, "big_reads")->origin, other));
	assert_non_null(problem(ts, "/nonexistent/dir")); /* a missing path entry is noted, not fatal */
	assert_non_null(problem(ts, "already defined by"));
	kp_toolset_free(ts);
	/* The example shipped in examples/tools loads and runs. */
	setenv("KERNELPRO_TOOLS_PATH", kp_test_path("examples/tools"), 1);
	o.dirs = NULL;
	KP_ASSERT_OK(kp_toolset_open(&ts, &o, &err), &err);
	assert_int_equal(kp_toolset_problems(ts)->n, 0);
	assert_non_null(kp_toolset_find(ts, "l2_hit_rate"));
	{
		struct kp_diagnosis d = KP_DIAGNOSIS_INIT;
		kp_fx_set(&fx, "lts__t_sector_hit_rate.pct", 20);
		kp_fx_set(&fx, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 70);
		kp_fx_set(&fx, "lts__t_sectors_srcunit_tex_op_read.sum", 1e9 / 32 * 3); /* each byte read 3 times */
		assert_int_equal(kp_fx_run(ts, "l2_hit_rate", &fx, &d), KP_TOOL_FIRED);
		assert_non_null(strstr(d.findings.v[0].title, "20% hit rate"));
		kp_fx_set(&fx, "lts__t_sectors_srcunit_tex_op_read.sum", 1e9 / 32); /* streaming */
		assert_int_equal(kp_fx_run(ts, "l2_hit_rate", &fx, &d), KP_TOOL_SILENT);
		kp_diagnosis_release(&d);
	}
	kp_toolset_free(ts);
	unsetenv("KERNELPRO_TOOLS_PATH");
	kp_buf_release(&path);
	kp_buf_release(&p);
	kp_test_tmpdir_remove(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_adds_finding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaces_builtin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken_tools, setup, teardown),
		cmocka_unit_test_setup_teardown(test_instruction_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_loads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limit_not_catchable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replacements_behave, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_metric, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sandbox, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tools_path_env, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
