/*
 * Unit tests: the sandbox's pattern functions (lib/tools/luatool_match.c) against Lua's own
 * string.find/match/gmatch/gsub: the same results and the same errors on hand-picked cases and
 * on thousands of generated ones; and a pathological pattern ends at the step limit instead of
 * running for ages in C.
 */
#include "base/setup.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "kp_test.h"
#include "tools/luatool_impl.h"

#define BUDGET 300000L

static struct kp_luatool lt;

/*
 * Runs string[fn](s, p, a3, a4) protected and describes the outcome in one string; gmatch
 * collects every match (up to 200). Identical in both states, so messages compare too.
 */
static const char driver[] =
    "local fn, s, p, a3, a4 = ...\n"
    "local function ser(ok, ...)\n"
    "  local t = {ok and 'ok' or 'err'}\n"
    "  for i = 1, select('#', ...) do local v = select(i, ...); t[#t + 1] = type(v) .. ':' .. tostring(v) "
    "end\n"
    "  return table.concat(t, '|')\n"
    "end\n"
    "if fn == 'gmatch' then\n"
    "  return ser(pcall(function()\n"
    "    local r, n = {}, 0\n"
    "    for a, b, c in string.gmatch(s, p, a3) do\n"
    "      n = n + 1; r[#r + 1] = tostring(a) .. ',' .. tostring(b) .. ',' .. tostring(c)\n"
    "      if n > 200 then break end\n"
    "    end\n"
    "    return table.concat(r, ';')\n"
    "  end))\n"
    "end\n"
    "if fn == 'gsubf' then return ser(pcall(string.gsub, s, p, function(a, b) return b and (a .. '<' .. b .. "
    "'>') or (a == 'b' and false or '[' .. a .. ']') end, a3)) end\n"
    "if fn == 'gsubt' then return ser(pcall(string.gsub, s, p, {a = 'A', b = false, ['1'] = 7}, a3)) end\n"
    "return ser(pcall(string[fn], s, p, a3, a4))\n";

static lua_State *new_state(int ours)
{
	lua_State *L = luaL_newstate();
	luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
	luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
	luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
	lua_pop(L, 3);
	if (ours) {
		*(struct kp_luatool **)lua_getextraspace(L) = &lt;
		kp__luatool_open_patterns(L);
	}
	return L;
}

/* The outcome of one call in L; allocated. args: a3 and a4 as Lua source ("nil", "2", "true"). */
static char *run(lua_State *L, const char *fn, const char *s, size_t ls, const char *p, size_t lp,
                 lua_Integer a3, int a4)
{
	char *r;
	lt.count = 0;
	lt.aborted = 0;
	if (luaL_loadstring(L, driver) != LUA_OK)
		fail_msg("driver: %s", lua_tostring(L, -1));
	lua_pushstring(L, fn);
	lua_pushlstring(L, s, ls);
	lua_pushlstring(L, p, lp);
	if (a3)
		lua_pushinteger(L, a3);
	else
		lua_pushnil(L);
	if (a4)
		lua_pushboolean(L, 1);
	else
		lua_pushnil(L);
	if (lua_pcall(L, 5, 1, 0) != LUA_OK)
		fail_msg("driver failed: %s", lua_tostring(L, -1));
	r = kp_xstrdup(lua_tostring(L, -1));
	lua_pop(L, 1);
	return r;
}

/* Compares both states on one call; returns 0 when ours ran out of budget (nothing compared). */
static int same(lua_State *ref, lua_State *ours, const char *fn, const char *s, size_t ls, const char *p,
                size_t lp, lua_Integer a3, int a4)
{
	char *o = run(ours, fn, s, ls, p, lp, a3, a4), *r;
	if (lt.aborted) {
		free(o);
		return 0;
	}
	r = run(ref, fn, s, ls, p, lp, a3, a4);
	if (strcmp(o, r))
		fail_msg("string.%s(\"%.*s\", \"%.*s\", %lld, %d):\n  lua:  %s\n  ours: %s", fn, (int)ls, s,
		         (int)lp, p, (long long)a3, a4, r, o);
	free(o);
	free(r);
	return 1;
}

static int setup(void **state)
{
	memset(&lt, 0, sizeof(lt));
	lt.path = "test.lua";
	lt.phase = "test";
	lt.lim.instr = BUDGET;
	return 0;
}

static const char *const fns[] = {"find", "match", "gmatch", "gsub", "gsubf", "gsubt"};

static void test_known_cases(void **state)
{
	static const struct {
		const char *s, *p;
	} cases[] = {
	    {"hello world", "o w"},
	    {"hello world", "l+"},
	    {"hello world", "^h(.-)o"},
	    {"hello", "()ll()"},
	    {"key = value", "(%w+)%s*=%s*(%w+)"},
	    {"  trim  ", "^%s*(.-)%s*$"},
	    {"THE (quick) fox", "%f[%a]%a+"},
	    {"f(a(b)c)d", "%b()"},
	    {"abcabc", "(abc)%1"},
	    {"aaa", "a-b"},
	    {"aaa", "a*"},
	    {"", ""},
	    {"abc", ""},
	    {"abc", "$"},
	    {"a.b", "."},
	    {"a.b", "%."},
	    {"a]b", "[]]"},
	    {"a-b", "[a-]"},
	    {"x^y", "[%^x]"},
	    {"abc", "[^b]+"},
	    {"a1b2", "%d"},
	    {"a1b2", "%D+"},
	    {"tab\there", "%c"},
	    {"A1_b", "[%w_]+"},
	    {"0xFF", "%x+"},
	    {"a,b;c", "%p"},
	    {"abc", "((a)(b))"},
	    {"abc", "(a"},
	    {"abc", "a)"},
	    {"abc", "%"},
	    {"abc", "[a"},
	    {"abc", "%b"},
	    {"abc", "%f"},
	    {"abc", "%1"},
	    {"abc", "(a)%2"},
	    {"abc", "%0"},
	    {"abc", "(()"},
	    {"a$b", "$b"},
	    {"a$b", "a$"},
	    {"abc", "^"},
	    {"abc", "^^"},
	    {"hello.world", "hello.world"},
	    {"a+b", "a+b"},
	    {"aXb", "a?X?b?"},
	    {"[[x]]", "%[(.-)%]"},
	    {"abab", "(ab)-"},
	    {"a\0b", "%z"},
	    {"a\0b", "%Z+"},
	    {"a\0b", "[\0]"},
	    {"name@host", "^([^@]+)@(.+)$"},
	};
	lua_State *ref = new_state(0), *ours = new_state(1);
	for (size_t i = 0; i < KP_ARRAY_SIZE(cases); i++)
		for (size_t f = 0; f < KP_ARRAY_SIZE(fns); f++)
			for (lua_Integer init = -2; init <= 3; init++)
				assert_true(same(ref, ours, fns[f], cases[i].s, strlen(cases[i].s),
				                 cases[i].p, strlen(cases[i].p), init, 0));
	/* plain find, and the replacement-string escapes */
	assert_true(same(ref, ours, "find", "a.b(", 4, ".b(", 3, 1, 1));
	assert_true(same(ref, ours, "find", "abc", 3, "", 0, 10, 1));
	assert_true(same(ref, ours, "gsub", "hello world", 11, "(o)", 3, 0, 0));
	lua_close(ref);
	lua_close(ours);
}

static void test_replacement_strings(void **state)
{
	static const char *const repls[] = {"%0-%1", "%%", "%2", "%", "x%", "[%1]", "%a", "()", "%1%1"};
	static const char *const pats[] = {"(l)", "l", "()l", "(h)(e)"};
	static const char code[] = "local ok, a, b = pcall(string.gsub, ...)\n"
	                           "return tostring(ok) .. '|' .. tostring(a) .. '|' .. tostring(b)";
	lua_State *st[2] = {new_state(0), new_state(1)};
	for (size_t i = 0; i < KP_ARRAY_SIZE(repls); i++)
		for (size_t j = 0; j < KP_ARRAY_SIZE(pats); j++) {
			char *out[2];
			for (int k = 0; k < 2; k++) {
				assert_int_equal(luaL_loadstring(st[k], code), LUA_OK);
				lua_pushliteral(st[k], "hello");
				lua_pushstring(st[k], pats[j]);
				lua_pushstring(st[k], repls[i]);
				assert_int_equal(lua_pcall(st[k], 3, 1, 0), LUA_OK);
				out[k] = kp_xstrdup(lua_tostring(st[k], -1));
				lua_settop(st[k], 0);
			}
			if (strcmp(out[0], out[1]))
				fail_msg("gsub('hello', '%s', '%s'): lua %s, ours %s", pats[j], repls[i],
				         out[0], out[1]);
			free(out[0]);
			free(out[1]);
		}
	lua_close(st[0]);
	lua_close(st[1]);
}

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned pick(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* Random patterns and subjects from pieces that exercise every construct; each compared. */
static void test_generated(void **state)
{
	static const char *const pieces[] = {
	    "a",      "b",      ".",  "%a", "%d", "%s", "%W", "[ab]", "[^a]", "[a-c]", "[%d_]",
	    "(",      ")",      "()", "*",  "+",  "-",  "?",  "^",    "$",    "%b()",  "%bab",
	    "%f[%w]", "%f[%W]", "%1", "%2", "%",  "[",  "]",  "%%",   " ",    "%Z",
	};
	static const char subj[] = "ab( )1_a b(ab)";
	lua_State *ref = new_state(0), *ours = new_state(1);
	int compared = 0;
	for (int n = 0; n < 6000; n++) {
		struct kp_buf p = KP_BUF_INIT;
		char s[32];
		size_t np = 1 + pick(6), ls = pick(sizeof(s));
		for (size_t i = 0; i < np; i++)
			kp_buf_adds(&p, pieces[pick(KP_ARRAY_SIZE(pieces))]);
		for (size_t i = 0; i < ls; i++)
			s[i] = subj[pick(sizeof(subj) - 1)];
		compared += same(ref, ours, fns[pick(KP_ARRAY_SIZE(fns))], s, ls, p.buf, p.len,
		                 (lua_Integer)pick(5) - 1, 0);
		kp_buf_release(&p);
	}
	assert_true(compared > 5000);
	lua_close(ref);
	lua_close(ours);
}

/* Backtracking that Lua's matcher would run for ages ends at the step limit. */
static void test_pathological_pattern_is_bounded(void **state)
{
	lua_State *ours = new_state(1);
	char *o;
	const char *code = "return string.find(string.rep('a', 3000), string.rep('.-', 12) .. 'b')";
	lt.count = 0;
	lt.aborted = 0;
	assert_int_equal(luaL_loadstring(ours, code), LUA_OK);
	assert_int_not_equal(lua_pcall(ours, 0, 1, 0), LUA_OK);
	assert_true(lt.aborted);
	o = kp_xstrdup(lua_tostring(ours, -1));
	assert_non_null(strstr(o, "test.lua"));
	assert_non_null(strstr(o, "instruction limit exceeded"));
	assert_true(lt.count > BUDGET);
	free(o);
	lua_close(ours);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_known_cases, setup),
	    cmocka_unit_test_setup(test_replacement_strings, setup),
	    cmocka_unit_test_setup(test_generated, setup),
	    cmocka_unit_test_setup(test_pathological_pattern_is_bounded, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
