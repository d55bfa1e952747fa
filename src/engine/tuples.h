/*
 * tuples.h - the tuples of one thread (DESIGN §7): for each region, each
 * metric (trms, rms) and each distinct input size n, the count, minimum,
 * maximum, sum and sum of squares of the activations' costs, and the sums
 * of their thread-induced and external inputs.
 *
 * Recording is on the path of every region end, so it does as little as
 * possible: the table keeps one slot per distinct (region, trms, rms) and
 * updates exactly one slot per activation, usually found through a small
 * memo of each region's last slot.  The tuples keyed by trms and by rms
 * are folded out of the slots when the profile is written.
 *
 * The owning thread updates its table without locks or atomic
 * read-modify-writes.  Another thread (the one writing the profile file)
 * may read it at the same time: each slot carries a sequence counter that
 * is odd while the owner updates it, so the reader copies a slot only when
 * it holds still; a table that has grown keeps its old arrays until it is
 * freed, so a reader never touches unmapped memory.
 */
#ifndef TRMS_TUPLES_H
#define TRMS_TUPLES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum metric { METRIC_TRMS = 0, METRIC_RMS = 1 };

/* A tuple as the profile shows it. */
struct tuple_data {
	uint32_t region;
	uint32_t metric;
	uint64_t n;
	uint64_t count;
	uint64_t min;
	uint64_t max;
	uint64_t sum;
	unsigned __int128 sumsq;
	uint64_t induced_thread;
	uint64_t induced_external;
	/* With costs in time, the correction of the costs: of these
	 * activations, how many are in the next two sums (all, when the
	 * library wrote them; 0 with costs in events), the library's own time
	 * taken out of their costs (in the costs' unit), and the part of it
	 * charged by estimate (cost.h).  The tables of tuples.c keep the two
	 * sums; the profile's writer counts the activations. */
	uint64_t corrected;
	uint64_t library;
	uint64_t estimated;
};

/* What one activation adds to its tuple (the fields of tuple_data). */
struct tuple_add {
	uint64_t cost;
	uint64_t induced_thread, induced_external;
	uint64_t library, estimated;
};

/* The activations of one region with one (trms, rms).  A sequence lock
 * without fences: the owner makes seq odd, writes the fields with release
 * stores (a reader that sees a new field also sees the odd seq), and makes
 * seq even again; a reader loads seq, the fields with acquire loads (its
 * second look at seq cannot move before them), and seq again.  On x86-64
 * all of these are plain moves.
 *
 * Activations that cost what the slot's first one cost and induced
 * nothing are only counted, in first_count, with one store and no change
 * of seq: a reader sees the count before or after it, both consistent.
 * With costs in events a deterministic region's activations with the same
 * input mostly cost the same, so most ends take this one store.
 *
 * With costs in time every activation also adds its library time, before
 * and outside the sequence: a reader may see an activation in these sums
 * and not yet in the count, one activation apart.  library is stored
 * before estimated, and a reader loads estimated before library: it never
 * sees more estimated than library. */
struct tuple_slot {
	atomic_uint seq; /* 0: empty; odd: being written; even: stable */
	uint32_t region;
	uint64_t trms;
	uint64_t rms;
	uint64_t first_cost;
	uint64_t first_count;
	/* The other activations. */
	uint64_t count;
	uint64_t min;
	uint64_t max;
	uint64_t sum;
	uint64_t sumsq_lo;
	uint64_t sumsq_hi;
	uint64_t induced_thread;
	uint64_t induced_external;
	uint64_t library;
	uint64_t estimated;
};

struct tuple_array;

#define PROFILE_MAX_RETIRED 48
/* Enough for a program whose every function is a region (the sqlite3
 * shell: 529 of them; with 16 a fifth of its run went to the slow path
 * that the memo saves). */
#define PROFILE_MEMO 128

struct tuple_table {
	_Atomic(struct tuple_array *) array;
	size_t used;
	/* The last slot of each region, by region id modulo PROFILE_MEMO:
	 * PROFILE_MEMO pointers in the current array's first page (a
	 * thread's own table stays in its state's first page); an empty
	 * memo of tuples.c's before the first activation is recorded. */
	struct tuple_slot **memo;
	struct tuple_array *retired[PROFILE_MAX_RETIRED];
	size_t n_retired;
	bool failed; /* could not grow: new keys are dropped */
	uint64_t dropped;
	uint64_t slow_ticks; /* clock time spent growing the table */
};

void tuple_table_init(struct tuple_table *t);
void tuple_table_fini(struct tuple_table *t);

/* Add @a's library time to @s's (see struct tuple_slot for the order). */
static inline __attribute__((always_inline)) void
tuple_slot_add_library(struct tuple_slot *s, const struct tuple_add *a)
{
	if (!(a->library | a->estimated))
		return;
	__atomic_store_n(&s->library, s->library + a->library,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&s->estimated, s->estimated + a->estimated,
			 __ATOMIC_RELEASE);
}

/* tuple_slot_add for an activation that is not simply counted: the
 * writer's side of the slot's sequence count (readers retry while it is
 * odd), which only the owner thread ever writes. */
static inline void tuple_slot_add_sequenced(struct tuple_slot *s,
					    const struct tuple_add *a)
{
	unsigned seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	uint64_t cost = a->cost;

	atomic_store_explicit(&s->seq, seq + 1, memory_order_relaxed);
	if (cost == s->first_cost) {
		__atomic_store_n(&s->first_count, s->first_count + 1,
				 __ATOMIC_RELEASE);
	} else {
		unsigned __int128 sq =
			((unsigned __int128)s->sumsq_hi << 64 | s->sumsq_lo) +
			(unsigned __int128)cost * cost;
		__atomic_store_n(&s->count, s->count + 1, __ATOMIC_RELEASE);
		if (cost < s->min)
			__atomic_store_n(&s->min, cost, __ATOMIC_RELEASE);
		if (cost > s->max)
			__atomic_store_n(&s->max, cost, __ATOMIC_RELEASE);
		__atomic_store_n(&s->sum, s->sum + cost, __ATOMIC_RELEASE);
		__atomic_store_n(&s->sumsq_lo, (uint64_t)sq, __ATOMIC_RELEASE);
		__atomic_store_n(&s->sumsq_hi, (uint64_t)(sq >> 64),
				 __ATOMIC_RELEASE);
	}
	__atomic_store_n(&s->induced_thread,
			 s->induced_thread + a->induced_thread,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&s->induced_external,
			 s->induced_external + a->induced_external,
			 __ATOMIC_RELEASE);
	atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

/* Add activation @a to @s (the owner's side of the sequence lock). */
static inline __attribute__((always_inline)) void
tuple_slot_add(struct tuple_slot *s, const struct tuple_add *a)
{
	tuple_slot_add_library(s, a);
	if (__builtin_expect(a->cost == s->first_cost &&
				     !(a->induced_thread | a->induced_external),
			     1))
		__atomic_store_n(&s->first_count, s->first_count + 1,
				 __ATOMIC_RELEASE);
	else
		tuple_slot_add_sequenced(s, a);
}

/* Record a finished activation, the slow way (see tuple_table_record): the
 * fields of struct tuple_add one by one, so that the fast path's copy
 * can stay in registers. */
int tuple_table_record_slow(struct tuple_table *t, uint32_t region,
			uint64_t trms, uint64_t rms, uint64_t cost,
			uint64_t induced_thread, uint64_t induced_external,
			uint64_t library, uint64_t estimated);

/* Record a finished activation @a of @region with input sizes @trms and
 * @rms.  @return 0, or -ENOMEM if a new (trms, rms) could not be stored
 * (counted in t->dropped). */
static inline __attribute__((always_inline)) int
tuple_table_record(struct tuple_table *t, uint32_t region, uint64_t trms,
	       uint64_t rms, const struct tuple_add *a)
{
	struct tuple_slot *s = t->memo[region % PROFILE_MEMO];

	if (__builtin_expect(s && s->region == region && s->trms == trms &&
				     s->rms == rms,
			     1)) {
		tuple_slot_add(s, a);
		return 0;
	}
	return tuple_table_record_slow(t, region, trms, rms, a->cost,
				   a->induced_thread, a->induced_external,
				   a->library, a->estimated);
}

/* Call @fn with each tuple of @t, keyed by trms and by rms, from any
 * thread: sorted by metric, region and n.  A slot whose owner is stuck in
 * the middle of updating it (the owner is the calling thread, interrupted
 * by a signal) is skipped and counted in *skipped.
 * @return 0, or -ENOMEM if no scratch memory could be had. */
int tuple_table_for_each(const struct tuple_table *t,
			   void (*fn)(void *ctx, const struct tuple_data *tuple),
			   void *ctx, size_t *skipped);

/* tuple_table_for_each over the union of up to PROFILE_FOLD_MAX
 * tables (a thread's windows, see output/window_write.c): tuples of the
 * same key in several tables are folded into one. */
#define PROFILE_FOLD_MAX 4
int tuple_table_for_each_of(const struct tuple_table *const *tables,
			      size_t n_tables,
			      void (*fn)(void *ctx,
					 const struct tuple_data *tuple),
			      void *ctx, size_t *skipped);

/* Add every activation of @from to @into.  Neither may change meanwhile:
 * @into's owner is the caller, @from's owner has left it.  @return 0, or
 * -ENOMEM (then none of @from is in @into). */
int tuple_table_absorb(struct tuple_table *into,
			 const struct tuple_table *from);

/* Empty @t for reuse, keeping its array (its owner has left it, and no
 * reader walks it).  Its dropped count and slow time stay: they only
 * grow. */
void tuple_table_clear(struct tuple_table *t);

/* Fold @tuple into @into (same key): counts and sums add, bounds combine.
 * This is the merge of DESIGN §7 (associative and commutative). */
void tuple_merge(struct tuple_data *into, const struct tuple_data *tuple);

#endif
