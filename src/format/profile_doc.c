/*
 * profile_doc.c - the document a profile was read into (see
 * profile_doc.h): its lookups, its symbols, and freeing it.  Reading a
 * file into one: profile_read.c and profile_doc_lines.c.
 */
#include "format/profile_doc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int compare_symbols(const void *a, const void *b)
{
	const struct profile_symbol *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void profile_doc_free(struct profile_doc *doc)
{
	for (size_t i = 0; i < doc->n_meta; i++) {
		free(doc->meta[i].key);
		free(doc->meta[i].value);
	}
	for (size_t i = 0; i < doc->n_regions; i++) {
		free(doc->regions[i].name);
		free(doc->regions[i].object);
	}
	for (size_t i = 0; i < doc->n_threads; i++)
		free(doc->threads[i].name);
	free(doc->meta);
	free(doc->regions);
	free(doc->threads);
	free(doc->tuples);
	free(doc->activations);
	for (size_t i = 0; i < doc->n_modules; i++)
		free(doc->modules[i].path);
	for (size_t i = 0; i < doc->n_symbols; i++)
		free(doc->symbols[i].name);
	free(doc->modules);
	free(doc->symbols);
	free(doc->cct);
	free(doc->path);
	if (doc->free_lookups)
		doc->free_lookups(doc->lookups);
	memset(doc, 0, sizeof(*doc));
}

const char *profile_meta(const struct profile_doc *doc, const char *key)
{
	for (size_t i = 0; i < doc->n_meta; i++)
		if (!strcmp(doc->meta[i].key, key))
			return doc->meta[i].value;
	return NULL;
}

uint64_t profile_meta_u64(const struct profile_doc *doc, const char *key,
			  uint64_t missing)
{
	const char *value = profile_meta(doc, key);
	uint64_t n;

	return value && profile_parse_u64(value, &n) ? n : missing;
}

struct profile_region *profile_region(const struct profile_doc *doc,
				      uint32_t id)
{
	if (id < doc->n_regions && doc->regions[id].id == id)
		return &doc->regions[id];
	for (size_t i = 0; i < doc->n_regions; i++)
		if (doc->regions[i].id == id)
			return &doc->regions[i];
	return NULL;
}

const char *profile_region_name(const struct profile_doc *doc, uint32_t id)
{
	const struct profile_region *r = profile_region(doc, id);

	return r ? r->name : NULL;
}

const struct profile_module *profile_module(const struct profile_doc *doc,
					    uint32_t id)
{
	if (id < doc->n_modules && doc->modules[id].id == id)
		return &doc->modules[id];
	for (size_t i = 0; i < doc->n_modules; i++)
		if (doc->modules[i].id == id)
			return &doc->modules[i];
	return NULL;
}

const struct profile_thread *profile_thread(const struct profile_doc *doc,
					    uint32_t ordinal)
{
	if (ordinal < doc->n_threads && doc->threads[ordinal].ordinal == ordinal)
		return &doc->threads[ordinal];
	for (size_t i = 0; i < doc->n_threads; i++)
		if (doc->threads[i].ordinal == ordinal)
			return &doc->threads[i];
	return NULL;
}

const struct profile_symbol *profile_find_symbol(
	const struct profile_doc *doc, uint32_t module, uint64_t offset)
{
	struct profile_symbol key = { module, offset, NULL, 0 };

	if (!doc->n_symbols)
		return NULL;
	return bsearch(&key, doc->symbols, doc->n_symbols,
		       sizeof(*doc->symbols), compare_symbols);
}

int profile_add_symbols(struct profile_doc *doc,
			struct profile_symbol *symbols, size_t n)
{
	size_t kept = doc->n_symbols;

	if (n) {
		struct profile_symbol *all = realloc(
			doc->symbols, (kept + n) * sizeof(*doc->symbols));
		if (!all)
			return -ENOMEM;
		doc->symbols = all;
	}
	for (size_t i = 0; i < n; i++) {
		if (profile_find_symbol(doc, symbols[i].module,
					symbols[i].offset))
			free(symbols[i].name);
		else
			doc->symbols[kept++] = symbols[i];
	}
	if (kept)
		qsort(doc->symbols, kept, sizeof(*doc->symbols),
		      compare_symbols);
	/* One name per address: the first of those met twice. */
	doc->n_symbols = 0;
	for (size_t i = 0; i < kept; i++) {
		struct profile_symbol *s = &doc->symbols[i];
		if (doc->n_symbols &&
		    !compare_symbols(&doc->symbols[doc->n_symbols - 1], s))
			free(s->name);
		else
			doc->symbols[doc->n_symbols++] = *s;
	}
	return 0;
}
