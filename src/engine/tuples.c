/*
 * tuples.c - per-thread tuple tables (see tuples.h).
 */
#define _GNU_SOURCE
#include "engine/tuples.h"

#include <errno.h>
#include <sched.h>
#include <string.h>

#include "base/clock.h"
#include "base/sort.h"
#include "base/vm.h"

/* Where the slots begin in an array's first page. */
#define SLOTS_OFFSET 2048

/* Open addressing; the capacity travels with the slots so that a reader
 * holding an old array knows its size.  The slots start half a page in:
 * the thread's state and its stack of frames start at page boundaries,
 * and a region's end writes to them just before it looks a slot up; at
 * the same offset within a page (4K aliasing) the processor takes the
 * slot's loads for loads of what was just stored and holds them back
 * (a pair of begin and end took a tenth longer). */
struct tuple_array {
	size_t capacity; /* a power of two */
	/* The table's memo while this is its array (tuples.h). */
	struct tuple_slot *memo[PROFILE_MEMO];
	char page_colour[SLOTS_OFFSET - sizeof(size_t) -
			 PROFILE_MEMO * sizeof(struct tuple_slot *)];
	struct tuple_slot slot[];
};

#define INITIAL_CAPACITY 64
#define MAX_CAPACITY ((size_t)1 << 30)

static size_t array_bytes(size_t capacity)
{
	return sizeof(struct tuple_array) +
	       capacity * sizeof(struct tuple_slot);
}

/* The memo of a table with no array yet: nothing in it, never written
 * (the first slot comes with an array, whose memo replaces it). */
static struct tuple_slot *const no_memo[PROFILE_MEMO];

void tuple_table_init(struct tuple_table *t)
{
	memset(t, 0, sizeof(*t));
	atomic_init(&t->array, NULL);
	t->memo = (struct tuple_slot **)no_memo;
}

void tuple_table_fini(struct tuple_table *t)
{
	struct tuple_array *a = atomic_load(&t->array);

	/* A table never used is left unwritten (a forked child would copy
	 * its page for nothing). */
	if (!a && !t->n_retired && !t->used && !t->failed && !t->dropped &&
	    !t->slow_ticks)
		return;
	if (a)
		vm_free(a, array_bytes(a->capacity));
	for (size_t i = 0; i < t->n_retired; i++)
		vm_free(t->retired[i], array_bytes(t->retired[i]->capacity));
	tuple_table_init(t);
}

static size_t hash_key(uint32_t region, uint64_t trms, uint64_t rms)
{
	uint64_t h = trms * 0x9e3779b97f4a7c15ull;

	h ^= rms * 0xc2b2ae3d27d4eb4full;
	h ^= (uint64_t)region * 0x165667b19e3779f9ull;
	return (size_t)(h ^ (h >> 29));
}

/* The slot holding the key, or the empty slot where it belongs. */
static struct tuple_slot *probe(struct tuple_array *a, uint32_t region,
				uint64_t trms, uint64_t rms)
{
	size_t mask = a->capacity - 1;

	for (size_t i = hash_key(region, trms, rms) & mask;;
	     i = (i + 1) & mask) {
		struct tuple_slot *s = &a->slot[i];
		if (atomic_load_explicit(&s->seq, memory_order_relaxed) == 0 ||
		    (s->region == region && s->trms == trms && s->rms == rms))
			return s;
	}
}

/* Double the table.  The old array stays mapped for readers that may
 * still be walking it. */
static int grow(struct tuple_table *t)
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
			*probe(a, s->region, s->trms, s->rms) = *s;
	}
	if (old)
		t->retired[t->n_retired++] = old;
	t->memo = a->memo;
	atomic_store_explicit(&t->array, a, memory_order_release);
	return 0;
}

int tuple_table_record_slow(struct tuple_table *t, uint32_t region,
			uint64_t trms, uint64_t rms, uint64_t cost,
			uint64_t induced_thread, uint64_t induced_external,
			uint64_t library, uint64_t estimated)
{
	struct tuple_add add = { cost, induced_thread, induced_external,
				 library, estimated };
	struct tuple_array *a =
		atomic_load_explicit(&t->array, memory_order_relaxed);
	struct tuple_slot *s = a ? probe(a, region, trms, rms) : NULL;

	if (!s || (atomic_load_explicit(&s->seq, memory_order_relaxed) == 0 &&
		   (t->used + 1) * 8 > a->capacity * 5)) {
		uint64_t start = clock_ticks();
		int rc = t->failed ? -ENOMEM : grow(t);
		t->slow_ticks += clock_ticks() - start;
		if (rc) {
			t->failed = true;
			__atomic_store_n(&t->dropped, t->dropped + 1,
					 __ATOMIC_RELAXED);
			return -ENOMEM;
		}
		a = atomic_load_explicit(&t->array, memory_order_relaxed);
		s = probe(a, region, trms, rms);
	}
	if (atomic_load_explicit(&s->seq, memory_order_relaxed) == 0) {
		/* A new key: publish it whole, count 1. */
		t->used++;
		atomic_store_explicit(&s->seq, 1, memory_order_relaxed);
		__atomic_store_n(&s->region, region, __ATOMIC_RELEASE);
		__atomic_store_n(&s->trms, trms, __ATOMIC_RELEASE);
		__atomic_store_n(&s->rms, rms, __ATOMIC_RELEASE);
		__atomic_store_n(&s->first_cost, add.cost, __ATOMIC_RELEASE);
		__atomic_store_n(&s->first_count, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&s->count, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&s->min, UINT64_MAX, __ATOMIC_RELEASE);
		atomic_store_explicit(&s->seq, 2, memory_order_release);
	}
	tuple_slot_add(s, &add);
	t->memo[region % PROFILE_MEMO] = s;
	return 0;
}

/* A slot copied out of a table. */
struct slot_copy {
	uint32_t region;
	uint64_t key[2]; /* trms, rms */
	struct tuple_data data;
};

/* Fold @n activations of cost @cost into @d. */
static void add_first_cost(struct tuple_data *d, uint64_t cost, uint64_t n)
{
	if (!n)
		return;
	if (!d->count || cost < d->min)
		d->min = cost;
	if (!d->count || cost > d->max)
		d->max = cost;
	d->count += n;
	d->sum += n * cost;
	d->sumsq += (unsigned __int128)n * ((unsigned __int128)cost * cost);
}

/* Copy a stable slot into @out; false if it is empty or never held still
 * while we looked (then *stuck). */
static bool read_slot(struct tuple_slot *s, struct slot_copy *out,
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
		out->region = __atomic_load_n(&s->region, __ATOMIC_ACQUIRE);
		out->key[METRIC_TRMS] =
			__atomic_load_n(&s->trms, __ATOMIC_ACQUIRE);
		out->key[METRIC_RMS] = __atomic_load_n(&s->rms, __ATOMIC_ACQUIRE);
		uint64_t first_cost =
			__atomic_load_n(&s->first_cost, __ATOMIC_ACQUIRE);
		uint64_t first_count =
			__atomic_load_n(&s->first_count, __ATOMIC_ACQUIRE);
		out->data.count = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE);
		out->data.min = __atomic_load_n(&s->min, __ATOMIC_ACQUIRE);
		out->data.max = __atomic_load_n(&s->max, __ATOMIC_ACQUIRE);
		out->data.sum = __atomic_load_n(&s->sum, __ATOMIC_ACQUIRE);
		uint64_t lo = __atomic_load_n(&s->sumsq_lo, __ATOMIC_ACQUIRE);
		uint64_t hi = __atomic_load_n(&s->sumsq_hi, __ATOMIC_ACQUIRE);
		out->data.sumsq = (unsigned __int128)hi << 64 | lo;
		out->data.induced_thread =
			__atomic_load_n(&s->induced_thread, __ATOMIC_ACQUIRE);
		out->data.induced_external =
			__atomic_load_n(&s->induced_external, __ATOMIC_ACQUIRE);
		/* In this order (see struct tuple_slot). */
		out->data.estimated = __atomic_load_n(&s->estimated,
						      __ATOMIC_ACQUIRE);
		out->data.library = __atomic_load_n(&s->library,
						    __ATOMIC_ACQUIRE);
		if (atomic_load_explicit(&s->seq, memory_order_relaxed) !=
		    before)
			continue;
		add_first_cost(&out->data, first_cost, first_count);
		return out->data.count > 0;
	}
	*stuck = true;
	return false;
}

/* The metric the copies are being folded by (sort_in_place takes no
 * context; the caller holds the profile writer's lock or is single). */
static _Thread_local unsigned fold_metric;

static int compare_copies(const void *a, const void *b)
{
	const struct slot_copy *x = a, *y = b;

	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (x->key[fold_metric] != y->key[fold_metric])
		return x->key[fold_metric] < y->key[fold_metric] ? -1 : 1;
	return 0;
}

int tuple_table_for_each(const struct tuple_table *t,
			   void (*fn)(void *ctx, const struct tuple_data *tuple),
			   void *ctx, size_t *skipped)
{
	return tuple_table_for_each_of(&t, 1, fn, ctx, skipped);
}

static struct tuple_array *array_of(const struct tuple_table *t)
{
	return atomic_load_explicit(
		(_Atomic(struct tuple_array *) *)&t->array,
		memory_order_acquire);
}

int tuple_table_for_each_of(const struct tuple_table *const *tables,
			      size_t n_tables,
			      void (*fn)(void *ctx,
					 const struct tuple_data *tuple),
			      void *ctx, size_t *skipped)
{
	struct tuple_array *arrays[PROFILE_FOLD_MAX];
	struct slot_copy *copies;
	size_t n = 0, bytes = 0;
	bool stuck;

	if (n_tables > PROFILE_FOLD_MAX)
		return -EINVAL;
	for (size_t k = 0; k < n_tables; k++) {
		arrays[k] = array_of(tables[k]);
		bytes += arrays[k] ? arrays[k]->capacity * sizeof(*copies) : 0;
	}
	if (!bytes)
		return 0;
	copies = vm_alloc(bytes);
	if (!copies)
		return -ENOMEM;
	for (size_t k = 0; k < n_tables; k++)
		for (size_t i = 0; arrays[k] && i < arrays[k]->capacity; i++) {
			if (read_slot(&arrays[k]->slot[i], &copies[n], &stuck))
				n++;
			else if (stuck && skipped)
				(*skipped)++;
		}
	for (unsigned metric = METRIC_TRMS; metric <= METRIC_RMS; metric++) {
		fold_metric = metric;
		sort_in_place(copies, n, sizeof(*copies), compare_copies);
		for (size_t i = 0; i < n;) {
			struct tuple_data tuple = { 0 };
			size_t j = i;
			for (; j < n && compare_copies(&copies[i], &copies[j]) == 0;
			     j++)
				tuple_merge(&tuple, &copies[j].data);
			tuple.region = copies[i].region;
			tuple.metric = metric;
			tuple.n = copies[i].key[metric];
			fn(ctx, &tuple);
			i = j;
		}
	}
	vm_free(copies, bytes);
	return 0;
}

/* Fold @from (a slot that holds still) into @into, a slot of the same key
 * or an empty one, which nobody else writes or reads meanwhile. */
static void absorb_slot(struct tuple_slot *into, const struct tuple_slot *from)
{
	struct tuple_data moved = { 0 };

	if (!atomic_load_explicit(&into->seq, memory_order_relaxed)) {
		*into = *from;
		atomic_store_explicit(&into->seq, 2, memory_order_relaxed);
		return;
	}
	/* The activations that cost @from's first cost join @into's own
	 * first ones, or its others. */
	if (from->first_cost == into->first_cost) {
		into->first_count += from->first_count;
	} else {
		add_first_cost(&moved, from->first_cost, from->first_count);
	}
	struct tuple_data others = {
		.count = from->count, .min = from->min, .max = from->max,
		.sum = from->sum,
		.sumsq = (unsigned __int128)from->sumsq_hi << 64 | from->sumsq_lo,
	};
	struct tuple_data mine = {
		.count = into->count, .min = into->min, .max = into->max,
		.sum = into->sum,
		.sumsq = (unsigned __int128)into->sumsq_hi << 64 | into->sumsq_lo,
	};
	tuple_merge(&mine, &moved);
	tuple_merge(&mine, &others);
	into->count = mine.count;
	into->min = mine.count ? mine.min : UINT64_MAX;
	into->max = mine.max;
	into->sum = mine.sum;
	into->sumsq_lo = (uint64_t)mine.sumsq;
	into->sumsq_hi = (uint64_t)(mine.sumsq >> 64);
	into->induced_thread += from->induced_thread;
	into->induced_external += from->induced_external;
	into->library += from->library;
	into->estimated += from->estimated;
}

int tuple_table_absorb(struct tuple_table *into,
			 const struct tuple_table *from)
{
	struct tuple_array *a = array_of(from), *b;

	/* Room for every key first, so that it is all or nothing. */
	while (!(b = array_of(into)) ||
	       (into->used + from->used + 1) * 8 > b->capacity * 5)
		if (grow(into))
			return -ENOMEM;
	for (size_t i = 0; a && i < a->capacity; i++) {
		const struct tuple_slot *s = &a->slot[i];
		if (!atomic_load_explicit(&s->seq, memory_order_relaxed))
			continue;
		struct tuple_slot *d = probe(b, s->region, s->trms, s->rms);
		if (!atomic_load_explicit(&d->seq, memory_order_relaxed))
			into->used++;
		absorb_slot(d, s);
	}
	return 0;
}

void tuple_table_clear(struct tuple_table *t)
{
	struct tuple_array *a = array_of(t);

	for (size_t i = 0; i < t->n_retired; i++)
		vm_free(t->retired[i], array_bytes(t->retired[i]->capacity));
	t->n_retired = 0;
	if (a) {
		memset(a->slot, 0, a->capacity * sizeof(a->slot[0]));
		memset(a->memo, 0, sizeof(a->memo));
	}
	t->used = 0;
	t->failed = false;
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
	into->corrected += tuple->corrected;
	into->library += tuple->library;
	into->estimated += tuple->estimated;
}
