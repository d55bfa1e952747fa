/*
 * atomic_file.h - an output file that appears whole or not at all: written
 * to a temporary file beside its path, then renamed over it.  A reader
 * never sees half a file, and a failed write leaves what was there.
 */
#ifndef TRMS_ATOMIC_FILE_H
#define TRMS_ATOMIC_FILE_H

#include <stddef.h>

struct atomic_file {
	const char *path;
	char *tmp; /* the temporary file's path */
	int fd;	   /* open for writing */
};

/* Create the temporary file, with the mode any new file would get.
 * @return 0, or 1 with "cannot create PATH: reason" in @err. */
int atomic_file_open(struct atomic_file *f, const char *path, char *err,
		     size_t errlen);

/* The descriptor has been closed, its writes all succeeded: rename the
 * file into place.  @return 0, or an errno value (the temporary file is
 * removed). */
int atomic_file_commit(struct atomic_file *f);

/* Give up: remove the temporary file (its descriptor already closed). */
void atomic_file_abort(struct atomic_file *f);

#endif
