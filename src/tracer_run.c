/* `kernelpro profile`'s tracer pass: the program run once under the CUPTI tracer library. */
#include "base/setup.h"

#include <unistd.h>

#include "kernelpro/child.h"
#include "kernelpro/fs.h"
#include "tracer_run.h"

int kp_cli_run_tracer(struct kp_cli *cli, const struct kp_args *args, const char *dir, char **trace_path,
                      struct kp_error *err)
{
	struct kp_child c = KP_CHILD_INIT;
	struct kp_buf out = KP_BUF_INIT, log = KP_BUF_INIT;
	char *lib = kp_find_libexec("libkp_tracer.so"), how[128];
	int rc = 0;
	*trace_path = NULL;
	if (!lib)
		return kp_error_set(err, KP_ENOTOOL,
				    "the tracer library libkp_tracer.so was not built (build with nvcc present: 'make')");
	kp_path_join(&out, dir, "trace.json");
	kp_path_join(&log, dir, "tracer.log");
	unlink(out.buf);
	for (size_t i = 0; i < kp_arg_npos(args); i++)
		kp_strvec_push(&c.args, kp_arg_pos(args, i));
	kp_strvec_pushf(&c.env, "CUDA_INJECTION64_PATH=%s", lib);
	kp_strvec_pushf(&c.env, "KP_TRACE_OUT=%s", out.buf);
	c.timeout_ms = kp_arg_int(args, "timeout", 600) * 1000;
	c.merge_stderr = 1;
	if ((rc = kp_child_run(&c, err)))
		goto done;
	kp_write_file_atomic(log.buf, c.out.buf, c.out.len, NULL);
	if (!kp_child_ok(&c))
		kp_cli_warn(cli, "the traced program %s (output in %s)", kp_child_describe(&c, how, sizeof(how)), log.buf);
	if (!kp_path_exists(out.buf)) {
		rc = kp_error_set(err, KP_ECHILD, "the tracer wrote no trace (is the program a CUDA program? output in %s)",
				  log.buf);
		goto done;
	}
	*trace_path = kp_buf_detach(&out, NULL);
done:
	kp_buf_release(&out);
	kp_buf_release(&log);
	kp_child_release(&c);
	free(lib);
	return rc;
}
