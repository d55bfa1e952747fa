/*
 * profile_merge_tuples.c - the tuples of a merge: put in the merged
 * regions' and threads' numbers, then combined per region, thread,
 * metric and input size as the format says (exactly, in any order).
 */
#include "profile_merge_internal.h"

#include <stdlib.h>

#include "xalloc.h"

static int compare_tuples(const void *a, const void *b)
{
	const struct profile_tuple *x = a, *y = b;
	int c = merge_compare_u64(x->data.region, y->data.region);

	if (!c)
		c = merge_compare_u64(x->thread, y->thread);
	if (!c)
		c = merge_compare_u64(x->data.metric, y->data.metric);
	if (!c)
		c = merge_compare_u64(x->data.n, y->data.n);
	return c;
}

/* tuple_merge, noting sums that do not fit. */
static void fold_tuple(struct merge *m, struct tuple_data *into,
		       const struct tuple_data *t)
{
	struct tuple_data sums = *into;
	unsigned __int128 sumsq;

	merge_add(m, &sums.count, t->count);
	merge_add(m, &sums.sum, t->sum);
	merge_add(m, &sums.induced_thread, t->induced_thread);
	merge_add(m, &sums.induced_external, t->induced_external);
	if (__builtin_add_overflow(into->sumsq, t->sumsq, &sumsq))
		m->overflow = true;
	tuple_merge(into, t);
}

void merge_tuples(struct merge *m)
{
	struct profile_doc *out = m->out;
	size_t n_all;
	struct input_ref *refs = INPUT_REFS(m, tuples, &n_all);
	struct profile_tuple *all = xcalloc(n_all, sizeof(*all));

	for (size_t r = 0; r < n_all; r++) {
		struct profile_tuple *t = &all[r];
		*t = *(const struct profile_tuple *)refs[r].thing;
		/* The reader made sure both are declared. */
		merge_map_region(m, refs[r].input, t->data.region,
				 &t->data.region);
		merge_map_thread(m, refs[r].input, t->thread, &t->thread);
	}
	free(refs);
	qsort(all, n_all, sizeof(*all), compare_tuples);
	out->tuples = xcalloc(n_all, sizeof(*out->tuples));
	for (size_t k = 0; k < n_all; k++) {
		if (out->n_tuples &&
		    !compare_tuples(&out->tuples[out->n_tuples - 1], &all[k]))
			fold_tuple(m, &out->tuples[out->n_tuples - 1].data,
				   &all[k].data);
		else
			out->tuples[out->n_tuples++] = all[k];
	}
	free(all);
}
