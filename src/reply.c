/* A model's reply given as a candidate: told from a source file, and its code extracted as the search does. */
#include "base/setup.h"

#include "kernelpro/fs.h"
#include "kernelpro/programmer.h"
#include "kernelpro/str.h"
#include "kernelpro/task_kind.h"
#include "reply.h"
#include "runs.h"

#define REPLY_CAP (16u << 20) /* what kp_llm takes from a model: a larger file is no reply */

static size_t count_lines(const char *s)
{
	size_t n = *s ? 1 : 0;
	for (; *s; s++)
		n += *s == '\n' && s[1];
	return n;
}

/* The first non-blank line of s (at most n bytes of it, without the newline). */
static const char *first_line(const char *s, size_t *n)
{
	s += strspn(s, " \t\r\n");
	*n = strcspn(s, "\r\n");
	return s;
}

/* Whether a line starts as code does (a comment, a directive, an import, a docstring, a statement). */
static int looks_like_code(const char *l, size_t n)
{
	static const char *const starts[] = {"#", "//", "/*", "import ", "from ", "\"\"\"", "'''", "template",
					     "__global__", "extern ", "static ", "class ", "def ", "@"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(starts); i++)
		if (n >= strlen(starts[i]) && !strncmp(l, starts[i], strlen(starts[i])))
			return 1;
	while (n && (l[n - 1] == ' ' || l[n - 1] == '\t'))
		n--;
	return n && (l[n - 1] == ';' || l[n - 1] == '{');
}

/* A ``` fence at the start of some line. */
static int has_fence(const char *s)
{
	for (const char *p = s; (p = strstr(p, "```")); p += 3)
		if (p == s || p[-1] == '\n')
			return 1;
	return 0;
}

static int is_reply(const char *path, const char *text)
{
	const char *ext = strrchr(path, '.'), *slash = strrchr(path, '/'), *l;
	size_t n;
	if (ext && (!slash || ext > slash) &&
	    (!strcmp(ext, ".md") || !strcmp(ext, ".markdown") || !strcmp(ext, ".txt")))
		return 1;
	l = first_line(text, &n);
	return has_fence(text) && (!strncmp(l, "```", 3) || !looks_like_code(l, n));
}

int kp_cli_reply_code(struct kp_cli *cli, const struct kp_task *task, const char *path, struct kp_buf *code,
		      int *is_reply_out)
{
	const struct kp_task_kind_info *k = kp_task_kind_info(task->kind);
	struct kp_buf text = KP_BUF_INIT, shown = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	enum kp_cand_format format = KP_CAND_CUDA;
	char reason[512];
	int rc = 0;

	*is_reply_out = 0;
	kp_buf_reset(code);
	if (kp_task_read_file(path, REPLY_CAP, &text, &err) || memchr(text.buf, '\0', text.len) ||
	    !is_reply(path, text.buf))
		goto out; /* a source, or no regular file: evaluated as given, which says what is wrong */
	*is_reply_out = 1;
	kp_cli_text(&shown, path, KP_TEXT_LINE);
	if (kp_cand_format_parse(k->format, &format))
		KP_BUG("task kind '%s': no candidate format '%s'", k->name, k->format);
	if (kp_prog_extract(text.buf, text.len, format, NULL, 0, code, reason, sizeof(reason))) {
		kp_cli_error(cli, "'%s' is a model's reply, not a .%s source, and holds no code to evaluate: %s",
			     shown.buf, k->ext, reason);
		rc = KP_EXIT_FAIL;
		goto out;
	}
	if (cli->verbosity >= 0)
		fprintf(cli->err, "kernelpro: '%s' is a model's reply: evaluating the code the search would take from it "
				  "(%zu lines of %s)\n",
			shown.buf, count_lines(code->buf), kp_cand_format_name(format));
out:
	kp_buf_release(&text);
	kp_buf_release(&shown);
	return rc;
}
