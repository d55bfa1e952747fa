/*
 * gate.h - the library's side of what the public header's inline forms
 * read (trms.h: trms_thread_gate_v1_, trms_process_gate_v1_): what a
 * thread may skip without calling the library, kept true by the library.
 *
 * A thread with no measured activation open (selection.h) need not
 * record its reads: no measured trms or rms depends on them (DESIGN §2;
 * what they could change is the kind of a later induced read,
 * docs/production.md).  Nor its writes, except where another thread's
 * measured activation has touched the memory since it began: only such
 * an activation can see the write (its L(a) loses the cell, and its next
 * read of it is induced).  Each thread that measures marks the 1 MiB
 * blocks it touches in a bitmap (gate_watch), and the count of threads
 * measuring tells a writer whether to look at it at all.  With every
 * activation measured (no selection), TRMS_PARTITION alone, or
 * TRMS_EXACT_KINDS=1, nothing is skipped: the quiet bits stay 0.
 *
 * The begins a thread may skip are those of the regions in its slots: a
 * slot holds a region's countdown to its next measured activation
 * (selection.c), and the library syncs it before it reads the region's
 * counts.  Skipped activations are kept on the gate's own stack (name[],
 * sp[]) above base; each engine frame remembers the base below it
 * (activation.h's activation_gate_pushed).
 */
#ifndef TRMS_GATE_H
#define TRMS_GATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trms.h"

extern __thread struct trms_thread_gate_v1_ trms_thread_gate_v1_
	__attribute__((tls_model("initial-exec")));
extern struct trms_process_gate_v1_ trms_process_gate_v1_;

/* What the gates may let pass in this process (gate_configure). */
struct gate_mode {
	unsigned quiet;	 /* the quiet bits of a thread measuring nothing */
	bool begins;	 /* regions may have slots */
};

extern struct gate_mode gate_mode;

/* The watched bitmap: a bit per 1 MiB of the 47-bit address space. */
#define GATE_BLOCK_SHIFT 20
#define GATE_WATCHED_WORDS ((size_t)1 << (47 - GATE_BLOCK_SHIFT - 6))

/* At start, once the selection is configured: @reads, reads outside
 * measured activations may go unrecorded (and writes, if the bitmap can
 * be had); @begins, regions may be skipped by their slots. */
void gate_configure(bool reads, bool begins);

/* The calling thread's gate, for a thread the library takes on: quiet
 * as the mode says, no slot, nothing on its stack. */
struct trms_thread_gate_v1_ *gate_thread_open(void);

/* From now on the calling thread records nothing: every inline form
 * returns at once (the library inert, the thread past its exit or in a
 * sandbox). */
void gate_thread_off(void);

/* In a child after fork: @measuring, whether the thread that forked (the
 * only one) measures. */
void gate_after_fork_child(bool measuring);

/* The calling thread starts or stops measuring an activation (its
 * outermost measured one).  Its slots are the caller's (selection.c). */
static inline void gate_measuring(struct trms_thread_gate_v1_ *g, bool on)
{
	if (!gate_mode.quiet)
		return;
	if (on) {
		g->quiet = 0;
		__atomic_fetch_add(&trms_process_gate_v1_.measuring, 1,
				   __ATOMIC_SEQ_CST);
	} else {
		__atomic_fetch_sub(&trms_process_gate_v1_.measuring, 1,
				   __ATOMIC_SEQ_CST);
		g->quiet = gate_mode.quiet;
	}
}

/* Whether a write of @size bytes at @addr by a thread measuring nothing
 * may go unrecorded: the header's own test (trms_write). */
static inline bool gate_write_free(uintptr_t addr, size_t size)
{
	const struct trms_process_gate_v1_ *p = &trms_process_gate_v1_;
	uintptr_t last = addr + size - 1;

	if (!(gate_mode.quiet & TRMS_GATE_WRITES_))
		return false;
	if (__atomic_load_n(&p->measuring, __ATOMIC_RELAXED) == 0)
		return true;
	if (size == 0 || last < addr ||
	    (addr >> GATE_BLOCK_SHIFT) != (last >> GATE_BLOCK_SHIFT) ||
	    last >> 47)
		return false;
	return !((__atomic_load_n(&p->watched[addr >> (GATE_BLOCK_SHIFT + 6)],
				  __ATOMIC_RELAXED) >>
		  ((addr >> GATE_BLOCK_SHIFT) & 63)) &
		 1);
}

/*
 * What the inline forms decide without a call, decided as early in the
 * library, for a program that calls it every time (built with
 * TRMS_NO_INLINE or against an older header): nothing recorded for this
 * thread, a read outside every measured activation, a write no measured
 * activation can see.
 */
static inline bool gate_thread_is_off(void)
{
	return trms_thread_gate_v1_.mode == TRMS_GATE_OFF_;
}

static inline bool gate_lets_read(void)
{
	return trms_thread_gate_v1_.quiet & TRMS_GATE_READS_;
}

static inline bool gate_lets_write(uintptr_t addr, size_t size)
{
	return gate_thread_is_off() ||
	       ((trms_thread_gate_v1_.quiet & TRMS_GATE_WRITES_) &&
		gate_write_free(addr, size));
}

/* A measured activation of the calling thread touches [@addr, @addr +
 * @size): writes there by threads measuring nothing are recorded from now
 * on. */
void gate_watch_slow(uintptr_t addr, size_t size);

static inline void gate_watch(uintptr_t addr, size_t size)
{
	const struct trms_process_gate_v1_ *p = &trms_process_gate_v1_;

	if (!(gate_mode.quiet & TRMS_GATE_WRITES_) || !size ||
	    addr >> 47)
		return;
	/* The common case: one block, marked already. */
	if (((addr ^ (addr + size - 1)) >> GATE_BLOCK_SHIFT) == 0 &&
	    ((__atomic_load_n(&p->watched[addr >> (GATE_BLOCK_SHIFT + 6)],
			      __ATOMIC_RELAXED) >>
	      ((addr >> GATE_BLOCK_SHIFT) & 63)) &
	     1))
		return;
	gate_watch_slow(addr, size);
}

/* Note a skipped activation of @name (stack pointer @sp) on @g's stack.
 * @return false if it is full. */
static inline bool gate_push(struct trms_thread_gate_v1_ *g, const char *name,
			     uintptr_t sp)
{
	unsigned long top = g->top;

	if (top >= TRMS_GATE_DEPTH_)
		return false;
	g->name[top] = name;
	g->sp[top] = sp;
	g->top = top + 1;
	return true;
}

/* Skipped activations on @g's stack above the library's innermost. */
static inline bool gate_has_open(const struct trms_thread_gate_v1_ *g)
{
	return g && g->top > g->base;
}

#endif
