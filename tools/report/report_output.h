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

/* Every tuple of @r (its rows) as tab-separated values under a header
 * line (the format `trms report --help` states for --tuples). */
void report_print_tuples(const struct report *r, FILE *out);

/* The tuples of @r (read from @docs) as metrics (report_metrics.c): per
 * region and thread trms_activations_total,
 * trms_activations_begun_total (unless windows of a run that measured
 * only some), trms_cost_seconds_total (or
 * trms_cost_events_total), trms_input_cells_total{size=trms|rms},
 * trms_induced_input_cells_total{source=thread|external} and the
 * histogram trms_input_size_cells, buckets at powers of two; and
 * trms_library_seconds_total.  In the Prometheus text format (what
 * node-exporter's textfile collector reads), or with @openmetrics in
 * OpenMetrics 1.0 (families without _total, UNIT lines, # EOF). */
void report_print_metrics(const struct report *r,
			  const struct profile_doc *docs, size_t n_docs,
			  bool openmetrics, FILE *out);

/* A cost for people: "812 ns", "8.01 us", "1.23 s", or a count of
 * events. */
const char *report_format_cost(double v, const char *unit, char *buf,
			       size_t len);

#endif
