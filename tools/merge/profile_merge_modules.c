/*
 * profile_merge_modules.c - the modules and symbols of a merge: one
 * module per path (a file loaded twice in a process, or in several
 * processes, is one module), and the union of the names of their
 * addresses.
 */
#include "profile_merge_internal.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* By path, then the lowest load first. */
static int compare_module_refs(const void *a, const void *b)
{
	const struct profile_module *x = ((const struct input_ref *)a)->thing;
	const struct profile_module *y = ((const struct input_ref *)b)->thing;
	int c = strcmp(x->path, y->path);

	if (!c)
		c = merge_compare_u64(x->base, y->base);
	if (!c)
		c = merge_compare_u64(x->start, y->start);
	if (!c)
		c = merge_compare_u64(x->end, y->end);
	return c;
}

/* Numbered in path order, with the addresses of the lowest load; loaded
 * if it was loaded at the end of any input. */
void merge_modules(struct merge *m)
{
	struct profile_doc *out = m->out;
	size_t n_refs;
	struct input_ref *refs = INPUT_REFS(m, modules, &n_refs);

	qsort(refs, n_refs, sizeof(*refs), compare_module_refs);
	out->modules = xcalloc(n_refs, sizeof(*out->modules));
	for (size_t r = 0; r < n_refs; r++) {
		const struct profile_module *in = refs[r].thing;
		struct profile_module *o =
			out->n_modules ? &out->modules[out->n_modules - 1]
				       : NULL;
		if (!o || strcmp(o->path, in->path)) {
			o = &out->modules[out->n_modules];
			o->id = (uint32_t)out->n_modules++;
			o->start = in->start;
			o->end = in->end;
			o->base = in->base;
			o->unloaded = true;
			o->path = xstrdup(in->path);
		}
		o->unloaded &= in->unloaded;
		m->maps[refs[r].input].module[refs[r].index] = o->id;
	}
	free(refs);
}

bool merge_map_module(const struct merge *m, size_t input, uint64_t id,
		      uint32_t *mapped)
{
	const struct profile_doc *doc = &m->inputs[input];

	if (id == UNKNOWN_MODULE) {
		*mapped = UNKNOWN_MODULE;
		return true;
	}
	const struct profile_module *module =
		id <= UINT32_MAX ? profile_module(doc, (uint32_t)id) : NULL;
	if (module)
		*mapped = m->maps[input].module[module - doc->modules];
	return module != NULL;
}

/* By address, then by name: the first of an address's names is the one
 * kept. */
static int compare_symbols(const void *a, const void *b)
{
	const struct profile_symbol *x = a, *y = b;
	int c = merge_compare_u64(x->module, y->module);

	if (!c)
		c = merge_compare_u64(x->offset, y->offset);
	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = merge_compare_u64(x->name_offset, y->name_offset);
	return c;
}

/* The union; where inputs name an address differently (different builds
 * of one file), the first name in byte order. */
void merge_symbols(struct merge *m)
{
	struct profile_doc *out = m->out;
	size_t n_all;
	struct input_ref *refs = INPUT_REFS(m, symbols, &n_all);
	struct profile_symbol *all = xcalloc(n_all, sizeof(*all));

	for (size_t r = 0; r < n_all; r++) {
		struct profile_symbol *s = &all[r];
		*s = *(const struct profile_symbol *)refs[r].thing;
		/* The reader made sure the module is declared. */
		merge_map_module(m, refs[r].input, s->module, &s->module);
	}
	free(refs);
	qsort(all, n_all, sizeof(*all), compare_symbols);
	out->symbols = xcalloc(n_all, sizeof(*out->symbols));
	for (size_t k = 0; k < n_all; k++) {
		const struct profile_symbol *last =
			out->n_symbols ? &out->symbols[out->n_symbols - 1]
				       : NULL;
		if (last && last->module == all[k].module &&
		    last->offset == all[k].offset)
			continue;
		struct profile_symbol *s = &out->symbols[out->n_symbols++];
		*s = all[k];
		s->name = xstrdup(all[k].name);
	}
	free(all);
}
