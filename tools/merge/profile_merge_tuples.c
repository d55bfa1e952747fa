/*
 * profile_merge_tuples.c - the tuples of a merge: put in the merged
 * regions' and threads' numbers, then combined per region, thread,
 * metric and input size by the format's rule (merge_rules.h: exactly, in
 * any order).
 */
#include "profile_merge_internal.h"

#include <stdlib.h>

#include "merge_rules.h"
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
			m->overflow |= tuple_merge_checked(
				&out->tuples[out->n_tuples - 1].data,
				&all[k].data) != 0;
		else
			out->tuples[out->n_tuples++] = all[k];
	}
	free(all);
}
