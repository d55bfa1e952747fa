/*
 * sweep.h - the shadow of memory that was unmapped unseen: the C library
 * maps and unmaps memory of its own (a large malloc and its free) without
 * the hooks (mapping_hooks.c), and what the shadow holds for it would
 * stay.  Whenever the shadow has doubled since the last look (and grown
 * by SWEEP_MIN_GROWTH at least), it is compared with the process's
 * mappings (/proc/self/maps) and every cell outside them is forgotten
 * (engine_forget).  Without /proc (a chroot, a sandbox) it is not, and
 * the library's memory limit still holds (docs/production.md).
 */
#ifndef TRMS_SWEEP_H
#define TRMS_SWEEP_H

#include "runtime/thread.h"

#define SWEEP_MIN_GROWTH ((size_t)32 << 20)

/* At start: the first look once the shadow holds SWEEP_MIN_GROWTH. */
void sweep_init(void);

/* Look now, on thread @t (busy, in no operation of the engine's). */
void sweep_now(struct trms_thread *t);

/* After an access that may have grown the shadow: look if it is due. */
static inline void sweep_if_due(struct trms_thread *t)
{
	if (__builtin_expect(atomic_load_explicit(
				     &runtime.engine.pool.sweep_due,
				     memory_order_relaxed),
			     0))
		sweep_now(t);
}

#endif
