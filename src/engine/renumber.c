/*
 * renumber.c - when the write clock runs out, give every stamp a new,
 * small value that keeps every comparison the engine makes (DESIGN §3;
 * the multithreaded paper, §4.4).
 *
 * The engine compares stamps only (a) of one cell, thread stamp against
 * write stamp, and (b) a thread's stamp of a cell against that thread's
 * activation stamps.  So the order between different cells is free, and
 * the new values only have to keep each cell's stamps in the same place
 * relative to the pending activations and to each other.
 *
 * Let A be the sorted, distinct stamps of all pending activations of all
 * threads, and c(v) the number of them that are <= v.  The interval of
 * stamps with the same c gets the new values 3c+1, 3c+2, 3c+3, and the
 * activation A[c-1] gets 3c+1, the bottom of the interval it opens:
 *   activation stamp a       -> 3c(a)+1
 *   write stamp w            -> 3c(w)+2
 *   thread stamp s, same c as the cell's write stamp:
 *           s < w -> 3c+1,   s = w -> 3c+2,   s > w -> 3c+3
 *   thread stamp s otherwise -> 3c(s)+1
 * Values are G parts (local part 0), so intra-thread and G comparisons
 * both survive, and 0 ("never") stays 0.
 */
#include "engine/engine.h"

#include <errno.h>

#include "base/log.h"
#include "base/sort.h"
#include "base/vm.h"

struct renumbering {
	struct engine *e;
	stamp_t *a; /* sorted distinct activation stamps */
	size_t n;
	/* count_le remembers its last question: neighbouring cells usually
	 * hold the same stamp. */
	stamp_t memo_value;
	size_t memo_count;
	bool memo_valid;
};

static int compare_stamps(const void *a, const void *b)
{
	stamp_t x = *(const stamp_t *)a, y = *(const stamp_t *)b;

	return x < y ? -1 : x > y;
}

static size_t count_le(struct renumbering *r, stamp_t v)
{
	size_t lo = 0, hi = r->n;

	if (r->memo_valid && r->memo_value == v)
		return r->memo_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->a[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	r->memo_value = v;
	r->memo_count = lo;
	r->memo_valid = true;
	return lo;
}

static stamp_t as_stamp(const struct engine *e, uint64_t g)
{
	return stamp_from_g(&e->stamps, g);
}

static void remap_thread_chunk(void *ctx, uintptr_t index, stamp_t *ts)
{
	struct renumbering *r = ctx;
	struct engine *e = r->e;
	const stamp_t *wts = shadow_find(&e->wts, index);

	for (size_t i = 0; i < e->pool.chunk_cells; i++) {
		stamp_t s = ts[i];
		if (!s)
			continue;
		stamp_t w = wts ? wts[i] & ~STAMP_KERNEL : 0;
		size_t c = count_le(r, s);
		uint64_t v = 3 * (uint64_t)c + 1;
		if (w && count_le(r, w) == c)
			v += s < w ? 0 : s == w ? 1 : 2;
		ts[i] = as_stamp(e, v);
	}
}

static void remap_write_chunk(void *ctx, uintptr_t index, stamp_t *wts)
{
	struct renumbering *r = ctx;
	struct engine *e = r->e;

	(void)index;
	for (size_t i = 0; i < e->pool.chunk_cells; i++) {
		stamp_t w = wts[i];
		if (!w)
			continue;
		size_t c = count_le(r, w & ~STAMP_KERNEL);
		wts[i] = as_stamp(e, 3 * (uint64_t)c + 2) | (w & STAMP_KERNEL);
	}
}

/* Collect the stamps of all pending activations into r->a, sorted and
 * distinct.  Called with threads_lock held. */
static int collect_activations(struct renumbering *r, size_t *bytes)
{
	struct engine *e = r->e;
	struct engine_thread *t;
	size_t total = 0, n = 0;

	cds_list_for_each_entry(t, &e->threads, link)
		total += __atomic_load_n(&t->depth, __ATOMIC_RELAXED);
	*bytes = (total ? total : 1) * sizeof(stamp_t);
	r->a = vm_alloc(*bytes);
	if (!r->a)
		return -ENOMEM;
	/* A thread may return and call meanwhile (calls and returns run
	 * outside operations): its popped frames are counted too, which
	 * only adds intervals, and new frames have no stamp yet (0). */
	cds_list_for_each_entry(t, &e->threads, link) {
		size_t depth = __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE);
		for (size_t i = 1; i <= depth && n < total; i++) {
			stamp_t ts = __atomic_load_n(&t->stack[i].ts,
						     __ATOMIC_RELAXED);
			if (ts)
				r->a[n++] = ts;
		}
	}
	sort_in_place(r->a, n, sizeof(*r->a), compare_stamps);
	r->n = 0;
	for (size_t i = 0; i < n; i++)
		if (r->n == 0 || r->a[r->n - 1] != r->a[i])
			r->a[r->n++] = r->a[i];
	return 0;
}

/* Renumber the stamp of @f, unless it has none, or its thread has
 * meanwhile popped it and pushed another frame in its place (which has
 * none until the thread's next access, an operation). */
static void remap_frame(struct renumbering *r, struct frame *f)
{
	stamp_t old = __atomic_load_n(&f->ts, __ATOMIC_RELAXED);

	if (!old)
		return;
	stamp_t fresh = as_stamp(r->e, 3 * (uint64_t)count_le(r, old) + 1);
	__atomic_compare_exchange_n(&f->ts, &old, fresh, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* The renumbering proper; every other thread is held outside the
 * engine's operations. */
static int renumber_quiescent(struct engine *e)
{
	struct renumbering r = { .e = e };
	struct engine_thread *t;
	size_t bytes;
	int rc;

	pthread_mutex_lock(&e->threads_lock);
	rc = collect_activations(&r, &bytes);
	if (rc)
		goto out;
	uint64_t g_new = 3 * (uint64_t)r.n + 4;
	if (g_new >= e->stamps.g_limit) {
		rc = -EOVERFLOW;
		goto out_free;
	}
	/* No inline check may compare stamps while they change: each
	 * check reads the cells first and top last (engine_fast.h), so one
	 * that sees top still on read the cells as they were. */
	cds_list_for_each_entry(t, &e->threads, link)
		__atomic_store_n(&t->fast.top, ENGINE_FAST_OFF,
				 __ATOMIC_SEQ_CST);
	/* Thread stamps first: they are placed relative to the old write
	 * stamps, which are remapped last. */
	cds_list_for_each_entry(t, &e->threads, link) {
		r.memo_valid = false;
		shadow_for_each_chunk(&t->ts, remap_thread_chunk, &r);
	}
	r.memo_valid = false;
	shadow_for_each_chunk(&e->wts, remap_write_chunk, &r);
	cds_list_for_each_entry(t, &e->threads, link) {
		size_t depth = __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE);
		for (size_t i = 1; i <= depth; i++)
			remap_frame(&r, &t->stack[i]);
		t->now = as_stamp(e, g_new);
	}
	atomic_store_explicit(&e->g, g_new, memory_order_relaxed);
out_free:
	vm_free(r.a, bytes);
out:
	pthread_mutex_unlock(&e->threads_lock);
	return rc;
}

int engine_renumber(struct engine *e)
{
	int rc = 0;

	pthread_mutex_lock(&e->renumber_lock);
	/* Another thread may have renumbered while this one waited. */
	if (atomic_load_explicit(&e->g, memory_order_relaxed) <
	    e->stamps.g_limit)
		goto out;
	if (atomic_load_explicit(&e->exhausted, memory_order_relaxed)) {
		rc = -EOVERFLOW;
		goto out;
	}
	atomic_fetch_or_explicit(&e->attention, ENGINE_RENUMBERING,
				 memory_order_relaxed);
	synchronize_rcu();
	rc = renumber_quiescent(e);
	if (rc == -EOVERFLOW) {
		atomic_store_explicit(&e->exhausted, true,
				      memory_order_relaxed);
		log_internal("timestamps exhausted even after renumbering "
			     "(too many pending activations); profiling "
			     "stopped");
	} else if (rc == 0) {
		atomic_fetch_add_explicit(&e->renumbers, 1,
					  memory_order_relaxed);
	}
	atomic_fetch_and_explicit(&e->attention, ~ENGINE_RENUMBERING,
				  memory_order_release);
out:
	pthread_mutex_unlock(&e->renumber_lock);
	return rc;
}
