/*
 * report_model.h - what `trms report` shows, computed once from the
 * profiles and then printed as a table, JSON or HTML: every tuple merged
 * across files, and per region (or per region and thread) its size
 * points, input shares, trms-vs-rms metrics and growth estimate.
 */
#ifndef TRMS_REPORT_MODEL_H
#define TRMS_REPORT_MODEL_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "growth.h"
#include "profile_reader.h"
#include "report_correction.h"
#include "report_library.h"

/* One merged tuple, keyed by text so that profiles combine. */
struct report_row {
	const char *region;
	const char *object; /* a function's file, or NULL */
	const char *thread; /* its name, or NULL */
	uint32_t thread_ordinal;
	struct tuple_data data;
};

enum report_sort { SORT_COST, SORT_CALLS, SORT_SIZES, SORT_GROWTH,
		   SORT_NAME };

struct report_options {
	enum metric metric;    /* the input size: trms (default) or rms */
	enum cost_stat stat;   /* the cost fitted: worst (default) ... */
	bool per_thread;       /* one entry per (region, thread) */
};

struct report_region {
	const char *name;
	const char *object; /* a function's file (its first profile's), or NULL */
	/* With per_thread: the thread's name, or its ordinal as text. */
	const char *thread;
	char thread_buf[16];
	uint64_t calls;
	long double total_cost;
	/* By the chosen size metric, then the other one; sorted by n. */
	struct size_point *points, *other_points;
	size_t n_points, n_other_points;
	uint64_t max_n;         /* the largest size */
	double cost_at_max_n;   /* the chosen statistic there */
	/* Cells read, summed over activations: Σ trms, Σ rms. */
	long double input_trms, input_rms;
	uint64_t induced_thread, induced_external;
	double thread_share, external_share; /* of Σ trms, 0..1 */
	/* The multithreaded paper's §6.1 metrics: (|trms| - |rms|) / |rms|
	 * of distinct sizes, and 1 - Σ rms / Σ trms. */
	double richness, input_volume;
	bool variance_cancelled; /* at some size: see size_point */
	/* With costs in ns: whether the costs can be told apart from the
	 * error of their correction, and the sizes the growth was estimated
	 * on for it (report_correction.h). */
	struct report_correction correction;
	struct growth_estimate growth;
};

struct report {
	struct report_options opt;
	const char *unit; /* "ns" or "events" (of the first profile) */
	struct report_row *rows; /* sorted: region, thread, metric, n */
	size_t n_rows;
	struct report_region **regions; /* each allocated alone: they hold
					   pointers into themselves */
	size_t n_regions;
	struct library_share library; /* the profiler's own time */
};

/* Read the tuples of @docs into @r and compute every region, the tuples
 * combined by the rule of merge_rules.h.  @return 0; or, with a message
 * in @err, -EINVAL if the profiles cannot be combined (costs in
 * different units) or -EOVERFLOW if their sums do not fit (then @r is
 * still to be freed with report_free). */
int report_build(struct report *r, struct profile_doc *docs, size_t n_docs,
		 const struct report_options *opt, char *err, size_t errlen);

/* @g's growth class as text ("n^2", "n...n log n", "insufficient"), or
 * "unresolved" if its costs could not be told apart from the error of
 * their correction; into @buf. */
const char *report_growth_text(const struct report_region *g, char *buf,
			       size_t len);

/* Order the regions: by @key, largest first (names: A to Z). */
void report_sort(struct report *r, enum report_sort key);

/* Keep the regions whose name matches @filter (if not NULL), then the
 * first @limit of them (0: all). */
void report_select(struct report *r, const regex_t *filter, size_t limit);

void report_free(struct report *r);

#endif
