/*
 * pprof_samples.c - the profiles' sampled trees in pprof's terms (see
 * pprof_internal.h):
 *   - one Mapping per module path (address range and base from the first
 *     profile that has it);
 *   - one Function per distinct frame name, with the module's path as its
 *     file name; regions and thread starts are functions too;
 *   - one Location per function and address (the module's base in the
 *     first profile plus the frame's offset), one Line each;
 *   - one Sample per distinct stack, thread and region.
 */
#define _GNU_SOURCE
#include "pprof_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cct_view.h"
#include "xalloc.h"

#define GROW(arr, n)                                                       \
	do {                                                               \
		if (((n) & ((n)-1)) == 0)                                  \
			(arr) = xrealloc((arr), 2 * ((n) + 1) * sizeof(*(arr))); \
	} while (0)

static uint64_t function_id(struct exporter *x, const char *name,
			    int64_t file)
{
	int64_t s = intern(&x->strings, name);
	/* Functions of the same name in different files are different. */
	uint64_t *id = map_at(&x->function_of, (uint64_t)s, (uint64_t)file, 0);

	if (!*id) {
		GROW(x->functions, x->n_functions);
		Pprof__Function *f = &x->functions[x->n_functions];
		pprof__function__init(f);
		f->id = ++x->n_functions;
		f->name = s;
		f->system_name = s;
		f->filename = file;
		*id = f->id;
	}
	return *id;
}

static uint64_t mapping_id(struct exporter *x, const struct profile_module *m)
{
	int64_t file = intern(&x->strings, m->path);
	uint64_t *id = map_at(&x->mapping_of, (uint64_t)file, 0, 0);

	if (!*id) {
		GROW(x->mappings, x->n_mappings);
		GROW(x->mapping_base, x->n_mappings);
		Pprof__Mapping *p = &x->mappings[x->n_mappings];
		pprof__mapping__init(p);
		p->id = x->n_mappings + 1;
		p->memory_start = m->start;
		p->memory_limit = m->end;
		/* The ELF address of the start, which is the file offset of
		 * the usual first executable segment. */
		p->file_offset = m->start >= m->base ? m->start - m->base : 0;
		p->filename = file;
		/* Every location has its function already: readers need not
		 * look for symbols. */
		p->has_functions = true;
		x->mapping_base[x->n_mappings] = m->base;
		*id = p->id;
		x->n_mappings++;
	}
	return *id;
}

static uint64_t location_id(struct exporter *x, uint64_t function,
			    uint64_t mapping, uint64_t address,
			    unsigned line_number)
{
	uint64_t *id = map_at(&x->location_of, function, mapping, address);

	if (!*id) {
		GROW(x->locations, x->n_locations);
		GROW(x->lines, x->n_locations);
		Pprof__Location *l = &x->locations[x->n_locations];
		Pprof__Line *line = &x->lines[x->n_locations];
		pprof__location__init(l);
		pprof__line__init(line);
		l->id = ++x->n_locations;
		l->mapping_id = mapping;
		l->address = address;
		line->function_id = function;
		line->line = line_number;
		*id = l->id;
	}
	return *id;
}

/* The location of a tree node, named as cct_view names it, with its
 * source line where debug information has one. */
static uint64_t node_location(struct exporter *x, struct profile_doc *doc,
			      const struct profile_cct *c,
			      const uint64_t *doc_mappings)
{
	char buf[512];
	const char *name = cct_label(doc, c, false, buf, sizeof(buf));

	if (c->kind != PROFILE_CCT_FRAME)
		return location_id(x, function_id(x, name, 0), 0, 0, 0);
	const struct profile_module *m = profile_module(doc, (uint32_t)c->a);
	if (!m)
		return location_id(x, function_id(x, name, 0), 0, c->b, 0);
	unsigned line = 0;
	const char *debug_name;
	const char *source = profile_source_line(doc, (uint32_t)c->a, c->b,
						 &line, &debug_name);
	if (debug_name && !profile_symbol(doc, (uint32_t)c->a, c->b))
		name = debug_name;
	uint64_t mapping = doc_mappings[m - doc->modules];
	int64_t file = intern(&x->strings, source ? source : m->path);
	return location_id(x, function_id(x, name, file), mapping,
			   x->mapping_base[mapping - 1] + c->b, line);
}

/* The clock, period and times of @doc's samples, which it has.
 * @return its period (ns per sample, 0 if unknown), or -EINVAL with a
 * message in @err if its clock is not that of the samples before. */
static int64_t doc_timing(struct exporter *x, const struct profile_doc *doc,
			  char *err, size_t errlen)
{
	const char *clock = profile_meta(doc, PROFILE_META_SAMPLE_CLOCK);

	clock = clock && !strcmp(clock, "wall") ? "wall" : "cpu";
	if (!x->clock) {
		x->clock = clock;
		x->clock_path = doc->path;
	} else if (strcmp(x->clock, clock)) {
		snprintf(err, errlen,
			 "%s: samples of %s time, but %s has samples of %s "
			 "time; they cannot be combined",
			 doc->path, clock, x->clock_path, x->clock);
		return -EINVAL;
	}
	/* One sample stands for 1/hz s of the clock; 0 if unknown. */
	int64_t period = 0;
	uint64_t hz = profile_meta_u64(doc, PROFILE_META_SAMPLE_HZ, 0);
	if (hz)
		period = (int64_t)((1000000000u + hz / 2) / hz);
	if (!x->period)
		x->period = period;
	uint64_t ns = profile_meta_u64(doc, PROFILE_META_START_NS, 0);
	if (ns && (!x->start_ns || ns < x->start_ns))
		x->start_ns = ns;
	ns = profile_meta_u64(doc, PROFILE_META_END_NS, 0);
	if (ns > x->end_ns)
		x->end_ns = ns;
	return period;
}

/* A tree node of the document being added. */
struct node {
	size_t parent;     /* its index; SIZE_MAX: none */
	uint64_t location;
	int64_t region;    /* the innermost region above it, 0: none */
	size_t depth;
};

/* Every node of @doc's trees: its parent, location and region. */
static struct node *place_nodes(struct exporter *x, struct profile_doc *doc)
{
	struct node *nodes = xcalloc(doc->n_cct, sizeof(*nodes));
	uint64_t *doc_mappings = xcalloc(doc->n_modules,
					 sizeof(*doc_mappings));

	for (size_t i = 0; i < doc->n_modules; i++)
		doc_mappings[i] = mapping_id(x, &doc->modules[i]);
	map_clear(&x->node_of);
	for (size_t i = 0; i < doc->n_cct; i++) {
		const struct profile_cct *c = &doc->cct[i];
		struct node *n = &nodes[i];
		/* A parent not seen before makes a root, as in cct_view. */
		uint64_t p = c->has_parent ? map_get(&x->node_of, c->thread,
						     c->parent, 0)
					   : 0;
		n->parent = p ? (size_t)(p - 1) : SIZE_MAX;
		n->location = node_location(x, doc, c, doc_mappings);
		if (c->kind == PROFILE_CCT_REGION) {
			const char *name = profile_region_name(doc,
							       (uint32_t)c->a);
			n->region = intern(&x->strings, name ? name : "?");
		} else {
			n->region = p ? nodes[n->parent].region : 0;
		}
		n->depth = p ? nodes[n->parent].depth + 1 : 1;
		/* Nodes are numbered per thread; a number seen again is the
		 * later node from now on (its parent is always earlier, so
		 * every path ends). */
		*map_at(&x->node_of, c->thread, c->node, 0) = i + 1;
	}
	free(doc_mappings);
	return nodes;
}

/* A sample for every node of @doc that ended samples. */
static void add_samples(struct exporter *x, const struct profile_doc *doc,
			const struct node *nodes, int64_t period)
{
	for (size_t i = 0; i < doc->n_cct; i++) {
		const struct profile_cct *c = &doc->cct[i];
		char name[16];
		if (!c->samples)
			continue;
		const struct profile_thread *th = profile_thread(doc,
								 c->thread);
		snprintf(name, sizeof(name), "%" PRIu32, c->thread);
		GROW(x->samples, x->n_samples);
		struct sample *s = &x->samples[x->n_samples++];
		s->locations = xcalloc(nodes[i].depth, sizeof(*s->locations));
		s->depth = 0;
		for (size_t j = i; j != SIZE_MAX; j = nodes[j].parent)
			s->locations[s->depth++] = nodes[j].location;
		s->thread = intern(&x->strings,
				   th && th->name ? th->name : name);
		s->region = nodes[i].region;
		s->values[V_SAMPLES] = (int64_t)c->samples;
		s->values[V_TIME] = (int64_t)c->samples * period;
		s->values[V_WORK] = (int64_t)c->work;
		s->values[V_OVERHEAD] = (int64_t)c->overhead;
	}
}

int exporter_add(struct exporter *x, struct profile_doc *doc, char *err,
		 size_t errlen)
{
	uint64_t total = 0;

	for (size_t i = 0; i < doc->n_cct; i++)
		total += doc->cct[i].samples;
	if (!total)
		return 0;
	int64_t period = doc_timing(x, doc, err, errlen);
	if (period < 0)
		return (int)period;
	struct node *nodes = place_nodes(x, doc);
	add_samples(x, doc, nodes, period);
	free(nodes);
	return 0;
}

static int compare_samples(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	for (size_t i = 0; i < x->depth; i++)
		if (x->locations[i] != y->locations[i])
			return x->locations[i] < y->locations[i] ? -1 : 1;
	return 0;
}

void exporter_merge_samples(struct exporter *x)
{
	size_t out = 0;

	if (x->n_samples)
		qsort(x->samples, x->n_samples, sizeof(*x->samples),
		      compare_samples);
	for (size_t i = 0; i < x->n_samples; i++) {
		struct sample *s = &x->samples[i];
		if (out && !compare_samples(&x->samples[out - 1], s)) {
			for (int v = 0; v < N_VALUES; v++)
				x->samples[out - 1].values[v] += s->values[v];
			free(s->locations);
		} else {
			x->samples[out++] = *s;
		}
	}
	x->n_samples = out;
}

void exporter_free(struct exporter *x)
{
	strings_free(&x->strings);
	free(x->function_of.slots);
	free(x->mapping_of.slots);
	free(x->location_of.slots);
	free(x->node_of.slots);
	free(x->functions);
	free(x->mappings);
	free(x->mapping_base);
	free(x->locations);
	free(x->lines);
	for (size_t i = 0; i < x->n_samples; i++)
		free(x->samples[i].locations);
	free(x->samples);
}
