/*
 * Fault injection (fault.h): the plan from $KP_FAULT, one counter per kind, and the check every
 * hook makes. Process-wide on purpose: the switch is the environment of one process.
 */
#include "base/setup.h"

#include <pthread.h>

#include "kernelpro/fault.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"
#include "kernelpro/strvec.h"

struct fault_rule {
	long nth;       /* 0: this kind never fails */
	int persistent; /* the nth and every one after */
};

#define KP__FAULT_NAME(n, s, c) s,
static const char *const kind_names[] = {KP_FAULT_KINDS(KP__FAULT_NAME)};
#undef KP__FAULT_NAME
#define KP__FAULT_CODE(n, s, c) c,
static const int kind_codes[] = {KP_FAULT_KINDS(KP__FAULT_CODE)};
#undef KP__FAULT_CODE

static struct fault_rule plan[KP_FAULT_KIND_COUNT];
static long counts[KP_FAULT_KIND_COUNT];
static int armed;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

const char *kp_fault_kind_name(enum kp_fault_kind kind)
{
	return (unsigned)kind < KP_FAULT_KIND_COUNT ? kind_names[kind] : "unknown";
}

/* Parses "kind:N[+],..." into rules; nothing changes on an error. */
static int parse_plan(const char *spec, struct fault_rule *rules, struct kp_error *err)
{
	struct kp_strvec parts = KP_STRVEC_INIT;
	int rc = 0;

	memset(rules, 0, sizeof(*rules) * KP_FAULT_KIND_COUNT);
	kp_strvec_split(&parts, spec ? spec : "", ',');
	for (size_t i = 0; i < parts.n && !rc; i++) {
		char *p = parts.v[i], *colon = strchr(p, ':');
		size_t len;
		long n;
		int k, plus = 0;

		if (!*p)
			continue;
		if (!colon) {
			rc = kp_error_set(err, KP_EINVAL,
					  "KP_FAULT: '%s' is not KIND:N (e.g. spawn:3 or http:1+)", p);
			break;
		}
		*colon = '\0';
		for (k = 0; k < KP_FAULT_KIND_COUNT && strcmp(kind_names[k], p); k++)
			;
		len = strlen(colon + 1);
		if (len && colon[len] == '+') {
			colon[len] = '\0';
			plus = 1;
		}
		if (k == KP_FAULT_KIND_COUNT)
			rc = kp_error_set(err, KP_EINVAL, "KP_FAULT: unknown kind '%s' (spawn, http, sqlite-write, "
							  "file-write)",
					  p);
		else if (kp_parse_long(colon + 1, &n) || n < 1)
			rc = kp_error_set(err, KP_EINVAL, "KP_FAULT: '%s:%s' needs a count of 1 or more", p,
					  colon + 1);
		else
			rules[k] = (struct fault_rule){n, plus};
	}
	kp_strvec_release(&parts);
	return rc;
}

int kp_fault_plan(const char *spec, struct kp_error *err)
{
	struct fault_rule rules[KP_FAULT_KIND_COUNT];
	int rc = parse_plan(spec, rules, err), any = 0;

	if (rc)
		return rc;
	for (int k = 0; k < KP_FAULT_KIND_COUNT; k++) {
		plan[k] = rules[k];
		__atomic_store_n(&counts[k], 0, __ATOMIC_SEQ_CST);
		any |= rules[k].nth > 0;
	}
	__atomic_store_n(&armed, any, __ATOMIC_SEQ_CST);
	return 0;
}

static void plan_from_env(void)
{
	struct kp_error err = KP_ERROR_INIT;
	const char *spec = getenv("KP_FAULT");
	if (spec && *spec && kp_fault_plan(spec, &err))
		kp_warn("%s; no faults injected", kp_error_msg(&err));
}

/* The number of this operation of its kind when it is to fail, else 0. */
static long hit(enum kp_fault_kind kind)
{
	long n;
	pthread_once(&env_once, plan_from_env);
	if ((unsigned)kind >= KP_FAULT_KIND_COUNT || !__atomic_load_n(&armed, __ATOMIC_RELAXED) ||
	    !plan[kind].nth)
		return 0;
	n = __atomic_add_fetch(&counts[kind], 1, __ATOMIC_SEQ_CST);
	if (n == plan[kind].nth || (plan[kind].persistent && n > plan[kind].nth))
		return n;
	return 0;
}

int kp_fault_hit(enum kp_fault_kind kind)
{
	long n = hit(kind);
	if (n)
		kp_warn("injected fault: %s #%ld (KP_FAULT)", kind_names[kind], n);
	return n != 0;
}

int kp_fault(enum kp_fault_kind kind, const char *what, struct kp_error *err)
{
	long n = hit(kind);
	if (!n)
		return 0;
	kp_warn("injected fault: %s #%ld (KP_FAULT)%s%s", kind_names[kind], n, what ? ": " : "",
		what ? what : "");
	return kp_error_set(err, kind_codes[kind], "injected fault: %s #%ld (KP_FAULT)%s%s", kind_names[kind],
			    n, what ? ": " : "", what ? what : "");
}
