/*
 * pprof_export.c - sampled call stacks as a pprof profile (see
 * pprof_export.h and profile.proto): the samples gathered
 * (pprof_samples.c) made into the protobuf-c messages generated from
 * profile.proto, packed by libprotobuf-c and gzip-compressed by zlib.
 * Every string is in one string table, entry 0 the empty string.
 */
#define _GNU_SOURCE
#include "pprof_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "xalloc.h"

/* The arrays of pointers the messages hold, and the messages they point
 * to that are not in the exporter. */
struct message {
	Pprof__Profile profile;
	Pprof__ValueType types[N_VALUES], period_type;
	Pprof__ValueType *type_ptrs[N_VALUES];
	int64_t *comments;
	Pprof__Sample *samples, **sample_ptrs;
	Pprof__Label *labels, **label_ptrs;
	Pprof__Mapping **mapping_ptrs;
	Pprof__Location **location_ptrs;
	Pprof__Line **line_ptrs;
	Pprof__Function **function_ptrs;
};

/* samples, the clock's time (cpu or wall) in ns, work, overhead. */
static void set_sample_types(struct message *m, struct exporter *x)
{
	static const char *const type_names[N_VALUES][2] = {
		[V_SAMPLES] = { "samples", "count" },
		[V_TIME] = { NULL, "nanoseconds" }, /* cpu or wall */
		[V_WORK] = { "work", "count" },
		[V_OVERHEAD] = { "overhead", "count" },
	};
	Pprof__Profile *p = &m->profile;

	for (int v = 0; v < N_VALUES; v++) {
		pprof__value_type__init(&m->types[v]);
		m->types[v].type = intern(&x->strings, type_names[v][0]
							       ? type_names[v][0]
							       : x->clock);
		m->types[v].unit = intern(&x->strings, type_names[v][1]);
		m->type_ptrs[v] = &m->types[v];
	}
	p->n_sample_type = N_VALUES;
	p->sample_type = m->type_ptrs;
	p->default_sample_type = m->types[V_TIME].type;
	m->period_type = m->types[V_TIME];
	p->period_type = &m->period_type;
	p->period = x->period;
	p->time_nanos = (int64_t)x->start_ns;
	if (x->start_ns && x->end_ns > x->start_ns)
		p->duration_nanos = (int64_t)(x->end_ns - x->start_ns);
}

/* "trms profile PATH" for every profile read. */
static void set_comments(struct message *m, struct exporter *x,
			 const struct profile_doc *docs, size_t n_docs)
{
	m->comments = xcalloc(n_docs, sizeof(*m->comments));
	for (size_t i = 0; i < n_docs; i++) {
		char *text;
		xasprintf(&text, "trms profile %s", docs[i].path);
		m->comments[i] = intern(&x->strings, text);
		free(text);
	}
	m->profile.n_comment = n_docs;
	m->profile.comment = m->comments;
}

/* The samples, each with its thread label and region label (if any). */
static void set_samples(struct message *m, struct exporter *x)
{
	/* Labels are interned before the table is handed over. */
	int64_t key_thread = intern(&x->strings, "thread");
	int64_t key_region = intern(&x->strings, "region");

	m->samples = xcalloc(x->n_samples, sizeof(*m->samples));
	m->sample_ptrs = xcalloc(x->n_samples, sizeof(*m->sample_ptrs));
	m->labels = xcalloc(2 * x->n_samples, sizeof(*m->labels));
	m->label_ptrs = xcalloc(2 * x->n_samples, sizeof(*m->label_ptrs));
	for (size_t i = 0; i < x->n_samples; i++) {
		struct sample *s = &x->samples[i];
		Pprof__Sample *sm = &m->samples[i];
		pprof__sample__init(sm);
		sm->n_location_id = s->depth;
		sm->location_id = s->locations;
		sm->n_value = N_VALUES;
		sm->value = s->values;
		sm->label = &m->label_ptrs[2 * i];
		Pprof__Label *l = &m->labels[2 * i];
		pprof__label__init(l);
		l->key = key_thread;
		l->str = s->thread;
		sm->label[sm->n_label++] = l;
		if (s->region) {
			pprof__label__init(++l);
			l->key = key_region;
			l->str = s->region;
			sm->label[sm->n_label++] = l;
		}
		m->sample_ptrs[i] = sm;
	}
	m->profile.n_sample = x->n_samples;
	m->profile.sample = m->sample_ptrs;
}

/* Mappings, locations (one line each), functions and the strings. */
static void set_tables(struct message *m, struct exporter *x)
{
	Pprof__Profile *p = &m->profile;

	m->mapping_ptrs = xcalloc(x->n_mappings, sizeof(*m->mapping_ptrs));
	for (size_t i = 0; i < x->n_mappings; i++)
		m->mapping_ptrs[i] = &x->mappings[i];
	p->n_mapping = x->n_mappings;
	p->mapping = m->mapping_ptrs;
	m->location_ptrs = xcalloc(x->n_locations, sizeof(*m->location_ptrs));
	m->line_ptrs = xcalloc(x->n_locations, sizeof(*m->line_ptrs));
	for (size_t i = 0; i < x->n_locations; i++) {
		m->line_ptrs[i] = &x->lines[i];
		x->locations[i].n_line = 1;
		x->locations[i].line = &m->line_ptrs[i];
		m->location_ptrs[i] = &x->locations[i];
	}
	p->n_location = x->n_locations;
	p->location = m->location_ptrs;
	m->function_ptrs = xcalloc(x->n_functions, sizeof(*m->function_ptrs));
	for (size_t i = 0; i < x->n_functions; i++)
		m->function_ptrs[i] = &x->functions[i];
	p->n_function = x->n_functions;
	p->function = m->function_ptrs;
	p->n_string_table = x->strings.n;
	p->string_table = x->strings.v;
}

static void message_free(struct message *m)
{
	free(m->comments);
	free(m->samples);
	free(m->sample_ptrs);
	free(m->labels);
	free(m->label_ptrs);
	free(m->mapping_ptrs);
	free(m->location_ptrs);
	free(m->line_ptrs);
	free(m->function_ptrs);
}

/* @len bytes of @data gzip-compressed, into a new buffer. */
static uint8_t *gzip_bytes(const uint8_t *data, size_t len, size_t *out_len)
{
	z_stream z;
	size_t cap = len / 2 + 1024;
	uint8_t *out = xrealloc(NULL, cap);
	int rc;

	memset(&z, 0, sizeof(z));
	/* 16 + 15: the gzip wrapper around the largest window. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		out_of_memory();
	do {
		if (!z.avail_in && len) {
			z.next_in = (Bytef *)data;
			z.avail_in = len > (1u << 30) ? (1u << 30) : (uInt)len;
			data += z.avail_in;
			len -= z.avail_in;
		}
		if (z.total_out == cap) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		z.next_out = out + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out > (1u << 30)
					     ? (1u << 30)
					     : cap - z.total_out);
		rc = deflate(&z, len ? Z_NO_FLUSH : Z_FINISH);
	} while (rc == Z_OK || rc == Z_BUF_ERROR);
	if (rc != Z_STREAM_END)
		out_of_memory(); /* zlib fails on memory only */
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

int pprof_build(struct profile_doc *docs, size_t n_docs,
		const char *destination, uint8_t **out, size_t *len,
		char *err, size_t errlen)
{
	struct exporter x = { 0 };
	struct message m = { .profile = PPROF__PROFILE__INIT };
	int rc = 0;

	intern(&x.strings, ""); /* entry 0 */
	for (size_t i = 0; i < n_docs && !rc; i++)
		rc = exporter_add(&x, &docs[i], err, errlen);
	if (!rc && !x.n_samples) {
		snprintf(err, errlen,
			 "no call-stack samples in %s; %s not written "
			 "(TRMS_SAMPLE_HZ=0?)",
			 n_docs == 1 ? "this profile" : "these profiles",
			 destination);
		rc = -EINVAL;
	}
	if (!rc) {
		exporter_merge_samples(&x);
		set_sample_types(&m, &x);
		set_comments(&m, &x, docs, n_docs);
		set_samples(&m, &x);
		set_tables(&m, &x);
		size_t packed_len = pprof__profile__get_packed_size(&m.profile);
		uint8_t *packed = xcalloc(packed_len, 1);
		pprof__profile__pack(&m.profile, packed);
		*out = gzip_bytes(packed, packed_len, len);
		free(packed);
	}
	message_free(&m);
	exporter_free(&x);
	return rc;
}
