/*
 * lookups.h - what the look-ups of profile_symbols.c and source_lines.c
 * keep on a document (its lookups, freed by profile_doc_free).
 */
#ifndef TRMS_LOOKUPS_H
#define TRMS_LOOKUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile_reader.h"

/* The source line of one frame address. */
struct profile_line {
	uint32_t module;
	uint64_t offset;
	char *file; /* NULL: no line known */
	unsigned line;
	char *function; /* as the debug information names it; may be NULL */
};

struct profile_lookups {
	/* Per module (by its place in doc->modules): whether its file was
	 * read for names, for lines. */
	bool *symbols_done, *lines_done;
	struct profile_line *lines; /* sorted by module and offset */
	size_t n_lines;
	bool demangle; /* C++ names demangled (profile_demangle) */
};

/* @doc's look-ups, made at the first call. */
struct profile_lookups *lookups_of(struct profile_doc *doc);

/* ---- source_lines.c ---- */

void lookups_free_lines(struct profile_lookups *l);

#endif
