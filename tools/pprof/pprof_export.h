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
#include <stdint.h>

#include "profile_reader.h"

/* The samples of @docs as a gzip-compressed pprof profile (profile.proto),
 * in *@out, *@len bytes (free() it).  @return 0; or -EINVAL with a
 * message in @err if the profiles have no samples (the message names
 * @destination, the file that will not be written) or samples of
 * different clocks (CPU and wall time). */
int pprof_build(struct profile_doc *docs, size_t n_docs,
		const char *destination, uint8_t **out, size_t *len,
		char *err, size_t errlen);

/* trms report --pprof OUT (pprof_form.c; report_form.h). */
struct report_form;
extern const struct report_form report_form_pprof;

#endif
