/* JSON Lines reader for the energy corpora (measured kernels, samples). */
#include "base/setup.h"

#include "energy/jsonl.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

void kp_jsonl_init(struct kp_jsonl *it, char *text, const char *what)
{
	memset(it, 0, sizeof(*it));
	it->next = text;
	it->what = what;
}

int kp_jsonl_next(struct kp_jsonl *it, json_t **v, struct kp_error *err)
{
	*v = NULL;
	while (it->next && *it->next) {
		char *line = it->next, *p, *nl = strchr(line, '\n');
		it->next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = 0;
		it->lineno++;
		p = kp_str_trim(line);
		if (!*p || *p == '#')
			continue;
		snprintf(it->where, sizeof(it->where), "%s:%d", it->what, it->lineno);
		if (kp_json_load_mem(it->where, p, strlen(p), v, err))
			return err ? err->code : KP_EPARSE;
		return 1;
	}
	return 0;
}
