/*
 * shadow.h - shadow memory: one stamp per cell of K bytes, for any address
 * of the 47-bit user address space (DESIGN §5).
 *
 * Three levels, all mapped lazily from the kernel: a primary table of
 * 2^15 slots, each covering 4 GiB with a secondary table of 2^16 slots,
 * each covering 64 KiB of address with one chunk of stamps.
 *
 * A map is either private to one thread (the thread's own access stamps)
 * or shared by all (the write stamps): in a shared map, tables and chunks
 * are installed with compare-and-swap and cells are read and written with
 * relaxed atomics, so no lock is ever taken.  Chunks come from a pool that
 * belongs to the engine; a private map's chunks go back to it, zeroed, when
 * its thread exits.
 */
#ifndef TRMS_SHADOW_H
#define TRMS_SHADOW_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The stack's functions inlined (as engine.h does for liburcu's read
 * side): the library then needs no liburcu-cds, one shared object fewer
 * to load into every process. */
#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE
#endif
#include <urcu/lfstack.h>

#include "engine/stamp.h"

#define SHADOW_ADDR_BITS 47
#define SHADOW_CHUNK_ADDR_BITS 16
#define SHADOW_SECONDARY_BITS 16
#define SHADOW_PRIMARY_BITS \
	(SHADOW_ADDR_BITS - SHADOW_CHUNK_ADDR_BITS - SHADOW_SECONDARY_BITS)
#define SHADOW_ADDR_LIMIT ((uintptr_t)1 << SHADOW_ADDR_BITS)

/* Chunks of one size, shared by all maps of one engine. */
struct shadow_pool {
	size_t chunk_cells;
	size_t chunk_bytes;
	struct cds_lfs_stack idle; /* discarded chunks ready for reuse */
	atomic_size_t idle_count;
	size_t idle_max;
	/* Idle chunks are never unmapped: code compiled with inline checks
	 * (engine_fast.h) may read a chunk it looked up a moment before the
	 * chunk left its map. */
	bool keep_mapped;
	atomic_size_t bytes_in_use; /* tables and chunks held by maps */
	/* Past this many bytes in use, sweep_due is set: the shadow may
	 * hold memory that was unmapped unseen (the caller looks). */
	atomic_size_t sweep_at;
	atomic_bool sweep_due;
};

/* A level of the map: slots pointing to the next level, followed by one
 * bit per slot in use so that walking the map skips empty ranges. */
typedef _Atomic(void *) shadow_slot;

struct shadow_map {
	shadow_slot *primary;
	struct shadow_pool *pool;
	bool shared;
};

/* Remembers the last chunks a thread looked up in one map. */
struct shadow_cache {
	uintptr_t index[2];
	stamp_t *chunk[2];
};

void shadow_pool_init(struct shadow_pool *pool, unsigned cell_shift);
void shadow_pool_fini(struct shadow_pool *pool);

int shadow_map_init(struct shadow_map *m, struct shadow_pool *pool,
		    bool shared);
/* Give all chunks back to the pool and unmap the tables.  Nobody may be
 * using the map. */
void shadow_map_fini(struct shadow_map *m);

static inline void *shadow_slot_load(shadow_slot *table, size_t i)
{
	return atomic_load_explicit(&table[i], memory_order_acquire);
}

/* The chunk for chunk number @index (address >> 16), or NULL if none has
 * been created. */
static inline stamp_t *shadow_find(const struct shadow_map *m, uintptr_t index)
{
	shadow_slot *secondary =
		shadow_slot_load(m->primary, index >> SHADOW_SECONDARY_BITS);

	if (!secondary)
		return NULL;
	return shadow_slot_load(secondary,
				index & ((1u << SHADOW_SECONDARY_BITS) - 1));
}

/* The chunk for @index, created (all zero) if needed; NULL if out of
 * memory.  Time spent creating tables and chunks is added to
 * *@slow_ticks, so that callers can keep it out of measured costs. */
stamp_t *shadow_get(struct shadow_map *m, uintptr_t index,
		    uint64_t *slow_ticks);

/* shadow_get for a run of @cells cells from cell @from of the chunk that
 * the caller is about to stamp: a chunk created for it has their pages
 * mapped at once when there are several (vm_populate), not fault by
 * fault. */
stamp_t *shadow_get_run(struct shadow_map *m, uintptr_t index, size_t from,
			size_t cells, uint64_t *slow_ticks);

static inline void shadow_cache_reset(struct shadow_cache *c)
{
	c->index[0] = c->index[1] = UINTPTR_MAX;
	c->chunk[0] = c->chunk[1] = NULL;
}

/* @chunk, of @index, first in @c. */
static inline void shadow_cache_put(struct shadow_cache *c, uintptr_t index,
				    stamp_t *chunk)
{
	c->index[1] = c->index[0];
	c->chunk[1] = c->chunk[0];
	c->index[0] = index;
	c->chunk[0] = chunk;
}

/* Does @c hold chunk @index? */
static inline bool shadow_cache_holds(const struct shadow_cache *c,
				      uintptr_t index)
{
	return c->index[0] == index || c->index[1] == index;
}

/* The chunk @index if @c holds it (then first), else NULL. */
static inline stamp_t *shadow_cache_peek(struct shadow_cache *c,
					 uintptr_t index)
{
	if (__builtin_expect(c->index[0] == index, 1))
		return c->chunk[0];
	if (c->index[1] != index)
		return NULL;
	stamp_t *chunk = c->chunk[1];
	shadow_cache_put(c, index, chunk);
	return chunk;
}

/* shadow_get through a two-entry cache.  Only found chunks are cached:
 * another thread may create a missing shared chunk at any moment. */
static inline stamp_t *shadow_get_cached(struct shadow_map *m,
					 struct shadow_cache *c,
					 uintptr_t index, bool create,
					 uint64_t *slow_ticks)
{
	stamp_t *chunk = shadow_cache_peek(c, index);

	if (chunk)
		return chunk;
	chunk = create ? shadow_get(m, index, slow_ticks)
		       : shadow_find(m, index);
	if (chunk)
		shadow_cache_put(c, index, chunk);
	return chunk;
}

/* shadow_get_run through the two-entry cache (a chunk found there is no
 * new one). */
static inline stamp_t *shadow_get_cached_run(struct shadow_map *m,
					     struct shadow_cache *c,
					     uintptr_t index, size_t from,
					     size_t cells,
					     uint64_t *slow_ticks)
{
	stamp_t *chunk = shadow_cache_peek(c, index);

	if (chunk)
		return chunk;
	chunk = shadow_get_run(m, index, from, cells, slow_ticks);
	if (chunk)
		shadow_cache_put(c, index, chunk);
	return chunk;
}

/* Call @fn for every chunk of @m, in address order. */
void shadow_for_each_chunk(const struct shadow_map *m,
			   void (*fn)(void *ctx, uintptr_t index,
				      stamp_t *chunk),
			   void *ctx);

/* Call @fn for every chunk of @m numbered @first to @last, with the slot
 * that holds it (which @fn may empty: shadow_unlink), in address order;
 * ranges of the map that hold nothing cost nothing. */
void shadow_for_each_chunk_in(struct shadow_map *m, uintptr_t first,
			      uintptr_t last,
			      void (*fn)(void *ctx, uintptr_t index,
					 shadow_slot *slot, stamp_t *chunk),
			      void *ctx);

/* Empty @slot: its chunk belongs to the caller, who gives it back to the
 * pool (shadow_pool_give_back) once no thread can be using it. */
static inline void shadow_unlink(shadow_slot *slot)
{
	atomic_store_explicit(slot, NULL, memory_order_release);
}

/* A chunk no map holds and no thread uses, back to @pool. */
void shadow_pool_give_back(struct shadow_pool *pool, stamp_t *chunk);

#endif
