/*
 * profile_merge.c - merging profiles into one, in canonical form (see
 * profile_merge.h and docs/merge.md): the order of the steps (each in a
 * file of its own, see profile_merge_internal.h), what they share, and
 * the writing of the result.
 */
#define _GNU_SOURCE
#include "profile_merge_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/profile_writer.h"
#include "xalloc.h"

int merge_fail(struct merge *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, m->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The array of one kind of thing of @doc (its threads, say), and their
 * count, by where they are in struct profile_doc. */
static const char *array_at_offset(const struct profile_doc *doc,
				   size_t offset)
{
	return *(const char *const *)((const char *)doc + offset);
}

static size_t count_at_offset(const struct profile_doc *doc, size_t offset)
{
	return *(const size_t *)((const char *)doc + offset);
}

struct input_ref *merge_input_refs(const struct merge *m, size_t array_at,
				   size_t count_at, size_t size,
				   size_t *n_refs)
{
	size_t total = 0;

	for (size_t i = 0; i < m->n_inputs; i++)
		total += count_at_offset(&m->inputs[i], count_at);
	struct input_ref *refs = xcalloc(total, sizeof(*refs));
	*n_refs = 0;
	for (size_t i = 0; i < m->n_inputs; i++) {
		const char *array = array_at_offset(&m->inputs[i], array_at);
		size_t count = count_at_offset(&m->inputs[i], count_at);
		for (size_t j = 0; j < count; j++)
			refs[(*n_refs)++] =
				(struct input_ref){ i, j, array + j * size };
	}
	return refs;
}

int profile_merge(const struct profile_doc *inputs, size_t n,
		  struct profile_doc *out, char *err, size_t errlen)
{
	struct merge m = { inputs, n, xcalloc(n, sizeof(*m.maps)), out,
			   false, err, errlen };
	int rc;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		m.maps[i].thread = xcalloc(inputs[i].n_threads,
					   sizeof(*m.maps[i].thread));
		m.maps[i].module = xcalloc(inputs[i].n_modules,
					   sizeof(*m.maps[i].module));
	}
	if (!n)
		rc = merge_fail(&m, "no profile to merge");
	else
		rc = merge_meta(&m);
	if (!rc) {
		merge_regions(&m);
		merge_threads(&m);
		merge_tuples(&m);
		merge_activations(&m);
		merge_modules(&m);
		merge_symbols(&m);
		rc = merge_trees(&m);
	}
	if (!rc && m.overflow) {
		merge_fail(&m, "the counts of the profiles add up to more than "
			       "64 bits hold; they cannot be merged");
		rc = -EOVERFLOW;
	}
	for (size_t i = 0; i < n; i++) {
		free(m.maps[i].thread);
		free(m.maps[i].module);
	}
	free(m.maps);
	if (rc)
		profile_doc_free(out);
	return rc;
}

int profile_merge_write(const struct profile_doc *doc, const char *path)
{
	struct profile_writer *w = xcalloc(1, sizeof(*w));
	bool corrections = false, objects = false;
	int rc;

	for (size_t i = 0; i < doc->n_tuples && !corrections; i++)
		corrections = doc->tuples[i].data.corrected > 0;
	for (size_t i = 0; i < doc->n_regions && !objects; i++)
		objects = doc->regions[i].object != NULL;
	w->version = profile_format_version_for(doc->n_activations > 0,
						corrections, objects);
	rc = profile_writer_open(w, path);

	if (rc) {
		free(w);
		return rc;
	}
	for (size_t i = 0; i < doc->n_meta; i++)
		profile_writer_meta_raw(w, doc->meta[i].key, doc->meta[i].value);
	for (size_t i = 0; i < doc->n_regions; i++) {
		profile_writer_region(w, doc->regions[i].id,
				      doc->regions[i].name);
		if (doc->regions[i].object)
			profile_writer_object(w, doc->regions[i].id,
					      doc->regions[i].object);
	}
	for (size_t i = 0; i < doc->n_threads; i++) {
		const struct profile_thread *th = &doc->threads[i];
		struct thread_info info = {
			.ordinal = th->ordinal,
			.name = th->name,
			.has_creator = th->has_creator,
			.creator = th->creator,
			.context = th->context,
			.context_depth = th->context_depth,
			.in_bytes = th->in_bytes,
			.in_calls = th->in_calls,
			.out_bytes = th->out_bytes,
			.out_calls = th->out_calls,
			.sampled = th->sampled,
			.samples = th->samples,
			.cpu_ns = th->cpu_ns,
			.library_ns = th->library_ns,
			.library_samples = th->library_samples,
			.ended_threads = th->ended_threads,
		};
		profile_writer_thread(w, &info);
	}
	for (size_t i = 0; i < doc->n_tuples; i++)
		profile_writer_tuple(w, doc->tuples[i].thread,
				     &doc->tuples[i].data);
	for (size_t i = 0; i < doc->n_activations; i++) {
		const struct profile_activations *a = &doc->activations[i];
		profile_writer_activations(w, a->region, a->thread,
					   a->activations, a->measured);
	}
	for (size_t i = 0; i < doc->n_modules; i++) {
		const struct profile_module *m = &doc->modules[i];
		profile_writer_module(w, m->id, m->start, m->end, m->base,
				      m->unloaded, m->path);
	}
	for (size_t i = 0; i < doc->n_symbols; i++) {
		const struct profile_symbol *s = &doc->symbols[i];
		profile_writer_symbol(w, s->module, s->offset, s->name,
				      s->name_offset);
	}
	for (size_t i = 0; i < doc->n_cct; i++) {
		const struct profile_cct *c = &doc->cct[i];
		struct cct_line line = {
			.thread = c->thread,
			.node = c->node,
			.has_parent = c->has_parent,
			.parent = c->parent,
			.kind = c->kind,
			.a = c->a,
			.b = c->b,
			.samples = c->samples,
			.work = c->work,
			.idleness_millionths = c->idleness_millionths,
			.overhead = c->overhead,
			.blocked = c->blocked,
		};
		profile_writer_cct(w, &line);
	}
	rc = profile_writer_commit(w);
	free(w);
	return rc;
}
