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

#include <stddef.h>

#include "profile_reader.h"

/* Merge the @n profiles of @inputs (at least one, as profile_read() gives
 * them) into @out, which is filled in canonical form: meta sorted by key,
 * regions numbered in name order, threads in ordinal order, tuples,
 * modules (numbered in path order), symbols and tree nodes (numbered
 * depth first, children in a fixed order) sorted.  The inputs are left
 * unchanged; each input's path names it in messages.
 * @return 0; or, with a message in @err, -EINVAL if the inputs cannot
 * be merged (costs in different units, cells of different granularity,
 * samples of different clocks or rates: "B: ..., but A has ...; they
 * cannot be merged") or an input contradicts itself where the reader
 * does not look (a tree node in an undeclared region or module, a meta
 * counter that is not a number), -EOVERFLOW if sums overflow.  @out is
 * then empty, safe to free with profile_doc_free(). */
int profile_merge(const struct profile_doc *inputs, size_t n,
		  struct profile_doc *out, char *err, size_t errlen);

/* Write @doc, a merged profile, to @path as it is (lines in array
 * order), atomically: a temporary file in the same directory, renamed
 * over @path when complete.  @return 0, or -errno with @path left as it
 * was. */
int profile_merge_write(const struct profile_doc *doc, const char *path);

#endif
