/* Prompt templates: plain text with {{slot}} and {{#slot}}...{{/slot}} sections, parsed once, checked at load. */
#include "base/setup.h"

#include "programmer/prog_int.h"

#define KP__SLOT_NAME(name) #name,
static const char *const slot_names[] = {KP_PROG_SLOTS(KP__SLOT_NAME)};
#undef KP__SLOT_NAME

const char *kp_prog_slot_name(int slot)
{
	return slot >= 0 && slot < KP_NSLOTS ? slot_names[slot] : "?";
}

static int slot_find(const char *s, size_t n)
{
	for (int i = 0; i < KP_NSLOTS; i++)
		if (strlen(slot_names[i]) == n && !memcmp(slot_names[i], s, n))
			return i;
	return -1;
}

static int line_of(const char *src, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off; i++)
		line += src[i] == '\n';
	return line;
}

static struct kp_tmpl_node *push(struct kp_tmpl *t, enum kp_tmpl_kind kind)
{
	KP_ALLOC_GROW(t->nodes, t->n + 1, t->alloc);
	memset(&t->nodes[t->n], 0, sizeof(t->nodes[0]));
	t->nodes[t->n].kind = kind;
	return &t->nodes[t->n++];
}

static void push_text(struct kp_tmpl *t, size_t off, size_t len)
{
	if (len)
		push(t, KP_TMPL_TEXT)->off = off, t->nodes[t->n - 1].len = len;
}

/*
 * A section or comment tag alone on its line takes the whole line with it,
 * so templates can put {{#slot}} on lines of their own without leaving blanks.
 * Returns the line's start (ls) and the offset just past its newline (le).
 */
static int standalone(const char *src, size_t len, size_t tag_start, size_t tag_end, size_t *ls, size_t *le)
{
	size_t a = tag_start, b = tag_end;
	while (a > 0 && (src[a - 1] == ' ' || src[a - 1] == '\t'))
		a--;
	if (a > 0 && src[a - 1] != '\n')
		return 0;
	while (b < len && (src[b] == ' ' || src[b] == '\t' || src[b] == '\r'))
		b++;
	if (b < len && src[b] != '\n')
		return 0;
	*ls = a;
	*le = b < len ? b + 1 : b;
	return 1;
}

int kp_tmpl_parse(struct kp_tmpl *t, const char *path, char *src, struct kp_error *err)
{
	size_t len = strlen(src), pos = 0, text_start = 0;
	size_t stack[16];
	int depth = 0, rc = 0;

	memset(t, 0, sizeof(*t));
	t->path = kp_xstrdup(path);
	t->src = src;
	while (pos < len) {
		const char *open = strstr(src + pos, "{{");
		size_t ts, te, ls, le, nb, ne;
		char sigil;
		int slot;
		if (!open)
			break;
		ts = (size_t)(open - src);
		{
			const char *close = strstr(open + 2, "}}");
			if (!close) {
				rc = kp_error_set(err, KP_EPARSE, "%s:%d: '{{' without '}}'", path, line_of(src, ts));
				goto out;
			}
			te = (size_t)(close - src) + 2;
		}
		nb = ts + 2;
		ne = te - 2;
		while (nb < ne && src[nb] == ' ')
			nb++;
		while (ne > nb && src[ne - 1] == ' ')
			ne--;
		sigil = nb < ne && strchr("#^/!", src[nb]) ? src[nb] : 0;
		if (sigil)
			nb++;
		while (nb < ne && src[nb] == ' ')
			nb++;
		if (sigil && standalone(src, len, ts, te, &ls, &le)) {
			ts = ls;
			te = le;
		}
		push_text(t, text_start, ts - text_start);
		text_start = pos = te;
		if (sigil == '!')
			continue;
		slot = slot_find(src + nb, ne - nb);
		if (slot < 0) {
			rc = kp_error_set(err, KP_EPARSE, "%s:%d: unknown slot '%.*s' (docs/prompts.md lists the slots)", path,
					  line_of(src, ts), (int)(ne - nb), src + nb);
			goto out;
		}
		if (sigil == '#' || sigil == '^') {
			if (depth == (int)KP_ARRAY_SIZE(stack)) {
				rc = kp_error_set(err, KP_EPARSE, "%s:%d: sections nested too deep", path, line_of(src, ts));
				goto out;
			}
			stack[depth++] = t->n;
			push(t, sigil == '#' ? KP_TMPL_IF : KP_TMPL_UNLESS)->slot = slot;
		} else if (sigil == '/') {
			if (!depth || t->nodes[stack[depth - 1]].slot != slot) {
				rc = kp_error_set(err, KP_EPARSE, "%s:%d: '{{/%s}}' closes no open section%s%s", path,
						  line_of(src, ts), slot_names[slot], depth ? "; open: " : "",
						  depth ? slot_names[t->nodes[stack[depth - 1]].slot] : "");
				goto out;
			}
			t->nodes[stack[--depth]].end = t->n;
		} else {
			push(t, KP_TMPL_VAR)->slot = slot;
		}
	}
	push_text(t, text_start, len - text_start);
	if (depth)
		rc = kp_error_set(err, KP_EPARSE, "%s: section '{{#%s}}' is never closed", path,
				  slot_names[t->nodes[stack[depth - 1]].slot]);
out:
	if (rc)
		kp_tmpl_release(t);
	return rc;
}

void kp_tmpl_release(struct kp_tmpl *t)
{
	free(t->path);
	free(t->src);
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}

/*
 * Template text may not leave more than one blank line in a row (empty
 * sections would), and none at the start; slot values go in untouched, so
 * code keeps its own blank lines.
 */
static void add_text(struct kp_buf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n' && (out->len == 0 || (out->len >= 2 && out->buf[out->len - 1] == '\n' &&
							  out->buf[out->len - 2] == '\n')))
			continue;
		kp_buf_addch(out, s[i]);
	}
}

static void render_range(const struct kp_tmpl *t, size_t from, size_t to, const char *const *values,
			 struct kp_buf *out)
{
	for (size_t i = from; i < to;) {
		const struct kp_tmpl_node *nd = &t->nodes[i];
		const char *v = nd->kind == KP_TMPL_TEXT ? NULL : values[nd->slot];
		int set = v && *v;
		switch (nd->kind) {
		case KP_TMPL_TEXT:
			add_text(out, t->src + nd->off, nd->len);
			i++;
			break;
		case KP_TMPL_VAR:
			if (set)
				kp_buf_adds(out, v);
			i++;
			break;
		case KP_TMPL_IF:
		case KP_TMPL_UNLESS:
			if (set == (nd->kind == KP_TMPL_IF))
				render_range(t, i + 1, nd->end, values, out);
			i = nd->end;
			break;
		}
	}
}

void kp_tmpl_render(const struct kp_tmpl *t, const char *const values[KP_NSLOTS], struct kp_buf *out)
{
	struct kp_buf r = KP_BUF_INIT;
	render_range(t, 0, t->n, values, &r);
	kp_buf_rtrim(&r);
	kp_buf_add(out, r.buf, r.len);
	kp_buf_release(&r);
}
