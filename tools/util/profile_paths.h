/*
 * profile_paths.h - the profiles named on a command line: files, or
 * directories standing for every profile in them (what `trms run` leaves
 * is a directory of profiles).
 */
#ifndef TRMS_PROFILE_PATHS_H
#define TRMS_PROFILE_PATHS_H

#include <stdbool.h>
#include <stddef.h>

struct profile_paths {
	char **paths;
	size_t n;
};

/* Each of @args (@n of them) as it is, or, for a directory, the files
 * in it whose names end in ".trms" (not hidden ones), sorted by name;
 * of those, the windows of TRMS_INTERVAL (NAME.wN.trms) only if
 * @windows, and then only those (a run's profile and its windows would
 * count every activation twice).
 * @return 0; or, with a message in @err, -ENOENT for a directory with no
 * profile in it, or the -errno of one that cannot be read. */
int profile_paths_expand(char *const *args, size_t n,
			 struct profile_paths *out, char *err, size_t errlen);
int profile_paths_expand_windows(char *const *args, size_t n, bool windows,
				 struct profile_paths *out, char *err,
				 size_t errlen);

void profile_paths_free(struct profile_paths *p);

#endif
