/*
 * thread_folds.h - the ended threads a window says it folds into another
 * (a thread line's folded_into: the library keeps the 256 threads that
 * ended last apart and adds older ones into one thread, docs/windows.md).
 * In every profile of the same process (the same pid), such a thread is
 * the thread it was folded into, where the profile at exit has its
 * activations: `trms merge` and `trms report` count them there, so that a
 * run's windows taken together are its profile at exit.
 */
#ifndef TRMS_THREAD_FOLDS_H
#define TRMS_THREAD_FOLDS_H

#include <stddef.h>

#include "format/profile_doc.h"

struct thread_folds;

/* The folds @docs declare (NULL: none). */
struct thread_folds *thread_folds_find(const struct profile_doc *docs,
				       size_t n_docs);

/* The thread whose identity @th of @doc has: the one it was folded into,
 * or @th. */
const struct profile_thread *
thread_folds_as(const struct thread_folds *folds,
		const struct profile_doc *doc,
		const struct profile_thread *th);

void thread_folds_free(struct thread_folds *folds);

#endif
