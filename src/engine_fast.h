/*
 * engine_fast.h - the engine's common accesses as a few loads and
 * compares, for code that a compiler inlines into the program at every
 * load and store (`trms cc --trms-full` with Clang: tools/cc/plugin/).
 *
 * Each thread keeps a copy of what those accesses need (struct
 * engine_fast in engine.h): its innermost activation's stamp and its
 * parent's, its current stamp, and for the chunks of memory it used last
 * where their stamps lie.  The engine's own operations turn the copy off
 * whenever what it holds changes (a call, a return, an access that
 * changed a stamp) and engine_fast_refresh turns it on again after an
 * access; a renumbering turns every thread's off first.
 *
 * An access is decided here only in these cases, all others going to
 * engine_read or engine_write:
 *  - a read of cells the innermost activation has accessed already, that
 *    no one has written since: nothing changes (DESIGN §3: not a first
 *    access, not induced; the stamp the engine would store instead of the
 *    cell's own leaves every later decision the same, as the cell's stays
 *    at or above the activation's stamp and above no write);
 *  - while one thread writes, a read that is the innermost activation's
 *    first access of cells no one else has written since this thread last
 *    accessed them, last accessed in its parent's time or never: the
 *    counts of §3, with the ancestor to uncount the parent;
 *  - while one thread writes, a write: stamped at the current stamp
 *    (struct engine's single_writer).
 * Accesses of at most two cells within one chunk only.
 */
#ifndef TRMS_ENGINE_FAST_H
#define TRMS_ENGINE_FAST_H

#include "engine.h"

/* After an access of @t at @addr: refresh its engine_fast (on, if the
 * engine keeps it and the thread's state allows), with a slot for the
 * chunk of @addr. */
void engine_fast_refresh(struct engine_thread *t, uintptr_t addr);

/* The slot for @addr and its cells [*c0, *c1], or NULL. */
static inline __attribute__((always_inline)) struct engine_fast_slot *
engine_fast_cells(struct engine_fast *f, uintptr_t addr, size_t size,
		  size_t *c0, size_t *c1)
{
	uintptr_t chunk = addr >> SHADOW_CHUNK_ADDR_BITS;
	struct engine_fast_slot *s = &f->slot[chunk & (ENGINE_FAST_SLOTS - 1)];
	uintptr_t in = addr & (((uintptr_t)1 << SHADOW_CHUNK_ADDR_BITS) - 1);

	if (s->chunk != chunk ||
	    in + size > ((uintptr_t)1 << SHADOW_CHUNK_ADDR_BITS))
		return NULL;
	*c0 = in >> f->shift;
	*c1 = (in + size - 1) >> f->shift;
	return *c1 - *c0 <= 1 ? s : NULL;
}

/* The read of @size bytes at @addr, decided inline.  @return true if
 * done, false (nothing changed) if engine_read must do it. */
static inline __attribute__((always_inline)) bool
engine_fast_read(struct engine_thread *t, uintptr_t addr, size_t size)
{
	struct engine_fast *f = &t->fast;
	size_t c0, c1;
	struct engine_fast_slot *s = engine_fast_cells(f, addr, size, &c0, &c1);

	if (!s)
		return false;
	stamp_t o0 = s->own[c0], o1 = s->own[c1];
	stamp_t w0 = SHARED_LOAD(&s->wts[c0]), w1 = SHARED_LOAD(&s->wts[c1]);
	/* The cells before the copy (see renumber.c). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	stamp_t top = __atomic_load_n(&f->top, __ATOMIC_RELAXED);
	stamp_t g = f->g_mask;

	if (top == ENGINE_FAST_OFF || (o0 & g) < (w0 & g) ||
	    (o1 & g) < (w1 & g))
		return false;
	bool seen0 = o0 >= top, seen1 = o1 >= top;
	if (seen0 && seen1)
		return true;
	/* First accesses: each uncounts the parent (a cell it or an
	 * earlier child accessed), or nothing (never accessed). */
	if (!f->first_ok || !*f->single || (!seen0 && o0 && o0 < f->parent) ||
	    (!seen1 && o1 && o1 < f->parent))
		return false;
	int64_t first = 0, uncount = 0;
	if (!seen0) {
		s->own[c0] = f->now;
		first++;
		uncount += o0 != 0;
	}
	if (c1 != c0 && !seen1) {
		s->own[c1] = f->now;
		first++;
		uncount += o1 != 0;
	}
	f->top_frame->trms += first;
	f->top_frame->rms += first;
	f->parent_frame->trms -= uncount;
	f->parent_frame->rms -= uncount;
	return true;
}

/* The write of @size bytes at @addr, decided inline.  @return true if
 * done, false (nothing changed) if engine_write must do it. */
static inline __attribute__((always_inline)) bool
engine_fast_write(struct engine_thread *t, uintptr_t addr, size_t size)
{
	struct engine_fast *f = &t->fast;
	size_t c0, c1;
	struct engine_fast_slot *s = engine_fast_cells(f, addr, size, &c0, &c1);

	if (!s || f->top == ENGINE_FAST_OFF || !f->first_ok || !*f->single)
		return false;
	stamp_t now = f->now;
	s->own[c0] = now;
	s->own[c1] = now;
	SHARED_STORE(&s->wts[c0], now & ~STAMP_KERNEL);
	SHARED_STORE(&s->wts[c1], now & ~STAMP_KERNEL);
	return true;
}

#endif
