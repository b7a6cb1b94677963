/* Internals of lib/programmer: template slots and parsing, candidate formats, reply requests. */
#ifndef KP_PROG_INT_H
#define KP_PROG_INT_H

#include "kernelpro/buf.h"
#include "kernelpro/error.h"
#include "kernelpro/programmer.h"

/*
 * Every slot a template may name (docs/prompts.md explains each). One list,
 * so a typo in a user's template is an error at load time.
 */
#define KP_PROG_SLOTS(X)                                                       \
	X(mode)                                                                \
	X(task_name)                                                           \
	X(task)                                                                \
	X(reference)                                                           \
	X(stage1)                                                              \
	X(hardware)                                                            \
	X(memory)                                                              \
	X(codesearch)                                                          \
	X(instructions)                                                        \
	X(parent_code)                                                         \
	X(failure)                                                             \
	X(failure_kind)                                                        \
	X(compile_log)                                                         \
	X(runtime_log)                                                         \
	X(wrong_output)                                                        \
	X(reject_reason)                                                       \
	X(reference_time)                                                      \
	X(parent_time)                                                         \
	X(best_time)                                                           \
	X(parent_speedup)                                                      \
	X(best_speedup)                                                        \
	X(feedback)                                                            \
	X(format)                                                              \
	X(format_name)                                                         \
	X(language)                                                            \
	X(fence)                                                               \
	X(entry_points)                                                        \
	X(kernel_language)                                                     \
	X(port_from)                                                           \
	X(protocol)                                                            \
	X(search_on)                                                           \
	X(tools_on)                                                            \
	X(tools)                                                               \
	X(max_rounds)                                                          \
	X(knobs)

#define KP__SLOT_ENUM(name) KP_SLOT_##name,
enum kp_prog_slot { KP_PROG_SLOTS(KP__SLOT_ENUM) KP_NSLOTS };
#undef KP__SLOT_ENUM

const char *kp_prog_slot_name(int slot);

/* A parsed template: text, {{slot}}, {{#slot}}..{{/slot}} (shown when set), {{^slot}}..{{/slot}}, {{! comment}}. */
enum kp_tmpl_kind { KP_TMPL_TEXT, KP_TMPL_VAR, KP_TMPL_IF, KP_TMPL_UNLESS };

struct kp_tmpl_node {
	enum kp_tmpl_kind kind;
	size_t off, len;  /* TEXT: the bytes in src */
	int slot;         /* VAR, IF, UNLESS */
	size_t end;       /* IF, UNLESS: index of the first node after the section */
};

struct kp_tmpl {
	char *path;       /* where it was read, for messages */
	char *src;
	struct kp_tmpl_node *nodes;
	size_t n, alloc;
};

/* Parses `src` (taken over). Errors name path:line and what is wrong (unknown slot, unclosed section). */
int kp_tmpl_parse(struct kp_tmpl *t, const char *path, char *src, struct kp_error *err);
/* Renders with values[slot] (NULL or "" = not set); blank-line runs collapse to one. Appends to out. */
void kp_tmpl_render(const struct kp_tmpl *t, const char *const values[KP_NSLOTS], struct kp_buf *out);
void kp_tmpl_release(struct kp_tmpl *t);

/* What a candidate format looks like to the extractor and the prompts. */
struct kp_cand_format_info {
	const char *name;                 /* "cuda", "torch" */
	const char *language;             /* for people: "CUDA C++", "Python" */
	const char *kernels;              /* what the kernels are written in: "CUDA", "Triton" */
	const char *fence;                /* the fence tag asked for: "cuda", "python" */
	const char *const *fence_tags;    /* tags accepted from replies ("" = an untagged block) */
	const char *const *other_tags;    /* tags of the other languages, for a precise rejection */
	const char *const *entry_points;  /* default names the code must define */
	const char *prompt_file;          /* prompts/format-<name>.txt: the ABI and a worked example */
	/*
	 * Text the code must contain to be in this format (NULL: none), and the rejection when it
	 * does not: a Triton candidate without a @triton.jit kernel is CUDA or PyTorch, not Triton.
	 */
	const char *marker;
	const char *marker_missing;
};

const struct kp_cand_format_info *kp_cand_format_info(enum kp_cand_format f);

/* A request for information in a reply: "search: QUERY" or "tool: NAME [ARGS]". */
struct kp_prog_request {
	int is_tool;
	char name[64];    /* tool name */
	char text[512];   /* query, or the tool's arguments */
};

#define KP_PROG_MAX_REQUESTS 4

/* Request lines outside code blocks, at most `max`. Returns how many. */
size_t kp_prog_parse_requests(const char *reply, size_t len, struct kp_prog_request *out, size_t max);

/* True when the reply holds a fenced block (closed or not). */
int kp_prog_has_code_block(const char *reply, size_t len);

/* The templates a programmer loads, and their file names under prompts/. */
enum kp_prog_tmpl_id {
	KP_PT_SYSTEM = 0,
	KP_PT_INITIAL,
	KP_PT_DEBUG,
	KP_PT_OPTIMIZE,
	KP_PT_TOOLS,
	KP_PT_KNOBS_CUDA, /* how a candidate of the format declares tunable values: prompts/knobs-<format>.txt */
	KP_PT_KNOBS_TORCH,
	KP_PT_KNOBS_TRITON,
	KP_PT_FMT_CUDA,
	KP_PT_FMT_TORCH,
	KP_PT_FMT_TRITON,
	KP_NPT,
};

struct kp_programmer {
	struct kp_llm *llm;          /* borrowed; NULL: prompts only */
	struct kp_programmer_opts opts;
	char *prompts_dir;           /* owned copy of opts.prompts_dir */
	int max_rounds;
	size_t max_prompt;
	struct kp_tmpl t[KP_NPT];
};

/* Builds the system and user prompt for ctx into the buffers (appends). */
int kp_prog_build(struct kp_programmer *pg, const struct kp_prog_ctx *c, struct kp_buf *system, struct kp_buf *user,
		  struct kp_error *err);

#endif
