/*
 * tuple_merge.h - the one rule by which tuples combine, for `trms merge`
 * and `trms report` alike (docs/profile-format.md, "Tuples merge
 * exactly"): counts, sums, sums of squares and induced sums add up, min
 * is the smallest min, max the largest max.  The rule is exact,
 * associative and commutative; what it cannot do is add past 64 bits
 * (128 for the sums of squares), and that it says.
 */
#ifndef TRMS_TUPLE_MERGE_H
#define TRMS_TUPLE_MERGE_H

#include "profile.h"

/* Fold @tuple into @into (the same region, thread, metric and input
 * size), as tuple_merge() of profile.h does.  @return 0, or -EOVERFLOW if
 * a sum does not fit (@into then holds sums cut short: give up). */
int tuple_merge_checked(struct tuple_data *into,
			const struct tuple_data *tuple);

#endif
