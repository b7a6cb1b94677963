/* Reply handling: pick the candidate out of a model's reply, or say precisely why there is none; find tool requests. */
#include "base/setup.h"

#include <ctype.h>

#include "kernelpro/str.h"
#include "programmer/prog_int.h"

/* --- Candidate formats ---------------------------------------------------------------------------- */

static const char *const cuda_tags[] = {"cuda", "cu", "c++", "cpp", "cxx", "c", "", NULL};
static const char *const cuda_other[] = {"python", "py", "python3", NULL};
/* harness/include/kp_native.h: kp_run is required; kp_init and kp_fini are optional. */
static const char *const cuda_entries[] = {"kp_run", NULL};
static const char *const torch_tags[] = {"python", "py", "python3", "", NULL};
static const char *const torch_other[] = {"cuda", "cu", "c++", "cpp", "cxx", "c", NULL};
static const char *const torch_entries[] = {"ModelNew", NULL};

static const struct kp_cand_format_info formats[] = {
	[KP_CAND_CUDA] = {"cuda", "CUDA C++", "CUDA", "cuda", cuda_tags, cuda_other, cuda_entries, "prompts/format-cuda.txt",
			  NULL, NULL},
	[KP_CAND_TORCH] = {"torch", "Python", "CUDA", "python", torch_tags, torch_other, torch_entries,
			   "prompts/format-torch.txt", NULL, NULL},
	/* The same Python file, its kernels @triton.jit functions (docs/triton.md). */
	[KP_CAND_TRITON] = {"triton", "Python (Triton)", "Triton", "python", torch_tags, torch_other, torch_entries,
			    "prompts/format-triton.txt", "triton.jit",
			    "the code defines no @triton.jit kernel; this version must do its work in Triton kernels "
			    "(@triton.jit functions launched from ModelNew.forward), as the format section says"},
};

_Static_assert(KP_ARRAY_SIZE(formats) == KP_CAND_NFORMATS, "one row per candidate format");

const struct kp_cand_format_info *kp_cand_format_info(enum kp_cand_format f)
{
	return (unsigned)f < KP_ARRAY_SIZE(formats) ? &formats[f] : &formats[0];
}

const char *kp_cand_format_name(enum kp_cand_format f)
{
	return kp_cand_format_info(f)->name;
}

const char *kp_cand_format_kernels(enum kp_cand_format f)
{
	return kp_cand_format_info(f)->kernels;
}

int kp_cand_format_parse(const char *s, enum kp_cand_format *out)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(formats); i++)
		if (s && !strcmp(s, formats[i].name)) {
			*out = (enum kp_cand_format)i;
			return 0;
		}
	return KP_EINVAL;
}

/* --- Fenced blocks ---------------------------------------------------------------------------------- */

struct block {
	size_t body, body_end; /* the code, without the fence lines */
	size_t start_line;
	char tag[24];          /* lowercased first word of the info string */
	int closed;
};

#define MAX_BLOCKS 64

static size_t line_end(const char *s, size_t len, size_t i)
{
	while (i < len && s[i] != '\n')
		i++;
	return i;
}

/* A fence line: up to 3 spaces, then 3+ backticks or tildes. Returns its length (0: not a fence). */
static size_t fence_at(const char *s, size_t len, size_t i, char *ch)
{
	size_t k = 0, n = 0;
	while (k < 3 && i + k < len && s[i + k] == ' ')
		k++;
	if (i + k >= len || (s[i + k] != '`' && s[i + k] != '~'))
		return 0;
	*ch = s[i + k];
	while (i + k + n < len && s[i + k + n] == *ch)
		n++;
	return n >= 3 ? n : 0;
}

/*
 * The reply's fenced blocks, CommonMark-style: a block closes at a fence of
 * the same character at least as long, with nothing after it. Regions inside
 * <think>...</think> (reasoning models) are skipped. *thinking_open: the
 * reply ended inside such a region.
 */
static size_t find_blocks(const char *s, size_t len, struct block *out, size_t max, int *thinking_open)
{
	size_t n = 0, i = 0, line = 1;
	struct block *cur = NULL;
	char cur_ch = 0;
	size_t cur_n = 0;

	*thinking_open = 0;
	while (i < len) {
		size_t e = line_end(s, len, i), fl;
		char ch = 0;
		if (!cur && !*thinking_open && e - i >= 7 && !strncmp(s + i, "<think>", 7)) {
			const char *close = NULL;
			for (size_t k = i + 7; k + 8 <= len && !close; k++)
				if (!memcmp(s + k, "</think>", 8))
					close = s + k;
			if (!close) {
				*thinking_open = 1;
				break;
			}
			for (const char *p = s + i; p < close; p++)
				line += *p == '\n';
			i = line_end(s, len, (size_t)(close - s));
			i = i < len ? i + 1 : i;
			line++;
			continue;
		}
		fl = fence_at(s, len, i, &ch);
		if (cur) {
			size_t k = i;
			while (k < e && s[k] == ' ')
				k++;
			if (fl && ch == cur_ch && fl >= cur_n) {
				size_t after = k + fl;
				while (after < e && (s[after] == ' ' || s[after] == '\t' || s[after] == '\r'))
					after++;
				if (after == e) {
					cur->body_end = i;
					cur->closed = 1;
					cur = NULL;
				}
			}
		} else if (fl) {
			size_t k = i;
			size_t t = 0;
			while (k < e && s[k] == ' ')
				k++;
			k += fl;
			while (k < e && (s[k] == ' ' || s[k] == '{' || s[k] == '.'))
				k++;
			if (n < max) {
				cur = &out[n++];
				memset(cur, 0, sizeof(*cur));
				while (k < e && t + 1 < sizeof(cur->tag) && !isspace((unsigned char)s[k]) && s[k] != '}')
					cur->tag[t++] = (char)tolower((unsigned char)s[k++]);
				cur->tag[t] = '\0';
				cur->body = e < len ? e + 1 : e;
				cur->start_line = line;
				cur_ch = ch;
				cur_n = fl;
			}
		}
		i = e < len ? e + 1 : e;
		line++;
	}
	if (cur)
		cur->body_end = len;
	return n;
}

int kp_prog_has_code_block(const char *reply, size_t len)
{
	struct block b[1];
	int thinking;
	return find_blocks(reply, len, b, 1, &thinking) > 0;
}

static int tag_in(const char *tag, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(tag, *list))
			return 1;
	return 0;
}

static int ident_char(int c)
{
	return isalnum(c) || c == '_';
}

/*
 * True when `name` is defined in the code, not only used: "class ModelNew",
 * "def ModelNew", or a C function whose name follows a type ("int kp_run(",
 * "void* kp_run (").
 */
static int defines(const char *code, size_t len, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i + n <= len; i++) {
		size_t j, k;
		if (memcmp(code + i, name, n) || (i && ident_char((unsigned char)code[i - 1])) ||
		    (i + n < len && ident_char((unsigned char)code[i + n])))
			continue;
		/* Python. */
		if ((i >= 6 && !memcmp(code + i - 6, "class ", 6)) || (i >= 4 && !memcmp(code + i - 4, "def ", 4)))
			return 1;
		/* C: a '(' follows, and what precedes on the line ends with a type word or '*'. */
		for (j = i + n; j < len && (code[j] == ' ' || code[j] == '\t'); j++)
			;
		if (j >= len || code[j] != '(')
			continue;
		for (k = i; k > 0 && (code[k - 1] == ' ' || code[k - 1] == '\t'); k--)
			;
		if (k > 0 && (ident_char((unsigned char)code[k - 1]) || code[k - 1] == '*' || code[k - 1] == '&')) {
			/* ...but not "return kp_run(" or "else kp_run(". */
			size_t w = k;
			while (w > 0 && ident_char((unsigned char)code[w - 1]))
				w--;
			if ((k - w == 6 && !memcmp(code + w, "return", 6)) || (k - w == 4 && !memcmp(code + w, "else", 4)))
				continue;
			return 1;
		}
	}
	return 0;
}

/* Lines where the model left parts out ("// ... rest of the kernel unchanged"). */
static int elides(const char *code, size_t len, char *what, size_t wn)
{
	static const char *const words[] = {"rest of", "unchanged", "same as before", "as before", "remains the same",
					    "existing code", "omitted", "remaining code", "implementation here", "todo"};
	for (size_t i = 0; i < len;) {
		size_t e = line_end(code, len, i), k = i;
		while (k < e && (code[k] == ' ' || code[k] == '\t'))
			k++;
		if ((e - k >= 2 && (!strncmp(code + k, "//", 2) || !strncmp(code + k, "/*", 2))) ||
		    (e - k >= 1 && code[k] == '#')) {
			char line[200];
			size_t ln = e - k < sizeof(line) - 1 ? e - k : sizeof(line) - 1;
			for (size_t c = 0; c < ln; c++)
				line[c] = (char)tolower((unsigned char)code[k + c]);
			line[ln] = '\0';
			if (strstr(line, "...") || strstr(line, "\xe2\x80\xa6")) {
				for (size_t w = 0; w < KP_ARRAY_SIZE(words); w++)
					if (strstr(line, words[w])) {
						snprintf(what, wn, "%.*s", (int)(e - k > 80 ? 80 : e - k), code + k);
						return 1;
					}
			}
		}
		i = e < len ? e + 1 : e;
	}
	return 0;
}

static int only_space(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return 0;
	return 1;
}

static void join_entries(const char *const *entries, char *out, size_t n)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; entries[i]; i++) {
		int w = snprintf(out + used, n - used, "%s'%s'", i ? (entries[i + 1] ? ", " : " and ") : "", entries[i]);
		if (w < 0 || (size_t)w >= n - used)
			break;
		used += (size_t)w;
	}
}

/* Over 80 lines: the refusals come in the order a reply goes wrong (empty, NUL byte, still reasoning,
 * cut-off block, another language, missing entry points, marker, elisions), each with the message the
 * model gets; kept in one place so that order stays visible. */
int kp_prog_extract(const char *reply, size_t len, enum kp_cand_format format, const char *const *entry_points,
		    int truncated, struct kp_buf *code, char *reason, size_t reason_len)
{
	const struct kp_cand_format_info *f = kp_cand_format_info(format);
	const char *const *entries = entry_points ? entry_points : f->entry_points;
	struct block b[MAX_BLOCKS];
	size_t nb, nentries = 0;
	int thinking, best = -1, best_score = -1, other_lang = 0;
	char names[160], what[120];

	while (entries[nentries])
		nentries++;
	join_entries(entries, names, sizeof(names));
	if (!reply || only_space(reply, len)) {
		snprintf(reason, reason_len, "the reply was empty%s", truncated ? " (stopped at the token limit)" : "");
		return KP_ELLM;
	}
	if (memchr(reply, '\0', len)) {
		/* Everything downstream reads the code as a C string: it would end there, silently. */
		snprintf(reason, reason_len,
			 "the reply holds a NUL byte at offset %zu; send the code as plain text, with no NUL character",
			 (size_t)((const char *)memchr(reply, '\0', len) - reply));
		return KP_ELLM;
	}
	nb = find_blocks(reply, len, b, MAX_BLOCKS, &thinking);
	if (thinking && !nb) {
		snprintf(reason, reason_len,
			 "the reply ended while still reasoning inside <think>, before any code%s; think less and "
			 "write the complete file",
			 truncated ? " (it hit the token limit)" : "");
		return KP_ELLM;
	}
	for (size_t i = 0; i < nb; i++) {
		int score = 0;
		if (!b[i].closed) {
			snprintf(reason, reason_len,
				 "the reply ended inside an unclosed code block that starts on line %zu%s; the file was "
				 "cut off: send the complete file in one block, shorter if needed",
				 b[i].start_line, truncated ? " (it hit the token limit)" : "");
			return KP_ELLM;
		}
		if (only_space(reply + b[i].body, b[i].body_end - b[i].body))
			continue;
		if (!tag_in(b[i].tag, f->fence_tags)) {
			other_lang |= tag_in(b[i].tag, f->other_tags);
			continue;
		}
		for (size_t e = 0; e < nentries; e++)
			score += defines(reply + b[i].body, b[i].body_end - b[i].body, entries[e]);
		/* The most entry points wins; on a tie the later block (models put the final version last). */
		if (score >= best_score) {
			best_score = score;
			best = (int)i;
		}
	}
	if (best < 0) {
		/* No fences: a bare reply that defines everything is the code itself (some CLIs answer so). */
		int score = 0;
		for (size_t e = 0; !nb && e < nentries; e++)
			score += defines(reply, len, entries[e]);
		if (!nb && nentries && (size_t)score == nentries && !elides(reply, len, what, sizeof(what))) {
			if (f->marker && !memmem(reply, len, f->marker, strlen(f->marker))) {
				snprintf(reason, reason_len, "%s", f->marker_missing);
				return KP_ELLM;
			}
			kp_buf_add(code, reply, len);
			return 0;
		}
		if (other_lang)
			snprintf(reason, reason_len,
				 "the reply's code is not %s; this task needs one %s file defining %s, in a ```%s block",
				 f->language, f->language, names, f->fence);
		else
			snprintf(reason, reason_len, "the reply has no %scode block; answer with the complete %s file in one ```%s block",
				 nb ? "non-empty " : "", f->language, f->fence);
		return KP_ELLM;
	}
	if (nentries && (size_t)best_score < nentries) {
		snprintf(reason, reason_len, "the code does not define %s; the file must define %s as the format section says",
			 names, nentries > 1 ? "all of them" : "it");
		return KP_ELLM;
	}
	if (f->marker && !memmem(reply + b[best].body, b[best].body_end - b[best].body, f->marker, strlen(f->marker))) {
		snprintf(reason, reason_len, "%s", f->marker_missing);
		return KP_ELLM;
	}
	if (elides(reply + b[best].body, b[best].body_end - b[best].body, what, sizeof(what))) {
		snprintf(reason, reason_len, "the code leaves parts out ('%s'); write the complete file, every line", what);
		return KP_ELLM;
	}
	kp_buf_add(code, reply + b[best].body, b[best].body_end - b[best].body);
	kp_buf_rtrim(code);
	kp_buf_addch(code, '\n');
	return 0;
}

/* --- Requests ----------------------------------------------------------------------------------------- */

size_t kp_prog_parse_requests(const char *reply, size_t len, struct kp_prog_request *out, size_t max)
{
	size_t n = 0, i = 0;
	int in_block = 0;
	char ch = 0, open_ch = 0;
	size_t open_n = 0;

	while (i < len && n < max) {
		size_t e = line_end(reply, len, i), fl = fence_at(reply, len, i, &ch), k = i;
		if (fl) {
			if (!in_block) {
				in_block = 1;
				open_ch = ch;
				open_n = fl;
			} else if (ch == open_ch && fl >= open_n) {
				in_block = 0;
			}
		} else if (!in_block) {
			/* Tolerate list markers and emphasis: "- search: x", "**tool:** occupancy", "`search: x`". */
			while (k < e && strchr(" \t-*>`", reply[k]))
				k++;
			int is_tool = e - k > 5 && !strncasecmp(reply + k, "tool:", 5);
			int is_search = e - k > 7 && !strncasecmp(reply + k, "search:", 7);
			if (is_tool || is_search) {
				size_t v = k + (is_tool ? 5 : 7), ve = e;
				while (v < ve && strchr(" \t*`", reply[v]))
					v++;
				while (ve > v && strchr(" \t\r*`", reply[ve - 1]))
					ve--;
				if (ve > v) {
					struct kp_prog_request *r = &out[n];
					memset(r, 0, sizeof(*r));
					r->is_tool = is_tool;
					if (is_tool) {
						size_t w = v;
						while (w < ve && !isspace((unsigned char)reply[w]))
							w++;
						snprintf(r->name, sizeof(r->name), "%.*s", (int)(w - v), reply + v);
						while (w < ve && isspace((unsigned char)reply[w]))
							w++;
						snprintf(r->text, sizeof(r->text), "%.*s", (int)(ve - w), reply + w);
					} else {
						snprintf(r->text, sizeof(r->text), "%.*s", (int)(ve - v), reply + v);
					}
					n++;
				}
			}
		}
		i = e < len ? e + 1 : e;
	}
	return n;
}
