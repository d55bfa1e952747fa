/*
 * tuple_merge.c - tuples combined, sums checked (see tuple_merge.h).
 */
#include "tuple_merge.h"

#include <errno.h>
#include <stdbool.h>

int tuple_merge_checked(struct tuple_data *into,
			const struct tuple_data *tuple)
{
	struct tuple_data sums = *into;
	bool overflow = false;

	if (into->count && tuple->count) {
		overflow |= __builtin_add_overflow(sums.count, tuple->count,
						   &sums.count);
		overflow |= __builtin_add_overflow(sums.sum, tuple->sum,
						   &sums.sum);
		overflow |= __builtin_add_overflow(sums.sumsq, tuple->sumsq,
						   &sums.sumsq);
		overflow |= __builtin_add_overflow(sums.induced_thread,
						   tuple->induced_thread,
						   &sums.induced_thread);
		overflow |= __builtin_add_overflow(sums.induced_external,
						   tuple->induced_external,
						   &sums.induced_external);
	}
	tuple_merge(into, tuple);
	return overflow ? -EOVERFLOW : 0;
}
