/* The two Slurm job scripts of a suite: the array over its shards and the merge job after it. */
#include "base/setup.h"

#include "kernelpro/slurm_script.h"
#include "suite/slurm_int.h"

int kp_slurm_script_elements(const char *array, long nodes, unsigned char *in, struct kp_error *err)
{
	long long prev = -1;
	if (in)
		memset(in, 0, (size_t)(nodes > 0 ? nodes : 0));
	for (const char *p = array;;) {
		size_t n = strspn(p, "0123456789");
		long long lo, hi;
		if (!kp__slurm_client_num(p, n, nodes - 1, &lo) || lo <= prev)
			goto bad;
		p += n;
		hi = lo;
		if (*p == '-') {
			n = strspn(++p, "0123456789");
			if (!kp__slurm_client_num(p, n, nodes - 1, &hi) || hi < lo)
				goto bad;
			p += n;
		}
		for (long long k = lo; in && k <= hi; k++)
			in[k] = 1;
		prev = hi;
		if (!*p)
			return 0;
		if (*p++ != ',')
			goto bad;
	}
bad:
	return kp_error_set(
	    err, KP_EINVAL,
	    "array elements '%s': give increasing indices or ranges below %ld, e.g. 1,3 or 0-2", array,
	    nodes);
}

/* The job's fields, checked as the settings are (kp_slurm_settings_check). */
static int check_job(const struct kp_slurm_settings *s, const struct kp_slurm_job *job, struct kp_error *err)
{
	int rc = kp_slurm_settings_check(s, err);
	if (rc)
		return rc;
	if (!job->suite_dir || !job->kernelpro)
		return kp_error_set(err, KP_EINVAL,
		                    "a Slurm job needs the suite directory and the kernelpro path");
	if ((rc = kp__slurm_check_sbatch_path("suite directory", job->suite_dir, err)) ||
	    (rc = kp__slurm_check_abs_path("kernelpro path", job->kernelpro, err)) ||
	    (job->workdir && (rc = kp__slurm_check_abs_path("working directory", job->workdir, err))) ||
	    (job->job_name && (rc = kp__slurm_check_name("job name", job->job_name, "_.-", err))) ||
	    (job->array && (rc = kp_slurm_script_elements(job->array, s->nodes, NULL, err))))
		return rc;
	for (size_t i = 0; job->bench_args && i < job->bench_args->n; i++)
		if (kp__slurm_check_has_control(job->bench_args->v[i]) ||
		    strlen(job->bench_args->v[i]) > 4096)
			return kp_error_set(err, KP_EINVAL,
			                    "bench argument '%s' has control characters or is too long",
			                    job->bench_args->v[i]);
	return 0;
}

/* Appends s in single quotes; a quote inside becomes '\'' . */
static void add_sq(struct kp_buf *b, const char *s)
{
	kp_buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			kp_buf_adds(b, "'\\''");
		else
			kp_buf_addch(b, *s);
	}
	kp_buf_addch(b, '\'');
}

/* The #SBATCH lines both jobs share. */
static void add_common_sbatch(struct kp_buf *b, const struct kp_slurm_settings *s,
                              const struct kp_slurm_job *job, const char *time, const char *log)
{
	kp_buf_adds(b, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n");
	if (s->partition)
		kp_buf_addf(b, "#SBATCH --partition=%s\n", s->partition);
	if (s->account)
		kp_buf_addf(b, "#SBATCH --account=%s\n", s->account);
	if (s->qos)
		kp_buf_addf(b, "#SBATCH --qos=%s\n", s->qos);
	if (time)
		kp_buf_addf(b, "#SBATCH --time=%s\n", time);
	kp_buf_adds(b, s->requeue ? "#SBATCH --requeue\n" : "#SBATCH --no-requeue\n");
	kp_buf_addf(b, "#SBATCH --chdir=%s\n#SBATCH --output=%s/slurm/%s\n#SBATCH --open-mode=append\n",
	            job->suite_dir, job->suite_dir, log);
}

/* Modules, python, CUDA and env: the same for both jobs. */
static void add_environment(struct kp_buf *b, const struct kp_slurm_settings *s)
{
	if (s->modules.n) {
		/* Batch shells are not login shells: find the module command if the site's profile did not.
		 */
		kp_buf_adds(b, "if ! type module >/dev/null 2>&1; then\n"
		               "\tfor f in /etc/profile.d/lmod.sh /etc/profile.d/z00_lmod.sh "
		               "/etc/profile.d/modules.sh \\\n"
		               "\t\t/usr/share/lmod/lmod/init/bash /usr/share/modules/init/bash; do\n"
		               "\t\tif [ -r \"$f\" ]; then . \"$f\"; break; fi\n"
		               "\tdone\n"
		               "fi\n");
		for (size_t i = 0; i < s->modules.n; i++) {
			kp_buf_adds(b, "module load ");
			add_sq(b, s->modules.v[i]);
			kp_buf_adds(b, " || { echo \"kernelpro: module load failed\" >&2; exit 1; }\n");
		}
	}
	if (s->python) {
		kp_buf_adds(b, "export KERNELPRO_PYTHON=");
		add_sq(b, s->python);
		kp_buf_addch(b, '\n');
	}
	if (s->cuda_home) {
		kp_buf_adds(b, "export CUDA_HOME=");
		add_sq(b, s->cuda_home);
		kp_buf_adds(b, "\nexport PATH=\"$CUDA_HOME/bin:$PATH\"\n");
	}
	for (size_t i = 0; i < s->env.n; i++) {
		const char *eq = strchr(s->env.v[i], '=');
		kp_buf_addf(b, "export %.*s=", (int)(eq - s->env.v[i]), s->env.v[i]);
		add_sq(b, eq + 1);
		kp_buf_addch(b, '\n');
	}
}

/* "exec 'KERNELPRO' bench 'SUITE'": the job's last line, which the caller ends. */
static void add_exec_bench(struct kp_buf *b, const struct kp_slurm_job *job)
{
	kp_buf_adds(b, "exec ");
	add_sq(b, job->kernelpro);
	kp_buf_adds(b, " bench ");
	add_sq(b, job->suite_dir);
}

int kp_slurm_script_array(const struct kp_slurm_settings *s, const struct kp_slurm_job *job,
                          struct kp_buf *out, struct kp_error *err)
{
	int rc = check_job(s, job, err);
	if (rc)
		return rc;
	kp_buf_addf(
	    out,
	    "#!/bin/bash\n"
	    "# kernelpro bench: suite %s as a Slurm job array, one element per shard (docs/slurm.md).\n"
	    "# Written by `kernelpro bench SUITE --slurm`, which submits it and then merge.sbatch with\n"
	    "# --dependency=afterany on it; to submit by hand, do the same.\n"
	    "#SBATCH --job-name=%s\n",
	    job->suite_dir, job->job_name ? job->job_name : "kp-bench");
	if (job->array)
		kp_buf_addf(out, "#SBATCH --array=%s\n", job->array);
	else
		kp_buf_addf(out, "#SBATCH --array=0-%ld\n", s->nodes - 1);
	if (s->gpus_per_node > 0)
		kp_buf_addf(out, "#SBATCH --gpus-per-node=%ld\n", s->gpus_per_node);
	add_common_sbatch(out, s, job, s->time, "shard-%a.log");
	/* B: the signal goes to the batch shell only, which is kernelpro after the exec below. */
	if (s->signal_s > 0)
		kp_buf_addf(out, "#SBATCH --signal=B:USR1@%ld\n", s->signal_s);
	for (size_t i = 0; i < s->sbatch_args.n; i++)
		kp_buf_addf(out, "#SBATCH %s\n", s->sbatch_args.v[i]);
	kp_buf_adds(
	    out, "\nshard=${SLURM_ARRAY_TASK_ID:?this script runs as a Slurm array element: submit it with "
	         "sbatch}\n");
	add_environment(out, s);
	kp_buf_addf(out,
	            "echo \"kernelpro: shard $shard/%ld, job ${SLURM_ARRAY_JOB_ID}_$shard on $(hostname), "
	            "start $((${SLURM_RESTART_COUNT:-0} + 1))\"\n",
	            s->nodes);
	/* Relative paths on the submitting command line mean what they meant there. */
	if (job->workdir) {
		kp_buf_adds(out, "cd ");
		add_sq(out, job->workdir);
		kp_buf_adds(out, " || exit 1\n");
	}
	add_exec_bench(out, job);
	kp_buf_addf(out, " --shard \"$shard/%ld\" --resume", s->nodes);
	/* The element requeues itself when the time limit's signal stops it with work left. */
	if (s->requeue && s->signal_s > 0)
		kp_buf_adds(out, " --slurm-requeue");
	for (size_t i = 0; job->bench_args && i < job->bench_args->n; i++) {
		kp_buf_addch(out, ' ');
		add_sq(out, job->bench_args->v[i]);
	}
	return kp_buf_addch(out, '\n');
}

int kp_slurm_script_merge(const struct kp_slurm_settings *s, const struct kp_slurm_job *job,
                          struct kp_buf *out, struct kp_error *err)
{
	int rc = check_job(s, job, err);
	if (rc)
		return rc;
	kp_buf_addf(
	    out,
	    "#!/bin/bash\n"
	    "# kernelpro bench: merges the shards of suite %s once its job array has ended (docs/slurm.md).\n"
	    "#SBATCH --job-name=%s-merge\n",
	    job->suite_dir, job->job_name ? job->job_name : "kp-bench");
	add_common_sbatch(out, s, job, s->merge_time, "merge.log");
	kp_buf_adds(out, "\n");
	add_environment(out, s);
	add_exec_bench(out, job);
	return kp_buf_adds(out, " --merge\n");
}
