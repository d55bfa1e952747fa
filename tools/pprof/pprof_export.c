/*
 * pprof_export.c - sampled call stacks as a pprof profile (see
 * pprof_export.h and pprof/profile.proto).
 *
 * The profile is built in memory with the protobuf-c messages generated
 * from pprof/profile.proto, packed by libprotobuf-c and written through
 * zlib's gzip stream:
 *   - one string table, every string once, entry 0 the empty string;
 *   - one Mapping per module path (address range and base from the first
 *     profile that has it);
 *   - one Function per distinct frame name, with the module's path as its
 *     file name; regions and thread starts are functions too;
 *   - one Location per function and address (the module's base in the
 *     first profile plus the frame's offset), one Line each;
 *   - one Sample per distinct stack, thread and region.
 */
#define _GNU_SOURCE
#include "pprof_export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "atomic_file.h"
#include "cct_view.h"
#include "profile.pb-c.h"
#include "xalloc.h"

/* The values of every sample, in the order of the sample types. */
enum { V_SAMPLES, V_TIME, V_WORK, V_OVERHEAD, N_VALUES };

static uint64_t hash_bytes(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211u; /* FNV-1a */
	}
	return h;
}

/* --- A table from three numbers to a non-zero number -------------------- */

struct map_entry {
	uint64_t key[3];
	uint64_t value; /* 0: free */
};

struct map {
	struct map_entry *slots;
	size_t n, cap; /* cap: a power of two, or 0 */
};

static size_t map_home(const struct map *m, const uint64_t key[3])
{
	return (size_t)hash_bytes(key, 3 * sizeof(*key),
				  14695981039346656037u) &
	       (m->cap - 1);
}

/* The value of @key, 0 if it has none. */
static uint64_t map_get(const struct map *m, uint64_t a, uint64_t b,
			uint64_t c)
{
	const uint64_t key[3] = { a, b, c };

	if (!m->cap)
		return 0;
	size_t i = map_home(m, key);
	while (m->slots[i].value && memcmp(m->slots[i].key, key, sizeof(key)))
		i = (i + 1) & (m->cap - 1);
	return m->slots[i].value;
}

/* The value of @key: a pointer to it, 0 if the key is new (the caller then
 * stores a non-zero value). */
static uint64_t *map_at(struct map *m, uint64_t a, uint64_t b, uint64_t c)
{
	const uint64_t key[3] = { a, b, c };

	if (2 * (m->n + 1) > m->cap) {
		struct map old = *m;
		m->cap = old.cap ? 2 * old.cap : 64;
		m->slots = xcalloc(m->cap, sizeof(*m->slots));
		for (size_t i = 0; i < old.cap; i++) {
			if (!old.slots[i].value)
				continue;
			size_t j = map_home(m, old.slots[i].key);
			while (m->slots[j].value)
				j = (j + 1) & (m->cap - 1);
			m->slots[j] = old.slots[i];
		}
		free(old.slots);
	}
	size_t i = map_home(m, key);
	while (m->slots[i].value && memcmp(m->slots[i].key, key, sizeof(key)))
		i = (i + 1) & (m->cap - 1);
	if (!m->slots[i].value) {
		memcpy(m->slots[i].key, key, sizeof(key));
		m->n++;
	}
	return &m->slots[i].value;
}

/* --- The string table ------------------------------------------------------ */

struct strings {
	char **v;
	size_t n;
	size_t *slots; /* index + 1, 0: free */
	size_t cap;    /* of slots, a power of two */
};

static size_t string_home(const struct strings *s, const char *text)
{
	return (size_t)hash_bytes(text, strlen(text), 14695981039346656037u) &
	       (s->cap - 1);
}

/* The index of @text in the table, added if it is new. */
static int64_t intern(struct strings *s, const char *text)
{
	if (2 * (s->n + 1) > s->cap) {
		free(s->slots);
		s->cap = s->cap ? 2 * s->cap : 256;
		s->slots = xcalloc(s->cap, sizeof(*s->slots));
		for (size_t k = 0; k < s->n; k++) {
			size_t j = string_home(s, s->v[k]);
			while (s->slots[j])
				j = (j + 1) & (s->cap - 1);
			s->slots[j] = k + 1;
		}
	}
	size_t i = string_home(s, text);
	while (s->slots[i] && strcmp(s->v[s->slots[i] - 1], text))
		i = (i + 1) & (s->cap - 1);
	if (!s->slots[i]) {
		if ((s->n & (s->n - 1)) == 0)
			s->v = xrealloc(s->v, 2 * (s->n + 1) * sizeof(*s->v));
		s->v[s->n] = strdup(text);
		if (!s->v[s->n]) {
			fprintf(stderr, "trms: out of memory\n");
			exit(1);
		}
		s->slots[i] = ++s->n;
	}
	return (int64_t)(s->slots[i] - 1);
}

/* --- The profile being built ------------------------------------------------ */

struct sample {
	uint64_t *locations; /* leaf first */
	size_t depth;
	int64_t thread, region; /* string indices; region 0: none */
	int64_t values[N_VALUES];
};

struct exporter {
	struct strings strings;
	struct map function_of, mapping_of, location_of, node_of;
	Pprof__Function *functions;
	size_t n_functions;
	Pprof__Mapping *mappings;
	uint64_t *mapping_base; /* the module's load base, per mapping */
	size_t n_mappings;
	Pprof__Location *locations;
	Pprof__Line *lines; /* one per location */
	size_t n_locations;
	struct sample *samples;
	size_t n_samples;
	const char *clock;         /* "cpu" or "wall", of the first samples */
	const char *clock_path;    /* the profile they came from */
	int64_t period;            /* ns per sample in that profile */
	uint64_t start_ns, end_ns; /* the earliest start, the latest end */
};

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

static bool meta_u64(const struct profile_doc *doc, const char *key,
		     uint64_t *out)
{
	const char *v = profile_meta(doc, key);
	char *end;

	if (!v || !*v)
		return false;
	errno = 0;
	*out = strtoull(v, &end, 10);
	return !*end && !errno;
}

static int add_doc(struct exporter *x, struct profile_doc *doc, char *err,
		   size_t errlen)
{
	uint64_t total = 0, hz = 0, ns;

	for (size_t i = 0; i < doc->n_cct; i++)
		total += doc->cct[i].samples;
	if (!total)
		return 0;
	const char *clock = profile_meta(doc, "sample_clock");
	clock = clock && !strcmp(clock, "wall") ? "wall" : "cpu";
	if (!x->clock) {
		x->clock = clock;
		x->clock_path = doc->path;
	} else if (strcmp(x->clock, clock)) {
		snprintf(err, errlen,
			 "%s: samples of %s time, but %s has samples of %s "
			 "time; they cannot be combined",
			 doc->path, clock, x->clock_path, x->clock);
		return 2;
	}
	/* One sample stands for 1/hz s of the clock; 0 if unknown. */
	int64_t period = 0;
	if (meta_u64(doc, "sample_hz", &hz) && hz)
		period = (int64_t)((1000000000u + hz / 2) / hz);
	if (!x->period)
		x->period = period;
	if (meta_u64(doc, "start_ns", &ns) && (!x->start_ns || ns < x->start_ns))
		x->start_ns = ns;
	if (meta_u64(doc, "end_ns", &ns) && ns > x->end_ns)
		x->end_ns = ns;

	uint64_t *doc_mappings = xcalloc(doc->n_modules,
					 sizeof(*doc_mappings));
	for (size_t i = 0; i < doc->n_modules; i++)
		doc_mappings[i] = mapping_id(x, &doc->modules[i]);

	/* Per node: its parent's index (SIZE_MAX: none), location and
	 * innermost region. */
	size_t *parent = xcalloc(doc->n_cct, sizeof(*parent));
	uint64_t *location = xcalloc(doc->n_cct, sizeof(*location));
	int64_t *region = xcalloc(doc->n_cct, sizeof(*region));
	size_t *depth = xcalloc(doc->n_cct, sizeof(*depth));

	x->node_of.n = 0;
	if (x->node_of.cap)
		memset(x->node_of.slots, 0,
		       x->node_of.cap * sizeof(*x->node_of.slots));
	for (size_t i = 0; i < doc->n_cct; i++) {
		const struct profile_cct *c = &doc->cct[i];
		/* A parent not seen before makes a root, as in cct_view. */
		uint64_t p = c->has_parent ? map_get(&x->node_of, c->thread,
						     c->parent, 0)
					   : 0;
		parent[i] = p ? (size_t)(p - 1) : SIZE_MAX;
		location[i] = node_location(x, doc, c, doc_mappings);
		if (c->kind == PROFILE_CCT_REGION) {
			const char *name = profile_region_name(doc,
							       (uint32_t)c->a);
			region[i] = intern(&x->strings, name ? name : "?");
		} else {
			region[i] = parent[i] != SIZE_MAX ? region[parent[i]]
							  : 0;
		}
		depth[i] = parent[i] != SIZE_MAX ? depth[parent[i]] + 1 : 1;
		/* Nodes are numbered per thread; a number seen again is the
		 * later node from now on (its parent is always earlier, so
		 * every path ends). */
		*map_at(&x->node_of, c->thread, c->node, 0) = i + 1;
	}

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
		s->locations = xcalloc(depth[i], sizeof(*s->locations));
		s->depth = 0;
		for (size_t j = i; j != SIZE_MAX; j = parent[j])
			s->locations[s->depth++] = location[j];
		s->thread = intern(&x->strings,
				   th && th->name ? th->name : name);
		s->region = region[i];
		s->values[V_SAMPLES] = (int64_t)c->samples;
		s->values[V_TIME] = (int64_t)c->samples * period;
		s->values[V_WORK] = (int64_t)c->work;
		s->values[V_OVERHEAD] = (int64_t)c->overhead;
	}
	free(doc_mappings);
	free(parent);
	free(location);
	free(region);
	free(depth);
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

/* Add up samples with the same stack and labels. */
static void merge_samples(struct exporter *x)
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

/* Write @len bytes of @data gzip-compressed to @path, atomically. */
static int write_gzip(const char *path, const uint8_t *data, size_t len,
		      char *err, size_t errlen)
{
	struct atomic_file f;
	int saved = 0;

	if (atomic_file_open(&f, path, err, errlen))
		return 1;
	gzFile gz = gzdopen(f.fd, "wb");
	if (!gz) {
		saved = errno ? errno : ENOMEM;
		close(f.fd);
		atomic_file_abort(&f);
		goto fail;
	}
	while (len && !saved) {
		unsigned chunk = len > (1u << 30) ? (1u << 30) : (unsigned)len;
		if (gzwrite(gz, data, chunk) != (int)chunk) {
			int zerr;
			const char *msg = gzerror(gz, &zerr);
			if (zerr != Z_ERRNO) {
				snprintf(err, errlen, "cannot write %s: %s",
					 path, msg);
				gzclose(gz);
				atomic_file_abort(&f);
				return 1;
			}
			saved = errno ? errno : EIO;
		}
		data += chunk;
		len -= chunk;
	}
	int rc = gzclose(gz);
	if (!saved && rc != Z_OK)
		saved = rc == Z_ERRNO && errno ? errno : EIO;
	if (saved)
		atomic_file_abort(&f);
	else
		saved = atomic_file_commit(&f);
	if (!saved)
		return 0;
fail:
	snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
	return 1;
}

static void exporter_free(struct exporter *x)
{
	for (size_t i = 0; i < x->strings.n; i++)
		free(x->strings.v[i]);
	free(x->strings.v);
	free(x->strings.slots);
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

int pprof_export(const char *path, struct profile_doc *docs, size_t n_docs,
		 char *err, size_t errlen)
{
	struct exporter x = { 0 };
	int status = 0;

	intern(&x.strings, ""); /* entry 0 */
	for (size_t i = 0; i < n_docs && !status; i++)
		status = add_doc(&x, &docs[i], err, errlen);
	if (!status && !x.n_samples) {
		snprintf(err, errlen,
			 "no call-stack samples in %s; %s not written "
			 "(TRMS_SAMPLE_HZ=0?)",
			 n_docs == 1 ? "this profile" : "these profiles", path);
		status = 2;
	}
	if (status) {
		exporter_free(&x);
		return status;
	}
	merge_samples(&x);

	Pprof__Profile p = PPROF__PROFILE__INIT;
	static const char *const type_names[N_VALUES][2] = {
		[V_SAMPLES] = { "samples", "count" },
		[V_TIME] = { NULL, "nanoseconds" }, /* cpu or wall */
		[V_WORK] = { "work", "count" },
		[V_OVERHEAD] = { "overhead", "count" },
	};
	Pprof__ValueType types[N_VALUES], period_type = PPROF__VALUE_TYPE__INIT;
	Pprof__ValueType *type_ptrs[N_VALUES];
	for (int v = 0; v < N_VALUES; v++) {
		pprof__value_type__init(&types[v]);
		types[v].type = intern(&x.strings, type_names[v][0]
							   ? type_names[v][0]
							   : x.clock);
		types[v].unit = intern(&x.strings, type_names[v][1]);
		type_ptrs[v] = &types[v];
	}
	p.n_sample_type = N_VALUES;
	p.sample_type = type_ptrs;
	p.default_sample_type = types[V_TIME].type;
	period_type = types[V_TIME];
	p.period_type = &period_type;
	p.period = x.period;
	p.time_nanos = (int64_t)x.start_ns;
	if (x.start_ns && x.end_ns > x.start_ns)
		p.duration_nanos = (int64_t)(x.end_ns - x.start_ns);

	int64_t *comments = xcalloc(n_docs, sizeof(*comments));
	for (size_t i = 0; i < n_docs; i++) {
		char *text;
		if (asprintf(&text, "trms profile %s", docs[i].path) < 0) {
			fprintf(stderr, "trms: out of memory\n");
			exit(1);
		}
		comments[i] = intern(&x.strings, text);
		free(text);
	}
	p.n_comment = n_docs;
	p.comment = comments;

	/* Labels are interned before the table is handed over. */
	int64_t key_thread = intern(&x.strings, "thread");
	int64_t key_region = intern(&x.strings, "region");
	Pprof__Sample *samples = xcalloc(x.n_samples, sizeof(*samples));
	Pprof__Sample **sample_ptrs = xcalloc(x.n_samples,
					      sizeof(*sample_ptrs));
	Pprof__Label *labels = xcalloc(2 * x.n_samples, sizeof(*labels));
	Pprof__Label **label_ptrs = xcalloc(2 * x.n_samples,
					    sizeof(*label_ptrs));
	for (size_t i = 0; i < x.n_samples; i++) {
		struct sample *s = &x.samples[i];
		Pprof__Sample *m = &samples[i];
		pprof__sample__init(m);
		m->n_location_id = s->depth;
		m->location_id = s->locations;
		m->n_value = N_VALUES;
		m->value = s->values;
		m->label = &label_ptrs[2 * i];
		Pprof__Label *l = &labels[2 * i];
		pprof__label__init(l);
		l->key = key_thread;
		l->str = s->thread;
		m->label[m->n_label++] = l;
		if (s->region) {
			pprof__label__init(++l);
			l->key = key_region;
			l->str = s->region;
			m->label[m->n_label++] = l;
		}
		sample_ptrs[i] = m;
	}
	p.n_sample = x.n_samples;
	p.sample = sample_ptrs;

	Pprof__Mapping **mapping_ptrs = xcalloc(x.n_mappings,
						sizeof(*mapping_ptrs));
	for (size_t i = 0; i < x.n_mappings; i++)
		mapping_ptrs[i] = &x.mappings[i];
	p.n_mapping = x.n_mappings;
	p.mapping = mapping_ptrs;

	Pprof__Location **location_ptrs = xcalloc(x.n_locations,
						  sizeof(*location_ptrs));
	Pprof__Line **line_ptrs = xcalloc(x.n_locations, sizeof(*line_ptrs));
	for (size_t i = 0; i < x.n_locations; i++) {
		line_ptrs[i] = &x.lines[i];
		x.locations[i].n_line = 1;
		x.locations[i].line = &line_ptrs[i];
		location_ptrs[i] = &x.locations[i];
	}
	p.n_location = x.n_locations;
	p.location = location_ptrs;

	Pprof__Function **function_ptrs = xcalloc(x.n_functions,
						  sizeof(*function_ptrs));
	for (size_t i = 0; i < x.n_functions; i++)
		function_ptrs[i] = &x.functions[i];
	p.n_function = x.n_functions;
	p.function = function_ptrs;

	p.n_string_table = x.strings.n;
	p.string_table = x.strings.v;

	size_t len = pprof__profile__get_packed_size(&p);
	uint8_t *packed = xcalloc(len, 1);
	pprof__profile__pack(&p, packed);
	status = write_gzip(path, packed, len, err, errlen);

	free(packed);
	free(comments);
	free(samples);
	free(sample_ptrs);
	free(labels);
	free(label_ptrs);
	free(mapping_ptrs);
	free(location_ptrs);
	free(line_ptrs);
	free(function_ptrs);
	exporter_free(&x);
	return status;
}
