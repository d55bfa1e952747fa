/*
 * profile.h - the tuples of one thread (DESIGN §7): for each region, each
 * metric (trms, rms) and each distinct input size n, the count, minimum,
 * maximum, sum and sum of squares of the activations' costs, and the sums
 * of their thread-induced and external inputs.
 *
 * The owning thread adds to its table without locks or atomic
 * read-modify-writes.  Another thread (the one writing the profile file)
 * may read it at the same time: each tuple carries a sequence counter that
 * is odd while the owner updates it, so the reader copies a tuple only
 * when it holds still; a table that has grown keeps its old arrays until
 * it is freed, so a reader never touches unmapped memory.
 */
#ifndef TRMS_PROFILE_H
#define TRMS_PROFILE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum metric { METRIC_TRMS = 0, METRIC_RMS = 1 };

/* A tuple as read out of a table. */
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
};

struct tuple_array;

#define PROFILE_MAX_RETIRED 48

struct profile_table {
	_Atomic(struct tuple_array *) array;
	size_t used;
	struct tuple_array *retired[PROFILE_MAX_RETIRED];
	size_t n_retired;
	bool failed; /* could not grow: new sizes are dropped */
	uint64_t dropped;
};

void profile_table_init(struct profile_table *t);
void profile_table_fini(struct profile_table *t);

/* Add one activation of @region with input size @n under @metric.
 * @return 0, or -ENOMEM if a new size could not be stored (counted in
 * t->dropped). */
int profile_add(struct profile_table *t, uint32_t region, enum metric metric,
		uint64_t n, uint64_t cost, uint64_t induced_thread,
		uint64_t induced_external);

/* Record both tuples of a finished activation: keyed by its trms and by
 * its rms. */
int profile_add_activation(struct profile_table *t, uint32_t region,
			   uint64_t trms, uint64_t rms, uint64_t cost,
			   uint64_t induced_thread, uint64_t induced_external);

/* Call @fn for each tuple, copied consistently, from any thread.  A tuple
 * whose owner is stuck in the middle of updating it (the owner is the
 * calling thread, interrupted by a signal) is skipped and counted in
 * *skipped.  Order is unspecified. */
void profile_for_each(const struct profile_table *t,
		      void (*fn)(void *ctx, const struct tuple_data *tuple),
		      void *ctx, size_t *skipped);

/* Fold @tuple into @into (same key): counts and sums add, bounds combine.
 * This is the merge of DESIGN §7 (associative and commutative). */
void tuple_merge(struct tuple_data *into, const struct tuple_data *tuple);

#endif
