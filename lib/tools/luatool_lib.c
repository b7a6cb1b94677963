/*
 * The sandbox's replacements for standard library functions that could escape a user tool's
 * limits: C loops the count hook cannot interrupt (string.rep of an empty string, table.move over
 * a huge range, table.insert/remove on a table whose length is huge but mostly empty, sorting
 * long strings, pattern matching: luatool_match.c), pcall/xpcall that could swallow the limit's
 * error, and __gc finalizers, which Lua runs with hooks off (also at lua_close).
 */
#include "base/setup.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "tools/luatool_impl.h"

/* ---- base: pcall, xpcall, setmetatable ------------------------------------------------------ */

/*
 * Calls the function at index 2 with the values above it (the message handler at index 1 when
 * msgh is 1; index 1 is a placeholder when 0) and returns what pcall returns, in place of index 1.
 * A limit's error goes on up: the tool cannot catch it.
 */
static int protected_call(lua_State *L, int msgh)
{
	int status = lua_pcall(L, lua_gettop(L) - 2, LUA_MULTRET, msgh);
	if (kp__luatool_self(L)->aborted)
		return lua_error(L);
	lua_pushboolean(L, status == LUA_OK);
	lua_replace(L, 1);
	return lua_gettop(L);
}

/* pcall(f, ...) */
static int sb_pcall(lua_State *L)
{
	luaL_checkany(L, 1);
	lua_pushnil(L);
	lua_insert(L, 1);
	return protected_call(L, 0);
}

/* The handler xpcall installs: the tool's, unless the call was aborted (then the error as is). */
static int xpcall_handler(lua_State *L)
{
	if (kp__luatool_self(L)->aborted)
		return 1;
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

/* xpcall(f, msgh, ...) */
static int sb_xpcall(lua_State *L)
{
	luaL_checktype(L, 2, LUA_TFUNCTION);
	lua_pushvalue(L, 2);
	lua_pushcclosure(L, xpcall_handler, 1);
	lua_copy(L, 1, 2); /* f where msgh was */
	lua_replace(L, 1); /* the handler first */
	return protected_call(L, 1);
}

/*
 * setmetatable(t, mt): refuses a metatable with __gc. Finalizers run with hooks off, so no limit
 * could stop one (and lua_close runs them all); only setmetatable marks a table for finalization,
 * so refusing it here is enough.
 */
static int sb_setmetatable(lua_State *L)
{
	if (lua_type(L, 2) == LUA_TTABLE) {
		lua_pushliteral(L, "__gc");
		if (lua_rawget(L, 2) != LUA_TNIL)
			return luaL_error(L, "setmetatable: __gc metamethods are not allowed in user tools "
			                     "(a finalizer cannot be time-limited)");
		lua_pop(L, 1);
	}
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

/* ---- string.rep ----------------------------------------------------------------------------- */

/*
 * string.rep(s, n [, sep]): Lua's loops n times even when the result is empty
 * (string.rep("", math.maxinteger) never returns); here an empty result returns at once and a
 * result larger than the memory cap is refused before any work.
 */
static int sb_rep(lua_State *L)
{
	size_t l, lsep;
	const char *s = luaL_checklstring(L, 1, &l);
	lua_Integer n = luaL_checkinteger(L, 2);
	const char *sep = luaL_optlstring(L, 3, "", &lsep);
	struct kp_luatool *lt = kp__luatool_self(L);
	luaL_Buffer b;
	size_t total, done;
	char *p;
	if (n <= 0 || l + lsep == 0) {
		lua_pushliteral(L, "");
		return 1;
	}
	if ((lua_Unsigned)n > lt->lim.mem || l + lsep > lt->lim.mem / (size_t)n)
		return luaL_error(L, "string.rep: the result would exceed the memory limit (%d MiB)",
		                  (int)(lt->lim.mem >> 20));
	total = (size_t)n * l + (size_t)(n - 1) * lsep;
	kp__luatool_charge(L, (long)(total / 64));
	/* s, sep, s, ... is periodic: write one period, then copy what is written onto its end */
	p = luaL_buffinitsize(L, &b, total);
	memcpy(p, s, l);
	done = l;
	if (total > l) {
		memcpy(p + l, sep, lsep);
		done += lsep;
	}
	while (done < total) {
		size_t k = done < total - done ? done : total - done;
		memcpy(p + done, p, k);
		done += k;
	}
	luaL_pushresultsize(&b, total);
	return 1;
}

/* ---- table.insert, remove, move, sort -------------------------------------------------------- */

/*
 * Lua's versions loop in C over a range the tool sets (#t can be 2^50 through __len,
 * and table.move takes any range): these charge one step per element moved.
 */

/* Like ltablib's checks: a table, or a value whose metatable has the metamethods used. */
static void check_table(lua_State *L, int arg, int write)
{
	if (lua_type(L, arg) == LUA_TTABLE)
		return;
	if (lua_getmetatable(L, arg)) {
		int ok;
		lua_pushliteral(L, "__index");
		ok = lua_rawget(L, -2) != LUA_TNIL;
		lua_pop(L, 1);
		if (write) {
			lua_pushliteral(L, "__newindex");
			ok = ok && lua_rawget(L, -2) != LUA_TNIL;
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
		if (ok)
			return;
	}
	luaL_checktype(L, arg, LUA_TTABLE);
}

/* Moves t[from] to t[to] (both through metamethods, as Lua's do). */
static void move1(lua_State *L, int src, lua_Integer from, int dst, lua_Integer to)
{
	kp__luatool_charge(L, 1);
	lua_geti(L, src, from);
	lua_seti(L, dst, to);
}

static int sb_insert(lua_State *L)
{
	lua_Integer e, pos;
	check_table(L, 1, 1);
	e = luaL_len(L, 1);
	e = (lua_Integer)((lua_Unsigned)e + 1u); /* the first empty slot */
	switch (lua_gettop(L)) {
	case 2: pos = e; break;
	case 3:
		pos = luaL_checkinteger(L, 2);
		luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
		for (lua_Integer i = e; i > pos; i--)
			move1(L, 1, i - 1, 1, i);
		break;
	default: return luaL_error(L, "wrong number of arguments to 'insert'");
	}
	lua_seti(L, 1, pos);
	return 0;
}

static int sb_remove(lua_State *L)
{
	lua_Integer size, pos;
	check_table(L, 1, 1);
	size = luaL_len(L, 1);
	pos = luaL_optinteger(L, 2, size);
	if (pos != size)
		luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2, "position out of bounds");
	lua_geti(L, 1, pos);
	for (; pos < size; pos++)
		move1(L, 1, pos + 1, 1, pos);
	lua_pushnil(L);
	lua_seti(L, 1, pos);
	return 1;
}

static int sb_move(lua_State *L)
{
	lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3), t = luaL_checkinteger(L, 4);
	int tt = !lua_isnoneornil(L, 5) ? 5 : 1;
	check_table(L, 1, 0);
	check_table(L, tt, 1);
	if (e >= f) {
		lua_Integer n;
		luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
		n = e - f + 1;
		luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
		if (t > e || t <= f || (tt != 1 && !lua_compare(L, 1, tt, LUA_OPEQ))) {
			for (lua_Integer i = 0; i < n; i++)
				move1(L, 1, f + i, tt, t + i);
		} else {
			for (lua_Integer i = n - 1; i >= 0; i--)
				move1(L, 1, f + i, tt, t + i);
		}
	}
	lua_pushvalue(L, tt);
	return 1;
}

/* The comparison table.sort uses without a comparator: a function call, so each one is charged. */
static int sort_less(lua_State *L)
{
	kp__luatool_charge(L, 1);
	lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
	return 1;
}

/* table.sort(t [, comp]): Lua's, with every comparison a call the limits see. */
static int sb_sort(lua_State *L)
{
	if (lua_isnoneornil(L, 2)) {
		lua_settop(L, 1);
		lua_pushcfunction(L, sort_less);
	} else {
		luaL_checktype(L, 2, LUA_TFUNCTION);
	}
	lua_settop(L, 2);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, 2, 0);
	return 0;
}

/* ---- installing them ------------------------------------------------------------------------- */

/* lib[name] = f, with lib's old lib[name] as f's upvalue when `wrap`. `lib` is at the top. */
static void replace(lua_State *L, const char *name, lua_CFunction f, int wrap)
{
	if (wrap) {
		lua_getfield(L, -1, name);
		lua_pushcclosure(L, f, 1);
	} else {
		lua_pushcfunction(L, f);
	}
	lua_setfield(L, -2, name);
}

void kp__luatool_open_patterns(lua_State *L)
{
	static const luaL_Reg fns[] = {{"find", kp__luatool_find},
	                               {"match", kp__luatool_match},
	                               {"gmatch", kp__luatool_gmatch},
	                               {"gsub", kp__luatool_gsub},
	                               {NULL, NULL}};
	lua_getglobal(L, LUA_STRLIBNAME);
	luaL_setfuncs(L, fns, 0);
	lua_pop(L, 1);
}

void kp__luatool_bound_libs(lua_State *L)
{
	lua_pushglobaltable(L);
	replace(L, "pcall", sb_pcall, 0);
	replace(L, "xpcall", sb_xpcall, 0);
	replace(L, "setmetatable", sb_setmetatable, 1);
	lua_getfield(L, -1, LUA_STRLIBNAME);
	replace(L, "rep", sb_rep, 0);
	lua_pop(L, 1);
	lua_getfield(L, -1, LUA_TABLIBNAME);
	replace(L, "insert", sb_insert, 0);
	replace(L, "remove", sb_remove, 0);
	replace(L, "move", sb_move, 0);
	replace(L, "sort", sb_sort, 1);
	lua_pop(L, 2);
	kp__luatool_open_patterns(L);
}
