/*
 * metrics_writer.c - metrics in Prometheus's and OpenMetrics' text formats
 * (see metrics_writer.h).  Each family is written whole, as the formats
 * require: its HELP and TYPE lines (and UNIT in OpenMetrics), then one
 * sample per series.  Seconds are written from nanoseconds exactly, as a
 * decimal with nine digits after the point.
 */
#include "format/metrics_writer.h"

#include <stddef.h>
#include <string.h>

struct out {
	profile_sink *sink;
	void *ctx;
	int error;
	size_t len;
	char buf[4096];
};

static void flush(struct out *o)
{
	if (o->len && !o->error)
		o->error = o->sink(o->ctx, o->buf, o->len);
	o->len = 0;
}

static void put_bytes(struct out *o, const char *s, size_t n)
{
	while (n) {
		if (o->len == sizeof(o->buf))
			flush(o);
		size_t k = sizeof(o->buf) - o->len;
		if (k > n)
			k = n;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

static void put(struct out *o, const char *s)
{
	put_bytes(o, s, strlen(s));
}

/* @v in decimal, at the end of @digits, NUL-terminated. */
static const char *decimal(char digits[24], uint64_t v)
{
	char *p = digits + 23;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

static void put_u64(struct out *o, uint64_t v)
{
	char digits[24];

	put(o, decimal(digits, v));
}

/* @ns nanoseconds as seconds: "S.NNNNNNNNN". */
static void put_seconds(struct out *o, uint64_t ns)
{
	char frac[10] = ".";
	uint64_t f = ns % 1000000000u;

	put_u64(o, ns / 1000000000u);
	for (int i = 9; i >= 1; i--, f /= 10)
		frac[i] = (char)('0' + f % 10);
	put_bytes(o, frac, sizeof(frac));
}

static unsigned bucket_of(uint64_t n)
{
	unsigned b = 0;

	while (b < METRICS_BUCKETS - 1 && n > (1ull << b))
		b++;
	return b;
}

void metrics_series_add(struct metrics_series *s,
			const struct tuple_data *d)
{
	if (d->metric == METRIC_RMS) {
		s->cells_rms += d->n * d->count;
		return;
	}
	s->activations += d->count;
	s->begun += d->count;
	s->cost += d->sum;
	s->cells_trms += d->n * d->count;
	s->induced_thread += d->induced_thread;
	s->induced_external += d->induced_external;
	s->buckets[bucket_of(d->n)] += d->count;
}

void metrics_series_merge(struct metrics_series *into,
			  const struct metrics_series *from)
{
	into->activations += from->activations;
	into->begun += from->begun;
	into->cost += from->cost;
	into->cells_trms += from->cells_trms;
	into->cells_rms += from->cells_rms;
	into->induced_thread += from->induced_thread;
	into->induced_external += from->induced_external;
	for (unsigned b = 0; b < METRICS_BUCKETS; b++)
		into->buckets[b] += from->buckets[b];
}

/* @s as a label value: backslash, double quote and newline escaped. */
static void put_value(struct out *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"') {
			char esc[2] = { '\\', *s };
			put_bytes(o, esc, 2);
		} else if (*s == '\n') {
			put(o, "\\n");
		} else {
			put_bytes(o, s, 1);
		}
	}
}

static void put_labels(struct out *o, const struct metrics_series *s,
		       const char *extra)
{
	put(o, "{region=\"");
	put_value(o, s->region);
	put(o, "\",thread=\"");
	if (s->thread)
		put_value(o, s->thread);
	else
		put_u64(o, s->thread_ordinal);
	put(o, "\"");
	if (extra) {
		put(o, ",");
		put(o, extra);
	}
	put(o, "}");
}

/* The family's HELP, TYPE (and in OpenMetrics UNIT) lines: @name without
 * _total. */
static void family(struct out *o, const struct metrics_options *opt,
		   const char *name, const char *type, const char *unit,
		   const char *help)
{
	const char *suffix =
		!strcmp(type, "counter") && !opt->openmetrics ? "_total" : "";

	put(o, "# HELP ");
	put(o, name);
	put(o, suffix);
	put(o, " ");
	put(o, help);
	put(o, "\n# TYPE ");
	put(o, name);
	put(o, suffix);
	put(o, " ");
	put(o, type);
	put(o, "\n");
	if (opt->openmetrics && unit) {
		put(o, "# UNIT ");
		put(o, name);
		put(o, " ");
		put(o, unit);
		put(o, "\n");
	}
}

/* One sample: NAME SUFFIX{labels of @s, @extra} VALUE. */
static void sample(struct out *o, const char *name, const char *suffix,
		   const struct metrics_series *s, const char *extra,
		   uint64_t value)
{
	put(o, name);
	put(o, suffix);
	put_labels(o, s, extra);
	put(o, " ");
	put_u64(o, value);
	put(o, "\n");
}

/* A counter family: for each series its field at offset @field (a
 * uint64_t of struct metrics_series), labelled with @extra too; in
 * seconds if @seconds (the field in ns). */
static void counter(struct out *o, const struct metrics_series *all,
		    size_t n, const char *name, const char *extra,
		    size_t field, bool seconds)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t value;
		memcpy(&value, (const char *)&all[i] + field, sizeof(value));
		if (!seconds) {
			sample(o, name, "_total", &all[i], extra, value);
			continue;
		}
		put(o, name);
		put(o, "_total");
		put_labels(o, &all[i], extra);
		put(o, " ");
		put_seconds(o, value);
		put(o, "\n");
	}
}

#define FIELD(name) offsetof(struct metrics_series, name)

static void histogram(struct out *o, const struct metrics_series *all,
		      size_t n, const char *name)
{
	unsigned top = 0;

	/* One set of buckets for every series, up to the largest size. */
	for (size_t i = 0; i < n; i++)
		for (unsigned b = 0; b < METRICS_BUCKETS; b++)
			if (all[i].buckets[b] && b > top)
				top = b;
	for (size_t i = 0; i < n; i++) {
		uint64_t below = 0;
		for (unsigned b = 0; b <= top; b++) {
			char digits[24], le[32] = "le=\"";
			strcat(strcat(le, decimal(digits, 1ull << b)), "\"");
			below += all[i].buckets[b];
			sample(o, name, "_bucket", &all[i], le, below);
		}
		sample(o, name, "_bucket", &all[i], "le=\"+Inf\"",
		       all[i].activations);
		sample(o, name, "_count", &all[i], NULL, all[i].activations);
		/* The histogram's sum is the trms input cells. */
		sample(o, name, "_sum", &all[i], NULL, all[i].cells_trms);
	}
}

int metrics_write(profile_sink *sink, void *ctx,
		  const struct metrics_series *all, size_t n,
		  const struct metrics_options *opt)
{
	struct out o = { .sink = sink, .ctx = ctx };
	const char *cost_name =
		opt->ns ? "trms_cost_seconds" : "trms_cost_events";

	family(&o, opt, "trms_activations", "counter", NULL,
	       "Activations of the region measured.");
	counter(&o, all, n, "trms_activations", NULL, FIELD(activations),
		false);
	if (opt->begun) {
		family(&o, opt, "trms_activations_begun", "counter", NULL,
		       "Activations of the region begun, measured or not: "
		       "trms_activations over this is the fraction measured "
		       "(TRMS_ACTIVATION_SAMPLE, TRMS_BUDGET).");
		counter(&o, all, n, "trms_activations_begun", NULL,
			FIELD(begun), false);
	}
	family(&o, opt, cost_name, "counter", opt->ns ? "seconds" : "events",
	       opt->ns ? "Time of the region's measured activations, the "
			 "profiler's own excluded."
		       : "Cost of the region's measured activations in events "
			 "(trms_read and trms_write calls).");
	counter(&o, all, n, cost_name, NULL, FIELD(cost), opt->ns);
	family(&o, opt, "trms_input_cells", "counter", "cells",
	       "Input of the measured activations in memory cells: size "
	       "trms (threaded read memory size) or rms (read memory size).");
	counter(&o, all, n, "trms_input_cells", "size=\"trms\"",
		FIELD(cells_trms), false);
	counter(&o, all, n, "trms_input_cells", "size=\"rms\"",
		FIELD(cells_rms), false);
	family(&o, opt, "trms_induced_input_cells", "counter", "cells",
	       "Input cells another thread (thread) or the kernel, from "
	       "files and sockets (external), wrote since the activation's "
	       "thread last read them.");
	counter(&o, all, n, "trms_induced_input_cells", "source=\"thread\"",
		FIELD(induced_thread), false);
	counter(&o, all, n, "trms_induced_input_cells", "source=\"external\"",
		FIELD(induced_external), false);
	family(&o, opt, "trms_input_size_cells", "histogram", "cells",
	       "The measured activations by their input size (trms) in "
	       "cells.");
	histogram(&o, all, n, "trms_input_size_cells");
	if (opt->ns) {
		family(&o, opt, "trms_library_seconds", "counter", "seconds",
		       "Time the profiler spent in its own code, metered.");
		put(&o, "trms_library_seconds_total ");
		put_seconds(&o, opt->library_ns);
		put(&o, "\n");
	}
	if (opt->openmetrics)
		put(&o, "# EOF\n");
	flush(&o);
	return o.error;
}
