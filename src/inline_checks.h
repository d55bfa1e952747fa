/*
 * inline_checks.h - what the checks compiled into programs
 * (inline_checks.c) and the library (access_hooks.c) must agree on.
 */
#ifndef TRMS_INLINE_CHECKS_H
#define TRMS_INLINE_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine_fast.h"
#include "runtime/thread.h"

/* A thread's busy flag lies at this distance from its engine_fast: the
 * checks read it there, one load, instead of through engine_fast's
 * guard. */
#define INLINE_CHECKS_GUARD                                              \
	((ptrdiff_t)offsetof(struct trms_thread, busy) -                 \
	 (ptrdiff_t)(offsetof(struct trms_thread, engine) +              \
		     offsetof(struct engine_thread, fast)))

/* The layout of everything the checks read: a module built against
 * another one hands the library another number, and gets no copy. */
#define INLINE_CHECKS_ABI                                                \
	(ENGINE_FAST_ABI + 524287u * (unsigned)INLINE_CHECKS_GUARD)

static inline __attribute__((always_inline)) bool
inline_checks_busy(const struct engine_fast *f)
{
	return *((const bool *)f + INLINE_CHECKS_GUARD);
}

/* The thread whose copy @f is, if the checks may read it: NULL if there
 * is no copy (none yet, or the checks are off) or the thread is inside
 * the library. */
static inline __attribute__((always_inline)) struct engine_thread *
inline_checks_thread(struct engine_fast *f)
{
	return __builtin_expect(f && !inline_checks_busy(f), 1)
		       ? engine_fast_owner(f)
		       : NULL;
}

#endif
