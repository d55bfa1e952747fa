/*
 * trms.c - the engine: shadow stacks, access stamps and the read/write
 * timestamping algorithm of DESIGN §3, with the stamps of DESIGN §4.
 */
#define _GNU_SOURCE
#include "engine/engine.h"
#include "engine/engine_fast.h"

#include <errno.h>
#include <string.h>

#include "engine/cells.h"
#include "base/clock.h"
#include "base/vm.h"

#define INITIAL_DEPTH 64

int engine_init(struct engine *e, const struct engine_config *config)
{
	unsigned k = config->granularity;
	unsigned bits = config->stamp_bits ? config->stamp_bits
					   : TRMS_STAMP_BITS;

	if (k == 0 || k > 16 || (k & (k - 1)))
		return -EINVAL;
	if (bits < STAMP_MIN_BITS || bits > TRMS_STAMP_BITS)
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	e->granularity = k;
	e->cell_shift = (unsigned)__builtin_ctz(k);
	stamp_layout_init(&e->stamps, bits);
	e->g_mask = ~e->stamps.local_mask;
	atomic_init(&e->g, 0);
	shadow_pool_init(&e->pool, e->cell_shift);
	if (shadow_map_init(&e->wts, &e->pool, true)) {
		shadow_pool_fini(&e->pool);
		return -ENOMEM;
	}
	pthread_mutex_init(&e->threads_lock, NULL);
	CDS_INIT_LIST_HEAD(&e->threads);
	pthread_mutex_init(&e->renumber_lock, NULL);
	atomic_init(&e->attention, 0);
	atomic_init(&e->renumbers, 0);
	atomic_init(&e->exhausted, false);
	atomic_init(&e->single_writer, NULL);
	owners_init(&e->owners);
	atomic_init(&e->owner_ids, 0);
	return 0;
}

void engine_fini(struct engine *e)
{
	owners_fini(&e->owners);
	shadow_map_fini(&e->wts);
	shadow_pool_fini(&e->pool);
	pthread_mutex_destroy(&e->threads_lock);
	pthread_mutex_destroy(&e->renumber_lock);
}

/* No slot used, the copy off. */
static void fast_reset(struct engine_fast *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < ENGINE_FAST_SLOTS; i++)
		f->slot[i].chunk = ENGINE_FAST_NO_CHUNK;
	f->top = ENGINE_FAST_OFF;
}

int engine_thread_init(struct engine *e, struct engine_thread *t)
{
	memset(t, 0, sizeof(*t));
	t->engine = e;
	t->capacity = INITIAL_DEPTH;
	t->push_limit = engine_tracer ? 0 : t->capacity;
	t->stack = vm_alloc(t->capacity * sizeof(*t->stack));
	if (!t->stack)
		return -ENOMEM;
	if (shadow_map_init(&t->ts, &e->pool, false)) {
		vm_free(t->stack, t->capacity * sizeof(*t->stack));
		return -ENOMEM;
	}
	shadow_cache_reset(&t->ts_cache);
	shadow_cache_reset(&t->wts_cache);
	/* 0 means "never accessed"; the sentinel frame has stamp 0 and
	 * every real stamp is above it. */
	t->now = 1;
	fast_reset(&t->fast);
	/* The calling thread's read-side state in liburcu-bp, registered by
	 * its first critical section (engine_forget looks at it). */
	rcu_read_lock();
	/* (By its offset: liburcu-bp's arena does not give the record the
	 * alignment its type declares, see tests/ubsan.supp.) */
	t->rcu_ctr = (const unsigned long *)((const char *)URCU_TLS(
						     urcu_bp_reader) +
					     offsetof(struct urcu_bp_reader,
						      ctr));
	t->attention_seen = atomic_load_explicit(&e->attention,
						 memory_order_acquire) &
			    ~ENGINE_RENUMBERING;
	rcu_read_unlock();
	t->owner_id = atomic_fetch_add_explicit(&e->owner_ids, 1,
						memory_order_relaxed) + 1;
	if (!t->owner_id || t->owner_id == OWNERS_SHARED)
		owners_give_up(&e->owners); /* past 2^32 - 2 threads */
	pthread_mutex_lock(&e->threads_lock);
	cds_list_add_tail(&t->link, &e->threads);
	pthread_mutex_unlock(&e->threads_lock);
	return 0;
}

void engine_thread_fini(struct engine_thread *t)
{
	struct engine *e = t->engine;

	pthread_mutex_lock(&e->threads_lock);
	cds_list_del(&t->link);
	pthread_mutex_unlock(&e->threads_lock);
	shadow_map_fini(&t->ts);
	vm_free(t->stack, t->capacity * sizeof(*t->stack));
	t->stack = NULL;
	t->depth = 0;
	t->unstamped = 0;
	/* (Its own stamps are gone: no slot may point at them.) */
	fast_reset(&t->fast);
	/* What the limbo kept for this thread's sake is free now. */
	engine_forget_reclaim(e);
}

void engine_thread_drop_caches(struct engine_thread *t, unsigned attention)
{
	shadow_cache_reset(&t->ts_cache);
	shadow_cache_reset(&t->wts_cache);
	fast_reset(&t->fast);
	__atomic_store_n(&t->attention_seen, attention, __ATOMIC_RELEASE);
}

/*
 * Operations run inside an RCU read-side critical section.  A renumbering
 * raises ENGINE_RENUMBERING and waits for a grace period: afterwards no
 * operation is in flight, and every operation that starts sees the flag and
 * waits on renumber_lock until the stamps are consistent again.  Memory
 * forgotten (engine_forget) changes the attention too: the operation's
 * thread first drops the chunks it cached, which may have left their maps.
 */
static __attribute__((noinline)) void op_attend(struct engine_thread *t)
{
	struct engine *e = t->engine;

	for (;;) {
		unsigned a = atomic_load_explicit(&e->attention,
						  memory_order_acquire);
		if ((a & ~ENGINE_RENUMBERING) != t->attention_seen)
			engine_thread_drop_caches(t, a & ~ENGINE_RENUMBERING);
		if (!(a & ENGINE_RENUMBERING))
			return;
		rcu_read_unlock();
		pthread_mutex_lock(&e->renumber_lock);
		pthread_mutex_unlock(&e->renumber_lock);
		rcu_read_lock();
	}
}

static inline void op_begin(struct engine_thread *t)
{
	rcu_read_lock();
	if (__builtin_expect(atomic_load_explicit(&t->engine->attention,
						  memory_order_relaxed) !=
				     t->attention_seen,
			     0))
		op_attend(t);
}

static inline void op_end(void)
{
	rcu_read_unlock();
}

/* Take the next value of the write clock, unless it is used up. */
static bool g_take(struct engine *e, uint64_t *g)
{
	uint64_t cur = atomic_load_explicit(&e->g, memory_order_relaxed);

	do {
		if (cur >= e->stamps.g_limit)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(
		&e->g, &cur, cur + 1, memory_order_relaxed,
		memory_order_relaxed));
	*g = cur + 1;
	return true;
}

/* Take a fresh value of the write clock (never 0) into *@g, inside an
 * operation; if the clock has run out, leave the operation, renumber,
 * and return 1: the caller starts its operation again. */
static int take_g_or_renumber(struct engine *e, uint64_t *g)
{
	if (g_take(e, g))
		return 0;
	op_end();
	if (atomic_load_explicit(&e->exhausted, memory_order_relaxed))
		return -EOVERFLOW;
	int rc = engine_renumber(e);
	return rc ? rc : 1;
}

/*
 * Stamps are given to activations lazily.  A call pushes its frame with
 * no stamp (0), outside any operation; the thread's next access, inside
 * its operation, stamps the frames still without one, oldest first.  Only
 * accesses change a thread's stamps, so each frame gets exactly the stamp
 * it would have had at its call: the next local value, or a fresh G when
 * the local part is used up.  So calls and returns never wait for, nor
 * hold back, a renumbering.
 */
static int stamp_frames(struct engine_thread *t)
{
	struct engine *e = t->engine;

	for (; t->unstamped; t->unstamped--) {
		size_t i = t->depth - t->unstamped + 1;
		stamp_t ts = t->now + 1;
		if ((t->now & e->stamps.local_mask) == e->stamps.local_mask) {
			uint64_t g;
			int rc = take_g_or_renumber(e, &g);
			if (rc)
				return rc;
			ts = stamp_from_g(&e->stamps, g);
		}
		__atomic_store_n(&t->stack[i].ts, ts, __ATOMIC_RELAXED);
		t->now = ts;
	}
	return 0;
}

/* Begin the operation of an access by @t: its frames stamped, and with
 * @g a fresh value of the write clock taken (for a write). */
static int op_begin_access(struct engine_thread *t, uint64_t *g)
{
	struct engine *e = t->engine;
	int rc;

	do {
		op_begin(t);
		rc = stamp_frames(t);
		if (!rc && g)
			rc = take_g_or_renumber(e, g);
	} while (rc == 1);
	return rc; /* on an error, take_g_or_renumber left the operation */
}

static int grow_stack(struct engine_thread *t)
{
	size_t size = t->capacity * sizeof(*t->stack);
	struct frame *stack;

	if (t->capacity >= ENGINE_MAX_DEPTH)
		return -ENOMEM;
	uint64_t start = clock_ticks();
	stack = vm_resize(t->stack, size, 2 * size);
	t->slow_ticks += clock_ticks() - start;
	if (!stack)
		return -ENOMEM;
	t->stack = stack;
	t->capacity *= 2;
	t->push_limit = engine_tracer ? 0 : t->capacity;
	return 0;
}

struct engine_tracer *engine_tracer;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;

void engine_trace_set(struct engine_tracer *tracer)
{
	pthread_mutex_lock(&trace_lock);
	__atomic_store_n(&engine_tracer, tracer, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&trace_lock);
}

/* Describe an operation of @t that returned @rc, the lock held. */
static int traced(const struct engine_thread *t, enum engine_trace_op op,
		  uint64_t a, uint64_t b, int rc)
{
	struct engine_tracer *tracer = engine_tracer;

	/* An empty access changes nothing: not described. */
	if (!rc && tracer && (op <= ENGINE_TRACE_RETURN || b))
		tracer->emit(tracer->ctx, t, op, a, b);
	pthread_mutex_unlock(&trace_lock);
	return rc;
}

void engine_trace_return(const struct engine_thread *t)
{
	pthread_mutex_lock(&trace_lock);
	traced(t, ENGINE_TRACE_RETURN, 0, 0, 0);
}

static int call_untraced(struct engine_thread *t, uint32_t region,
			 uint32_t tag, const void *key, uintptr_t cfa,
			 uint64_t cost_now);

int engine_call_slow(struct engine_thread *t, uint32_t region, uint32_t tag,
		     const void *key, uintptr_t cfa, uint64_t cost_now)
{
	if (!engine_tracer)
		return call_untraced(t, region, tag, key, cfa, cost_now);
	pthread_mutex_lock(&trace_lock);
	return traced(t, ENGINE_TRACE_CALL, region, 0,
		      call_untraced(t, region, tag, key, cfa, cost_now));
}

static int call_untraced(struct engine_thread *t, uint32_t region,
			 uint32_t tag, const void *key, uintptr_t cfa,
			 uint64_t cost_now)
{
	int rc = 0;

	/* Growing may move the stack, which a renumbering reads: it has to
	 * happen inside an operation. */
	op_begin(t);
	if (t->depth + 1 >= t->capacity)
		rc = grow_stack(t);
	if (!rc)
		engine_push(t, region, tag, key, cfa, cost_now);
	op_end();
	return rc;
}

size_t engine_frame_at(const struct engine_thread *t, stamp_t s)
{
	size_t lo = 0, hi = t->depth; /* stack[lo].ts <= s < stack[hi + 1] */

	/* Most accesses go back one or two levels: look there first. */
	for (size_t i = t->depth; i > 0 && t->depth - i < 4; i--)
		if (t->stack[i].ts <= s)
			return i;
	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;
		if (t->stack[mid].ts <= s)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static bool range_ok(uintptr_t addr, size_t size)
{
	return addr < SHADOW_ADDR_LIMIT && size <= SHADOW_ADDR_LIMIT - addr;
}

/* The cells of [addr, addr + size) one chunk-sized run at a time. */
struct run_cursor {
	uintptr_t cell, last;
	size_t chunk_cells;
	unsigned chunk_shift;
};

static inline void cursor_init(struct run_cursor *c, const struct engine *e,
			       uintptr_t addr, size_t size)
{
	c->cell = addr >> e->cell_shift;
	c->last = (addr + size - 1) >> e->cell_shift;
	c->chunk_cells = e->pool.chunk_cells;
	c->chunk_shift = SHADOW_CHUNK_ADDR_BITS - e->cell_shift;
}

/* The next run: chunk number, first cell within the chunk, cell count. */
static inline bool cursor_next(struct run_cursor *c, uintptr_t *index,
			       size_t *offset, size_t *n)
{
	if (c->cell > c->last)
		return false;
	*index = c->cell >> c->chunk_shift;
	*offset = c->cell & (c->chunk_cells - 1);
	*n = c->chunk_cells - *offset;
	if (*n > c->last - c->cell + 1)
		*n = c->last - c->cell + 1;
	c->cell += *n;
	return true;
}

/* The rare case of read_run: the run's earlier accesses belong to several
 * ancestors, so each first access is charged back to its own. */
static void uncount_each(struct engine_thread *t, const stamp_t *ts,
			 const stamp_t *wts, size_t n, stamp_t top)
{
	stamp_t g_mask = t->engine->g_mask;
	stamp_t memo_lo = 1, memo_hi = 0; /* empty: [lo, hi] */
	size_t memo = 0;

	for (size_t i = 0; i < n; i++) {
		stamp_t old = ts[i];
		if (old == 0 || old >= top)
			continue;
		if (old < memo_lo || old > memo_hi) {
			memo = engine_frame_at(t, old);
			memo_lo = t->stack[memo].ts;
			memo_hi = t->stack[memo + 1].ts - 1;
		}
		t->stack[memo].rms--;
		bool induced = wts && (old & g_mask) <
					      (SHARED_LOAD(&wts[i]) & g_mask);
		if (!induced)
			t->stack[memo].trms--;
	}
}

/* A first access to a cell an ancestor accessed: the cell is not new to
 * that ancestor (nor to those below it).  Rare, and kept out of line so
 * that the search's setup stays off the common path. */
static __attribute__((noinline)) void uncount_ancestor(struct engine_thread *t,
							stamp_t old,
							bool induced)
{
	struct frame *j = &t->stack[engine_frame_at(t, old)];

	j->rms--;
	if (!induced)
		j->trms--;
}

/* DESIGN §3's read(ℓ) on each cell of a short run. */
void engine_read_cells(struct engine_thread *t, stamp_t *ts,
		       const stamp_t *wts, size_t n)
{
	struct frame *top = &t->stack[t->depth];
	stamp_t g_mask = t->engine->g_mask;
	stamp_t now = t->now;
	bool store = false;

	t->fast.top = ENGINE_FAST_OFF; /* (the current stamp may change) */

	for (size_t i = 0; i < n; i++) {
		stamp_t old = ts[i];
		stamp_t w = wts ? SHARED_LOAD(&wts[i]) : 0;
		bool induced = (old & g_mask) < (w & g_mask);

		store |= old != now;
		if (induced) {
			top->trms++;
			if (w & STAMP_KERNEL)
				top->induced_external++;
			else
				top->induced_thread++;
			if ((w & g_mask) > now)
				now = w & g_mask;
		}
		if (old >= top->ts)
			continue;
		top->rms++;
		if (!induced)
			top->trms++;
		if (old)
			uncount_ancestor(t, old, induced);
	}
	if (store || now != t->now)
		for (size_t i = 0; i < n; i++)
			ts[i] = now;
	t->now = now;
}

/* @t is about to look up its own stamps of chunk @index: it claims the
 * chunk (owners.h) each time the chunk comes back into its cache, before
 * it reads or writes the chunk's write stamps. */
static inline void claim_on_miss(struct engine_thread *t, uintptr_t index)
{
	if (!shadow_cache_holds(&t->ts_cache, index))
		owners_claim(&t->engine->owners, &t->owned, index,
			     t->owner_id);
}

/* @t's own stamps of the @n cells from @offset of chunk @index, claimed. */
static stamp_t *own_run(struct engine_thread *t, uintptr_t index,
			size_t offset, size_t n)
{
	claim_on_miss(t, index);
	return shadow_get_cached_run(&t->ts, &t->ts_cache, index, offset, n,
				     &t->slow_ticks);
}

static void read_run(struct engine_thread *t, stamp_t *ts,
		     const stamp_t *wts, size_t n)
{
	struct engine *e = t->engine;
	struct frame *top = &t->stack[t->depth];
	struct read_tally k;

	if (n <= ENGINE_SHORT_RUN)
		return engine_read_cells(t, ts, wts, n);
	t->fast.top = ENGINE_FAST_OFF; /* (as engine_read_cells does) */

	cells_tally_read(ts, wts, n, top->ts, t->now, e->g_mask, &k);
	top->trms += (int64_t)(k.induced + k.first_own);
	top->rms += (int64_t)k.first;
	top->induced_external += (int64_t)k.induced_kernel;
	top->induced_thread += (int64_t)(k.induced - k.induced_kernel);
	if (k.first_seen) {
		size_t j = engine_frame_at(t, k.seen_min);
		if (j == engine_frame_at(t, k.seen_max)) {
			t->stack[j].rms -= (int64_t)k.first_seen;
			t->stack[j].trms -= (int64_t)k.first_own_seen;
		} else {
			uncount_each(t, ts, wts, n, top->ts);
		}
	}
	/* Having read what another thread wrote, this thread's stamps must
	 * not fall below that write's, or its next read would count again. */
	if (k.induced_g_max > t->now) {
		t->now = k.induced_g_max;
		k.stale = n;
	}
	if (k.stale)
		cells_fill(ts, n, t->now);
}

static int read_untraced(struct engine_thread *t, uintptr_t addr,
			 size_t size);

int engine_read_slow(struct engine_thread *t, uintptr_t addr, size_t size)
{
	if (!engine_tracer)
		return read_untraced(t, addr, size);
	pthread_mutex_lock(&trace_lock);
	return traced(t, ENGINE_TRACE_READ, addr, size,
		      read_untraced(t, addr, size));
}

/* Any read: run by run over the chunks the range covers. */
static int read_untraced(struct engine_thread *t, uintptr_t addr,
			 size_t size)
{
	struct engine *e = t->engine;
	struct run_cursor c;
	uintptr_t index;
	size_t offset, n;
	int rc = 0;

	if (!size)
		return 0;
	if (!range_ok(addr, size))
		return -EINVAL;
	cursor_init(&c, e, addr, size);
	rc = op_begin_access(t, NULL);
	if (rc)
		return rc;
	while (cursor_next(&c, &index, &offset, &n)) {
		stamp_t *ts = own_run(t, index, offset, n);
		if (!ts) {
			rc = -ENOMEM;
			break;
		}
		stamp_t *wts = shadow_get_cached(&e->wts, &t->wts_cache, index,
						 false, NULL);
		read_run(t, ts + offset, wts ? wts + offset : NULL, n);
	}
	op_end();
	return rc;
}

/* Stamp [addr, addr + size) as written at @s: in the thread's own table
 * unless the kernel wrote, and in the write table with the write clock
 * part of @s alone (and STAMP_KERNEL if @by_kernel: the write table's
 * lowest bit is that mark).  Only that part is compared there; a write
 * at a thread's current stamp (write_at_now) has a local part too, which
 * left in the write table would put the write after other threads' later
 * accesses of the same write clock value once renumbering orders whole
 * stamps. */
static int write_runs(struct engine_thread *t, uintptr_t addr, size_t size,
		      stamp_t s, bool by_kernel)
{
	struct engine *e = t->engine;
	stamp_t written = (s & e->g_mask) | (by_kernel ? STAMP_KERNEL : 0);
	struct run_cursor c;
	uintptr_t index;
	size_t offset, n;

	if (!by_kernel)
		t->now = s;
	cursor_init(&c, e, addr, size);
	while (cursor_next(&c, &index, &offset, &n)) {
		/* (The thread's own first: claimed before it writes the
		 * chunk's write stamps, see owners.h.) */
		stamp_t *ts = by_kernel ? NULL : own_run(t, index, offset, n);
		if (!by_kernel && !ts)
			return -ENOMEM;
		stamp_t *wts = shadow_get_cached_run(&e->wts, &t->wts_cache,
						     index, offset, n,
						     &t->slow_ticks);
		if (!wts)
			return -ENOMEM;
		cells_fill_shared(wts + offset, n, written);
		if (ts)
			cells_fill(ts + offset, n, s);
	}
	return 0;
}

/* May @t's write take its current stamp (see struct engine's
 * single_writer)?  Not before the thread's stamps have a write clock
 * value above 0, which a later thread's first read of the cell must
 * find newer than its own 0. */
static bool write_at_now(const struct engine_thread *t, bool by_kernel)
{
	const struct engine *e = t->engine;

	const volatile char *single =
		atomic_load_explicit(&e->single_writer, memory_order_relaxed);

	return !by_kernel && single && *single && (t->now & e->g_mask) != 0;
}

/* May @t's write of [@addr, @addr + @size) take its current stamp
 * because it lies in a chunk that no other thread has touched (owners.h)?
 * As for write_at_now, not before @t's stamps have a write clock value
 * above 0. */
static bool write_alone(struct engine_thread *t, uintptr_t addr, size_t size,
			bool by_kernel)
{
	uintptr_t index = addr >> SHADOW_CHUNK_ADDR_BITS;

	return !by_kernel && (t->now & t->engine->g_mask) &&
	       (addr + size - 1) >> SHADOW_CHUNK_ADDR_BITS == index &&
	       owners_claim(&t->engine->owners, &t->owned, index,
			    t->owner_id);
}

/* A fresh value of the write clock into *@s, inside the operation (begun
 * again if a renumbering had to end it). */
static int fresh_stamp(struct engine_thread *t, stamp_t *s)
{
	uint64_t g;
	int rc = take_g_or_renumber(t->engine, &g);

	if (rc == 1) /* renumbered, out of the operation: again */
		rc = op_begin_access(t, &g);
	if (!rc)
		*s = stamp_from_g(&t->engine->stamps, g);
	return rc;
}

static int write_common(struct engine_thread *t, uintptr_t addr, size_t size,
			bool by_kernel)
{
	bool alone = false;
	stamp_t s;
	int rc;

	if (!size)
		return 0;
	if (!range_ok(addr, size))
		return -EINVAL;
	/* (Frames are stamped first: the current stamp is then the
	 * innermost activation's or later.) */
	rc = op_begin_access(t, NULL);
	if (rc)
		return rc;
	if (write_at_now(t, by_kernel) ||
	    (alone = write_alone(t, addr, size, by_kernel)))
		s = t->now;
	else if ((rc = fresh_stamp(t, &s)))
		return rc;
	t->fast.top = ENGINE_FAST_OFF;
	rc = write_runs(t, addr, size, s, by_kernel);
	/* Another thread came to the chunk meanwhile, and may have read
	 * the cells before this write's stamps: stamped again, fresh. */
	if (!rc && alone &&
	    !owners_still_alone(&t->engine->owners, &t->owned, t->owner_id)) {
		if ((rc = fresh_stamp(t, &s)))
			return rc;
		rc = write_runs(t, addr, size, s, by_kernel);
	}
	op_end();
	return rc;
}

static int write_traced(struct engine_thread *t, uintptr_t addr,
			size_t size, bool by_kernel)
{
	if (!engine_tracer)
		return write_common(t, addr, size, by_kernel);
	pthread_mutex_lock(&trace_lock);
	return traced(t, by_kernel ? ENGINE_TRACE_KWRITE : ENGINE_TRACE_WRITE,
		      addr, size, write_common(t, addr, size, by_kernel));
}

int engine_write(struct engine_thread *t, uintptr_t addr, size_t size)
{
	return write_traced(t, addr, size, false);
}

int engine_kwrite(struct engine_thread *t, uintptr_t addr, size_t size)
{
	return write_traced(t, addr, size, true);
}

/* ---- the copy for inline checks (engine_fast.h) ---- */

void engine_fast_refresh(struct engine_thread *t, uintptr_t addr)
{
	struct engine *e = t->engine;
	struct engine_fast *f = &t->fast;
	uintptr_t chunk = addr >> SHADOW_CHUNK_ADDR_BITS;

	if (!atomic_load_explicit(&e->fast_on, memory_order_relaxed) ||
	    engine_tracer || e->cell_shift != ENGINE_FAST_SHIFT)
		return;
	/* Inside an operation: a renumbering is not under way, and waits
	 * until this is done (then turns the copy off again).  Alone, the
	 * thread is the only one that could renumber. */
	bool alone = write_at_now(t, false);
	if (!alone)
		op_begin(t);
	if (!t->unstamped && addr < SHADOW_ADDR_LIMIT) {
		struct engine_fast_slot *s =
			&f->slot[chunk & (ENGINE_FAST_SLOTS - 1)];
		claim_on_miss(t, chunk);
		stamp_t *own = shadow_get_cached(&t->ts, &t->ts_cache, chunk,
						 true, &t->slow_ticks);
		stamp_t *wts = shadow_get_cached(&e->wts, &t->wts_cache, chunk,
						 true, &t->slow_ticks);
		if (own && wts) {
			s->chunk = chunk;
			s->own = own;
			s->wts = wts;
		}
		f->g_mask = e->g_mask;
		f->now = t->now;
		f->first_ok = alone;
		f->single = atomic_load_explicit(&e->single_writer,
						 memory_order_relaxed);
		f->top_frame = &t->stack[t->depth];
		f->parent_frame = t->depth ? &t->stack[t->depth - 1] : NULL;
		f->parent = t->depth ? f->parent_frame->ts : 0;
		__atomic_store_n(&f->top, f->top_frame->ts, __ATOMIC_RELAXED);
	}
	if (!alone)
		op_end();
}
