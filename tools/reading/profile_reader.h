/*
 * profile_reader.h - reading profile files (docs/profile-format.md).
 *
 * The reader checks everything it reads: a file that is empty, truncated,
 * of another version, or corrupt in any line is rejected with a message
 * that names the file and the line.
 */
#ifndef TRMS_PROFILE_READER_H
#define TRMS_PROFILE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct profile_line;

struct profile_meta {
	char *key;
	char *value; /* the rest of the line, still escaped */
};

struct profile_region {
	uint32_t id;
	char *name;
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
};

struct profile_tuple {
	uint32_t thread; /* ordinal */
	struct tuple_data data;
};

struct profile_module {
	uint32_t id;
	uint64_t start, end, base;
	bool unloaded;
	char *path;
	/* whether the module's file was read for names, for lines */
	bool symbols_looked_up, lines_looked_up;
};

struct profile_symbol {
	uint32_t module;
	uint64_t offset;
	char *name;
	uint64_t name_offset;
};

enum profile_cct_kind { PROFILE_CCT_FRAME, PROFILE_CCT_REGION, PROFILE_CCT_THREAD };

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
	struct profile_module *modules;
	size_t n_modules;
	struct profile_symbol *symbols; /* sorted by module, offset */
	size_t n_symbols;
	struct profile_cct *cct; /* in file order: parents before children */
	size_t n_cct;
	struct profile_line *lines; /* found so far (source_lines.c) */
	size_t n_lines;
	bool demangle; /* C++ names demangled (profile_demangle) */
};

/* @return 0, or -1 with "PATH:LINE: problem" (or "PATH: problem") in
 * @err. */
int profile_read(const char *path, struct profile_doc *doc, char *err,
		 size_t errlen);
void profile_doc_free(struct profile_doc *doc);

/* The value of meta @key, still escaped, or NULL. */
const char *profile_meta(const struct profile_doc *doc, const char *key);

const char *profile_region_name(const struct profile_doc *doc, uint32_t id);
const struct profile_thread *profile_thread(const struct profile_doc *doc,
					    uint32_t ordinal);

/* The module @id, or NULL. */
const struct profile_module *profile_module(const struct profile_doc *doc,
					    uint32_t id);

/* The name of the function at @offset of @module, from the profile's
 * symbol lines or else from the module's file; NULL if unknown. */
const char *profile_symbol(struct profile_doc *doc, uint32_t module,
			   uint64_t offset);

/* From now on, give C++ function names demangled: the names of all
 * sampled frames, and those of source lines looked up later. */
void profile_demangle(struct profile_doc *doc);

/* The source file of the code at @offset of @module, its line in @line;
 * NULL if the module has no debug information for it (or binutils'
 * addr2line, which reads it, cannot be run).  For a caller's frame, the
 * line of the call.  If @function is not NULL, it is set to the name the
 * debug information gives the function there, or NULL. */
const char *profile_source_line(struct profile_doc *doc, uint32_t module,
				uint64_t offset, unsigned *line,
				const char **function);
void profile_lines_free(struct profile_doc *doc);

/* A number as profiles write it: decimal digits only, no sign, at most
 * 64 bits.  @return false for anything else. */
bool profile_parse_u64(const char *s, uint64_t *out);

/* Undo the %XX escaping of a name, in place.  @return 0, -1 if malformed. */
int profile_unescape(char *s);

#endif
