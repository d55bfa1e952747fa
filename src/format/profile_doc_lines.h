/*
 * profile_doc_lines.h - a profile's lines, checked and added to its
 * document one by one, for the reader of the file (profile_read.c, which
 * reads the first line itself).
 */
#ifndef TRMS_PROFILE_DOC_LINES_H
#define TRMS_PROFILE_DOC_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "format/profile_doc.h"

/* The cct nodes read so far, by thread and node number: open
 * addressing, so that any numbers a file uses cost no more than its
 * lines. */
struct node_slot {
	uint32_t thread, node;
	unsigned depth; /* 1 at the top of the tree; 0: an empty slot */
};

/* A file being read. */
struct reading {
	const char *path;
	size_t line; /* 0 before the first */
	char *err;
	size_t errlen;
	struct node_slot *nodes;
	size_t n_nodes, cap_nodes; /* cap_nodes: 0 or a power of two */
	bool ended;                /* the end line was read */
	unsigned version;          /* the file's format version */
};

/* "PATH:LINE: " (or "PATH: ") and the message, into r->err.
 * @return @rc. */
int reading_fail(struct reading *r, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A line that breaks the format: reading_fail(r, -EINVAL, ...). */
#define bad(r, ...) reading_fail((r), -EINVAL, __VA_ARGS__)

/* No memory for what the file holds.  @return -ENOMEM. */
int reading_no_memory(struct reading *r);

/* Append @item to the array @arr of @n items, grown by doubling.
 * @return false, with nothing changed, if there is no memory for it. */
#define APPEND(arr, n, item)                                               \
	__extension__({                                                    \
		bool appended_ = true;                                     \
		if (((n) & ((n)-1)) == 0) {                                \
			__typeof__(arr) more_ = realloc(                   \
				(arr), 2 * ((n) + 1) * sizeof(*(arr)));    \
			if (more_)                                         \
				(arr) = more_;                             \
			else                                               \
				appended_ = false;                         \
		}                                                          \
		if (appended_)                                             \
			(arr)[(n)++] = (item);                             \
		appended_;                                                 \
	})

/* Check line @line (the first line excepted: profile_read.c reads it) and
 * add what it says to @doc.  @return 0, or reading_fail()'s -errno. */
int profile_read_line(struct reading *r, struct profile_doc *doc,
		      char *line);

#endif
