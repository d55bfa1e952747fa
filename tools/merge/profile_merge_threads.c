/*
 * profile_merge_threads.c - the regions and threads of a merge: regions
 * one per name, threads one per identity (their name, or else their
 * ordinal, as trms report sees them) with their counters added.  Regions
 * come first because a thread's creation context is a list of them.
 */
#include "profile_merge_internal.h"

#include <stdlib.h>
#include <string.h>

#include "merge_rules.h"
#include "thread_folds.h"
#include "xalloc.h"

/* --- Regions ----------------------------------------------------------- */

static int compare_region_refs(const void *a, const void *b)
{
	const struct profile_region *x = ((const struct input_ref *)a)->thing;
	const struct profile_region *y = ((const struct input_ref *)b)->thing;

	return strcmp(x->name, y->name);
}

void merge_regions(struct merge *m)
{
	struct profile_doc *out = m->out;
	size_t n_refs;
	struct input_ref *refs = INPUT_REFS(m, regions, &n_refs);

	qsort(refs, n_refs, sizeof(*refs), compare_region_refs);
	out->regions = xcalloc(n_refs, sizeof(*out->regions));
	for (size_t r = 0; r < n_refs; r++) {
		const struct profile_region *in = refs[r].thing;
		struct profile_region *region = &out->regions[out->n_regions];
		if (out->n_regions &&
		    !strcmp(region[-1].name, in->name)) {
			/* A function's object: the first input's that has
			 * one. */
			if (!region[-1].object && in->object)
				region[-1].object = xstrdup(in->object);
			continue;
		}
		region->id = (uint32_t)out->n_regions++;
		region->name = xstrdup(in->name);
		region->object = in->object ? xstrdup(in->object) : NULL;
	}
	free(refs);
}

static int compare_region_name(const void *key, const void *region)
{
	return strcmp(key, ((const struct profile_region *)region)->name);
}

bool merge_map_region(const struct merge *m, size_t input, uint64_t id,
		      uint32_t *mapped)
{
	const struct profile_doc *out = m->out;
	const char *name =
		id <= UINT32_MAX
			? profile_region_name(&m->inputs[input], (uint32_t)id)
			: NULL;
	const struct profile_region *r =
		name ? bsearch(name, out->regions, out->n_regions,
			       sizeof(*out->regions), compare_region_name)
		     : NULL;

	if (r)
		*mapped = r->id;
	return r != NULL;
}

/* --- Threads ----------------------------------------------------------- */

/* Threads are the same thread as merge_rules.h says (and trms report). */
static int compare_identity(const struct profile_thread *x,
			    const struct profile_thread *y)
{
	return thread_identity_compare(x->name, x->ordinal, y->name,
				       y->ordinal);
}

/* A reference to a thread, with the thread whose identity it takes:
 * itself, or the one a window says it was folded into (thread_folds.h). */
struct thread_ref {
	struct input_ref ref;
	const struct profile_thread *as;
};

static struct thread_ref *thread_refs(const struct merge *m, size_t *n_refs)
{
	struct thread_folds *folds = thread_folds_find(m->inputs, m->n_inputs);
	struct input_ref *plain = INPUT_REFS(m, threads, n_refs);
	struct thread_ref *refs = xcalloc(*n_refs ? *n_refs : 1, sizeof(*refs));

	for (size_t r = 0; r < *n_refs; r++)
		refs[r] = (struct thread_ref){
			plain[r],
			thread_folds_as(folds, &m->inputs[plain[r].input],
					plain[r].thing),
		};
	free(plain);
	thread_folds_free(folds);
	return refs;
}

static int compare_thread_refs(const void *a, const void *b)
{
	const struct thread_ref *x = a, *y = b;

	return compare_identity(x->as, y->as);
}

/* The occurrences of one thread in the inputs. */
struct thread_group {
	size_t first, count; /* a run of the sorted refs */
	uint32_t ordinal;    /* in the output */
};

static int compare_groups(const void *a, const void *b)
{
	const struct thread_group *x = a, *y = b;

	return merge_compare_u64(x->ordinal, y->ordinal);
}

/* The thread whose identity the occurrences in @g have. */
static const struct profile_thread *
group_thread(const struct thread_group *g, const struct thread_ref *refs)
{
	return refs[g->first].as;
}

/* Unnamed threads keep their ordinals; named ones, in name order, take
 * the smallest ordinals left. */
static void number_threads(struct thread_group *groups, size_t n_groups,
			   const struct thread_ref *refs)
{
	size_t unnamed = 0;
	uint32_t next = 0;

	for (; unnamed < n_groups; unnamed++) {
		const struct profile_thread *th =
			group_thread(&groups[unnamed], refs);
		if (th->name)
			break;
		groups[unnamed].ordinal = th->ordinal;
	}
	size_t taken = 0; /* unnamed ordinals (ascending) not yet passed */
	for (size_t g = unnamed; g < n_groups; g++) {
		while (taken < unnamed && groups[taken].ordinal <= next) {
			if (groups[taken].ordinal == next)
				next++;
			taken++;
		}
		groups[g].ordinal = next++;
	}
}

bool merge_map_thread(const struct merge *m, size_t input, uint64_t ordinal,
		      uint32_t *mapped)
{
	const struct profile_doc *doc = &m->inputs[input];
	const struct profile_thread *th =
		ordinal <= UINT32_MAX ? profile_thread(doc, (uint32_t)ordinal)
				      : NULL;

	if (th)
		*mapped = m->maps[input].thread[th - doc->threads];
	return th != NULL;
}

/* Creator and context of one occurrence, in output numbers; false where
 * they cannot be put in output numbers. */
struct origin {
	bool has_creator;
	uint32_t creator;
	bool context_known;
	unsigned context_depth;
	uint32_t context[PROFILE_CONTEXT_MAX];
};

static void find_origin(const struct merge *m, const struct input_ref *ref,
			struct origin *o)
{
	const struct profile_thread *th = ref->thing;

	o->has_creator = th->has_creator &&
			 merge_map_thread(m, ref->input, th->creator,
					  &o->creator);
	o->context_known = true;
	o->context_depth = th->context_depth;
	for (unsigned d = 0; d < th->context_depth; d++)
		if (!merge_map_region(m, ref->input, th->context[d],
				      &o->context[d]))
			o->context_known = false;
}

/* Counters add; creator and context are kept where all occurrences
 * agree. */
static void merge_thread(struct merge *m, const struct thread_ref *refs,
			 const struct thread_group *g)
{
	struct profile_thread *th = &m->out->threads[m->out->n_threads++];
	struct origin first = { 0 }, o = { 0 };
	bool creator_agreed = true, context_agreed = true;

	th->ordinal = g->ordinal;
	if (group_thread(g, refs)->name)
		th->name = xstrdup(group_thread(g, refs)->name);
	for (size_t r = g->first; r < g->first + g->count; r++) {
		const struct profile_thread *in = refs[r].ref.thing;
		merge_add(m, &th->in_bytes, in->in_bytes);
		merge_add(m, &th->in_calls, in->in_calls);
		merge_add(m, &th->out_bytes, in->out_bytes);
		merge_add(m, &th->out_calls, in->out_calls);
		th->sampled |= in->sampled;
		merge_add(m, &th->samples, in->samples);
		merge_add(m, &th->cpu_ns, in->cpu_ns);
		merge_add(m, &th->library_ns, in->library_ns);
		merge_add(m, &th->library_samples, in->library_samples);
		merge_add(m, &th->ended_threads, in->ended_threads);

		find_origin(m, &refs[r].ref, r == g->first ? &first : &o);
		if (r == g->first) {
			creator_agreed = first.has_creator;
			context_agreed = first.context_known;
			continue;
		}
		if (!o.has_creator || o.creator != first.creator)
			creator_agreed = false;
		if (!o.context_known || o.context_depth != first.context_depth ||
		    memcmp(o.context, first.context,
			   first.context_depth * sizeof(*first.context)))
			context_agreed = false;
	}
	if (creator_agreed) {
		th->has_creator = true;
		th->creator = first.creator;
	}
	if (context_agreed) {
		th->context_depth = first.context_depth;
		memcpy(th->context, first.context,
		       first.context_depth * sizeof(*first.context));
	}
}

void merge_threads(struct merge *m)
{
	size_t n_refs;
	struct thread_ref *refs = thread_refs(m, &n_refs);

	qsort(refs, n_refs, sizeof(*refs), compare_thread_refs);
	struct thread_group *groups = xcalloc(n_refs, sizeof(*groups));
	size_t n_groups = 0;
	for (size_t r = 0; r < n_refs; r++) {
		if (r && !compare_thread_refs(&refs[r - 1], &refs[r])) {
			groups[n_groups - 1].count++;
			continue;
		}
		groups[n_groups++] = (struct thread_group){ r, 1, 0 };
	}
	number_threads(groups, n_groups, refs);
	for (size_t g = 0; g < n_groups; g++)
		for (size_t r = groups[g].first;
		     r < groups[g].first + groups[g].count; r++)
			m->maps[refs[r].ref.input].thread[refs[r].ref.index] =
				groups[g].ordinal;

	qsort(groups, n_groups, sizeof(*groups), compare_groups);
	m->out->threads = xcalloc(n_groups, sizeof(*m->out->threads));
	for (size_t g = 0; g < n_groups; g++)
		merge_thread(m, refs, &groups[g]);
	free(groups);
	free(refs);
}
