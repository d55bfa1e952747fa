/*
 * pprof_export.h - the sampled call stacks of profiles as a pprof profile
 * (`trms report --pprof`), for `go tool pprof` and the other pprof readers.
 *
 * Every root-to-node path of a calling context tree whose node was the
 * leaf of samples becomes a pprof sample, with the labels
 *   thread  the thread's name, or its ordinal if it has none;
 *   region  the innermost region on the path (absent if there is none).
 * Frames are named as `trms report --tree` names them: the function, or
 * module+0xOFFSET when no symbol is known; regions are pseudo-functions
 * "[name]" and the start of a thread's own path "(thread start)".
 * Samples with the same stack and labels, from any threads and profiles,
 * are added together.
 */
#ifndef TRMS_PPROF_EXPORT_H
#define TRMS_PPROF_EXPORT_H

#include <stddef.h>

#include "profile_reader.h"

/* Write the samples of @docs to @path, gzip-compressed, atomically (under
 * a temporary name in the same directory, then renamed).
 * @return 0; 2 if the profiles have no samples or samples of different
 * clocks (CPU and wall time), and nothing is written; 1 if @path cannot be
 * written (it is left as it was).  Not 0: a message in @err. */
int pprof_export(const char *path, struct profile_doc *docs, size_t n_docs,
		 char *err, size_t errlen);

#endif
