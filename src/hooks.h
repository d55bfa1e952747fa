/*
 * hooks.h - what the library's own versions of C library functions share:
 * how they are exported, and how the hook modules that need setting up
 * at start are set up.
 */
#ifndef TRMS_HOOKS_H
#define TRMS_HOOKS_H

/* An interposed function: exported under the C library's name (the
 * version script, which export_map.py writes from base/real_functions.def,
 * lists them all). */
#define EXPORT __attribute__((visibility("default")))

/* What a hook returns, errno ENOSYS, where this C library has no such
 * function. */
#define MISSING(value) (errno = ENOSYS, (value))

/* A hook that passes the call on to the C library's @field (REAL, in
 * real.h), the thread counted as waiting in it meanwhile (a sample finds
 * it blocked: thread_block_begin), @missing where there is none; then
 * @after, which sees the result as `ret`. */
#define PASS_ON(type, name, field, missing, params, args, after)          \
	EXPORT type name params                                            \
	{                                                                  \
		__typeof__(real.field) fn = REAL(field);                   \
		struct sampler_thread *s_ = thread_block_begin();          \
		type ret = fn ? fn args : (missing);                       \
		thread_block_end(s_);                                      \
		after;                                                     \
		return ret;                                                \
	}

/* Set up the fork handlers (process_hooks.c) and the handlers that write
 * the profile on SIGTERM and SIGINT (signal_hooks.c). */
void process_hooks_start(void);
void signal_hooks_start(void);

/* SIGTERM and SIGINT back to the program's dispositions: no code of the
 * library's runs on them any more (a thread entered a sandbox). */
void signal_hooks_stop(void);

#endif
