/*
 * pprof_internal.h - what the parts of the pprof export share:
 *   pprof_tables.c   a table from three numbers to a number, and the
 *                    string table (every string once, entry 0 "");
 *   pprof_samples.c  the profiles' trees as functions, mappings,
 *                    locations and samples (struct exporter);
 *   pprof_export.c   those as the protobuf-c messages of profile.proto,
 *                    packed and gzip-compressed.
 */
#ifndef TRMS_PPROF_INTERNAL_H
#define TRMS_PPROF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "pprof_export.h"
#include "profile.pb-c.h"

/* ---- pprof_tables.c ---- */

struct map_entry {
	uint64_t key[3];
	uint64_t value; /* 0: free */
};

/* Three numbers to a non-zero number: open addressing. */
struct map {
	struct map_entry *slots;
	size_t n, cap; /* cap: a power of two, or 0 */
};

/* The value of (@a, @b, @c), 0 if it has none. */
uint64_t map_get(const struct map *m, uint64_t a, uint64_t b, uint64_t c);

/* The value of (@a, @b, @c): a pointer to it, 0 if the key is new (the
 * caller then stores a non-zero value). */
uint64_t *map_at(struct map *m, uint64_t a, uint64_t b, uint64_t c);

/* Forget every key, keeping the room. */
void map_clear(struct map *m);

struct strings {
	char **v;
	size_t n;
	size_t *slots; /* index + 1, 0: free */
	size_t cap;    /* of slots, a power of two */
};

/* The index of @text in the table, added if it is new. */
int64_t intern(struct strings *s, const char *text);

void strings_free(struct strings *s);

/* ---- pprof_samples.c ---- */

/* The values of every sample, in the order of the sample types. */
enum { V_SAMPLES, V_TIME, V_WORK, V_OVERHEAD, N_VALUES };

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

/* Add the samples of @doc.  @return 0, or -EINVAL with a message in @err
 * if they are of another clock than those added before. */
int exporter_add(struct exporter *x, struct profile_doc *doc, char *err,
		 size_t errlen);

/* Add up the samples with the same stack and labels; after the last
 * exporter_add. */
void exporter_merge_samples(struct exporter *x);

void exporter_free(struct exporter *x);

#endif
