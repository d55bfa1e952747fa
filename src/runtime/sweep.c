/*
 * sweep.c - forgetting what lies outside the process's mappings (see
 * sweep.h).
 */
#define _GNU_SOURCE
#include "runtime/sweep.h"

#include "base/log.h"
#include "base/mappings.h"
#include "base/vm.h"

static pthread_mutex_t sweeping = PTHREAD_MUTEX_INITIALIZER;

static void next_look(size_t in_use)
{
	size_t at = 2 * in_use;

	if (at < in_use + SWEEP_MIN_GROWTH)
		at = in_use + SWEEP_MIN_GROWTH;
	atomic_store_explicit(&runtime.engine.pool.sweep_at, at,
			      memory_order_relaxed);
	atomic_store_explicit(&runtime.engine.pool.sweep_due, false,
			      memory_order_relaxed);
}

void sweep_init(void)
{
	next_look(0);
}

/* The gaps between the mappings of @m, below the last one's end, into
 * @out (room for m->n). */
static size_t gaps(struct mappings *m, struct engine_range *out)
{
	uintptr_t from = 0;
	size_t n = 0;

	for (size_t i = 0; i < m->n; i++) {
		uintptr_t start = m->ranges[i].start, end = m->ranges[i].end;
		if (start > from)
			out[n++] = (struct engine_range){ from, start };
		if (end > from)
			from = end;
	}
	return n;
}

void sweep_now(struct trms_thread *t)
{
	struct engine *e = &runtime.engine;
	struct mappings m;

	/* One thread looks; the others go on.  (Memory another thread maps
	 * between the reading of the mappings and the forgetting, and
	 * accesses at once, loses those accesses' stamps: it counts them
	 * again, as new memory, next time.) */
	if (thread_is_sandboxed() || pthread_mutex_trylock(&sweeping))
		return;
	size_t before = atomic_load_explicit(&e->pool.bytes_in_use,
					     memory_order_relaxed);
	if (mappings_read(&m) == 0) {
		/* (A gap per mapping at most, plus the one after the
		 * last: the ranges' array holds them, one more room.) */
		struct engine_range *holes = vm_alloc((m.n + 1) * sizeof(*holes));
		if (holes) {
			size_t n = gaps(&m, holes);
			if (m.n)
				holes[n++] = (struct engine_range){
					m.ranges[m.n - 1].end,
					SHADOW_ADDR_LIMIT
				};
			engine_forget_ranges(e, &t->engine, holes, n);
			vm_free(holes, (m.n + 1) * sizeof(*holes));
		}
		mappings_free(&m);
	}
	size_t after = atomic_load_explicit(&e->pool.bytes_in_use,
					    memory_order_relaxed);
	log_debug("shadow memory swept against the mappings: %zu KiB in "
		  "use before, %zu KiB after",
		  before >> 10, after >> 10);
	next_look(after);
	pthread_mutex_unlock(&sweeping);
}
