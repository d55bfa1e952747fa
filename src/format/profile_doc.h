/*
 * profile_doc.h - the profile format's reader: a profile file read into
 * memory, every line checked (docs/profile-format.md; its words:
 * profile_format.h).
 *
 * A file that is empty, truncated, of another version, or corrupt in any
 * line is rejected with a message that names the file and the line.
 *
 * The reader allocates as the file asks: it is built into the tools
 * only, never into the library a profiled process loads.  What the tools
 * later look up about a profile's frames (names from the modules' files,
 * source lines) hangs on the document, for profile_doc_free to free.
 */
#ifndef TRMS_PROFILE_DOC_H
#define TRMS_PROFILE_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/tuples.h"
#include "format/profile_format.h"

struct profile_lookups;

struct profile_meta {
	char *key;
	char *value; /* the rest of the line, still escaped */
};

struct profile_region {
	uint32_t id;
	char *name;
	char *object; /* the file of a function's code (version 4), or NULL */
};

#define PROFILE_CONTEXT_MAX 64

struct profile_thread {
	uint32_t ordinal;
	char *name; /* NULL if the thread has none */
	bool has_creator;
	uint32_t creator;
	uint32_t context[PROFILE_CONTEXT_MAX]; /* region ids, outermost first */
	unsigned context_depth;
	uint64_t in_bytes, in_calls, out_bytes, out_calls;
	bool sampled; /* the line had samples= or cpu_ns= (sampling was on) */
	uint64_t samples, cpu_ns;
	/* The library's own time: metered, and samples inside it. */
	uint64_t library_ns, library_samples;
	/* Ended threads folded into this one (in a window: since the window
	 * before), and in a window, the thread this one is folded into
	 * after it. */
	uint64_t ended_threads;
	bool has_folded_into;
	uint32_t folded_into;
};

struct profile_tuple {
	uint32_t thread; /* ordinal */
	struct tuple_data data;
};

/* Of a region's activations on a thread, how many were measured (only
 * written where some were not). */
struct profile_activations {
	uint32_t region, thread;
	uint64_t activations, measured;
};

struct profile_module {
	uint32_t id;
	uint64_t start, end, base;
	bool unloaded;
	char *path;
};

struct profile_symbol {
	uint32_t module;
	uint64_t offset;
	char *name;
	uint64_t name_offset;
};

/* The deepest tree the reader takes: the library writes paths of at most
 * a few hundred nodes, and the report walks trees recursively. */
#define PROFILE_CCT_DEPTH_MAX 4096

struct profile_cct {
	uint32_t thread;
	uint32_t node; /* unique in its thread's tree (the reader checks) */
	bool has_parent;
	uint32_t parent;
	enum profile_cct_kind kind;
	uint64_t a, b; /* frame: module, offset; region: id */
	uint64_t samples, work, idleness_millionths, overhead, blocked;
};

struct profile_doc {
	char *path;
	struct profile_meta *meta;
	size_t n_meta;
	struct profile_region *regions;
	size_t n_regions;
	struct profile_thread *threads;
	size_t n_threads;
	struct profile_tuple *tuples;
	size_t n_tuples;
	struct profile_activations *activations;
	size_t n_activations;
	struct profile_module *modules;
	size_t n_modules;
	struct profile_symbol *symbols; /* sorted by module, offset */
	size_t n_symbols;
	struct profile_cct *cct; /* in file order: parents before children */
	size_t n_cct;
	/* What a tool looked up about the frames since, and how to free it
	 * (NULL: nothing). */
	struct profile_lookups *lookups;
	void (*free_lookups)(struct profile_lookups *lookups);
};

/* @return 0, or -EINVAL (the file is not a valid profile) or another
 * -errno (it cannot be read), with "PATH:LINE: problem" (or "PATH:
 * problem") in @err.  @doc is filled either way, for profile_doc_free. */
int profile_read(const char *path, struct profile_doc *doc, char *err,
		 size_t errlen);
void profile_doc_free(struct profile_doc *doc);

/* The value of meta @key, still escaped, or NULL. */
const char *profile_meta(const struct profile_doc *doc, const char *key);

/* The value of meta @key as a number (profile_parse_u64), or @missing if
 * it is absent or not a number. */
uint64_t profile_meta_u64(const struct profile_doc *doc, const char *key,
			  uint64_t missing);

/* Region @id, or NULL.  (Regions are written in id order: the direct
 * position is tried first.) */
struct profile_region *profile_region(const struct profile_doc *doc,
				      uint32_t id);
const char *profile_region_name(const struct profile_doc *doc, uint32_t id);
const struct profile_thread *profile_thread(const struct profile_doc *doc,
					    uint32_t ordinal);

/* The module @id, or NULL. */
const struct profile_module *profile_module(const struct profile_doc *doc,
					    uint32_t id);

/* The symbol line of the function at @offset of @module, or NULL. */
const struct profile_symbol *profile_find_symbol(
	const struct profile_doc *doc, uint32_t module, uint64_t offset);

/* Add the @n @symbols found elsewhere (in the modules' files) to @doc's,
 * which stay sorted, one per address: those for an address @doc names
 * already are dropped.  @doc takes their names (freed if dropped);
 * @symbols may be reused.  @return 0, or -ENOMEM with @doc unchanged
 * and the names still the caller's. */
int profile_add_symbols(struct profile_doc *doc,
			struct profile_symbol *symbols, size_t n);

#endif
