/*
 * Lua 5.4 patterns for the user-tool sandbox: string.find, match, gmatch and gsub with the
 * standard semantics, but every matching step charged to the running call. Lua's own matcher
 * backtracks in C, where no hook runs: string.find(("a"):rep(3000), (".-"):rep(12) .. "b")
 * would run for ages; here it ends at the call's instruction or time limit.
 */
#include "base/setup.h"

#include <ctype.h>

#include <lauxlib.h>
#include <lua.h>

#include "tools/luatool_impl.h"

#define ESC          '%'
#define SPECIALS     "^$*+?.([%-"
#define MAX_CAPTURES 32  /* LUA_MAXCAPTURES */
#define MAX_DEPTH    200 /* recursion, as Lua's MAXCCALLS */
#define CHARGE_EVERY 1024

#define CAP_UNFINISHED (-1)
#define CAP_POSITION   (-2)

struct pm {
	lua_State *L;
	const char *src, *src_end; /* the subject */
	const char *pat_end;
	int depth;  /* recursion left */
	int level;  /* captures open or closed */
	long steps; /* not yet charged */
	struct {
		const char *init;
		ptrdiff_t len; /* or CAP_UNFINISHED, CAP_POSITION */
	} cap[MAX_CAPTURES];
};

static void step(struct pm *m, long n)
{
	m->steps += n;
	if (m->steps >= CHARGE_EVERY) {
		long s = m->steps;
		m->steps = 0;
		kp__luatool_charge(m->L, s);
	}
}

static void pm_init(struct pm *m, lua_State *L, const char *s, size_t ls, const char *p, size_t lp)
{
	m->L = L;
	m->src = s;
	m->src_end = s + ls;
	m->pat_end = p + lp;
	m->steps = 0;
}

static void pm_reset(struct pm *m)
{
	m->level = 0;
	m->depth = MAX_DEPTH;
}

/* ---- single characters and classes --------------------------------------------------------- */

static int class_has(int c, int cl)
{
	int r;
	switch (tolower(cl)) {
	case 'a': r = isalpha(c); break;
	case 'c': r = iscntrl(c); break;
	case 'd': r = isdigit(c); break;
	case 'g': r = isgraph(c); break;
	case 'l': r = islower(c); break;
	case 'p': r = ispunct(c); break;
	case 's': r = isspace(c); break;
	case 'u': r = isupper(c); break;
	case 'w': r = isalnum(c); break;
	case 'x': r = isxdigit(c); break;
	case 'z': r = c == 0; break; /* deprecated in Lua, still there */
	default: return cl == c;
	}
	if (isupper(cl))
		r = !r;
	return r != 0;
}

/* The end of the single-character class at p (after '%x', '[...]' or one character). */
static const char *class_end(struct pm *m, const char *p)
{
	switch (*p++) {
	case ESC:
		if (p == m->pat_end)
			luaL_error(m->L, "malformed pattern (ends with '%%')");
		return p + 1;
	case '[':
		if (*p == '^')
			p++;
		do { /* the first character, even ']', belongs to the set */
			if (p == m->pat_end)
				luaL_error(m->L, "malformed pattern (missing ']')");
			if (*p++ == ESC && p < m->pat_end)
				p++;
		} while (*p != ']');
		return p + 1;
	default: return p;
	}
}

/* Is c in the set [p ... ec] (p at '[', ec at the closing ']')? */
static int set_has(int c, const char *p, const char *ec)
{
	int in = 1;
	if (p[1] == '^') {
		in = 0;
		p++;
	}
	while (++p < ec) {
		if (*p == ESC) {
			p++;
			if (class_has(c, (unsigned char)*p))
				return in;
		} else if (p[1] == '-' && p + 2 < ec) {
			p += 2;
			if ((unsigned char)p[-2] <= c && c <= (unsigned char)*p)
				return in;
		} else if ((unsigned char)*p == c) {
			return in;
		}
	}
	return !in;
}

/* Does the character at s match the class [p, ep)? */
static int single(const struct pm *m, const char *s, const char *p, const char *ep)
{
	int c;
	if (s >= m->src_end)
		return 0;
	c = (unsigned char)*s;
	switch (*p) {
	case '.': return 1;
	case ESC: return class_has(c, (unsigned char)p[1]);
	case '[': return set_has(c, p, ep - 1);
	default: return (unsigned char)*p == c;
	}
}

/* ---- matching ------------------------------------------------------------------------------- */

static const char *do_match(struct pm *m, const char *s, const char *p);

/* %bxy: a balanced run starting at s. */
static const char *balance(struct pm *m, const char *s, const char *p)
{
	int open, close, depth = 1;
	if (p >= m->pat_end - 1)
		luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
	if (s >= m->src_end || *s != *p)
		return NULL;
	open = *p;
	close = p[1];
	while (++s < m->src_end) {
		step(m, 1);
		if (*s == close) {
			if (--depth == 0)
				return s + 1;
		} else if (*s == open) {
			depth++;
		}
	}
	return NULL;
}

/* The longest run of the class, then back off until the rest matches. */
static const char *expand_max(struct pm *m, const char *s, const char *p, const char *ep)
{
	ptrdiff_t n = 0;
	while (single(m, s + n, p, ep)) {
		n++;
		step(m, 1);
	}
	for (; n >= 0; n--) {
		const char *r = do_match(m, s + n, ep + 1);
		if (r)
			return r;
	}
	return NULL;
}

/* The shortest run of the class after which the rest matches. */
static const char *expand_min(struct pm *m, const char *s, const char *p, const char *ep)
{
	for (;;) {
		const char *r = do_match(m, s, ep + 1);
		if (r)
			return r;
		if (!single(m, s, p, ep))
			return NULL;
		s++;
	}
}

static const char *open_capture(struct pm *m, const char *s, const char *p, ptrdiff_t what)
{
	const char *r;
	if (m->level >= MAX_CAPTURES)
		luaL_error(m->L, "too many captures");
	m->cap[m->level].init = s;
	m->cap[m->level].len = what;
	m->level++;
	if (!(r = do_match(m, s, p)))
		m->level--;
	return r;
}

static const char *close_capture(struct pm *m, const char *s, const char *p)
{
	int l = m->level - 1;
	const char *r;
	while (l >= 0 && m->cap[l].len != CAP_UNFINISHED)
		l--;
	if (l < 0)
		luaL_error(m->L, "invalid pattern capture");
	m->cap[l].len = s - m->cap[l].init;
	if (!(r = do_match(m, s, p)))
		m->cap[l].len = CAP_UNFINISHED;
	return r;
}

/* The index of capture %d (its digit), checked. */
static int capture_index(struct pm *m, int digit)
{
	int l = digit - '1';
	if (l < 0 || l >= m->level || m->cap[l].len == CAP_UNFINISHED)
		luaL_error(m->L, "invalid capture index %%%d", l + 1);
	return l;
}

/* %1 ... %9: the text of an earlier capture again. */
static const char *back_reference(struct pm *m, const char *s, int digit)
{
	int l = capture_index(m, digit);
	size_t len = (size_t)m->cap[l].len; /* a position capture never matches: huge */
	if ((size_t)(m->src_end - s) >= len) {
		step(m, (long)len);
		if (!memcmp(m->cap[l].init, s, len))
			return s + len;
	}
	return NULL;
}

/* Matches pattern p at s; the end of the match, or NULL. Over 80 lines: Lua's own do_match (lstrlib.c),
 * one case per pattern item, kept in its shape (plus the step charge) so it can be read against it. */
static const char *do_match(struct pm *m, const char *s, const char *p)
{
	if (m->depth-- == 0)
		luaL_error(m->L, "pattern too complex");
	for (;;) {
		const char *ep;
		step(m, 1);
		if (p == m->pat_end)
			break;
		if (*p == '(') {
			s = p[1] == ')' ? open_capture(m, s, p + 2, CAP_POSITION)
			                : open_capture(m, s, p + 1, CAP_UNFINISHED);
			break;
		}
		if (*p == ')') {
			s = close_capture(m, s, p + 1);
			break;
		}
		if (*p == '$' && p + 1 == m->pat_end) {
			s = s == m->src_end ? s : NULL;
			break;
		}
		if (*p == ESC && p[1] == 'b') {
			if ((s = balance(m, s, p + 2))) {
				p += 4;
				continue;
			}
			break;
		}
		if (*p == ESC && p[1] == 'f') {
			int prev;
			p += 2;
			if (*p != '[')
				luaL_error(m->L, "missing '[' after '%%f' in pattern");
			ep = class_end(m, p);
			prev = s == m->src ? '\0' : (unsigned char)s[-1];
			/* at the end of the subject, *s is the string's terminating NUL */
			if (!set_has(prev, p, ep - 1) && set_has((unsigned char)*s, p, ep - 1)) {
				p = ep;
				continue;
			}
			s = NULL;
			break;
		}
		if (*p == ESC && isdigit((unsigned char)p[1])) {
			if ((s = back_reference(m, s, (unsigned char)p[1]))) {
				p += 2;
				continue;
			}
			break;
		}
		ep = class_end(m, p);
		if (!single(m, s, p, ep)) {
			if (*ep == '*' || *ep == '?' || *ep == '-') { /* zero repetitions are fine */
				p = ep + 1;
				continue;
			}
			s = NULL;
			break;
		}
		if (*ep == '?') {
			const char *r = do_match(m, s + 1, ep + 1);
			if (r) {
				s = r;
				break;
			}
			p = ep + 1;
			continue;
		}
		if (*ep == '+') {
			s = expand_max(m, s + 1, p, ep);
			break;
		}
		if (*ep == '*') {
			s = expand_max(m, s, p, ep);
			break;
		}
		if (*ep == '-') {
			s = expand_min(m, s, p, ep);
			break;
		}
		s++;
		p = ep;
	}
	m->depth++;
	return s;
}

/* ---- captures -------------------------------------------------------------------------------- */

/*
 * Capture i of a match [s, e): its text in *cap and its length, or CAP_POSITION with the
 * position already pushed. Capture 0 without captures is the whole match.
 */
static ptrdiff_t capture(struct pm *m, int i, const char *s, const char *e, const char **cap)
{
	if (i >= m->level) {
		if (i != 0)
			luaL_error(m->L, "invalid capture index %%%d", i + 1);
		*cap = s;
		return e - s;
	}
	*cap = m->cap[i].init;
	if (m->cap[i].len == CAP_UNFINISHED)
		luaL_error(m->L, "unfinished capture");
	if (m->cap[i].len == CAP_POSITION)
		lua_pushinteger(m->L, (m->cap[i].init - m->src) + 1);
	return m->cap[i].len;
}

static void push_capture(struct pm *m, int i, const char *s, const char *e)
{
	const char *cap;
	ptrdiff_t l = capture(m, i, s, e, &cap);
	if (l != CAP_POSITION)
		lua_pushlstring(m->L, cap, (size_t)l);
}

/* Pushes the captures (the whole match when there are none and s is given); returns how many. */
static int push_captures(struct pm *m, const char *s, const char *e)
{
	int n = m->level == 0 && s ? 1 : m->level;
	luaL_checkstack(m->L, n, "too many captures");
	for (int i = 0; i < n; i++)
		push_capture(m, i, s, e);
	return n;
}

/* ---- find, match ----------------------------------------------------------------------------- */

/* A relative initial position (negative: from the end) as a 0-based offset; may be past the end. */
static size_t start_offset(lua_Integer pos, size_t len)
{
	if (pos > 0)
		return (size_t)pos - 1;
	if (pos == 0 || pos < -(lua_Integer)len)
		return 0;
	return len + (size_t)pos;
}

static int no_specials(const char *p, size_t lp)
{
	for (size_t i = 0; i < lp; i++)
		if (p[i] && strchr(SPECIALS, p[i]))
			return 0;
	return 1;
}

static int find_or_match(lua_State *L, int find)
{
	size_t ls, lp;
	const char *s = luaL_checklstring(L, 1, &ls);
	const char *p = luaL_checklstring(L, 2, &lp);
	size_t init = start_offset(luaL_optinteger(L, 3, 1), ls);
	struct pm m;
	if (init > ls) {
		lua_pushnil(L);
		return 1;
	}
	if (find && (lua_toboolean(L, 4) || no_specials(p, lp))) {
		/* glibc's memmem is linear (two-way); charged as one pass */
		const char *hit = memmem(s + init, ls - init, p, lp);
		kp__luatool_charge(L, (long)((ls - init) / 16 + 1));
		if (hit) {
			lua_pushinteger(L, (hit - s) + 1);
			lua_pushinteger(L, (lua_Integer)((size_t)(hit - s) + lp));
			return 2;
		}
	} else {
		const char *s1 = s + init;
		int anchor = *p == '^';
		if (anchor) {
			p++;
			lp--;
		}
		pm_init(&m, L, s, ls, p, lp);
		do {
			const char *e;
			pm_reset(&m);
			if ((e = do_match(&m, s1, p))) {
				if (find) {
					lua_pushinteger(L, (s1 - s) + 1);
					lua_pushinteger(L, e - s);
					return push_captures(&m, NULL, NULL) + 2;
				}
				return push_captures(&m, s1, e);
			}
		} while (s1++ < m.src_end && !anchor);
	}
	lua_pushnil(L);
	return 1;
}

int kp__luatool_find(lua_State *L)
{
	return find_or_match(L, 1);
}

int kp__luatool_match(lua_State *L)
{
	return find_or_match(L, 0);
}

/* ---- gmatch ---------------------------------------------------------------------------------- */

struct gm {
	struct pm m;
	const char *src, *p, *last;
};

/* The iterator: upvalues are the subject, the pattern (kept alive) and the state. */
static int gmatch_next(lua_State *L)
{
	struct gm *g = lua_touserdata(L, lua_upvalueindex(3));
	g->m.L = L;
	for (const char *s = g->src; s <= g->m.src_end; s++) {
		const char *e;
		pm_reset(&g->m);
		if ((e = do_match(&g->m, s, g->p)) && e != g->last) {
			g->src = g->last = e;
			return push_captures(&g->m, s, e);
		}
	}
	return 0;
}

int kp__luatool_gmatch(lua_State *L)
{
	size_t ls, lp;
	const char *s = luaL_checklstring(L, 1, &ls);
	const char *p = luaL_checklstring(L, 2, &lp);
	size_t init = start_offset(luaL_optinteger(L, 3, 1), ls);
	struct gm *g;
	lua_settop(L, 2);
	g = lua_newuserdatauv(L, sizeof(*g), 0);
	if (init > ls)
		init = ls + 1; /* past the end: no match */
	pm_init(&g->m, L, s, ls, p, lp);
	g->src = s + init;
	g->p = p;
	g->last = NULL;
	lua_pushcclosure(L, gmatch_next, 3);
	return 1;
}

/* ---- gsub ------------------------------------------------------------------------------------ */

/* A replacement string: %0 to %9 are captures, %% a percent sign. */
static void add_replacement(struct pm *m, luaL_Buffer *b, const char *s, const char *e)
{
	size_t l;
	const char *r = lua_tolstring(m->L, 3, &l), *q;
	step(m, (long)l);
	while ((q = memchr(r, ESC, l))) {
		luaL_addlstring(b, r, (size_t)(q - r));
		q++;
		if (*q == ESC) {
			luaL_addchar(b, *q);
		} else if (*q == '0') {
			luaL_addlstring(b, s, (size_t)(e - s));
		} else if (isdigit((unsigned char)*q)) {
			const char *cap;
			ptrdiff_t cl = capture(m, *q - '1', s, e, &cap);
			if (cl == CAP_POSITION)
				luaL_addvalue(b);
			else
				luaL_addlstring(b, cap, (size_t)cl);
		} else {
			luaL_error(m->L, "invalid use of '%c' in replacement string", ESC);
		}
		l -= (size_t)(q + 1 - r);
		r = q + 1;
	}
	luaL_addlstring(b, r, l);
}

/* Adds the replacement of the match [s, e); returns whether it changed anything. */
static int add_value(struct pm *m, luaL_Buffer *b, const char *s, const char *e, int type)
{
	lua_State *L = m->L;
	if (type == LUA_TFUNCTION) {
		int n;
		lua_pushvalue(L, 3);
		n = push_captures(m, s, e);
		lua_call(L, n, 1);
	} else if (type == LUA_TTABLE) {
		push_capture(m, 0, s, e);
		lua_gettable(L, 3);
	} else {
		add_replacement(m, b, s, e);
		return 1;
	}
	if (!lua_toboolean(L, -1)) { /* nil or false: keep the original */
		lua_pop(L, 1);
		luaL_addlstring(b, s, (size_t)(e - s));
		return 0;
	}
	if (!lua_isstring(L, -1))
		return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
	luaL_addvalue(b);
	return 1;
}

int kp__luatool_gsub(lua_State *L)
{
	size_t ls, lp;
	const char *src = luaL_checklstring(L, 1, &ls);
	const char *p = luaL_checklstring(L, 2, &lp);
	const char *last = NULL;
	int type = lua_type(L, 3), anchor, changed = 0;
	lua_Integer max = luaL_optinteger(L, 4, (lua_Integer)ls + 1), n = 0;
	struct pm m;
	luaL_Buffer b;

	luaL_argexpected(
	    L, type == LUA_TNUMBER || type == LUA_TSTRING || type == LUA_TFUNCTION || type == LUA_TTABLE, 3,
	    "string/function/table");
	luaL_buffinit(L, &b);
	anchor = *p == '^';
	if (anchor) {
		p++;
		lp--;
	}
	pm_init(&m, L, src, ls, p, lp);
	while (n < max) {
		const char *e;
		pm_reset(&m);
		if ((e = do_match(&m, src, p)) && e != last) {
			n++;
			changed |= add_value(&m, &b, src, e, type);
			src = last = e;
		} else if (src < m.src_end) {
			luaL_addchar(&b, *src++);
		} else {
			break;
		}
		if (anchor)
			break;
	}
	if (!changed) {
		lua_pushvalue(L, 1);
	} else {
		luaL_addlstring(&b, src, (size_t)(m.src_end - src));
		luaL_pushresult(&b);
	}
	lua_pushinteger(L, n);
	return 2;
}
