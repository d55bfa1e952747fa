/*
 * report_callgrind.h - the sampled calling context tree as a callgrind
 * file, for KCachegrind and callgrind_annotate: each frame name a
 * function (regions [name] and thread starts too), its self cost the
 * samples that ended in it, each caller-callee pair (and line of the
 * call, with --lines) a call whose count is the number of distinct
 * calling contexts it stands for and whose inclusive cost is the samples
 * below it (docs/sampling.md).
 */
#ifndef TRMS_REPORT_CALLGRIND_H
#define TRMS_REPORT_CALLGRIND_H

#include <stdio.h>

#include "cct_view.h"

/* Write @v (finished: view_finish) to @out in callgrind's format, its one
 * event Samples.  @return 0, or -EIO if @out failed. */
int view_write_callgrind(const struct view *v, FILE *out);

#endif
