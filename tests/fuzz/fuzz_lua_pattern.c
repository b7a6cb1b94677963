/*
 * libFuzzer target: the user-tool sandbox's pattern functions (lib/tools/luatool_match.c)
 * against Lua's own. Input: byte 0 picks find, match, gmatch or gsub; byte 1 is the initial
 * position (signed); the rest is the subject, then byte 0xFF, then the pattern. Ours runs first
 * under a step budget; when it finishes, Lua's must give the same values or the same error
 * (when ours runs out, Lua's could run for ages: nothing is compared).
 */
#include "base/setup.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "tools/luatool_impl.h"

static struct kp_luatool lt;
static lua_State *ref, *ours;

static const char driver[] =
    "local fn, s, p, init = ...\n"
    "local function ser(ok, ...)\n"
    "  local t = {ok and 'ok' or 'err'}\n"
    "  for i = 1, select('#', ...) do t[#t + 1] = type((select(i, ...))) .. ':' .. "
    "tostring((select(i, ...))) end\n"
    "  return table.concat(t, '|')\n"
    "end\n"
    "if fn == 'gmatch' then\n"
    "  return ser(pcall(function()\n"
    "    local r, n = {}, 0\n"
    "    for a, b in string.gmatch(s, p, init) do\n"
    "      n = n + 1; r[n] = tostring(a) .. ',' .. tostring(b)\n"
    "      if n > 100 then break end\n"
    "    end\n"
    "    return table.concat(r, ';')\n"
    "  end))\n"
    "end\n"
    "if fn == 'gsub' then return ser(pcall(string.gsub, s, p, '<%0>', init)) end\n"
    "if fn == 'gsubf' then return ser(pcall(string.gsub, s, p, function(a, b) return b end)) end\n"
    "return ser(pcall(string[fn], s, p, init))\n";

static lua_State *new_state(int bounded)
{
	lua_State *L = luaL_newstate();
	luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
	luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
	luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
	lua_pop(L, 3);
	if (bounded) {
		*(struct kp_luatool **)lua_getextraspace(L) = &lt;
		kp__luatool_open_patterns(L);
	}
	return L;
}

static char *run(lua_State *L, const char *fn, const char *s, size_t ls, const char *p, size_t lp, int init)
{
	char *r;
	if (luaL_loadstring(L, driver) != LUA_OK)
		abort();
	lua_pushstring(L, fn);
	lua_pushlstring(L, s, ls);
	lua_pushlstring(L, p, lp);
	lua_pushinteger(L, init);
	if (lua_pcall(L, 4, 1, 0) != LUA_OK)
		r = kp_xstrdup(lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
	else
		r = kp_xstrdup(lua_tostring(L, -1));
	lua_settop(L, 0);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fns[] = {"find", "match", "gmatch", "gsub", "gsubf"};
	const char *s, *p, *sep;
	size_t ls, lp;
	char *a, *b;
	if (size < 2 || size > 512)
		return 0;
	if (!ref) {
		ref = new_state(0);
		ours = new_state(1);
		lt.path = "fuzz.lua";
		lt.phase = "fuzz";
		lt.lim.instr = 200000;
	}
	s = (const char *)data + 2;
	ls = size - 2;
	sep = memchr(s, 0xff, ls);
	p = sep ? sep + 1 : "";
	lp = sep ? (size_t)((const char *)data + size - p) : 0;
	if (sep)
		ls = (size_t)(sep - s);
	lt.count = 0;
	lt.aborted = 0;
	a = run(ours, fns[data[0] % 5], s, ls, p, lp, (int8_t)data[1]);
	if (!lt.aborted) {
		b = run(ref, fns[data[0] % 5], s, ls, p, lp, (int8_t)data[1]);
		if (strcmp(a, b)) {
			fprintf(stderr, "mismatch\n  lua:  %s\n  ours: %s\n", b, a);
			abort();
		}
		free(b);
	}
	free(a);
	lua_gc(ours, LUA_GCCOLLECT);
	lua_gc(ref, LUA_GCCOLLECT);
	return 0;
}
