/*
 * merge_rules.h - how the things of several profiles combine, for `trms
 * merge` and `trms report` alike (docs/merge.md):
 *   - tuples (docs/profile-format.md, "Tuples merge exactly"): counts,
 *     sums, sums of squares and induced sums add up, min is the smallest
 *     min, max the largest max.  The rule is exact, associative and
 *     commutative; what it cannot do is add past 64 bits (128 for the
 *     sums of squares), and that it says.
 *   - threads: the same thread if they have the same name, or if neither
 *     has a name and they have the same ordinal.
 */
#ifndef TRMS_MERGE_RULES_H
#define TRMS_MERGE_RULES_H

#include <stdint.h>

#include "engine/tuples.h"

/* Fold @tuple into @into (the same region, thread, metric and input
 * size), as tuple_merge() of tuples.h does.  @return 0, or -EOVERFLOW if
 * a sum does not fit (@into then holds sums cut short: give up). */
int tuple_merge_checked(struct tuple_data *into,
			const struct tuple_data *tuple);

/* The order of threads by identity, @name NULL for a thread without one:
 * unnamed threads first, by ordinal, then named ones by name; 0 for the
 * same thread. */
int thread_identity_compare(const char *x_name, uint32_t x_ordinal,
			    const char *y_name, uint32_t y_ordinal);

#endif
