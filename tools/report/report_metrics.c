/*
 * report_metrics.c - the report's tuples as metrics for Prometheus (see
 * report_output.h): per region and thread, counters of activations, cost,
 * input cells and induced input, and a histogram of the activations'
 * input sizes with buckets at powers of two; the profiler's own time.
 *
 * The tuples are sorted by region, thread, metric and size, so each
 * (region, thread) is one run of rows: its series are added up over the
 * run, then each family is printed whole, as the formats require.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report_output.h"
#include "xalloc.h"

/* Bucket b holds the sizes n with 2^(b-1) < n <= 2^b (bucket 0: n <= 1). */
#define BUCKETS 65

struct series {
	const struct report_row *first; /* its region and thread */
	uint64_t activations, cost, cells_trms, cells_rms;
	uint64_t induced_thread, induced_external;
	uint64_t buckets[BUCKETS];
};

static unsigned bucket_of(uint64_t n)
{
	unsigned b = 0;

	while (b < BUCKETS - 1 && n > (1ull << b))
		b++;
	return b;
}

static bool same_series(const struct report_row *a,
			const struct report_row *b)
{
	return !strcmp(a->region, b->region) &&
	       a->thread_ordinal == b->thread_ordinal &&
	       (a->thread == b->thread ||
		(a->thread && b->thread && !strcmp(a->thread, b->thread)));
}

/* One series per (region, thread) run of @r's rows, in @count. */
static struct series *gather(const struct report *r, size_t *count)
{
	struct series *all = xcalloc(r->n_rows ? r->n_rows : 1, sizeof(*all));
	size_t n = 0;

	for (size_t i = 0; i < r->n_rows; i++) {
		const struct report_row *row = &r->rows[i];
		const struct tuple_data *d = &row->data;
		if (!n || !same_series(all[n - 1].first, row))
			all[n++].first = row;
		struct series *s = &all[n - 1];
		if (d->metric == METRIC_RMS) {
			s->cells_rms += d->n * d->count;
			continue;
		}
		/* An activation is in one trms tuple and one rms tuple: it
		 * is counted from its trms tuple. */
		s->activations += d->count;
		s->cost += d->sum;
		s->cells_trms += d->n * d->count;
		s->induced_thread += d->induced_thread;
		s->induced_external += d->induced_external;
		s->buckets[bucket_of(d->n)] += d->count;
	}
	*count = n;
	return all;
}

/* @s as a label value: backslash, double quote and newline escaped. */
static void print_value(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			putc(*s, out);
	}
}

static void print_labels(FILE *out, const struct series *s,
			 const char *extra)
{
	fputs("{region=\"", out);
	print_value(out, s->first->region);
	fputs("\",thread=\"", out);
	if (s->first->thread)
		print_value(out, s->first->thread);
	else
		fprintf(out, "%" PRIu32, s->first->thread_ordinal);
	fprintf(out, "\"%s%s}", extra ? "," : "", extra ? extra : "");
}

/* The family's HELP, TYPE (and in OpenMetrics UNIT) lines: @name without
 * _total, whose last word is its unit if @unit. */
static void family(FILE *out, bool openmetrics, const char *name,
		   const char *type, const char *unit, const char *help)
{
	bool counter = !strcmp(type, "counter");
	const char *suffix = counter && !openmetrics ? "_total" : "";

	fprintf(out, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, suffix, help,
		name, suffix, type);
	if (openmetrics && unit)
		fprintf(out, "# UNIT %s %s\n", name, unit);
}

/* A counter family: for each series its field at offset @field (a
 * uint64_t of struct series), times @scale, labelled with @extra too. */
static void counter(FILE *out, const struct series *all, size_t n,
		    const char *name, const char *extra, size_t field,
		    double scale)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t value;
		memcpy(&value, (const char *)&all[i] + field, sizeof(value));
		fprintf(out, "%s_total", name);
		print_labels(out, &all[i], extra);
		if (scale == 1)
			fprintf(out, " %" PRIu64 "\n", value);
		else
			fprintf(out, " %.9g\n", (double)value * scale);
	}
}

#define FIELD(name) offsetof(struct series, name)

static void histogram(FILE *out, const struct series *all, size_t n,
		      const char *name)
{
	unsigned top = 0;

	/* One set of buckets for every series, up to the largest size. */
	for (size_t i = 0; i < n; i++)
		for (unsigned b = 0; b < BUCKETS; b++)
			if (all[i].buckets[b] && b > top)
				top = b;
	for (size_t i = 0; i < n; i++) {
		uint64_t below = 0;
		for (unsigned b = 0; b <= top; b++) {
			char le[32];
			below += all[i].buckets[b];
			snprintf(le, sizeof(le), "le=\"%llu\"", 1ull << b);
			fprintf(out, "%s_bucket", name);
			print_labels(out, &all[i], le);
			fprintf(out, " %" PRIu64 "\n", below);
		}
		fprintf(out, "%s_bucket", name);
		print_labels(out, &all[i], "le=\"+Inf\"");
		fprintf(out, " %" PRIu64 "\n%s_count", all[i].activations,
			name);
		print_labels(out, &all[i], NULL);
		fprintf(out, " %" PRIu64 "\n%s_sum", all[i].activations, name);
		print_labels(out, &all[i], NULL);
		/* The histogram's sum is the trms input cells. */
		fprintf(out, " %" PRIu64 "\n", all[i].cells_trms);
	}
}

void report_print_metrics(const struct report *r, bool openmetrics,
			  FILE *out)
{
	size_t n;
	struct series *all = gather(r, &n);
	bool ns = !r->unit || !strcmp(r->unit, "ns");
	const char *cost_name = ns ? "trms_cost_seconds" : "trms_cost_events";

	family(out, openmetrics, "trms_activations", "counter", NULL,
	       "Activations of the region measured.");
	counter(out, all, n, "trms_activations", NULL, FIELD(activations), 1);
	family(out, openmetrics, cost_name, "counter",
	       ns ? "seconds" : "events",
	       ns ? "Time of the region's measured activations, the "
		    "profiler's own excluded."
		  : "Cost of the region's measured activations in events "
		    "(trms_read and trms_write calls).");
	counter(out, all, n, cost_name, NULL, FIELD(cost), ns ? 1e-9 : 1);
	family(out, openmetrics, "trms_input_cells", "counter", "cells",
	       "Input of the measured activations in memory cells: size "
	       "trms (threaded read memory size) or rms (read memory size).");
	counter(out, all, n, "trms_input_cells", "size=\"trms\"",
		FIELD(cells_trms), 1);
	counter(out, all, n, "trms_input_cells", "size=\"rms\"",
		FIELD(cells_rms), 1);
	family(out, openmetrics, "trms_induced_input_cells", "counter",
	       "cells",
	       "Input cells another thread (thread) or the kernel, from "
	       "files and sockets (external), wrote since the activation's "
	       "thread last read them.");
	counter(out, all, n, "trms_induced_input_cells", "source=\"thread\"",
		FIELD(induced_thread), 1);
	counter(out, all, n, "trms_induced_input_cells",
		"source=\"external\"", FIELD(induced_external), 1);
	family(out, openmetrics, "trms_input_size_cells", "histogram",
	       "cells", "The measured activations by their input size (trms) "
			"in cells.");
	histogram(out, all, n, "trms_input_size_cells");
	if (ns) {
		family(out, openmetrics, "trms_library_seconds", "counter",
		       "seconds",
		       "Time the profiler spent in its own code, metered.");
		fprintf(out, "trms_library_seconds_total %.9g\n",
			(double)r->library.ns * 1e-9);
	}
	if (openmetrics)
		fputs("# EOF\n", out);
	free(all);
}
