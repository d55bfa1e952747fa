/*
 * report_windows.h - `trms report --windows`: how each region's cost per
 * input cell and growth went from window to window (TRMS_INTERVAL).
 */
#ifndef TRMS_REPORT_WINDOWS_H
#define TRMS_REPORT_WINDOWS_H

#include <stdio.h>

#include "report_model.h"

/* For each region of @whole (the report of all of @docs, its regions in
 * their order), a line per window of @docs: the window's number, its
 * start and end in seconds from the run's start, calls, largest input,
 * cost per input cell (the cost of all calls over all their input, by
 * the report's metric) and growth class.  @return 0; or, with a message
 * in @err, -EINVAL for a profile that is not a window, or report_build's
 * error. */
int report_print_windows(FILE *out, const struct report *whole,
			 struct profile_doc *docs, size_t n_docs,
			 const struct report_options *opt, char *err,
			 size_t errlen);

#endif
