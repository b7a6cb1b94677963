/* Inside lib/run: the run handle its files share. */
#ifndef KP_RUN_INT_H
#define KP_RUN_INT_H

#include "kernelpro/run.h"
#include "kernelpro/task_kind.h"

struct kp_run {
	char *dir;
	char *name;
	char *made_root; /* the runs directory kp_run_create made; kp_run_abandon removes it when empty */
	struct kp_store *store;
	int lock_fd; /* -1: none (read-only) */
	int created; /* kp_run_create made this run */
	struct kp_run_settings settings;
	json_t *task;                         /* the task as recorded (kind, name, path, ...) */
	const struct kp_task_kind_info *kind; /* the recorded task's kind; NULL when unknown */
};

/* The kind whose files a candidate in `lang` gets: the run's, unless the database says otherwise. */
const struct kp_task_kind_info *kp__run_kind(const struct kp_run *r, const char *lang);
/* A meta entry as JSON into *out (new reference); KP_ENOENT when absent. */
int kp__run_meta_json(struct kp_store *s, const char *key, json_t **out, struct kp_error *err);
/* A meta entry as an allocated string; NULL when absent or empty. */
char *kp__run_meta_str(struct kp_store *s, const char *key);
/* Rewrites summary.json and best.* (after each evaluation). */
int kp__run_write_outputs(struct kp_run *r, struct kp_error *err);
/* Writes candidates/<id>.<ext> (a copy for people: a failure is logged, not returned). */
void kp__run_write_candidate(struct kp_run *r, long id, const char *lang, const char *source);

#endif
