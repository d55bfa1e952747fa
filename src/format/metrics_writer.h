/*
 * metrics_writer.h - a profile's tuples as metrics in Prometheus's text
 * exposition format or OpenMetrics (docs/metrics.md), for `trms report
 * --prometheus` and for the library's own metrics file (TRMS_METRICS_DIR)
 * alike: per region and thread, counters of activations measured and
 * begun, cost, input cells and induced input, and a histogram of the
 * activations' input sizes with buckets at powers of two; the profiler's
 * own time.  No allocation and no stdio: the library writes it from its
 * window writer's thread.
 */
#ifndef TRMS_METRICS_WRITER_H
#define TRMS_METRICS_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/tuples.h"
#include "format/profile_writer.h"

/* Bucket b holds the sizes n with 2^(b-1) < n <= 2^b (bucket 0: n <= 1). */
#define METRICS_BUCKETS 65

/* One region on one thread (a thread by its name, or by its ordinal if
 * it has none). */
struct metrics_series {
	const char *region;
	const char *thread; /* NULL: known by thread_ordinal */
	uint32_t thread_ordinal;
	uint64_t activations; /* measured */
	uint64_t begun;	      /* measured or not */
	uint64_t cost, cells_trms, cells_rms;
	uint64_t induced_thread, induced_external;
	uint64_t buckets[METRICS_BUCKETS];
};

/* Add one tuple of the series' region and thread to @s (an activation is
 * in one trms and one rms tuple: it is counted from its trms one; a
 * measured activation was begun too: begun counts it). */
void metrics_series_add(struct metrics_series *s,
			const struct tuple_data *tuple);

/* Add the counts of @from, of the same region and thread, to @into. */
void metrics_series_merge(struct metrics_series *into,
			  const struct metrics_series *from);

struct metrics_options {
	bool openmetrics; /* OpenMetrics, else Prometheus's text format */
	bool ns;	  /* costs in ns (seconds), else in events */
	bool begun;	  /* the series' begun counts are known */
	uint64_t library_ns; /* the profiler's own time, metered */
};

/* Write @n series (@all) to @sink.  @return 0 or the sink's -errno. */
int metrics_write(profile_sink *sink, void *ctx,
		  const struct metrics_series *all, size_t n,
		  const struct metrics_options *opt);

#endif
