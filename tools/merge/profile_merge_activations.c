/*
 * profile_merge_activations.c - how many of a region's activations were
 * measured, merged: where an input measured only some (an activations
 * line), its counts; where it measured all, its tuples' count.  A line
 * is written where the merged counts differ.
 */
#include "profile_merge_internal.h"

#include <stdlib.h>

#include "xalloc.h"

/* One (region, thread) of an input, in the output's numbers. */
struct counted {
	uint32_t region, thread;
	size_t input;
	uint64_t activations, measured;
};

static int compare_counted(const void *a, const void *b)
{
	const struct counted *x = a, *y = b;
	int c = merge_compare_u64(x->region, y->region);

	if (!c)
		c = merge_compare_u64(x->thread, y->thread);
	if (!c)
		c = merge_compare_u64(x->input, y->input);
	return c;
}

void merge_activations(struct merge *m)
{
	struct profile_doc *out = m->out;
	size_t n_lines;
	struct input_ref *refs = INPUT_REFS(m, activations, &n_lines);

	if (!n_lines) {
		free(refs);
		return;
	}
	/* The lines, then each input's activations measured whole where
	 * another input has a line: its trms tuples count them. */
	size_t n_all = n_lines, cap = n_lines + 16;
	struct counted *all = xcalloc(cap, sizeof(*all));
	for (size_t r = 0; r < n_lines; r++) {
		const struct profile_activations *a = refs[r].thing;
		struct counted *c = &all[r];
		merge_map_region(m, refs[r].input, a->region, &c->region);
		merge_map_thread(m, refs[r].input, a->thread, &c->thread);
		c->input = refs[r].input;
		c->activations = a->activations;
		c->measured = a->measured;
	}
	free(refs);
	qsort(all, n_lines, sizeof(*all), compare_counted);
	size_t n_tuples;
	refs = INPUT_REFS(m, tuples, &n_tuples);
	for (size_t r = 0; r < n_tuples; r++) {
		const struct profile_tuple *t = refs[r].thing;
		struct counted key = { 0, 0, refs[r].input, 0, 0 };
		if (t->data.metric != METRIC_TRMS)
			continue;
		merge_map_region(m, refs[r].input, t->data.region,
				 &key.region);
		merge_map_thread(m, refs[r].input, t->thread, &key.thread);
		if (bsearch(&key, all, n_lines, sizeof(*all),
			    compare_counted))
			continue; /* the input's line counts it */
		/* A place some input has a line for? */
		struct counted any = key;
		bool lined = false;
		for (size_t i = 0; i < m->n_inputs && !lined; i++) {
			any.input = i;
			lined = bsearch(&any, all, n_lines, sizeof(*all),
					compare_counted) != NULL;
		}
		if (!lined)
			continue;
		if (n_all == cap)
			all = xrealloc(all, (cap *= 2) * sizeof(*all));
		key.activations = key.measured = t->data.count;
		all[n_all++] = key;
	}
	free(refs);
	qsort(all, n_all, sizeof(*all), compare_counted);
	out->activations = xcalloc(n_all, sizeof(*out->activations));
	for (size_t k = 0; k < n_all;) {
		struct profile_activations sum = { all[k].region,
						   all[k].thread, 0, 0 };
		for (; k < n_all && all[k].region == sum.region &&
		       all[k].thread == sum.thread;
		     k++) {
			merge_add(m, &sum.activations, all[k].activations);
			merge_add(m, &sum.measured, all[k].measured);
		}
		if (sum.measured < sum.activations)
			out->activations[out->n_activations++] = sum;
	}
	free(all);
}
