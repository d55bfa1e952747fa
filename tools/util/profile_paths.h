/*
 * profile_paths.h - the profiles named on a command line: files, or
 * directories standing for every profile in them (what `trms run` leaves
 * is a directory of profiles).
 */
#ifndef TRMS_PROFILE_PATHS_H
#define TRMS_PROFILE_PATHS_H

#include <stddef.h>

struct profile_paths {
	char **paths;
	size_t n;
};

/* Each of @args (@n of them) as it is, or, for a directory, the files
 * in it whose names end in ".trms" (not hidden ones), sorted by name.
 * @return 0; or, with a message in @err, -ENOENT for a directory with no
 * profile in it, or the -errno of one that cannot be read. */
int profile_paths_expand(char *const *args, size_t n,
			 struct profile_paths *out, char *err, size_t errlen);

void profile_paths_free(struct profile_paths *p);

#endif
