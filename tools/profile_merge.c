/*
 * profile_merge.c - merging profiles into one, in canonical form (see
 * profile_merge.h and docs/merge.md).
 *
 * Everything that identifies a thing across profiles is text or a
 * combination of things identified already: regions by name, threads by
 * name or else ordinal, modules by path, frames by module and offset,
 * tree nodes by their path from the top of their thread's tree.  The
 * output numbers each kind of thing in an order that depends only on
 * these identities, and combines what the inputs say of one thing only
 * with operations that ignore order and grouping (sums, minima, maxima,
 * "all agree"); that is what makes the file written canonical.
 */
#define _GNU_SOURCE
#include "profile_merge.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/profile_writer.h"

/* The module number of a frame that was in no known module. */
#define UNKNOWN_MODULE 0xffffffu
#define NONE SIZE_MAX

static void out_of_memory(void)
{
	fprintf(stderr, "trms: out of memory\n");
	exit(1);
}

static void *allocate(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

static char *copy_text(const char *s)
{
	char *d = strdup(s);

	if (!d)
		out_of_memory();
	return d;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' ||
		    __builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v))
			return false;
	}
	*out = v;
	return true;
}

/* *into += v, noting in *overflow if the sum does not fit. */
static void add(uint64_t *into, uint64_t v, bool *overflow)
{
	if (__builtin_add_overflow(*into, v, into))
		*overflow = true;
}

static int compare_u64(uint64_t x, uint64_t y)
{
	return x < y ? -1 : x > y;
}

/* --- Reading ----------------------------------------------------------- */

/* The samples= and cpu_ns= fields of one thread line (after "thread "),
 * which the reader has already checked otherwise. */
static int read_thread_sampling(struct merge_profile *p, char *fields,
				size_t line, char *err, size_t errlen)
{
	char *save = NULL;
	const char *ordinal_text = strtok_r(fields, " ", &save);
	uint64_t ordinal;
	const struct profile_thread *th = NULL;

	if (ordinal_text && parse_u64(ordinal_text, &ordinal) &&
	    ordinal <= UINT32_MAX)
		th = profile_thread(&p->doc, (uint32_t)ordinal);
	if (!th)
		return fail(err, errlen,
			    "%s:%zu: thread line not as read before (did the "
			    "file change?)",
			    p->doc.path, line);
	struct thread_sampling *s = &p->sampling[th - p->doc.threads];
	for (char *field; (field = strtok_r(NULL, " ", &save));) {
		uint64_t *into = NULL;
		if (!strncmp(field, "samples=", 8))
			into = &s->samples;
		else if (!strncmp(field, "cpu_ns=", 7))
			into = &s->cpu_ns;
		if (!into)
			continue;
		if (!parse_u64(strchr(field, '=') + 1, into))
			return fail(err, errlen, "%s:%zu: bad thread field '%s'",
				    p->doc.path, line, field);
		s->sampled = true;
	}
	return 0;
}

/* The reader ignores the thread fields it does not use: read them, in a
 * second pass over the file. */
static int read_sampling(struct merge_profile *p, char *err, size_t errlen)
{
	FILE *f = fopen(p->doc.path, "r");
	char *text = NULL;
	size_t cap = 0, line = 0, threads = 0;
	ssize_t len;
	int rc = 0;

	if (!f)
		return fail(err, errlen, "%s: %s", p->doc.path, strerror(errno));
	while (!rc && (len = getline(&text, &cap, f)) >= 0) {
		line++;
		if (strncmp(text, "thread ", 7))
			continue;
		if (len && text[len - 1] == '\n')
			text[len - 1] = '\0';
		rc = read_thread_sampling(p, text + 7, line, err, errlen);
		threads++;
	}
	if (!rc && ferror(f))
		rc = fail(err, errlen, "%s: read error: %s", p->doc.path,
			  strerror(errno));
	/* A pipe cannot be read twice. */
	if (!rc && threads != p->doc.n_threads)
		rc = fail(err, errlen,
			  "%s: not the same when read again (a pipe, or a "
			  "file that changed)",
			  p->doc.path);
	free(text);
	fclose(f);
	return rc;
}

int merge_profile_read(const char *path, struct merge_profile *profile,
		       char *err, size_t errlen)
{
	profile->sampling = NULL;
	if (profile_read(path, &profile->doc, err, errlen))
		goto failed;
	profile->sampling =
		allocate(profile->doc.n_threads, sizeof(*profile->sampling));
	if (read_sampling(profile, err, errlen))
		goto failed;
	return 0;
failed:
	merge_profile_free(profile);
	return -1;
}

void merge_profile_free(struct merge_profile *profile)
{
	profile_doc_free(&profile->doc);
	free(profile->sampling);
	profile->sampling = NULL;
}

/* --- Meta -------------------------------------------------------------- */

enum meta_rule {
	META_AGREE,      /* kept if every input has the same value */
	META_SUM,        /* the sum over the inputs that have it */
	META_MINIMUM,    /* the smallest ... */
	META_MAXIMUM,    /* the largest ... */
	META_COMPATIBLE, /* inputs that have it must agree */
	META_DERIVED,    /* computed from the sums */
};

/* What must be equal wherever present, and how to say so. */
static const struct {
	const char *key, *fallback, *before, *after;
} compatible_keys[] = {
	{ "cost", "ns", "costs in ", "" },
	{ "granularity", NULL, "cells of ", " bytes (granularity)" },
	{ "sample_clock", NULL, "samples of ", " time (sample_clock)" },
	{ "sample_hz", NULL, "samples at ", " Hz (sample_hz)" },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static enum meta_rule meta_rule(const char *key)
{
	static const char *const sums[] = {
		"merged",	      "renumbers",	   "tuples_skipped",
		"tuples_dropped",     "samples",	   "samples_unattached",
		"sample_handler_ns", "sample_cpu_ns",
	};

	for (size_t i = 0; i < COUNT(sums); i++)
		if (!strcmp(key, sums[i]))
			return META_SUM;
	if (!strncmp(key, "samples_dropped_", 16))
		return META_SUM;
	for (size_t i = 0; i < COUNT(compatible_keys); i++)
		if (!strcmp(key, compatible_keys[i].key))
			return META_COMPATIBLE;
	if (!strcmp(key, "start_ns"))
		return META_MINIMUM;
	if (!strcmp(key, "end_ns"))
		return META_MAXIMUM;
	if (!strcmp(key, "sample_hz_delivered"))
		return META_DERIVED;
	return META_AGREE;
}

/* The value of @key in @in, with what its absence means. */
static const char *meta_value(const struct merge_profile *in,
			      const char *key)
{
	const char *v = profile_meta(&in->doc, key);

	if (v)
		return v;
	if (!strcmp(key, "merged"))
		return "1"; /* a profile that was not merged is one */
	for (size_t i = 0; i < COUNT(compatible_keys); i++)
		if (!strcmp(key, compatible_keys[i].key))
			return compatible_keys[i].fallback;
	return NULL;
}

static int compare_text(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int compare_meta(const void *a, const void *b)
{
	const struct profile_meta *x = a, *y = b;

	return strcmp(x->key, y->key);
}

static void put_meta(struct profile_doc *out, const char *key,
		     const char *value)
{
	struct profile_meta *m = &out->meta[out->n_meta++];

	m->key = copy_text(key);
	m->value = copy_text(value);
}

static void put_meta_u64(struct profile_doc *out, const char *key,
			 uint64_t value)
{
	char text[32];

	snprintf(text, sizeof(text), "%" PRIu64, value);
	put_meta(out, key, text);
}

static int merge_compatible(const struct merge_profile *inputs, size_t n,
			    const char *key, struct profile_doc *out,
			    char *err, size_t errlen)
{
	size_t first = NONE;
	size_t k = 0;

	while (strcmp(compatible_keys[k].key, key))
		k++;
	for (size_t i = 0; i < n; i++) {
		const char *v = meta_value(&inputs[i], key);
		if (!v)
			continue;
		if (first == NONE) {
			first = i;
			continue;
		}
		const char *w = meta_value(&inputs[first], key);
		if (strcmp(v, w))
			return fail(err, errlen,
				    "%s: %s%s%s, but %s has %s%s%s; they "
				    "cannot be merged",
				    inputs[i].doc.path,
				    compatible_keys[k].before, v,
				    compatible_keys[k].after,
				    inputs[first].doc.path,
				    compatible_keys[k].before, w,
				    compatible_keys[k].after);
	}
	if (first != NONE)
		put_meta(out, key, meta_value(&inputs[first], key));
	return 0;
}

static int merge_number(const struct merge_profile *inputs, size_t n,
			const char *key, enum meta_rule rule,
			struct profile_doc *out, bool *overflow, char *err,
			size_t errlen)
{
	bool present = false;
	uint64_t result = 0;

	for (size_t i = 0; i < n; i++) {
		const char *text = meta_value(&inputs[i], key);
		uint64_t v;
		if (!text)
			continue;
		if (!parse_u64(text, &v))
			return fail(err, errlen,
				    "%s: meta %s: '%s' is not a number",
				    inputs[i].doc.path, key, text);
		if (rule == META_SUM)
			add(&result, v, overflow);
		else if (!present || (rule == META_MINIMUM ? v < result
							    : v > result))
			result = v;
		present = true;
	}
	if (present)
		put_meta_u64(out, key, result);
	return 0;
}

static void merge_agreed(const struct merge_profile *inputs, size_t n,
			 const char *key, struct profile_doc *out)
{
	const char *v = meta_value(&inputs[0], key);

	for (size_t i = 1; i < n && v; i++) {
		const char *w = meta_value(&inputs[i], key);
		if (!w || strcmp(v, w))
			v = NULL;
	}
	if (v)
		put_meta(out, key, v);
}

/* The rate the merged samples were delivered at, as the library computes
 * it: samples per second of sampled CPU time. */
static void derive_rate(struct profile_doc *out)
{
	uint64_t samples, cpu_ns;
	const char *s = profile_meta(out, "samples");
	const char *c = profile_meta(out, "sample_cpu_ns");

	if (s && c && parse_u64(s, &samples) && parse_u64(c, &cpu_ns) &&
	    cpu_ns)
		put_meta_u64(out, "sample_hz_delivered",
			     (uint64_t)((double)samples * 1e9 / (double)cpu_ns +
					0.5));
}

static int merge_meta(const struct merge_profile *inputs, size_t n,
		      struct profile_doc *out, bool *overflow, char *err,
		      size_t errlen)
{
	size_t total = 1 + COUNT(compatible_keys);

	for (size_t i = 0; i < n; i++)
		total += inputs[i].doc.n_meta;
	const char **keys = allocate(total, sizeof(*keys));
	size_t n_keys = 0;
	keys[n_keys++] = "merged";
	for (size_t k = 0; k < COUNT(compatible_keys); k++)
		keys[n_keys++] = compatible_keys[k].key;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < inputs[i].doc.n_meta; j++)
			keys[n_keys++] = inputs[i].doc.meta[j].key;
	qsort(keys, n_keys, sizeof(*keys), compare_text);

	out->meta = allocate(n_keys + 1, sizeof(*out->meta));
	int rc = 0;
	for (size_t k = 0; k < n_keys && !rc; k++) {
		if (k && !strcmp(keys[k], keys[k - 1]))
			continue;
		enum meta_rule rule = meta_rule(keys[k]);
		switch (rule) {
		case META_COMPATIBLE:
			rc = merge_compatible(inputs, n, keys[k], out, err,
					      errlen);
			break;
		case META_SUM:
		case META_MINIMUM:
		case META_MAXIMUM:
			rc = merge_number(inputs, n, keys[k], rule, out,
					  overflow, err, errlen);
			break;
		case META_AGREE:
			merge_agreed(inputs, n, keys[k], out);
			break;
		case META_DERIVED:
			break;
		}
	}
	free(keys);
	if (rc)
		return rc;
	derive_rate(out);
	qsort(out->meta, out->n_meta, sizeof(*out->meta), compare_meta);
	return 0;
}

/* --- Regions ----------------------------------------------------------- */

static void merge_regions(const struct merge_profile *inputs, size_t n,
			  struct profile_doc *out)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += inputs[i].doc.n_regions;
	const char **names = allocate(total, sizeof(*names));
	size_t n_names = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < inputs[i].doc.n_regions; j++)
			names[n_names++] = inputs[i].doc.regions[j].name;
	qsort(names, n_names, sizeof(*names), compare_text);
	out->regions = allocate(n_names, sizeof(*out->regions));
	for (size_t k = 0; k < n_names; k++) {
		if (k && !strcmp(names[k], names[k - 1]))
			continue;
		struct profile_region *r = &out->regions[out->n_regions];
		r->id = (uint32_t)out->n_regions++;
		r->name = copy_text(names[k]);
	}
	free(names);
}

static int compare_region_name(const void *key, const void *region)
{
	return strcmp(key, ((const struct profile_region *)region)->name);
}

/* The output id of region @id of @doc; false if @doc does not declare
 * it. */
static bool map_region(const struct profile_doc *doc, uint64_t id,
		       const struct profile_doc *out, uint32_t *mapped)
{
	const char *name =
		id <= UINT32_MAX ? profile_region_name(doc, (uint32_t)id) : NULL;
	const struct profile_region *r =
		name ? bsearch(name, out->regions, out->n_regions,
			       sizeof(*out->regions), compare_region_name)
		     : NULL;

	if (r)
		*mapped = r->id;
	return r != NULL;
}

/* --- Threads ----------------------------------------------------------- */

/* Where the output numbers of an input's threads and modules are. */
struct input_map {
	uint32_t *thread; /* per doc.threads[i]: the output ordinal */
	uint32_t *module; /* per doc.modules[i]: the output id */
};

struct thread_ref {
	size_t input, index; /* inputs[input].doc.threads[index] */
	const struct profile_thread *thread;
};

/* Threads are the same thread if they have the same name, or if neither
 * has a name and they have the same ordinal (as trms report says). */
static int compare_identity(const struct profile_thread *x,
			    const struct profile_thread *y)
{
	if (!x->name != !y->name)
		return x->name ? 1 : -1;
	if (x->name)
		return strcmp(x->name, y->name);
	return compare_u64(x->ordinal, y->ordinal);
}

static int compare_thread_refs(const void *a, const void *b)
{
	const struct thread_ref *x = a, *y = b;

	return compare_identity(x->thread, y->thread);
}

struct thread_group {
	size_t first, count; /* a run of the sorted refs */
	uint32_t ordinal;    /* in the output */
};

static int compare_groups(const void *a, const void *b)
{
	const struct thread_group *x = a, *y = b;

	return compare_u64(x->ordinal, y->ordinal);
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
			refs[groups[unnamed].first].thread;
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

/* The output ordinal of thread @ordinal of input @i, if it declares it. */
static bool map_thread(const struct merge_profile *inputs,
		       const struct input_map *maps, size_t i,
		       uint64_t ordinal, uint32_t *mapped)
{
	const struct profile_thread *th =
		ordinal <= UINT32_MAX
			? profile_thread(&inputs[i].doc, (uint32_t)ordinal)
			: NULL;

	if (th)
		*mapped = maps[i].thread[th - inputs[i].doc.threads];
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

static void find_origin(const struct merge_profile *inputs,
			const struct input_map *maps,
			const struct thread_ref *ref,
			const struct profile_doc *out, struct origin *o)
{
	const struct profile_thread *th = ref->thread;

	o->has_creator = th->has_creator &&
			 map_thread(inputs, maps, ref->input, th->creator,
				    &o->creator);
	o->context_known = true;
	o->context_depth = th->context_depth;
	for (unsigned d = 0; d < th->context_depth; d++)
		if (!map_region(&inputs[ref->input].doc, th->context[d], out,
				&o->context[d]))
			o->context_known = false;
}

/* Counters add; creator and context are kept where all occurrences
 * agree. */
static void merge_thread(const struct merge_profile *inputs,
			 const struct input_map *maps,
			 const struct thread_ref *refs,
			 const struct thread_group *g, struct merge_profile *out,
			 bool *overflow)
{
	struct profile_thread *th = &out->doc.threads[out->doc.n_threads];
	struct thread_sampling *s = &out->sampling[out->doc.n_threads++];
	struct origin first = { 0 }, o = { 0 };
	bool creator_agreed = true, context_agreed = true;

	th->ordinal = g->ordinal;
	if (refs[g->first].thread->name)
		th->name = copy_text(refs[g->first].thread->name);
	for (size_t r = g->first; r < g->first + g->count; r++) {
		const struct profile_thread *in = refs[r].thread;
		const struct thread_sampling *in_s =
			&inputs[refs[r].input].sampling[refs[r].index];
		add(&th->in_bytes, in->in_bytes, overflow);
		add(&th->in_calls, in->in_calls, overflow);
		add(&th->out_bytes, in->out_bytes, overflow);
		add(&th->out_calls, in->out_calls, overflow);
		s->sampled |= in_s->sampled;
		add(&s->samples, in_s->samples, overflow);
		add(&s->cpu_ns, in_s->cpu_ns, overflow);

		find_origin(inputs, maps, &refs[r], &out->doc,
			    r == g->first ? &first : &o);
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

static void merge_threads(const struct merge_profile *inputs, size_t n,
			  struct input_map *maps, struct merge_profile *out,
			  bool *overflow)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += inputs[i].doc.n_threads;
	struct thread_ref *refs = allocate(total, sizeof(*refs));
	size_t n_refs = 0;
	for (size_t i = 0; i < n; i++) {
		maps[i].thread = allocate(inputs[i].doc.n_threads,
					  sizeof(*maps[i].thread));
		for (size_t j = 0; j < inputs[i].doc.n_threads; j++)
			refs[n_refs++] = (struct thread_ref){
				i, j, &inputs[i].doc.threads[j]
			};
	}
	qsort(refs, n_refs, sizeof(*refs), compare_thread_refs);

	struct thread_group *groups = allocate(n_refs, sizeof(*groups));
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
			maps[refs[r].input].thread[refs[r].index] =
				groups[g].ordinal;

	qsort(groups, n_groups, sizeof(*groups), compare_groups);
	out->doc.threads = allocate(n_groups, sizeof(*out->doc.threads));
	out->sampling = allocate(n_groups, sizeof(*out->sampling));
	for (size_t g = 0; g < n_groups; g++)
		merge_thread(inputs, maps, refs, &groups[g], out, overflow);
	free(groups);
	free(refs);
}

/* --- Tuples ------------------------------------------------------------ */

static int compare_tuples(const void *a, const void *b)
{
	const struct profile_tuple *x = a, *y = b;
	int c = compare_u64(x->data.region, y->data.region);

	if (!c)
		c = compare_u64(x->thread, y->thread);
	if (!c)
		c = compare_u64(x->data.metric, y->data.metric);
	if (!c)
		c = compare_u64(x->data.n, y->data.n);
	return c;
}

/* tuple_merge, noting sums that do not fit. */
static void fold_tuple(struct tuple_data *into, const struct tuple_data *t,
		       bool *overflow)
{
	struct tuple_data sums = *into;
	unsigned __int128 sumsq;

	add(&sums.count, t->count, overflow);
	add(&sums.sum, t->sum, overflow);
	add(&sums.induced_thread, t->induced_thread, overflow);
	add(&sums.induced_external, t->induced_external, overflow);
	if (__builtin_add_overflow(into->sumsq, t->sumsq, &sumsq))
		*overflow = true;
	tuple_merge(into, t);
}

static void merge_tuples(const struct merge_profile *inputs, size_t n,
			 const struct input_map *maps,
			 struct profile_doc *out, bool *overflow)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += inputs[i].doc.n_tuples;
	struct profile_tuple *all = allocate(total, sizeof(*all));
	size_t n_all = 0;
	for (size_t i = 0; i < n; i++) {
		const struct profile_doc *doc = &inputs[i].doc;
		for (size_t j = 0; j < doc->n_tuples; j++) {
			struct profile_tuple t = doc->tuples[j];
			/* The reader made sure both are declared. */
			map_region(doc, t.data.region, out, &t.data.region);
			map_thread(inputs, maps, i, t.thread, &t.thread);
			all[n_all++] = t;
		}
	}
	qsort(all, n_all, sizeof(*all), compare_tuples);
	out->tuples = allocate(n_all, sizeof(*out->tuples));
	for (size_t k = 0; k < n_all; k++) {
		if (out->n_tuples &&
		    !compare_tuples(&out->tuples[out->n_tuples - 1], &all[k]))
			fold_tuple(&out->tuples[out->n_tuples - 1].data,
				   &all[k].data, overflow);
		else
			out->tuples[out->n_tuples++] = all[k];
	}
	free(all);
}

/* --- Modules and symbols ----------------------------------------------- */

struct module_ref {
	size_t input, index;
	const struct profile_module *module;
};

static int compare_module_refs(const void *a, const void *b)
{
	const struct profile_module *x = ((const struct module_ref *)a)->module;
	const struct profile_module *y = ((const struct module_ref *)b)->module;
	int c = strcmp(x->path, y->path);

	if (!c)
		c = compare_u64(x->base, y->base);
	if (!c)
		c = compare_u64(x->start, y->start);
	if (!c)
		c = compare_u64(x->end, y->end);
	return c;
}

/* One module per path, numbered in path order, with the addresses of its
 * lowest load; loaded if it was loaded at the end of any input. */
static void merge_modules(const struct merge_profile *inputs, size_t n,
			  struct input_map *maps, struct profile_doc *out)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += inputs[i].doc.n_modules;
	struct module_ref *refs = allocate(total, sizeof(*refs));
	size_t n_refs = 0;
	for (size_t i = 0; i < n; i++) {
		maps[i].module = allocate(inputs[i].doc.n_modules,
					  sizeof(*maps[i].module));
		for (size_t j = 0; j < inputs[i].doc.n_modules; j++)
			refs[n_refs++] = (struct module_ref){
				i, j, &inputs[i].doc.modules[j]
			};
	}
	qsort(refs, n_refs, sizeof(*refs), compare_module_refs);
	out->modules = allocate(n_refs, sizeof(*out->modules));
	for (size_t r = 0; r < n_refs; r++) {
		const struct profile_module *m = refs[r].module;
		struct profile_module *o =
			out->n_modules ? &out->modules[out->n_modules - 1]
				       : NULL;
		if (!o || strcmp(o->path, m->path)) {
			o = &out->modules[out->n_modules];
			o->id = (uint32_t)out->n_modules++;
			o->start = m->start;
			o->end = m->end;
			o->base = m->base;
			o->unloaded = true;
			o->path = copy_text(m->path);
		}
		o->unloaded &= m->unloaded;
		maps[refs[r].input].module[refs[r].index] = o->id;
	}
	free(refs);
}

/* The output module of module @id of input @i, UNKNOWN_MODULE for no
 * known module; false if the input does not declare it. */
static bool map_module(const struct merge_profile *inputs,
		       const struct input_map *maps, size_t i, uint64_t id,
		       uint32_t *mapped)
{
	if (id == UNKNOWN_MODULE) {
		*mapped = UNKNOWN_MODULE;
		return true;
	}
	const struct profile_module *m =
		id <= UINT32_MAX ? profile_module(&inputs[i].doc, (uint32_t)id)
				 : NULL;
	if (m)
		*mapped = maps[i].module[m - inputs[i].doc.modules];
	return m != NULL;
}

static int compare_symbols(const void *a, const void *b)
{
	const struct profile_symbol *x = a, *y = b;
	int c = compare_u64(x->module, y->module);

	if (!c)
		c = compare_u64(x->offset, y->offset);
	if (!c)
		c = strcmp(x->name, y->name);
	if (!c)
		c = compare_u64(x->name_offset, y->name_offset);
	return c;
}

/* The union; where inputs name an address differently (different builds
 * of one file), the first name in byte order. */
static void merge_symbols(const struct merge_profile *inputs, size_t n,
			  const struct input_map *maps,
			  struct profile_doc *out)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += inputs[i].doc.n_symbols;
	struct profile_symbol *all = allocate(total, sizeof(*all));
	size_t n_all = 0;
	for (size_t i = 0; i < n; i++) {
		const struct profile_doc *doc = &inputs[i].doc;
		for (size_t j = 0; j < doc->n_symbols; j++) {
			struct profile_symbol s = doc->symbols[j];
			/* The reader made sure the module is declared. */
			map_module(inputs, maps, i, s.module, &s.module);
			all[n_all++] = s;
		}
	}
	qsort(all, n_all, sizeof(*all), compare_symbols);
	out->symbols = allocate(n_all, sizeof(*out->symbols));
	for (size_t k = 0; k < n_all; k++) {
		const struct profile_symbol *last =
			out->n_symbols ? &out->symbols[out->n_symbols - 1]
				       : NULL;
		if (last && last->module == all[k].module &&
		    last->offset == all[k].offset)
			continue;
		struct profile_symbol *s = &out->symbols[out->n_symbols++];
		*s = all[k];
		s->name = copy_text(all[k].name);
	}
	free(all);
}

/* --- Calling context trees --------------------------------------------- */

/* A node of the merged trees, identified by its thread, its parent and
 * what it is (kind, a, b in output numbers). */
struct tree_node {
	uint32_t thread;
	size_t parent; /* index of the parent node, NONE at the top */
	enum profile_cct_kind kind;
	uint64_t a, b;
	uint64_t samples, work, idleness_millionths, overhead, blocked;
	size_t first_child, n_children; /* a run of the sorted order */
	uint32_t id;			/* in the output */
};

/* Open addressing: slots hold node indices (NONE: free). */
struct node_table {
	size_t *slots;
	size_t mask;
};

/* Maps (thread, node id) of one input to node indices. */
struct id_table {
	uint64_t *keys;
	size_t *nodes;
	size_t mask;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 31);
}

static size_t table_size(size_t entries)
{
	size_t size = 16;

	while (size < 2 * entries)
		size *= 2;
	return size;
}

static size_t *node_slot(struct node_table *t, const struct tree_node *nodes,
			 const struct tree_node *key)
{
	uint64_t h = mix(mix(mix(mix(mix(0, key->thread), key->parent),
				 key->kind),
			     key->a),
			 key->b);

	for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
		size_t *slot = &t->slots[i];
		if (*slot == NONE)
			return slot;
		const struct tree_node *n = &nodes[*slot];
		if (n->thread == key->thread && n->parent == key->parent &&
		    n->kind == key->kind && n->a == key->a && n->b == key->b)
			return slot;
	}
}

/* The slot of node @node of thread @thread: its node index, or NONE where
 * it would go. */
static size_t *id_slot(struct id_table *t, uint32_t thread, uint32_t node)
{
	uint64_t key = (uint64_t)thread << 32 | node;

	for (size_t i = mix(0, key) & t->mask;; i = (i + 1) & t->mask)
		if (t->nodes[i] == NONE || t->keys[i] == key)
			return &t->nodes[i];
}

static void id_insert(struct id_table *t, uint32_t thread, uint32_t node,
		      size_t index)
{
	size_t *slot = id_slot(t, thread, node);

	t->keys[slot - t->nodes] = (uint64_t)thread << 32 | node;
	*slot = index;
}

struct trees {
	struct tree_node *nodes;
	size_t n_nodes;
	struct node_table table;
};

/* What tree line @c of input @i is, in output numbers. */
static int map_node(const struct merge_profile *inputs,
		    const struct input_map *maps, size_t i,
		    const struct profile_cct *c, const struct profile_doc *out,
		    struct tree_node *key, char *err, size_t errlen)
{
	uint32_t mapped;

	map_thread(inputs, maps, i, c->thread, &key->thread);
	key->kind = c->kind;
	key->a = c->a;
	key->b = c->b;
	switch (c->kind) {
	case PROFILE_CCT_REGION:
		if (!map_region(&inputs[i].doc, c->a, out, &mapped))
			return fail(err, errlen,
				    "%s: tree node %" PRIu32
				    " of thread %" PRIu32
				    " is in undeclared region %" PRIu64,
				    inputs[i].doc.path, c->node, c->thread,
				    c->a);
		key->a = mapped;
		break;
	case PROFILE_CCT_FRAME:
		if (!map_module(inputs, maps, i, c->a, &mapped))
			return fail(err, errlen,
				    "%s: tree node %" PRIu32
				    " of thread %" PRIu32
				    " is in undeclared module %" PRIu64,
				    inputs[i].doc.path, c->node, c->thread,
				    c->a);
		key->a = mapped;
		break;
	case PROFILE_CCT_THREAD:
		break;
	}
	return 0;
}

/* Add the trees of input @i, node by node along identical paths. */
static int add_trees(const struct merge_profile *inputs, size_t i,
		     const struct input_map *maps,
		     const struct profile_doc *out, struct trees *t,
		     bool *overflow, char *err, size_t errlen)
{
	const struct profile_doc *doc = &inputs[i].doc;
	size_t size = table_size(doc->n_cct);
	struct id_table ids = { allocate(size, sizeof(uint64_t)),
				allocate(size, sizeof(size_t)), size - 1 };
	int rc = 0;

	memset(ids.nodes, 0xff, size * sizeof(size_t));
	for (size_t j = 0; j < doc->n_cct && !rc; j++) {
		const struct profile_cct *c = &doc->cct[j];
		struct tree_node key = { .parent = NONE };
		if (c->has_parent) {
			key.parent = *id_slot(&ids, c->thread, c->parent);
			if (key.parent == NONE) {
				rc = fail(err, errlen,
					  "%s: tree node %" PRIu32
					  " of thread %" PRIu32
					  " comes before its parent %" PRIu32
					  " or has none",
					  doc->path, c->node, c->thread,
					  c->parent);
				break;
			}
		}
		rc = map_node(inputs, maps, i, c, out, &key, err, errlen);
		if (rc)
			break;
		if (*id_slot(&ids, c->thread, c->node) != NONE) {
			rc = fail(err, errlen,
				  "%s: tree node %" PRIu32 " of thread %" PRIu32
				  " is declared twice",
				  doc->path, c->node, c->thread);
			break;
		}
		size_t *slot = node_slot(&t->table, t->nodes, &key);
		if (*slot == NONE) {
			*slot = t->n_nodes;
			t->nodes[t->n_nodes++] = key;
		}
		struct tree_node *node = &t->nodes[*slot];
		add(&node->samples, c->samples, overflow);
		add(&node->work, c->work, overflow);
		add(&node->idleness_millionths, c->idleness_millionths,
		    overflow);
		add(&node->overhead, c->overhead, overflow);
		add(&node->blocked, c->blocked, overflow);
		id_insert(&ids, c->thread, c->node, *slot);
	}
	free(ids.keys);
	free(ids.nodes);
	return rc;
}

/* Siblings in a fixed order: kind, then a and b in output numbers. */
static int compare_nodes(const void *a, const void *b, void *ctx)
{
	const struct tree_node *nodes = ctx;
	const struct tree_node *x = &nodes[*(const size_t *)a];
	const struct tree_node *y = &nodes[*(const size_t *)b];
	int c = compare_u64(x->thread, y->thread);

	/* Grouping by parent: its index is no canonical order, but only
	 * siblings' order within a group counts. */
	if (!c)
		c = compare_u64(x->parent + 1, y->parent + 1);
	if (!c)
		c = compare_u64(x->kind, y->kind);
	if (!c)
		c = compare_u64(x->a, y->a);
	if (!c)
		c = compare_u64(x->b, y->b);
	return c;
}

static const char *const kind_names[] = {
	[PROFILE_CCT_FRAME] = "frame",
	[PROFILE_CCT_REGION] = "region",
	[PROFILE_CCT_THREAD] = "thread",
};

/* Number the nodes depth first, each thread's from 1, and write them in
 * that order (parents before children). */
static void number_nodes(struct trees *t, struct profile_doc *out)
{
	size_t *order = allocate(t->n_nodes, sizeof(*order));
	size_t *stack = allocate(t->n_nodes, sizeof(*stack));

	for (size_t k = 0; k < t->n_nodes; k++)
		order[k] = k;
	qsort_r(order, t->n_nodes, sizeof(*order), compare_nodes, t->nodes);
	out->cct = allocate(t->n_nodes, sizeof(*out->cct));
	for (size_t k = 0; k < t->n_nodes;) {
		const struct tree_node *first = &t->nodes[order[k]];
		size_t end = k + 1;
		while (end < t->n_nodes &&
		       t->nodes[order[end]].thread == first->thread &&
		       t->nodes[order[end]].parent == first->parent)
			end++;
		if (first->parent != NONE) {
			t->nodes[first->parent].first_child = k;
			t->nodes[first->parent].n_children = end - k;
		}
		k = end;
	}
	uint32_t thread = 0, next_id = 1;
	for (size_t k = 0; k < t->n_nodes; k++) {
		const struct tree_node *top = &t->nodes[order[k]];
		if (top->parent != NONE)
			continue;
		if (!out->n_cct || top->thread != thread) {
			thread = top->thread;
			next_id = 1;
		}
		/* One top node and its subtree, children pushed last first. */
		size_t depth = 0;
		stack[depth++] = order[k];
		while (depth) {
			struct tree_node *node = &t->nodes[stack[--depth]];
			node->id = next_id++;
			out->cct[out->n_cct++] = (struct profile_cct){
				.thread = node->thread,
				.node = node->id,
				.has_parent = node->parent != NONE,
				.parent = node->parent != NONE
						  ? t->nodes[node->parent].id
						  : 0,
				.kind = node->kind,
				.a = node->a,
				.b = node->b,
				.samples = node->samples,
				.work = node->work,
				.idleness_millionths = node->idleness_millionths,
				.overhead = node->overhead,
				.blocked = node->blocked,
			};
			const size_t *children = &order[node->first_child];
			for (size_t c = node->n_children; c > 0; c--)
				stack[depth++] = children[c - 1];
		}
	}
	free(stack);
	free(order);
}

static int merge_trees(const struct merge_profile *inputs, size_t n,
		       const struct input_map *maps, struct profile_doc *out,
		       bool *overflow, char *err, size_t errlen)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += inputs[i].doc.n_cct;
	size_t size = table_size(total);
	struct trees t = { allocate(total, sizeof(*t.nodes)), 0,
			   { allocate(size, sizeof(size_t)), size - 1 } };
	int rc = 0;

	memset(t.table.slots, 0xff, size * sizeof(size_t));
	for (size_t i = 0; i < n && !rc; i++)
		rc = add_trees(inputs, i, maps, out, &t, overflow, err, errlen);
	if (!rc)
		number_nodes(&t, out);
	free(t.nodes);
	free(t.table.slots);
	return rc;
}

/* --- The merge --------------------------------------------------------- */

int profile_merge(const struct merge_profile *inputs, size_t n,
		  struct merge_profile *out, char *err, size_t errlen)
{
	struct input_map *maps = allocate(n, sizeof(*maps));
	bool overflow = false;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!n) {
		free(maps);
		return fail(err, errlen, "no profile to merge");
	}
	rc = merge_meta(inputs, n, &out->doc, &overflow, err, errlen);
	if (!rc) {
		merge_regions(inputs, n, &out->doc);
		merge_threads(inputs, n, maps, out, &overflow);
		merge_tuples(inputs, n, maps, &out->doc, &overflow);
		merge_modules(inputs, n, maps, &out->doc);
		merge_symbols(inputs, n, maps, &out->doc);
		rc = merge_trees(inputs, n, maps, &out->doc, &overflow, err,
				 errlen);
	}
	if (!rc && overflow)
		rc = fail(err, errlen,
			  "the counts of the profiles add up to more than 64 "
			  "bits hold; they cannot be merged");
	for (size_t i = 0; i < n; i++) {
		free(maps[i].thread);
		free(maps[i].module);
	}
	free(maps);
	if (rc)
		merge_profile_free(out);
	return rc;
}

/* --- Writing ----------------------------------------------------------- */

int merge_profile_write(const struct merge_profile *profile,
			const char *path)
{
	const struct profile_doc *doc = &profile->doc;
	struct profile_writer *w = allocate(1, sizeof(*w));
	int rc = profile_writer_open(w, path);

	if (rc) {
		free(w);
		return rc;
	}
	for (size_t i = 0; i < doc->n_meta; i++)
		profile_writer_meta_raw(w, doc->meta[i].key, doc->meta[i].value);
	for (size_t i = 0; i < doc->n_regions; i++)
		profile_writer_region(w, doc->regions[i].id,
				      doc->regions[i].name);
	for (size_t i = 0; i < doc->n_threads; i++) {
		const struct profile_thread *th = &doc->threads[i];
		const struct thread_sampling *s = &profile->sampling[i];
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
			.sampled = s->sampled,
			.samples = s->samples,
			.cpu_ns = s->cpu_ns,
		};
		profile_writer_thread(w, &info);
	}
	for (size_t i = 0; i < doc->n_tuples; i++)
		profile_writer_tuple(w, doc->tuples[i].thread,
				     &doc->tuples[i].data);
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
			.kind = kind_names[c->kind],
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
