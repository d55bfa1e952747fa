/*
 * report_output.h - the forms `trms report` prints a report in: a table
 * for people, JSON for programs (docs/report-json.md), a self-contained
 * HTML page with plots.
 */
#ifndef TRMS_REPORT_OUTPUT_H
#define TRMS_REPORT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "cct_view.h"
#include "report_model.h"

/* The regions as a table, then a sentence on each one's growth; with
 * @colour, ANSI colours. */
void report_print_table(const struct report *r, FILE *out, bool colour);

/* The report as one JSON document; @tree (may be NULL): the sampled
 * calling context tree too.  @profiles: the files read. */
void report_print_json(const struct report *r, const struct view *tree,
		       char *const *profiles, size_t n_profiles, FILE *out);

/* The report as one self-contained HTML page at @path (written
 * atomically: output_file.h), with plots of every region and, if @tree
 * is not NULL, the calling context tree as an icicle.  @return 0; or
 * -errno with a message in @err if @path cannot be written (it is left
 * as it was). */
int report_write_html(const struct report *r, const struct view *tree,
		      char *const *profiles, size_t n_profiles,
		      const char *path, char *err, size_t errlen);


/* A cost for people: "812 ns", "8.01 us", "1.23 s", or a count of
 * events. */
const char *report_format_cost(double v, const char *unit, char *buf,
			       size_t len);

#endif
