/*
 * profile_merge_internal.h - what the steps of a merge share and nothing
 * outside them needs.  The steps, in order (profile_merge.c runs them):
 *   profile_merge_meta.c     the facts of the runs (meta lines);
 *   profile_merge_threads.c  regions by name, then threads by identity;
 *   profile_merge_tuples.c   tuples, in the merged regions and threads;
 *   profile_merge_modules.c  modules by path, then their symbols;
 *   profile_merge_tree.c     the sampled calling context trees.
 *
 * Everything that identifies a thing across profiles is text or a
 * combination of things identified already: regions by name, threads by
 * name or else ordinal, modules by path, frames by module and offset,
 * tree nodes by their path from the top of their thread's tree.  Each
 * step numbers its kind of thing in an order that depends only on these
 * identities, and combines what the inputs say of one thing only with
 * operations that ignore order and grouping (sums, minima, maxima, "all
 * agree"); that is what makes the file written canonical.
 */
#ifndef TRMS_PROFILE_MERGE_INTERNAL_H
#define TRMS_PROFILE_MERGE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile_merge.h"

/* The module number of a frame that was in no known module. */
#define UNKNOWN_MODULE 0xffffffu

/* Where an input's threads and modules are in the output: filled by the
 * steps that number them, read by the later ones. */
struct input_map {
	uint32_t *thread; /* per doc.threads[i]: the output ordinal */
	uint32_t *module; /* per doc.modules[i]: the output id */
};

/* A merge in progress. */
struct merge {
	const struct profile_doc *inputs;
	size_t n_inputs;
	struct input_map *maps; /* one per input */
	struct profile_doc *out;
	bool overflow; /* a sum did not fit in 64 bits */
	char *err;
	size_t errlen;
};

/* ---- profile_merge.c: what every step uses ---- */

/* The message of a failed merge, in m->err.  @return -EINVAL. */
int merge_fail(struct merge *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* *into += v, noting in m->overflow if the sum does not fit. */
static inline void merge_add(struct merge *m, uint64_t *into, uint64_t v)
{
	if (__builtin_add_overflow(*into, v, into))
		m->overflow = true;
}

static inline int merge_compare_u64(uint64_t x, uint64_t y)
{
	return x < y ? -1 : x > y;
}

/* Where one of the inputs' things is: number @index of its kind in input
 * @input, at @thing. */
struct input_ref {
	size_t input, index;
	const void *thing;
};

/* References to every thing of one kind in the inputs, input by input:
 * INPUT_REFS(m, threads, &n) for their threads.  Their number is put in
 * *@n_refs; free() the array. */
#define INPUT_REFS(m, things, n_refs)                                      \
	merge_input_refs((m), offsetof(struct profile_doc, things),        \
			 offsetof(struct profile_doc, n_##things),         \
			 sizeof(*(m)->inputs->things), (n_refs))
struct input_ref *merge_input_refs(const struct merge *m, size_t array_at,
				   size_t count_at, size_t size,
				   size_t *n_refs);

/* ---- profile_merge_meta.c ---- */

/* The meta lines, sorted by key.  @return 0, or merge_fail()'s -EINVAL
 * for inputs that cannot be merged or a counter that is not a number. */
int merge_meta(struct merge *m);

/* ---- profile_merge_threads.c ---- */

/* Regions, one per name, numbered in name order. */
void merge_regions(struct merge *m);

/* The output id of region @id of input @input; false if the input does
 * not declare it. */
bool merge_map_region(const struct merge *m, size_t input, uint64_t id,
		      uint32_t *mapped);

/* Threads, one per identity (docs/merge.md), and m->maps' thread
 * ordinals; after merge_regions(). */
void merge_threads(struct merge *m);

/* The output ordinal of thread @ordinal of input @input; false if the
 * input does not declare it. */
bool merge_map_thread(const struct merge *m, size_t input, uint64_t ordinal,
		      uint32_t *mapped);

/* ---- profile_merge_tuples.c ---- */

/* Tuples, combined per region, thread, metric and n; after
 * merge_threads(). */
void merge_tuples(struct merge *m);

/* ---- profile_merge_activations.c ---- */

/* How many of each region's activations were measured, where not all
 * were; after merge_tuples(). */
void merge_activations(struct merge *m);

/* ---- profile_merge_modules.c ---- */

/* Modules, one per path, and m->maps' module ids. */
void merge_modules(struct merge *m);

/* The output id of module @id of input @input, UNKNOWN_MODULE for no
 * known module; false if the input does not declare it. */
bool merge_map_module(const struct merge *m, size_t input, uint64_t id,
		      uint32_t *mapped);

/* Symbols: their union, one name per address; after merge_modules(). */
void merge_symbols(struct merge *m);

/* ---- profile_merge_tree.c ---- */

/* The call trees, node by node along identical paths; last.  @return 0,
 * or merge_fail()'s -EINVAL for a node in an undeclared region or
 * module. */
int merge_trees(struct merge *m);

#endif
