/*
 * report_metrics.c - the report's tuples as metrics for Prometheus
 * (--prometheus, --openmetrics), written by the format's metrics writer,
 * which the library's metrics file uses too (format/metrics_writer.h).
 *
 * The tuples are sorted by region, thread, metric and size, so each
 * (region, thread) is one run of rows: one series.  Its activations
 * begun come from the profiles' activations lines, which say how many a
 * thread began of a region where it did not measure them all; a window
 * has none (docs/windows.md), so windows of a run that measured only
 * some activations give no begun counts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/metrics_writer.h"
#include "merge_rules.h"
#include "report_form.h"
#include "report_output.h"
#include "thread_folds.h"
#include "xalloc.h"

static bool same_series(const struct metrics_series *s,
			const struct report_row *row)
{
	return !strcmp(s->region, row->region) &&
	       !thread_identity_compare(s->thread, s->thread_ordinal,
					row->thread, row->thread_ordinal);
}

/* One series per (region, thread) run of @r's rows, in @count. */
static struct metrics_series *gather(const struct report *r, size_t *count)
{
	struct metrics_series *all =
		xcalloc(r->n_rows ? r->n_rows : 1, sizeof(*all));
	size_t n = 0;

	for (size_t i = 0; i < r->n_rows; i++) {
		const struct report_row *row = &r->rows[i];
		if (!n || !same_series(&all[n - 1], row))
			all[n++] = (struct metrics_series){
				.region = row->region,
				.thread = row->thread,
				.thread_ordinal = row->thread_ordinal,
			};
		metrics_series_add(&all[n - 1], &row->data);
	}
	*count = n;
	return all;
}

static int compare_series(const void *key, const void *elem)
{
	const struct metrics_series *x = key, *y = elem;
	int c = strcmp(x->region, y->region);

	return c ? c : thread_identity_compare(x->thread, x->thread_ordinal,
					       y->thread, y->thread_ordinal);
}

/* Whether the activations begun are known: no input is a window of a run
 * that measured only some (windows have no activations lines). */
static bool begun_known(const struct profile_doc *docs, size_t n_docs)
{
	static const char *const selecting[] = {
		PROFILE_META_ACTIVATION_SAMPLE, PROFILE_META_BUDGET_PERCENT,
		PROFILE_META_PARTITION,
	};

	for (size_t i = 0; i < n_docs; i++) {
		if (!profile_meta(&docs[i], PROFILE_META_WINDOW))
			continue;
		for (size_t k = 0; k < sizeof(selecting) / sizeof(*selecting);
		     k++)
			if (profile_meta(&docs[i], selecting[k]))
				return false;
	}
	return true;
}

/* The activations lines of @docs: each series' begun is its measured
 * ones plus those its lines say were not measured. */
static void add_begun(struct metrics_series *all, size_t n,
		      const struct profile_doc *docs, size_t n_docs)
{
	struct thread_folds *folds = thread_folds_find(docs, n_docs);

	for (size_t i = 0; i < n_docs; i++)
		for (size_t k = 0; k < docs[i].n_activations; k++) {
			const struct profile_activations *a =
				&docs[i].activations[k];
			const struct profile_thread *th = thread_folds_as(
				folds, &docs[i],
				profile_thread(&docs[i], a->thread));
			struct metrics_series key = {
				.region = profile_region_name(&docs[i],
							      a->region),
				.thread = th ? th->name : NULL,
				.thread_ordinal = th ? th->ordinal : a->thread,
			};
			if (!key.region)
				continue;
			struct metrics_series *s =
				bsearch(&key, all, n, sizeof(*all),
					compare_series);
			if (s && a->activations > a->measured)
				s->begun += a->activations - a->measured;
		}
	thread_folds_free(folds);
}

static int file_sink(void *ctx, const void *buf, size_t n)
{
	return fwrite(buf, 1, n, ctx) == n ? 0 : -EIO;
}

/* The report's tuples as metrics on stdout: per region and thread
 * trms_activations_total, trms_activations_begun_total (unless windows of
 * a run that measured only some), trms_cost_seconds_total (or
 * trms_cost_events_total), trms_input_cells_total{size=trms|rms},
 * trms_induced_input_cells_total{source=thread|external} and the
 * histogram trms_input_size_cells, buckets at powers of two; and
 * trms_library_seconds_total.  In the Prometheus text format (what
 * node-exporter's textfile collector reads), or with @openmetrics in
 * OpenMetrics 1.0 (families without _total, UNIT lines, # EOF). */
static int print_metrics(const struct report_form_input *in,
			 bool openmetrics)
{
	const struct report *r = in->r;
	const struct profile_doc *docs = in->docs;
	size_t n_docs = in->n_docs;
	size_t n;
	struct metrics_series *all = gather(r, &n);
	struct metrics_options opt = {
		.openmetrics = openmetrics,
		.ns = !r->unit || !strcmp(r->unit, "ns"),
		.begun = begun_known(docs, n_docs),
		.library_ns = r->library.ns,
	};

	if (opt.begun)
		add_begun(all, n, docs, n_docs);
	metrics_write(file_sink, stdout, all, n, &opt);
	free(all);
	return 0;
}

static int print_prometheus(const struct report_form_input *in)
{
	return print_metrics(in, false);
}

const struct report_form report_form_prometheus = {
	.option = "prometheus", .print = print_prometheus, .raw_names = true,
	.help =
		"the tuples as metrics in Prometheus' text format, for "
		"node-exporter's textfile collector: per region and thread, "
		"trms_activations_total, trms_activations_begun_total "
		"(measured or not), trms_cost_seconds_total (or "
		"trms_cost_events_total), trms_input_cells_total{size=trms|"
		"rms}, trms_induced_input_cells_total{source=thread|external} "
		"and the histogram trms_input_size_cells (buckets at powers "
		"of two); trms_library_seconds_total (docs/metrics.md)",
};

static int print_openmetrics(const struct report_form_input *in)
{
	return print_metrics(in, true);
}

const struct report_form report_form_openmetrics = {
	.option = "openmetrics", .print = print_openmetrics,
	.raw_names = true,
	.help =
		"the same metrics in OpenMetrics 1.0 (docs/metrics.md)",
};
