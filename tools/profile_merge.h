/*
 * profile_merge.h - merging profiles (docs/merge.md): the tuples, threads,
 * calling context trees and facts of several profiles of threads,
 * processes and runs, combined into one profile in canonical form.
 *
 * The merge is associative and commutative down to the bytes of the file
 * written: profiles with the same merged content give the same file
 * whatever the grouping or order of the inputs.
 */
#ifndef TRMS_PROFILE_MERGE_H
#define TRMS_PROFILE_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile_reader.h"

/* What a thread line says about sampling, which struct profile_thread
 * does not hold: the samples= and cpu_ns= fields. */
struct thread_sampling {
	bool sampled; /* the line had the fields */
	uint64_t samples, cpu_ns;
};

/* A profile as the merge reads and makes it. */
struct merge_profile {
	struct profile_doc doc;
	struct thread_sampling *sampling; /* one per doc.threads[i] */
};

/* Read the profile at @path.  @return 0, or -1 with the reader's message
 * ("PATH:LINE: problem") in @err; @profile is then empty, safe to free. */
int merge_profile_read(const char *path, struct merge_profile *profile,
		       char *err, size_t errlen);

void merge_profile_free(struct merge_profile *profile);

/* Merge the @n profiles of @inputs (at least one) into @out, which is
 * filled in canonical form: meta sorted by key, regions numbered in name
 * order, threads in ordinal order, tuples, modules (numbered in path
 * order), symbols and tree nodes (numbered depth first, children in a
 * fixed order) sorted.  The inputs are left unchanged; each input's
 * doc.path names it in messages.
 * @return 0; or -1 with a message in @err if the inputs cannot be merged
 * (costs in different units, cells of different granularity, samples of
 * different clocks or rates: "B: ..., but A has ...; they cannot be
 * merged"), if an input contradicts itself where the reader does not
 * look (a tree node whose parent is missing, a frame in an undeclared
 * module, a meta counter that is not a number), or if sums overflow.
 * @out is then empty, safe to free. */
int profile_merge(const struct merge_profile *inputs, size_t n,
		  struct merge_profile *out, char *err, size_t errlen);

/* Write @profile to @path as it is (lines in array order), atomically:
 * a temporary file in the same directory, renamed over @path when
 * complete.  @return 0, or -errno with @path left as it was. */
int merge_profile_write(const struct merge_profile *profile,
			const char *path);

#endif
