/*
 * merge_rules.c - how tuples and threads of several profiles combine (see
 * merge_rules.h).
 */
#include "merge_rules.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

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
		overflow |= __builtin_add_overflow(sums.corrected,
						   tuple->corrected,
						   &sums.corrected);
		overflow |= __builtin_add_overflow(sums.library,
						   tuple->library,
						   &sums.library);
		overflow |= __builtin_add_overflow(sums.estimated,
						   tuple->estimated,
						   &sums.estimated);
	}
	tuple_merge(into, tuple);
	return overflow ? -EOVERFLOW : 0;
}

int thread_identity_compare(const char *x_name, uint32_t x_ordinal,
			    const char *y_name, uint32_t y_ordinal)
{
	if (!x_name != !y_name)
		return x_name ? 1 : -1;
	if (x_name)
		return strcmp(x_name, y_name);
	return x_ordinal < y_ordinal ? -1 : x_ordinal > y_ordinal;
}
