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

#include "../src/profile.h"

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
};

struct profile_tuple {
	uint32_t thread; /* ordinal */
	struct tuple_data data;
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

/* Undo the %XX escaping of a name, in place.  @return 0, -1 if malformed. */
int profile_unescape(char *s);

#endif
