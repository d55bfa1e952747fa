/*
 * report_model.c - the regions of `trms report`, computed from merged
 * tuples (see report_model.h).
 */
#define _GNU_SOURCE
#include "report_model.h"

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_rules.h"
#include "thread_folds.h"
#include "report_disturbance.h"
#include "xalloc.h"

/* Threads by identity (merge_rules.h): unnamed ones by ordinal first,
 * then named ones by name. */
static int compare_threads(const struct report_row *x,
			   const struct report_row *y)
{
	return thread_identity_compare(x->thread, x->thread_ordinal,
				       y->thread, y->thread_ordinal);
}

static int compare_rows(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;
	int c = strcmp(x->region, y->region);

	if (!c)
		c = compare_threads(x, y);
	if (c)
		return c;
	if (x->data.metric != y->data.metric)
		return x->data.metric < y->data.metric ? -1 : 1;
	return x->data.n < y->data.n ? -1 : x->data.n > y->data.n;
}

/* Sort and fold rows with equal keys.  @return 0, or -EOVERFLOW. */
static int merge_rows(struct report *r)
{
	size_t out = 0;
	int rc = 0;

	if (r->n_rows) /* rows is NULL when there are none */
		qsort(r->rows, r->n_rows, sizeof(*r->rows), compare_rows);
	for (size_t i = 0; i < r->n_rows && !rc; i++) {
		if (out && !compare_rows(&r->rows[out - 1], &r->rows[i]))
			rc = tuple_merge_checked(&r->rows[out - 1].data,
						 &r->rows[i].data);
		else
			r->rows[out++] = r->rows[i];
	}
	r->n_rows = out;
	return rc;
}

static int read_rows(struct report *r, struct profile_doc *docs,
		     size_t n_docs, char *err, size_t errlen)
{
	size_t cap = 0;
	struct thread_folds *folds = thread_folds_find(docs, n_docs);

	for (size_t i = 0; i < n_docs; i++) {
		struct profile_doc *doc = &docs[i];
		const char *cost = profile_meta(doc, PROFILE_META_COST);
		if (!cost)
			cost = "ns";
		if (r->unit && strcmp(r->unit, cost)) {
			snprintf(err, errlen,
				 "%s: costs in %s, but %s has costs in %s; "
				 "they cannot be combined",
				 doc->path, cost, docs[0].path, r->unit);
			thread_folds_free(folds);
			return -EINVAL;
		}
		r->unit = cost;
		for (size_t j = 0; j < doc->n_tuples; j++) {
			const struct profile_tuple *t = &doc->tuples[j];
			const struct profile_thread *th = thread_folds_as(
				folds, doc, profile_thread(doc, t->thread));
			if (r->n_rows == cap) {
				cap = cap ? 2 * cap : 256;
				r->rows = xrealloc(r->rows,
						   cap * sizeof(*r->rows));
			}
			const struct profile_region *reg =
				profile_region(doc, t->data.region);
			r->rows[r->n_rows++] = (struct report_row){
				.region = reg ? reg->name : NULL,
				.object = reg ? reg->object : NULL,
				.thread = th ? th->name : NULL,
				.thread_ordinal = th ? th->ordinal : t->thread,
				.data = t->data,
			};
		}
	}
	thread_folds_free(folds);
	if (!r->unit)
		r->unit = "ns";
	return merge_rows(r);
}

static int by_metric_and_n(const void *a, const void *b)
{
	const struct tuple_data *x = a, *y = b;

	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* The size points of @metric among @tuples (sorted by metric and n,
 * folded), into a new array. */
static struct size_point *points_of(const struct tuple_data *tuples,
				    size_t n, enum metric metric,
				    size_t *count)
{
	struct size_point *p = xrealloc(NULL, (n + 1) * sizeof(*p));

	*count = 0;
	for (size_t i = 0; i < n; i++)
		if (tuples[i].metric == metric)
			size_point_from_tuple(&p[(*count)++], &tuples[i]);
	return p;
}

/* Region @g from rows [@first, @end): one region, and with per_thread
 * one thread.  @return 0, or -EOVERFLOW if its tuples do not add up. */
static int build_region(struct report *r, struct report_region *g,
			size_t first, size_t end)
{
	size_t n = end - first, folded = 0;
	struct tuple_data *t = xrealloc(NULL, n * sizeof(*t));
	size_t counts[2] = { 0, 0 };

	for (size_t i = 0; i < n; i++)
		t[i] = r->rows[first + i].data;
	qsort(t, n, sizeof(*t), by_metric_and_n);
	for (size_t i = 0; i < n; i++) {
		if (folded && !by_metric_and_n(&t[folded - 1], &t[i])) {
			if (tuple_merge_checked(&t[folded - 1], &t[i])) {
				free(t);
				return -EOVERFLOW;
			}
		} else {
			t[folded++] = t[i];
		}
	}
	for (size_t i = 0; i < folded; i++) {
		const struct tuple_data *d = &t[i];
		long double input = (long double)d->n * d->count;
		counts[d->metric == METRIC_RMS]++;
		if (d->metric == METRIC_RMS) {
			g->input_rms += input;
			continue;
		}
		g->calls += d->count;
		g->total_cost += d->sum;
		g->input_trms += input;
		g->induced_thread += d->induced_thread;
		g->induced_external += d->induced_external;
	}
	enum metric other = r->opt.metric == METRIC_TRMS ? METRIC_RMS
							 : METRIC_TRMS;
	g->points = points_of(t, folded, r->opt.metric, &g->n_points);
	g->other_points = points_of(t, folded, other, &g->n_other_points);
	/* The tuples of the chosen metric, which the points were made
	 * from: where their costs cannot be resolved, the growth is
	 * estimated without them. */
	size_t from = 0;
	while (from < folded && t[from].metric != r->opt.metric)
		from++;
	struct size_point *kept =
		xrealloc(NULL, (g->n_points + 1) * sizeof(*kept));
	size_t n_kept = correction_judge(&g->correction, t + from,
					 g->n_points, r->unit, g->points,
					 kept);
	free(t);

	for (size_t i = 0; i < g->n_points; i++)
		g->variance_cancelled |= g->points[i].variance_cancelled;
	if (g->n_points) {
		const struct size_point *last = &g->points[g->n_points - 1];
		g->max_n = last->n;
		g->cost_at_max_n = size_point_cost(last, r->opt.stat);
	}
	if (g->input_trms > 0) {
		g->thread_share = (double)(g->induced_thread / g->input_trms);
		g->external_share =
			(double)(g->induced_external / g->input_trms);
		g->input_volume = (double)(1 - g->input_rms / g->input_trms);
	}
	if (counts[METRIC_RMS])
		g->richness = ((double)counts[METRIC_TRMS] -
			       (double)counts[METRIC_RMS]) /
			      (double)counts[METRIC_RMS];
	growth_estimate(kept, n_kept, r->opt.stat, &g->growth);
	disturbance_judge(kept, n_kept, r->unit, r->opt.stat, &g->growth);
	correction_conclude(&g->correction, &g->growth);
	free(kept);
	return 0;
}

int report_build(struct report *r, struct profile_doc *docs, size_t n_docs,
		 const struct report_options *opt, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->opt = *opt;
	library_share(docs, n_docs, &r->library);
	int rc = read_rows(r, docs, n_docs, err, errlen);
	if (!rc)
		r->regions = xcalloc(r->n_rows + 1, sizeof(*r->regions));
	for (size_t i = 0, end; !rc && i < r->n_rows; i = end) {
		const struct report_row *first = &r->rows[i];
		for (end = i + 1; end < r->n_rows; end++) {
			const struct report_row *x = &r->rows[end];
			if (strcmp(x->region, first->region) ||
			    (opt->per_thread && compare_threads(x, first)))
				break;
		}
		struct report_region *g = xcalloc(1, sizeof(*g));
		r->regions[r->n_regions++] = g;
		g->name = first->region;
		for (size_t k = i; k < end && !g->object; k++)
			g->object = r->rows[k].object;
		if (opt->per_thread) {
			snprintf(g->thread_buf, sizeof(g->thread_buf),
				 "%" PRIu32, first->thread_ordinal);
			g->thread = first->thread ? first->thread
						  : g->thread_buf;
		}
		rc = build_region(r, g, i, end);
	}
	if (rc == -EOVERFLOW)
		snprintf(err, errlen,
			 "the counts of the profiles add up to more than 64 "
			 "bits hold; they cannot be combined");
	return rc;
}

const char *report_growth_text(const struct report_region *g, char *buf,
			       size_t len)
{
	if (g->correction.refused) {
		snprintf(buf, len, "unresolved");
		return buf;
	}
	return growth_class_text(&g->growth, buf, len);
}

/* How fast a class grows, for sorting: refusals last. */
static int growth_rank(const struct report_region *g)
{
	return g->growth.growth == GROWTH_INSUFFICIENT ? -1
						       : (int)g->growth.growth;
}

static enum report_sort sort_key;

static int compare_regions(const void *a, const void *b)
{
	const struct report_region *x = *(struct report_region *const *)a;
	const struct report_region *y = *(struct report_region *const *)b;

	switch (sort_key) {
	case SORT_CALLS:
		if (x->calls != y->calls)
			return x->calls > y->calls ? -1 : 1;
		break;
	case SORT_SIZES:
		if (x->n_points != y->n_points)
			return x->n_points > y->n_points ? -1 : 1;
		break;
	case SORT_GROWTH:
		if (growth_rank(x) != growth_rank(y))
			return growth_rank(x) > growth_rank(y) ? -1 : 1;
		break;
	case SORT_COST:
	case SORT_NAME:
		break;
	}
	if (sort_key != SORT_NAME && x->total_cost != y->total_cost)
		return x->total_cost > y->total_cost ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (c || !x->thread || !y->thread)
		return c;
	return strcmp(x->thread, y->thread);
}

void report_sort(struct report *r, enum report_sort key)
{
	sort_key = key;
	qsort(r->regions, r->n_regions, sizeof(*r->regions), compare_regions);
}

static void free_region(struct report_region *g)
{
	correction_free(&g->correction);
	free(g->points);
	free(g->other_points);
	free(g);
}

void report_select(struct report *r, const regex_t *filter, size_t limit)
{
	size_t kept = 0;

	for (size_t i = 0; i < r->n_regions; i++) {
		struct report_region *g = r->regions[i];
		if ((filter && regexec(filter, g->name, 0, NULL, 0)) ||
		    (limit && kept == limit))
			free_region(g);
		else
			r->regions[kept++] = g;
	}
	r->n_regions = kept;
}

void report_free(struct report *r)
{
	for (size_t i = 0; i < r->n_regions; i++)
		free_region(r->regions[i]);
	free(r->regions);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
