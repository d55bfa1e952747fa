/*
 * forget.c - memory that no longer exists leaves the shadow memory
 * (engine_forget, engine.h): its cells become never accessed and never
 * written, in the write stamps and in every thread's own, and the chunks
 * that held only them go back to the pool, so that a program that maps
 * and unmaps memory for days keeps a shadow the size of what it has now.
 *
 * A chunk may still be in use when its memory is forgotten: another
 * thread's operation in flight, or its cache, holds it.  So a chunk
 * leaves its map at once but waits in the engine's limbo until every
 * thread either has seen the engine's attention change (its next
 * operation empties its caches first: op_attend in trms.c) or is outside
 * any operation, as liburcu-bp's record of its read-side nesting shows
 * once every running thread has been made to fence (membarrier, as
 * liburcu-bp's own writers do).  Nothing here waits for a thread: a
 * thread stopped inside an operation keeps chunks in limbo until it goes
 * on.
 */
#define _GNU_SOURCE
#include "engine/engine.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/vm.h"

struct forgetting {
	struct engine *e;
	uintptr_t first_cell, end_cell; /* [first, end) of the range */
	unsigned attention;             /* the chunks' limbo tag */
};

/* Room in the limbo for one more chunk; false if there is no memory (the
 * chunk then stays in its map, its cells zeroed). */
static bool limbo_room(struct engine_limbo *l)
{
	if (l->n < l->capacity)
		return true;
	size_t capacity = l->capacity ? 2 * l->capacity : 512;
	struct limbo_chunk *chunks =
		l->chunks ? vm_resize(l->chunks,
				      l->capacity * sizeof(*l->chunks),
				      capacity * sizeof(*l->chunks))
			  : vm_alloc(capacity * sizeof(*l->chunks));
	if (!chunks)
		return false;
	l->chunks = chunks;
	l->capacity = capacity;
	return true;
}

static void zero_cells(stamp_t *cells, size_t n)
{
	/* Other threads may read (a shared map) or be writing other cells of
	 * the same pages: one cell at a time, as a concurrent reader sees
	 * cells. */
	cells_fill_shared(cells, n, 0);
}

static void forget_chunk(void *ctx, uintptr_t index, shadow_slot *slot,
			 stamp_t *chunk)
{
	struct forgetting *f = ctx;
	struct engine *e = f->e;
	size_t cells = e->pool.chunk_cells;
	uintptr_t first = index * cells, end = first + cells;

	if (f->first_cell <= first && end <= f->end_cell &&
	    limbo_room(&e->limbo)) {
		shadow_unlink(slot);
		e->limbo.chunks[e->limbo.n++] =
			(struct limbo_chunk){ chunk, f->attention };
		return;
	}
	uintptr_t from = f->first_cell > first ? f->first_cell : first;
	uintptr_t to = f->end_cell < end ? f->end_cell : end;
	zero_cells(chunk + (from - first), to - from);
}

static void forget_in(struct forgetting *f, struct shadow_map *m)
{
	unsigned chunk_shift = SHADOW_CHUNK_ADDR_BITS - f->e->cell_shift;

	shadow_for_each_chunk_in(m, f->first_cell >> chunk_shift,
				 (f->end_cell - 1) >> chunk_shift,
				 forget_chunk, f);
}

/* The cells of [@start, @end) into @f; false if there are none (cells
 * wholly inside the range only: a cell of K bytes that the range cuts
 * still holds memory that exists). */
static bool cells_of(struct forgetting *f, uintptr_t start, uintptr_t end)
{
	struct engine *e = f->e;

	if (end > SHADOW_ADDR_LIMIT)
		end = SHADOW_ADDR_LIMIT;
	if (start >= end)
		return false;
	f->first_cell = (start + e->granularity - 1) >> e->cell_shift;
	f->end_cell = end >> e->cell_shift;
	return f->first_cell < f->end_cell;
}

void engine_forget(struct engine *e, struct engine_thread *self,
		   uintptr_t addr, size_t size)
{
	struct engine_range r = {
		addr, size > UINTPTR_MAX - addr ? UINTPTR_MAX : addr + size
	};

	engine_forget_ranges(e, self, &r, 1);
}

void engine_forget_ranges(struct engine *e, struct engine_thread *self,
			  const struct engine_range *ranges, size_t n)
{
	struct engine_thread *t;
	struct forgetting f = { .e = e };

	pthread_mutex_lock(&e->renumber_lock);
	unsigned attention = atomic_load_explicit(&e->attention,
						  memory_order_relaxed);
	/* The chunks taken out now wait for threads to see this. */
	f.attention = (attention & ~ENGINE_RENUMBERING) + ENGINE_FORGOT;
	size_t in_limbo = e->limbo.n;
	pthread_mutex_lock(&e->threads_lock);
	for (size_t i = 0; i < n; i++) {
		if (!cells_of(&f, ranges[i].start, ranges[i].end))
			continue;
		forget_in(&f, &e->wts);
		cds_list_for_each_entry(t, &e->threads, link)
			forget_in(&f, &t->ts);
	}
	/* Chunks that left their maps: the threads must drop them from
	 * their caches (cells zeroed in place need nothing: a stamp of 0 is
	 * one the engine reads anyway). */
	bool unlinked = e->limbo.n != in_limbo;
	if (unlinked) {
		atomic_fetch_add_explicit(&e->attention, ENGINE_FORGOT,
					  memory_order_seq_cst);
		/* No inline check may go on with a chunk that left its map
		 * (they read cells, then top: engine_fast.h). */
		cds_list_for_each_entry(t, &e->threads, link)
			__atomic_store_n(&t->fast.top, ENGINE_FAST_OFF,
					 __ATOMIC_SEQ_CST);
	}
	pthread_mutex_unlock(&e->threads_lock);
	pthread_mutex_unlock(&e->renumber_lock);
	if (!unlinked)
		return;
	/* The calling thread is in no operation: it drops its caches now,
	 * and holds nothing of the limbo. */
	if (self)
		engine_thread_drop_caches(self, f.attention);
	engine_forget_reclaim(e);
}

/* Every running thread of the process fences: afterwards a thread that
 * is outside any operation starts its next one seeing the attention
 * changed (liburcu-bp's readers fence only by compiler barriers when it
 * has membarrier, as here). */
static bool fence_readers(void)
{
	if (!urcu_bp_has_sys_membarrier) {
		/* (A read-modify-write of a word of our own: a full fence
		 * on x86, and one ThreadSanitizer understands.) */
		static atomic_uint word;
		atomic_fetch_add_explicit(&word, 0, memory_order_seq_cst);
		return true;
	}
	return syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0,
		       0) == 0;
}

/* Has thread @t let go of every chunk forgotten at @attention?  (Seen
 * the attention since, or outside any operation after the fence.) */
static bool let_go(const struct engine_thread *t, unsigned attention)
{
	unsigned seen = __atomic_load_n(&t->attention_seen, __ATOMIC_ACQUIRE);

	if ((int)(seen - attention) >= 0)
		return true;
	unsigned long ctr = __atomic_load_n(t->rcu_ctr, __ATOMIC_ACQUIRE);
	return !(ctr & URCU_BP_GP_CTR_NEST_MASK);
}

/* Has every thread seen the attention since @attention? */
static bool all_seen(struct engine *e, unsigned attention)
{
	struct engine_thread *t;

	cds_list_for_each_entry(t, &e->threads, link) {
		unsigned seen =
			__atomic_load_n(&t->attention_seen, __ATOMIC_ACQUIRE);
		if ((int)(seen - attention) < 0)
			return false;
	}
	return true;
}

void engine_forget_reclaim(struct engine *e)
{
	struct engine_limbo *l = &e->limbo;
	struct engine_thread *t;

	pthread_mutex_lock(&e->renumber_lock);
	pthread_mutex_lock(&e->threads_lock);
	/* The newest chunks are the last: if every thread has seen them
	 * forgotten, it has seen all of them, and no fence is needed (a
	 * process of one thread, mostly).  Else the threads outside any
	 * operation are made sure of by a fence, once. */
	bool fenced = l->n && all_seen(e, l->chunks[l->n - 1].attention);
	if (l->n && !fenced)
		fenced = fence_readers();
	size_t kept = 0;
	for (size_t i = 0; fenced && i < l->n; i++) {
		bool free = true;
		cds_list_for_each_entry(t, &e->threads, link)
			if (!let_go(t, l->chunks[i].attention)) {
				free = false;
				break;
			}
		if (free) {
			shadow_pool_give_back(&e->pool, l->chunks[i].chunk);
			atomic_fetch_add_explicit(&e->forgotten_bytes,
						  e->pool.chunk_bytes,
						  memory_order_relaxed);
		} else {
			l->chunks[kept++] = l->chunks[i];
		}
	}
	if (fenced)
		l->n = kept;
	pthread_mutex_unlock(&e->threads_lock);
	pthread_mutex_unlock(&e->renumber_lock);
}
