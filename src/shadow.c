/*
 * shadow.c - lazily mapped three-level shadow memory (see shadow.h).
 */
#include "shadow.h"

#include <string.h>

#include "base/clock.h"
#include "base/vm.h"

#define ULONG_BITS (8 * sizeof(unsigned long))
#define PRIMARY_SLOTS ((size_t)1 << SHADOW_PRIMARY_BITS)
#define SECONDARY_SLOTS ((size_t)1 << SHADOW_SECONDARY_BITS)

/* A run of cells about to be stamped in a new chunk is mapped at once
 * (vm_populate) from this many bytes of stamps: two pages and more. */
#define POPULATE_MIN_BYTES ((size_t)8192)

/* Idle chunks kept for reuse by later threads, per pool. */
#define POOL_IDLE_BYTES_MAX ((size_t)64 << 20)

/* A table of @slots slots is laid out as the slots followed by the
 * bitmap of slots in use. */
static size_t table_bytes(size_t slots)
{
	return slots * sizeof(_Atomic(void *)) + slots / 8;
}

static atomic_ulong *table_used(shadow_slot *t, size_t slots)
{
	return (atomic_ulong *)&t[slots];
}

void shadow_pool_init(struct shadow_pool *pool, unsigned cell_shift)
{
	pool->chunk_cells = ((size_t)1 << SHADOW_CHUNK_ADDR_BITS) >> cell_shift;
	pool->chunk_bytes = pool->chunk_cells * sizeof(stamp_t);
	cds_lfs_init(&pool->idle);
	atomic_init(&pool->idle_count, 0);
	pool->idle_max = POOL_IDLE_BYTES_MAX / pool->chunk_bytes;
	atomic_init(&pool->bytes_in_use, 0);
}

void shadow_pool_fini(struct shadow_pool *pool)
{
	struct cds_lfs_node *node;

	while ((node = cds_lfs_pop_blocking(&pool->idle)))
		vm_free(node, pool->chunk_bytes);
	atomic_store(&pool->idle_count, 0);
	cds_lfs_destroy(&pool->idle);
}

static void account(struct shadow_pool *pool, size_t bytes, bool add)
{
	if (add) {
		size_t now = atomic_fetch_add_explicit(&pool->bytes_in_use,
						       bytes,
						       memory_order_relaxed) +
			     bytes;
		size_t at = atomic_load_explicit(&pool->sweep_at,
						 memory_order_relaxed);
		if (at && now > at &&
		    !atomic_load_explicit(&pool->sweep_due,
					  memory_order_relaxed))
			atomic_store_explicit(&pool->sweep_due, true,
					      memory_order_relaxed);
	} else
		atomic_fetch_sub_explicit(&pool->bytes_in_use, bytes,
					  memory_order_relaxed);
}

static shadow_slot *table_new(struct shadow_pool *pool, size_t slots)
{
	shadow_slot *t = vm_alloc_bulk(table_bytes(slots));

	if (t)
		account(pool, table_bytes(slots), true);
	return t;
}

static void table_free(struct shadow_pool *pool, shadow_slot *t,
		       size_t slots)
{
	vm_free(t, table_bytes(slots));
	account(pool, table_bytes(slots), false);
}

/*
 * A chunk changes threads through the pool's lock-free stack, whose
 * compare-and-swap (liburcu's, in assembly) ThreadSanitizer cannot see:
 * tell it that what the giving thread wrote happens before what the
 * taking thread reads (builds with -fsanitize=thread only).
 */
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define chunk_handed_over(chunk) __tsan_release(chunk)
#define chunk_received(chunk) __tsan_acquire(chunk)
#else
#define chunk_handed_over(chunk) ((void)(chunk))
#define chunk_received(chunk) ((void)(chunk))
#endif

static stamp_t *chunk_take(struct shadow_pool *pool)
{
	struct cds_lfs_node *node = cds_lfs_pop_blocking(&pool->idle);
	stamp_t *chunk;

	if (node) {
		chunk_received(node);
		atomic_fetch_sub_explicit(&pool->idle_count, 1,
					  memory_order_relaxed);
		/* Discarded pages read back as zeros; only the link stored in
		 * the chunk while it was idle is not. */
		memset(node, 0, sizeof(*node));
		chunk = (stamp_t *)node;
	} else {
		chunk = vm_alloc_bulk(pool->chunk_bytes);
		if (!chunk)
			return NULL;
	}
	account(pool, pool->chunk_bytes, true);
	return chunk;
}

static void chunk_give_back(struct shadow_pool *pool, stamp_t *chunk)
{
	account(pool, pool->chunk_bytes, false);
	if (!__atomic_load_n(&pool->keep_mapped, __ATOMIC_RELAXED) &&
	    atomic_load_explicit(&pool->idle_count, memory_order_relaxed) >=
		    pool->idle_max) {
		vm_free(chunk, pool->chunk_bytes);
		return;
	}
	vm_discard(chunk, pool->chunk_bytes);
	struct cds_lfs_node *node = (struct cds_lfs_node *)chunk;
	cds_lfs_node_init(node);
	chunk_handed_over(node);
	cds_lfs_push(&pool->idle, node);
	atomic_fetch_add_explicit(&pool->idle_count, 1, memory_order_relaxed);
}

int shadow_map_init(struct shadow_map *m, struct shadow_pool *pool,
		    bool shared)
{
	m->pool = pool;
	m->shared = shared;
	m->primary = table_new(pool, PRIMARY_SLOTS);
	return m->primary ? 0 : -1;
}

/* Put @fresh into slot @i of @t unless another thread of a shared map got
 * there first; return what the slot holds in the end.  The loser of a race
 * is handed to @discard. */
static void *install(struct shadow_map *m, shadow_slot *t,
		     size_t slots, size_t i, void *fresh,
		     void (*discard)(struct shadow_map *m, void *p))
{
	void *expected = NULL;

	if (!m->shared) {
		atomic_store_explicit(&t[i], fresh, memory_order_relaxed);
	} else if (!atomic_compare_exchange_strong_explicit(
			   &t[i], &expected, fresh, memory_order_acq_rel,
			   memory_order_acquire)) {
		discard(m, fresh);
		return expected;
	}
	atomic_fetch_or_explicit(&table_used(t, slots)[i / ULONG_BITS],
				 1ul << (i % ULONG_BITS), memory_order_relaxed);
	return fresh;
}

static void discard_secondary(struct shadow_map *m, void *p)
{
	table_free(m->pool, p, SECONDARY_SLOTS);
}

static void discard_chunk(struct shadow_map *m, void *p)
{
	chunk_give_back(m->pool, p);
}

stamp_t *shadow_get_run(struct shadow_map *m, uintptr_t index, size_t from,
			size_t cells, uint64_t *slow_ticks)
{
	size_t p = index >> SHADOW_SECONDARY_BITS;
	size_t s = index & (SECONDARY_SLOTS - 1);
	shadow_slot *secondary = shadow_slot_load(m->primary, p);
	stamp_t *chunk;

	if (secondary) {
		chunk = shadow_slot_load(secondary, s);
		if (chunk)
			return chunk;
	}
	uint64_t start = clock_ticks();
	if (!secondary) {
		shadow_slot *fresh = table_new(m->pool, SECONDARY_SLOTS);
		if (!fresh) {
			*slow_ticks += clock_ticks() - start;
			return NULL;
		}
		secondary = install(m, m->primary, PRIMARY_SLOTS, p, fresh,
				    discard_secondary);
	}

	chunk = shadow_slot_load(secondary, s);
	if (!chunk) {
		stamp_t *fresh = chunk_take(m->pool);
		if (fresh)
			chunk = install(m, secondary, SECONDARY_SLOTS, s, fresh,
					discard_chunk);
		/* Not mapped yet, even from the pool (vm_discard). */
		if (chunk && chunk == fresh &&
		    cells * sizeof(stamp_t) >= POPULATE_MIN_BYTES)
			vm_populate(chunk + from, cells * sizeof(stamp_t));
	}
	*slow_ticks += clock_ticks() - start;
	return chunk;
}

stamp_t *shadow_get(struct shadow_map *m, uintptr_t index,
		    uint64_t *slow_ticks)
{
	return shadow_get_run(m, index, 0, 0, slow_ticks);
}

/* Calls @fn(ctx, i, slot value) for every slot of @t in use, in order. */
static void table_for_each(shadow_slot *t, size_t slots,
			   void (*fn)(void *ctx, size_t i, void *p), void *ctx)
{
	atomic_ulong *used = table_used(t, slots);

	for (size_t w = 0; w < slots / ULONG_BITS; w++) {
		unsigned long bits =
			atomic_load_explicit(&used[w], memory_order_acquire);
		while (bits) {
			size_t i = w * ULONG_BITS + (size_t)__builtin_ctzl(bits);
			bits &= bits - 1;
			void *p = shadow_slot_load(t, i);
			if (p)
				fn(ctx, i, p);
		}
	}
}

struct chunk_visit {
	void (*fn)(void *ctx, uintptr_t index, stamp_t *chunk);
	void *ctx;
	size_t p;
};

static void visit_chunk(void *ctx, size_t s, void *chunk)
{
	struct chunk_visit *visit = ctx;

	visit->fn(visit->ctx, (visit->p << SHADOW_SECONDARY_BITS) | s, chunk);
}

static void visit_secondary(void *ctx, size_t p, void *secondary)
{
	struct chunk_visit *visit = ctx;

	visit->p = p;
	table_for_each(secondary, SECONDARY_SLOTS, visit_chunk, visit);
}

void shadow_for_each_chunk(const struct shadow_map *m,
			   void (*fn)(void *ctx, uintptr_t index,
				      stamp_t *chunk),
			   void *ctx)
{
	struct chunk_visit visit = { fn, ctx, 0 };

	table_for_each(m->primary, PRIMARY_SLOTS, visit_secondary, &visit);
}

void shadow_pool_give_back(struct shadow_pool *pool, stamp_t *chunk)
{
	chunk_give_back(pool, chunk);
}

void shadow_for_each_chunk_in(struct shadow_map *m, uintptr_t first,
			      uintptr_t last,
			      void (*fn)(void *ctx, uintptr_t index,
					 shadow_slot *slot, stamp_t *chunk),
			      void *ctx)
{
	if (last >> (SHADOW_PRIMARY_BITS + SHADOW_SECONDARY_BITS))
		last = ((uintptr_t)1 << (SHADOW_PRIMARY_BITS +
					 SHADOW_SECONDARY_BITS)) - 1;
	for (uintptr_t p = first >> SHADOW_SECONDARY_BITS;
	     p <= last >> SHADOW_SECONDARY_BITS; p++) {
		shadow_slot *secondary = shadow_slot_load(m->primary, p);
		if (!secondary)
			continue;
		atomic_ulong *used = table_used(secondary, SECONDARY_SLOTS);
		uintptr_t base = p << SHADOW_SECONDARY_BITS;
		size_t from = first > base ? first - base : 0;
		size_t to = last - base < SECONDARY_SLOTS - 1
				    ? last - base
				    : SECONDARY_SLOTS - 1;
		for (size_t s = from; s <= to; s++) {
			/* A word of the bitmap with nothing in use: skipped
			 * whole. */
			if (s % ULONG_BITS == 0 && s + ULONG_BITS - 1 <= to &&
			    !atomic_load_explicit(&used[s / ULONG_BITS],
						  memory_order_acquire)) {
				s += ULONG_BITS - 1;
				continue;
			}
			stamp_t *chunk = shadow_slot_load(secondary, s);
			if (chunk)
				fn(ctx, base | s, &secondary[s], chunk);
		}
	}
}

static void release_chunk(void *ctx, size_t s, void *chunk)
{
	(void)s;
	chunk_give_back(ctx, chunk);
}

static void release_secondary(void *ctx, size_t p, void *secondary)
{
	struct shadow_map *m = ctx;

	(void)p;
	table_for_each(secondary, SECONDARY_SLOTS, release_chunk, m->pool);
	table_free(m->pool, secondary, SECONDARY_SLOTS);
}

void shadow_map_fini(struct shadow_map *m)
{
	if (!m->primary)
		return;
	table_for_each(m->primary, PRIMARY_SLOTS, release_secondary, m);
	table_free(m->pool, m->primary, PRIMARY_SLOTS);
	m->primary = NULL;
}
