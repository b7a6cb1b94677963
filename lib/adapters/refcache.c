/*
 * The reference's evaluation (its timing, Stage 1, feedback and profile files) kept across runs in
 * <cache>/references/<key>/, so a task is timed and profiled once per GPU and harness: the key is the
 * task's identity (lib/run records it), the GPU's name, kernelpro's version, the harness sources'
 * contents, and every option that changes what the reference's evaluation measures.
 */
#include "base/setup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernelpro/fs.h"
#include "kernelpro/hash.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "adapters/refcache.h"

#define FILE_CAP (512u << 20) /* an ncu CSV of a large task stays far below */
#define JSON_CAP (64u << 20)

static void add_line(struct kp_sha256 *h, const char *k, const char *v)
{
	kp_sha256_update_str(h, k);
	kp_sha256_update_str(h, "=");
	kp_sha256_update_str(h, v ? v : "-");
	kp_sha256_update_str(h, "\n");
}

static void add_num(struct kp_sha256 *h, const char *k, double v)
{
	char b[64];
	snprintf(b, sizeof(b), "%.17g", v);
	add_line(h, k, b);
}

/* Hashes the contents of `rel` (a file) or of every .py file in it (a directory), in name order. */
static void add_sources(struct kp_sha256 *h, const char *rel)
{
	char *path = kp_find_data(rel);
	struct dirent **names = NULL;
	struct kp_buf f = KP_BUF_INIT, text = KP_BUF_INIT;
	int n;

	if (!path) {
		add_line(h, rel, NULL);
		return;
	}
	kp_buf_init(&text, FILE_CAP);
	if (!kp_path_is_dir(path)) {
		if (kp_read_file(path, FILE_CAP, &text, NULL) == 0)
			kp_sha256_update(h, text.buf, text.len);
		add_line(h, rel, "");
	} else if ((n = scandir(path, &names, NULL, alphasort)) >= 0) {
		for (int i = 0; i < n; i++) {
			if (kp_ends_with(names[i]->d_name, ".py")) {
				kp_buf_reset(&f);
				kp_buf_reset(&text);
				kp_path_join(&f, path, names[i]->d_name);
				if (kp_read_file(f.buf, FILE_CAP, &text, NULL) == 0)
					kp_sha256_update(h, text.buf, text.len);
				add_line(h, names[i]->d_name, "");
			}
			free(names[i]);
		}
		free(names);
	}
	free(path);
	kp_buf_release(&f);
	kp_buf_release(&text);
}

void kp_refcache_key(const struct kp_harness_opts *o, const struct kp_strvec *metrics, char hex[65])
{
	const struct kp_eval_opts *e = &o->eval;
	struct kp_sha256 h;

	hex[0] = '\0';
	if (!o->task_sha256 || !*o->task_sha256 || !o->gpu_name || !*o->gpu_name)
		return;
	kp_sha256_init(&h);
	kp_sha256_update_str(&h, "kernelpro-reference-v1\n");
	add_line(&h, "task", o->task_sha256);
	add_line(&h, "gpu", o->gpu_name);
	add_line(&h, "version", KP_VERSION);
	add_sources(&h, "harness/kp_torch.py");
	add_sources(&h, "harness/kernelpro");
	add_num(&h, "seed", (double)e->seed);
	add_num(&h, "warmup", e->warmup);
	add_num(&h, "trials", e->timing_trials);
	add_num(&h, "discard", e->discard_first);
	add_num(&h, "l2_flush", e->l2_flush);
	add_num(&h, "cpu_inputs", e->cpu_inputs);
	add_num(&h, "tol_mode", e->tol_mode);
	add_num(&h, "atol", e->atol);
	add_num(&h, "rtol", e->rtol);
	add_line(&h, "arch", e->arch);
	for (const char *const *f = e->nvcc_flags; f && *f; f++)
		add_line(&h, "nvcc_flag", *f);
	add_line(&h, "hw", o->hw_key);
	add_num(&h, "energy", o->energy);
	add_num(&h, "stage2_energy", o->stage2.energy);
	add_num(&h, "orchestration", o->stage2.orchestration);
	add_num(&h, "feedback", o->stage2.feedback.mode);
	add_num(&h, "toolset", o->toolset != NULL);
	for (size_t i = 0; metrics && i < metrics->n; i++)
		add_line(&h, "metric", metrics->v[i]);
	kp_sha256_final(&h, hex);
}

static int entry_dir(const char *key, struct kp_buf *dir)
{
	struct kp_error ignore = KP_ERROR_INIT;
	if (kp_cache_dir(dir, &ignore))
		return -1;
	kp_buf_addf(dir, "/references/%s", key);
	return 0;
}

int kp_refcache_lock(const char *key)
{
	struct kp_buf dir = KP_BUF_INIT, path = KP_BUF_INIT;
	struct kp_error ignore = KP_ERROR_INIT;
	int fd = -1;

	if (!*key || kp_cache_dir(&dir, &ignore))
		goto out;
	kp_buf_adds(&dir, "/references");
	kp_buf_addf(&path, "%s/%s.lock", dir.buf, key);
	if (kp_mkdir_p(dir.buf, 0755, &ignore))
		goto out;
	fd = open(path.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	while (fd >= 0 && flock(fd, LOCK_EX) != 0) {
		if (errno != EINTR) {
			close(fd);
			fd = -1;
		}
	}
out:
	kp_buf_release(&dir);
	kp_buf_release(&path);
	return fd;
}

void kp_refcache_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* the lock goes with the last descriptor of its open file */
}

/* Copies the regular files of `from` into `to` (made when missing). */
static int copy_files(const char *from, const char *to, struct kp_error *err)
{
	DIR *d = opendir(from);
	struct dirent *de;
	struct kp_buf a = KP_BUF_INIT, b = KP_BUF_INIT, text = KP_BUF_INIT;
	int rc = 0;

	if (!d)
		return 0; /* nothing was profiled */
	if ((rc = kp_mkdir_p(to, 0755, err)))
		goto out;
	kp_buf_init(&text, FILE_CAP);
	while (!rc && (de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		kp_buf_reset(&a);
		kp_buf_reset(&b);
		kp_path_join(&a, from, de->d_name);
		kp_path_join(&b, to, de->d_name);
		if (stat(a.buf, &st) || !S_ISREG(st.st_mode))
			continue;
		kp_buf_reset(&text);
		if (!(rc = kp_read_file(a.buf, FILE_CAP, &text, err)))
			rc = kp_write_file_atomic(b.buf, text.buf, text.len, err);
	}
out:
	closedir(d);
	kp_buf_release(&a);
	kp_buf_release(&b);
	kp_buf_release(&text);
	return rc;
}

static char *dup_str(const json_t *o, const char *k)
{
	const char *s = kp_json_str(o, k, NULL);
	return s ? kp_xstrdup(s) : NULL;
}

int kp_refcache_load(const char *key, const char *profile_dir, struct kp_search_eval *out, double *floor_s)
{
	struct kp_buf dir = KP_BUF_INIT, path = KP_BUF_INIT, pdir = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *j = NULL, *pj = NULL;
	int rc = KP_EMISSING;

	if (!*key || entry_dir(key, &dir))
		goto out;
	kp_path_join(&path, dir.buf, "result.json");
	if (!kp_path_exists(path.buf) || kp_json_load_file(path.buf, JSON_CAP, &j, &err))
		goto out;
	if (strcmp(kp_json_str(j, "outcome", ""), "correct") || !isfinite(kp_json_num(j, "time_ms", NAN)))
		goto out;
	kp_path_join(&pdir, profile_dir, "reference");
	kp_buf_reset(&path);
	kp_path_join(&path, dir.buf, "profile");
	if (copy_files(path.buf, pdir.buf, &err)) {
		kp_warn("cached reference '%s' not used: %s", dir.buf, kp_error_msg(&err));
		goto out;
	}
	out->outcome = KP_OUTCOME_CORRECT;
	out->time_ms = kp_json_num(j, "time_ms", NAN);
	out->time_std_ms = kp_json_num(j, "time_std_ms", NAN);
	out->ref_time_ms = kp_json_num(j, "ref_time_ms", NAN);
	out->speedup = 1.0;
	out->energy_j = kp_json_num(j, "energy_j", NAN);
	out->verdict_json = dup_str(j, "verdict_json");
	out->findings_json = dup_str(j, "findings_json");
	out->feedback = dup_str(j, "feedback");
	out->stage1 = dup_str(j, "stage1");
	out->hardware = dup_str(j, "hardware");
	out->log = dup_str(j, "log");
	if (kp_json_str(j, "profile_json", NULL) &&
	    !kp_json_load_mem("cached profile", kp_json_str(j, "profile_json", ""), strlen(kp_json_str(j, "profile_json", "")),
			      &pj, &err)) {
		kp_json_set(pj, "dir", json_string(pdir.buf)); /* this run's copy */
		kp_json_set(pj, "cached", json_string(dir.buf));
		out->profile_json = json_dumps(pj, JSON_COMPACT | JSON_SORT_KEYS);
	}
	*floor_s = kp_json_num(j, "floor_time_s", NAN);
	rc = 0;
out:
	json_decref(j);
	json_decref(pj);
	kp_buf_release(&dir);
	kp_buf_release(&path);
	kp_buf_release(&pdir);
	return rc;
}

static void set_str(json_t *o, const char *k, const char *v)
{
	if (v)
		kp_json_set(o, k, json_string(v));
}

void kp_refcache_store(const char *key, const char *profile_dir, const struct kp_search_eval *res, double floor_s)
{
	struct kp_buf dir = KP_BUF_INIT, tmp = KP_BUF_INIT, path = KP_BUF_INIT, text = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	json_t *j = json_object();

	if (!*key || res->outcome != KP_OUTCOME_CORRECT || entry_dir(key, &dir))
		goto out;
	kp_json_set(j, "outcome", json_string("correct"));
	kp_json_set(j, "time_ms", kp_json_real(res->time_ms));
	kp_json_set(j, "time_std_ms", kp_json_real(res->time_std_ms));
	kp_json_set(j, "ref_time_ms", kp_json_real(res->ref_time_ms));
	kp_json_set(j, "energy_j", kp_json_real(res->energy_j));
	kp_json_set(j, "floor_time_s", kp_json_real(floor_s));
	set_str(j, "verdict_json", res->verdict_json);
	set_str(j, "profile_json", res->profile_json);
	set_str(j, "findings_json", res->findings_json);
	set_str(j, "feedback", res->feedback);
	set_str(j, "stage1", res->stage1);
	set_str(j, "hardware", res->hardware);
	set_str(j, "log", res->log);
	/* Built beside the entry and renamed into place: a reader sees a whole entry or none. */
	kp_buf_addf(&tmp, "%s.tmp-%ld", dir.buf, (long)getpid());
	kp_rm_rf(tmp.buf, NULL);
	kp_path_join(&path, profile_dir, "reference");
	kp_buf_addf(&text, "%s/profile", tmp.buf);
	if (kp_mkdir_p(tmp.buf, 0755, &err) || copy_files(path.buf, text.buf, &err))
		goto fail;
	kp_buf_reset(&path);
	kp_path_join(&path, tmp.buf, "result.json");
	kp_buf_reset(&text);
	if (kp_json_dump_buf(j, &text, 1) || kp_write_file_atomic(path.buf, text.buf, text.len, &err))
		goto fail;
	kp_rm_rf(dir.buf, NULL);
	if (rename(tmp.buf, dir.buf) == 0)
		goto out;
	kp_error_set(&err, KP_EIO, "rename: %s", strerror(errno));
fail:
	kp_warn("the reference's evaluation was not cached in '%s': %s", dir.buf, kp_error_msg(&err));
	kp_rm_rf(tmp.buf, NULL);
out:
	json_decref(j);
	kp_buf_release(&dir);
	kp_buf_release(&tmp);
	kp_buf_release(&path);
	kp_buf_release(&text);
}
