/*
 * profile.c - per-thread tuple tables (see profile.h).
 */
#define _GNU_SOURCE
#include "profile.h"

#include <errno.h>
#include <sched.h>
#include <string.h>

#include "vm.h"

/* A sequence lock per slot, without fences: the owner makes seq odd, then
 * writes the fields with release stores (so a reader that sees a new field
 * also sees the odd seq), then makes seq even again; a reader loads seq,
 * the fields with acquire loads (so its second look at seq cannot move
 * before them), and seq again.  On x86-64 all of these are plain moves. */
struct tuple_slot {
	atomic_uint seq; /* 0: empty; odd: being written; even: stable */
	uint32_t region;
	uint32_t metric;
	uint64_t n;
	uint64_t count;
	uint64_t min;
	uint64_t max;
	uint64_t sum;
	uint64_t sumsq_lo;
	uint64_t sumsq_hi;
	uint64_t induced_thread;
	uint64_t induced_external;
};

/* Open addressing; the capacity travels with the slots so that a reader
 * holding an old array knows its size. */
struct tuple_array {
	size_t capacity; /* a power of two */
	struct tuple_slot slot[];
};

#define INITIAL_CAPACITY 64
#define MAX_CAPACITY ((size_t)1 << 30)

#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

static size_t array_bytes(size_t capacity)
{
	return sizeof(struct tuple_array) +
	       capacity * sizeof(struct tuple_slot);
}

void profile_table_init(struct profile_table *t)
{
	memset(t, 0, sizeof(*t));
	atomic_init(&t->array, NULL);
}

void profile_table_fini(struct profile_table *t)
{
	struct tuple_array *a = atomic_load(&t->array);

	if (a)
		vm_free(a, array_bytes(a->capacity));
	for (size_t i = 0; i < t->n_retired; i++)
		vm_free(t->retired[i], array_bytes(t->retired[i]->capacity));
	profile_table_init(t);
}

static size_t hash_key(uint32_t region, uint32_t metric, uint64_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)region << 1 | metric) * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h ^ (h >> 29));
}

/* The slot holding the key, or the empty slot where it belongs. */
static struct tuple_slot *probe(struct tuple_array *a, uint32_t region,
				uint32_t metric, uint64_t n)
{
	size_t mask = a->capacity - 1;

	for (size_t i = hash_key(region, metric, n) & mask;; i = (i + 1) & mask) {
		struct tuple_slot *s = &a->slot[i];
		if (atomic_load_explicit(&s->seq, memory_order_relaxed) == 0 ||
		    (s->region == region && s->metric == metric && s->n == n))
			return s;
	}
}

/* Double the table.  The old array stays mapped for readers that may
 * still be walking it. */
static int grow(struct profile_table *t)
{
	struct tuple_array *old =
		atomic_load_explicit(&t->array, memory_order_relaxed);
	size_t capacity = old ? 2 * old->capacity : INITIAL_CAPACITY;
	struct tuple_array *a;

	if (capacity > MAX_CAPACITY || t->n_retired == PROFILE_MAX_RETIRED)
		return -ENOMEM;
	a = vm_alloc(array_bytes(capacity));
	if (!a)
		return -ENOMEM;
	a->capacity = capacity;
	for (size_t i = 0; old && i < old->capacity; i++) {
		struct tuple_slot *s = &old->slot[i];
		if (atomic_load_explicit(&s->seq, memory_order_relaxed))
			*probe(a, s->region, s->metric, s->n) = *s;
	}
	if (old)
		t->retired[t->n_retired++] = old;
	atomic_store_explicit(&t->array, a, memory_order_release);
	return 0;
}

int profile_add(struct profile_table *t, uint32_t region, enum metric metric,
		uint64_t n, uint64_t cost, uint64_t induced_thread,
		uint64_t induced_external)
{
	struct tuple_array *a =
		atomic_load_explicit(&t->array, memory_order_relaxed);
	struct tuple_slot *s = a ? probe(a, region, metric, n) : NULL;
	unsigned seq;

	if (!s || (atomic_load_explicit(&s->seq, memory_order_relaxed) == 0 &&
		   (t->used + 1) * 8 > a->capacity * 5)) {
		if (t->failed || grow(t)) {
			t->failed = true;
			STORE(&t->dropped, t->dropped + 1);
			return -ENOMEM;
		}
		a = atomic_load_explicit(&t->array, memory_order_relaxed);
		s = probe(a, region, metric, n);
	}

	seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	atomic_store_explicit(&s->seq, seq + 1, memory_order_relaxed);
	unsigned __int128 sq = (unsigned __int128)cost * cost;
	if (seq == 0) {
		t->used++;
		STORE(&s->region, region);
		STORE(&s->metric, (uint32_t)metric);
		STORE(&s->n, n);
		STORE(&s->count, 1);
		STORE(&s->min, cost);
		STORE(&s->max, cost);
		STORE(&s->sum, cost);
		STORE(&s->sumsq_lo, (uint64_t)sq);
		STORE(&s->sumsq_hi, (uint64_t)(sq >> 64));
		STORE(&s->induced_thread, induced_thread);
		STORE(&s->induced_external, induced_external);
	} else {
		unsigned __int128 total =
			((unsigned __int128)s->sumsq_hi << 64 | s->sumsq_lo) +
			sq;
		STORE(&s->count, s->count + 1);
		if (cost < s->min)
			STORE(&s->min, cost);
		if (cost > s->max)
			STORE(&s->max, cost);
		STORE(&s->sum, s->sum + cost);
		STORE(&s->sumsq_lo, (uint64_t)total);
		STORE(&s->sumsq_hi, (uint64_t)(total >> 64));
		STORE(&s->induced_thread, s->induced_thread + induced_thread);
		STORE(&s->induced_external,
		      s->induced_external + induced_external);
	}
	atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
	return 0;
}

int profile_add_activation(struct profile_table *t, uint32_t region,
			   uint64_t trms, uint64_t rms, uint64_t cost,
			   uint64_t induced_thread, uint64_t induced_external)
{
	int rc = profile_add(t, region, METRIC_TRMS, trms, cost,
			     induced_thread, induced_external);
	int rc2 = profile_add(t, region, METRIC_RMS, rms, cost,
			      induced_thread, induced_external);

	return rc ? rc : rc2;
}

/* Copy a stable slot into @out; false if it is empty or never held still
 * while we looked (then *stuck). */
static bool read_slot(struct tuple_slot *s, struct tuple_data *out,
		      bool *stuck)
{
	*stuck = false;
	for (unsigned attempt = 0; attempt < 1000; attempt++) {
		unsigned before =
			atomic_load_explicit(&s->seq, memory_order_acquire);
		if (before == 0)
			return false;
		if (before & 1) {
			if (attempt >= 100)
				sched_yield();
			continue;
		}
		out->region = LOAD(&s->region);
		out->metric = LOAD(&s->metric);
		out->n = LOAD(&s->n);
		out->count = LOAD(&s->count);
		out->min = LOAD(&s->min);
		out->max = LOAD(&s->max);
		out->sum = LOAD(&s->sum);
		out->sumsq = (unsigned __int128)LOAD(&s->sumsq_hi) << 64 |
			     LOAD(&s->sumsq_lo);
		out->induced_thread = LOAD(&s->induced_thread);
		out->induced_external = LOAD(&s->induced_external);
		if (atomic_load_explicit(&s->seq, memory_order_relaxed) ==
		    before)
			return true;
	}
	*stuck = true;
	return false;
}

void profile_for_each(const struct profile_table *t,
		      void (*fn)(void *ctx, const struct tuple_data *tuple),
		      void *ctx, size_t *skipped)
{
	struct tuple_array *a = atomic_load_explicit(
		(_Atomic(struct tuple_array *) *)&t->array,
		memory_order_acquire);
	struct tuple_data tuple;
	bool stuck;

	for (size_t i = 0; a && i < a->capacity; i++) {
		if (read_slot(&a->slot[i], &tuple, &stuck))
			fn(ctx, &tuple);
		else if (stuck && skipped)
			(*skipped)++;
	}
}

void tuple_merge(struct tuple_data *into, const struct tuple_data *tuple)
{
	if (!into->count) {
		*into = *tuple;
		return;
	}
	if (!tuple->count)
		return;
	into->count += tuple->count;
	if (tuple->min < into->min)
		into->min = tuple->min;
	if (tuple->max > into->max)
		into->max = tuple->max;
	into->sum += tuple->sum;
	into->sumsq += tuple->sumsq;
	into->induced_thread += tuple->induced_thread;
	into->induced_external += tuple->induced_external;
}
