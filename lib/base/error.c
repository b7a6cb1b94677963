/* Error codes to messages (from the one X-macro list) and the first-error-wins carrier. */
#include "base/setup.h"

#define KP__ERR_MSG(NAME, name, msg) msg,
static const char *const kp_err_msgs[] = {KP_ERRNO_MAP(KP__ERR_MSG)};
#undef KP__ERR_MSG

/* Constant data built by the compiler: nothing to initialise, so any thread may read it at any time. */
#define KP__ERR_NAME(NAME, name, msg) #name,
static const char *const kp_err_names[] = {KP_ERRNO_MAP(KP__ERR_NAME)};
#undef KP__ERR_NAME

const char *kp_strerror(int code)
{
	if (code == 0)
		return "success";
	if (code < 0 && -code <= KP__NERR)
		return kp_err_msgs[-code - 1];
	return "unknown error";
}

const char *kp_errname(int code)
{
	if (code == 0)
		return "ok";
	if (code >= 0 || -code > KP__NERR)
		return "unknown";
	return kp_err_names[-code - 1];
}

int kp_error_vset(struct kp_error *err, int code, const char *fmt, va_list ap)
{
	if (!err || err->code != 0)
		return code;
	err->code = code;
	if (fmt)
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	else
		err->msg[0] = '\0';
	return code;
}

int kp_error_set(struct kp_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kp_error_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

void kp_error_prefix(struct kp_error *err, const char *fmt, ...)
{
	char pre[KP_ERROR_SIZE], old[KP_ERROR_SIZE];
	va_list ap;
	if (!err || err->code == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	snprintf(old, sizeof(old), "%s", kp_error_msg(err));
	if (snprintf(err->msg, sizeof(err->msg), "%s: %s", pre, old) >= (int)sizeof(err->msg))
		memcpy(err->msg + sizeof(err->msg) - 4, "...", 4); /* keep the marker that text was cut */
}

void kp_error_clear(struct kp_error *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

const char *kp_error_msg(const struct kp_error *err)
{
	if (!err)
		return "unknown error";
	if (err->msg[0])
		return err->msg;
	return kp_strerror(err->code);
}
