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
 * Only with cells of 4 bytes, and accesses aligned as below.
 */
#ifndef TRMS_ENGINE_FAST_H
#define TRMS_ENGINE_FAST_H

#include "engine/engine.h"

/* After an access of @t at @addr: refresh its engine_fast (on, if the
 * engine keeps it and the thread's state allows), with a slot for the
 * chunk of @addr. */
void engine_fast_refresh(struct engine_thread *t, uintptr_t addr);

/*
 * The checks are built for cells of 4 bytes (the default granularity):
 * an access then covers a number of cells known where it is compiled,
 * and its check is straight-line code.  With another granularity the
 * library does not turn them on (every access goes to the engine).
 * Only accesses that lie within a cell (1 to 4 bytes) or start on one
 * and cover whole cells (8, 12 or 16 bytes: 2 to 4 cells) are decided
 * here.
 */
#define ENGINE_FAST_SHIFT 2
#define ENGINE_FAST_CELL ((uintptr_t)1 << ENGINE_FAST_SHIFT)

/* The thread whose copy @f is. */
static inline __attribute__((always_inline)) struct engine_thread *
engine_fast_owner(struct engine_fast *f)
{
	return (struct engine_thread *)((char *)f -
					offsetof(struct engine_thread, fast));
}

/* Cells an access of @size bytes covers when it is decided inline. */
#define ENGINE_FAST_SPAN(size)                                           \
	((size) <= ENGINE_FAST_CELL ? 1 : (size) >> ENGINE_FAST_SHIFT)

/* The slot for the access of @size bytes at @addr if it can be decided
 * inline (its first cell's index into *@cell), else NULL. */
static inline __attribute__((always_inline)) struct engine_fast_slot *
engine_fast_slot(struct engine_fast *f, uintptr_t addr, size_t size,
		 size_t *cell)
{
	uintptr_t chunk = addr >> SHADOW_CHUNK_ADDR_BITS;
	struct engine_fast_slot *s = &f->slot[chunk & (ENGINE_FAST_SLOTS - 1)];
	uintptr_t in = addr & (((uintptr_t)1 << SHADOW_CHUNK_ADDR_BITS) - 1);
	bool fits = size <= ENGINE_FAST_CELL
			    ? (in & (ENGINE_FAST_CELL - 1)) + size <=
				      ENGINE_FAST_CELL
			    : size <= 4 * ENGINE_FAST_CELL &&
				      !(size & (ENGINE_FAST_CELL - 1)) &&
				      !(in & (ENGINE_FAST_CELL - 1)) &&
				      in + size <= ((uintptr_t)1
						    << SHADOW_CHUNK_ADDR_BITS);

	if (s->chunk != chunk || !fits)
		return NULL;
	*cell = in >> ENGINE_FAST_SHIFT;
	return s;
}

/* May a cell of stamp @o be counted inline (seen already, or a first
 * access: never accessed, or last in the parent's time)? */
#define ENGINE_FAST_FIRST_OK(o, top, parent)                             \
	((o) >= (top) || !(o) || (o) >= (parent))

/* A read that engine_fast_read_seen leaves to engine_fast_read_first:
 * the cells' stamps as it loaded them, where they are kept, and the
 * innermost activation's stamp it compared them with. */
struct engine_fast_pending {
	stamp_t *own;
	stamp_t o[4];
	stamp_t top;
};

enum engine_fast_verdict {
	ENGINE_FAST_DONE,  /* decided, nothing to change */
	ENGINE_FAST_FIRST, /* a first access, maybe: engine_fast_read_first */
	ENGINE_FAST_ENGINE /* engine_read must do it */
};

/* The common read of @size bytes (1, 2, 4, 8 or 16, a constant where the
 * check is compiled) at @addr: cells the innermost activation has
 * accessed already, that no one has written since.  What is left for
 * engine_fast_read_first goes in *@p. */
static inline __attribute__((always_inline)) enum engine_fast_verdict
engine_fast_read_seen(struct engine_thread *t, uintptr_t addr, size_t size,
		      struct engine_fast_pending *p)
{
	struct engine_fast *f = &t->fast;
	const size_t n = ENGINE_FAST_SPAN(size);
	size_t cell;
	struct engine_fast_slot *s = engine_fast_slot(f, addr, size, &cell);

	if (!s)
		return ENGINE_FAST_ENGINE;
	stamp_t *own = s->own + cell;
	const stamp_t *wts = s->wts + cell;
	stamp_t w[4];
	for (size_t i = 0; i < n; i++) {
		p->o[i] = own[i];
		w[i] = SHARED_LOAD(&wts[i]);
	}
	/* The cells before the copy (see renumber.c): what follows uses
	 * these values, never the cells again. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	stamp_t top = __atomic_load_n(&f->top, __ATOMIC_RELAXED);
	stamp_t g = f->g_mask;
	bool seen = true;
	if (top == ENGINE_FAST_OFF)
		return ENGINE_FAST_ENGINE;
	for (size_t i = 0; i < n; i++) {
		if ((p->o[i] & g) < (w[i] & g))
			return ENGINE_FAST_ENGINE; /* induced */
		seen &= p->o[i] >= top;
	}
	if (seen)
		return ENGINE_FAST_DONE;
	p->own = own;
	p->top = top;
	return ENGINE_FAST_FIRST;
}

/* The rest of a read of @n cells (ENGINE_FAST_SPAN) that
 * engine_fast_read_seen left in @p: first accesses, each uncounting the
 * parent (a cell it or an earlier child accessed) or nothing (never
 * accessed).  @return true if done, false (nothing changed) if
 * engine_read must do it. */
static inline __attribute__((always_inline)) bool
engine_fast_read_first(struct engine_thread *t,
		       const struct engine_fast_pending *p, size_t n)
{
	struct engine_fast *f = &t->fast;
	stamp_t parent = f->parent, top = p->top;

	if (!f->first_ok || !*f->single)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!ENGINE_FAST_FIRST_OK(p->o[i], top, parent))
			return false;
	stamp_t now = f->now;
	int64_t first = 0, uncount = 0;
	for (size_t i = 0; i < n; i++) {
		if (p->o[i] < top) {
			p->own[i] = now;
			first++;
			uncount += p->o[i] != 0;
		}
	}
	f->top_frame->trms += first;
	f->top_frame->rms += first;
	f->parent_frame->trms -= uncount;
	f->parent_frame->rms -= uncount;
	return true;
}

/* The read of @size bytes (as for engine_fast_read_seen) at @addr,
 * decided inline.  @return true if done, false (nothing changed) if
 * engine_read must do it. */
static inline __attribute__((always_inline)) bool
engine_fast_read(struct engine_thread *t, uintptr_t addr, size_t size)
{
	struct engine_fast_pending p;

	switch (engine_fast_read_seen(t, addr, size, &p)) {
	case ENGINE_FAST_DONE:
		return true;
	case ENGINE_FAST_FIRST:
		return engine_fast_read_first(t, &p, ENGINE_FAST_SPAN(size));
	default:
		return false;
	}
}

/* The write of @size bytes (as for engine_fast_read) at @addr, decided
 * inline.  @return true if done, false (nothing changed) if engine_write
 * must do it. */
static inline __attribute__((always_inline)) bool
engine_fast_write(struct engine_thread *t, uintptr_t addr, size_t size)
{
	struct engine_fast *f = &t->fast;
	const size_t n = ENGINE_FAST_SPAN(size);
	size_t cell;
	struct engine_fast_slot *s = engine_fast_slot(f, addr, size, &cell);

	if (!s || f->top == ENGINE_FAST_OFF || !f->first_ok || !*f->single)
		return false;
	stamp_t now = f->now;
	/* The write table keeps the write clock part alone (write_runs). */
	for (size_t i = 0; i < n; i++) {
		s->own[cell + i] = now;
		SHARED_STORE(&s->wts[cell + i], now & f->g_mask);
	}
	return true;
}

#endif
