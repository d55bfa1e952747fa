/*
 * report_selection.c - see report_selection.h.
 */
#define _GNU_SOURCE
#include "report_selection.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct region_count {
	const char *name;
	uint64_t activations, measured;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct region_count *)a)->name,
		      ((const struct region_count *)b)->name);
}

/* The activations lines of @docs, summed per region name (over threads
 * and profiles), sorted by name; their number in *@n_out. */
static struct region_count *count_regions(const struct profile_doc *docs,
					  size_t n, size_t *n_out)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < n; i++)
		total += docs[i].n_activations;
	struct region_count *all = xcalloc(total + 1, sizeof(*all));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < docs[i].n_activations; j++) {
			const struct profile_activations *a =
				&docs[i].activations[j];
			all[k].name = profile_region_name(&docs[i], a->region);
			all[k].activations = a->activations;
			all[k++].measured = a->measured;
		}
	qsort(all, k, sizeof(*all), by_name);
	size_t out = 0;
	for (size_t i = 0; i < k; i++) {
		if (out && !strcmp(all[out - 1].name, all[i].name)) {
			all[out - 1].activations += all[i].activations;
			all[out - 1].measured += all[i].measured;
		} else {
			all[out++] = all[i];
		}
	}
	*n_out = out;
	return all;
}

/* Meta @key of the first of @docs that has it. */
static const char *first_meta(const struct profile_doc *docs, size_t n,
			      const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (profile_meta(&docs[i], key))
			return profile_meta(&docs[i], key);
	return NULL;
}

#define REGIONS_SHOWN 20

/* The sum of the numeric meta @key over @docs. */
static uint64_t meta_sum(const struct profile_doc *docs, size_t n,
			 const char *key)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += profile_meta_u64(&docs[i], key, 0);
	return sum;
}

void report_print_memory(const struct profile_doc *docs, size_t n,
			 FILE *out)
{
	uint64_t refused = meta_sum(docs, n, PROFILE_META_MEMORY_REFUSED);
	uint64_t incomplete =
		meta_sum(docs, n, PROFILE_META_ACTIVATIONS_INCOMPLETE);
	const char *limit = first_meta(docs, n, PROFILE_META_MEMORY_LIMIT);

	if (!refused && !incomplete)
		return;
	fprintf(out, "\nThe library's memory limit (%llu MiB) was reached: %" PRIu64
		     " requests for memory refused, %" PRIu64
		     " activations not recorded (an access inside them could "
		     "not be; TRMS_MEMORY_LIMIT raises the limit)\n",
		limit ? strtoull(limit, NULL, 10) >> 20 : 0ull, refused,
		incomplete);
}

void report_print_selection(const struct profile_doc *docs, size_t n,
			    FILE *out)
{
	const char *sample =
		first_meta(docs, n, PROFILE_META_ACTIVATION_SAMPLE);
	const char *budget = first_meta(docs, n, PROFILE_META_BUDGET_PERCENT);
	const char *parts = first_meta(docs, n, PROFILE_META_PARTITION);
	const char *windows = first_meta(docs, n, PROFILE_META_WINDOW);
	size_t n_regions;
	struct region_count *regions = count_regions(docs, n, &n_regions);

	if (windows)
		fprintf(out, "\nWindow%s %s of the run (TRMS_INTERVAL)%s.\n",
			strchr(windows, ' ') ? "s" : "", windows,
			strchr(windows, ' ') ? ", merged" : "");
	if (!sample && !budget && !parts && !n_regions) {
		free(regions);
		return;
	}
	fprintf(out, "\nNot every activation was measured:");
	if (sample)
		fprintf(out, " about 1 in %s of each region's "
			     "(TRMS_ACTIVATION_SAMPLE);",
			sample);
	if (budget)
		fprintf(out, " as many as a budget of %s%% of the CPU time "
			     "allowed (TRMS_BUDGET);",
			budget);
	if (parts)
		fprintf(out, " only the regions of part%s %s of a partition "
			     "(TRMS_PARTITION)%s;",
			strchr(parts, ' ') ? "s" : "", parts,
			strchr(parts, ' ') ? ", merged" : "");
	fprintf(out, "\n  each measured activation's trms, rms and cost are "
		     "exact; the counts above are of the measured ones "
		     "(docs/production.md)\n");
	const char *kinds = first_meta(docs, n, PROFILE_META_EXACT_KINDS);
	if (kinds && !strcmp(kinds, "0"))
		fprintf(out, "  the kinds of their induced reads (thread, "
			     "extern) are those of the accesses recorded: "
			     "none outside measured activations "
			     "(TRMS_EXACT_KINDS=1 records them)\n");
	for (size_t i = 0; i < n_regions && i < REGIONS_SHOWN; i++)
		fprintf(out, "  %s: %" PRIu64 " of %" PRIu64
			     " activations measured (%.3g%%)\n",
			regions[i].name, regions[i].measured,
			regions[i].activations,
			100.0 * (double)regions[i].measured /
				(double)regions[i].activations);
	if (n_regions > REGIONS_SHOWN)
		fprintf(out, "  ... and %zu more regions measured in part\n",
			n_regions - REGIONS_SHOWN);
	free(regions);
}
