/*
 * growth.c - the growth class of a region's cost in its input size: the
 * statistics of each distinct size (size_point_from_tuple), the names of
 * the classes, and the estimate (growth_estimate) that ties the steps
 * together.  docs/growth.md says what the user sees; the rules and why
 * they are what they are are stated next to the code that applies them.
 *
 * The estimate, in order:
 *   1. points with n >= 1, sorted, equal sizes merged; refuse below
 *      MIN_SIZES distinct sizes or a span (largest n / smallest n) below
 *      MIN_SPAN (here);
 *   2. more than BIN_ABOVE sizes: one point per non-empty log-spaced
 *      bucket (BUCKETS of them), see bin_points() (here);
 *   3. every class c0 + c1 g(n) fitted by weighted least squares with
 *      weights 1/y^2 (relative errors), c1 <= 0 rejected, and scored by
 *      its leave-one-out SMAPE (growth_fit.c);
 *   4. the selection: the constant unless a growing class does clearly
 *      better; log classes never claimed over a short span; a log-factor
 *      pair that fits about equally well reported as a range, and so is
 *      a log factor that the class without it explains as well given a
 *      lower-order term; an exponential flagged when log y linear in n
 *      fits far better than every polynomial (growth_select.c);
 *   5. the confidence: the selection rerun with each point left out, the
 *      number of points, the span, the log-log slope of the upper half,
 *      the shape of the residuals and the largest one
 *      (growth_confidence.c).
 * The estimate as text is growth_text.c's.
 *
 * No global state, no randomness: the same points give the same estimate.
 */
#include "growth_internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the rules (docs/growth.md states them for users) ---- */

/* Refusal: a curve through fewer sizes, or over a narrower range of
 * sizes, says nothing about growth that noise could not say too. */
#define MIN_SIZES 5
#define MIN_SPAN 32.0

/* Binning: above BIN_ABOVE distinct sizes (growth_internal.h), BUCKETS
 * log-spaced buckets. */
#define BUCKETS 24

/* ---- per distinct input size ---- */

void size_point_from_tuple(struct size_point *p, const struct tuple_data *t)
{
	memset(p, 0, sizeof(*p));
	p->n = t->n;
	p->count = t->count;
	if (t->count == 0)
		return;
	p->worst = (double)t->max;
	p->best = (double)t->min;

	long double count = (long double)t->count;
	long double mean = (long double)t->sum / count;

	p->mean = (double)mean;
	/* All costs equal: the variance is exactly 0, whatever the
	 * subtraction below would leave. */
	if (t->count < 2 || t->min == t->max)
		return;
	long double mean_square = (long double)t->sumsq / count;
	long double variance = mean_square - mean * mean;

	/* More than half of the significand's digits cancelled (the
	 * variance is below sqrt(epsilon) of the mean square), or below 0:
	 * rounding error is then a visible part of the result.  With x86's
	 * 64-bit long double that is var < 3.3e-10 x mean square. */
	if (!(variance >= mean_square * sqrtl(LDBL_EPSILON)))
		p->variance_cancelled = true;
	p->variance = variance > 0 ? (double)variance : 0;
}

/* ---- growth classes ---- */

const char *growth_name(enum growth_class g)
{
	static const char *const names[] = {
		[GROWTH_CONSTANT] = "1",
		[GROWTH_LOG] = "log n",
		[GROWTH_SQRT] = "sqrt n",
		[GROWTH_LINEAR] = "n",
		[GROWTH_NLOGN] = "n log n",
		[GROWTH_N1_5] = "n^1.5",
		[GROWTH_N2] = "n^2",
		[GROWTH_N2LOGN] = "n^2 log n",
		[GROWTH_N3] = "n^3",
		[GROWTH_EXP] = "exp",
		[GROWTH_INSUFFICIENT] = "insufficient",
	};

	if ((unsigned)g >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[g];
}

/* log is the natural logarithm, taken as 0 below n = 1 (n = 0 is never
 * fitted); so log n and n log n are 0 at n = 1, and the constant term of
 * their fits is the cost at n = 1.  Classes that are not of the form
 * c0 + c1 g(n) (exp, insufficient) give NaN. */
double growth_g(enum growth_class g, double n)
{
	double ln = n > 1 ? log(n) : 0;

	switch (g) {
	case GROWTH_CONSTANT:
		return 1;
	case GROWTH_LOG:
		return ln;
	case GROWTH_SQRT:
		return sqrt(n);
	case GROWTH_LINEAR:
		return n;
	case GROWTH_NLOGN:
		return n * ln;
	case GROWTH_N1_5:
		return n * sqrt(n);
	case GROWTH_N2:
		return n * n;
	case GROWTH_N2LOGN:
		return n * n * ln;
	case GROWTH_N3:
		return n * n * n;
	default:
		return NAN;
	}
}

const char *confidence_name(enum confidence c)
{
	switch (c) {
	case CONFIDENCE_LOW:
		return "LOW";
	case CONFIDENCE_MEDIUM:
		return "MEDIUM";
	case CONFIDENCE_HIGH:
		return "HIGH";
	}
	return "?";
}

/* ---- the estimate ---- */

/* A size before it is fitted: n, its cost statistic, and how many
 * activations it stands for (what merging and binning weigh by). */
struct raw_point {
	double n, y, count;
};

static int compare_raw(const void *x, const void *y)
{
	const struct raw_point *a = x, *b = y;

	return (a->n > b->n) - (a->n < b->n);
}

/* Folds @from into @into (same n, or the same bucket for binning):
 * worst keeps the larger cost, best the smaller, mean the count-weighted
 * mean of both n and cost. */
static void combine(struct raw_point *into, const struct raw_point *from,
		    enum cost_stat stat)
{
	double total = into->count + from->count;

	switch (stat) {
	case STAT_WORST:
		into->y = into->y > from->y ? into->y : from->y;
		into->n = into->n > from->n ? into->n : from->n;
		break;
	case STAT_BEST:
		into->y = into->y < from->y ? into->y : from->y;
		into->n = into->n < from->n ? into->n : from->n;
		break;
	case STAT_MEAN:
		if (total > 0) {
			into->y = (into->y * into->count +
				   from->y * from->count) / total;
			into->n = (into->n * into->count +
				   from->n * from->count) / total;
		}
		break;
	}
	into->count = total;
}

/* @raw (sorted, distinct n, @k > BIN_ABOVE of them) into at most BUCKETS
 * points, one per non-empty bucket of equal width in log n.  Worst case:
 * the bucket's largest cost at the bucket's largest n.  If the worst-case
 * curve is nondecreasing, that cost is at least the one measured at that
 * n and at most the curve's value there: the point is still on or under
 * the worst case, never a small-n cost moved down to a smaller n.  Best
 * case is the mirror image (smallest cost at the smallest n); the mean is
 * the mean over the bucket's activations at their mean size.  Returns the
 * number of points, in place. */
static size_t bin_points(struct raw_point *raw, size_t k, enum cost_stat stat)
{
	double log_low = log(raw[0].n);
	double width = (log(raw[k - 1].n) - log_low) / BUCKETS;
	size_t out = 0;
	long last = -1;

	for (size_t i = 0; i < k; i++) {
		long bucket = (long)((log(raw[i].n) - log_low) / width);

		if (bucket >= BUCKETS)
			bucket = BUCKETS - 1;
		if (bucket != last) {
			raw[out++] = raw[i];
			last = bucket;
		} else {
			combine(&raw[out - 1], &raw[i], stat);
		}
	}
	return out;
}

/* @out as a refusal: no class, LOW, and why (formatted into its reason
 * buffer). */
__attribute__((format(printf, 2, 3))) static void
refuse(struct growth_estimate *out, const char *fmt, ...)
{
	va_list ap;

	out->growth = GROWTH_INSUFFICIENT;
	out->fit.g = GROWTH_INSUFFICIENT;
	out->fit.valid = false;
	out->confidence = CONFIDENCE_LOW;
	va_start(ap, fmt);
	vsnprintf(out->reason_buf, sizeof(out->reason_buf), fmt, ap);
	va_end(ap);
	out->reason = out->reason_buf;
}

/* The sizes of @points that can be fitted (n >= 1, a finite cost) into
 * @raw, ascending, equal sizes merged (not expected, but possible after
 * a careless merge).  Returns how many distinct sizes. */
static size_t distinct_sizes(struct raw_point *raw,
			     const struct size_point *points, size_t n_points,
			     enum cost_stat stat)
{
	size_t k = 0, distinct = 0;

	for (size_t i = 0; i < n_points; i++) {
		double y = size_point_cost(&points[i], stat);

		if (points[i].n == 0 || !isfinite(y))
			continue;
		raw[k++] = (struct raw_point){ (double)points[i].n,
					       y > 0 ? y : 0,
					       (double)points[i].count };
	}
	qsort(raw, k, sizeof(*raw), compare_raw);
	for (size_t i = 0; i < k; i++) {
		if (distinct > 0 && raw[distinct - 1].n == raw[i].n)
			combine(&raw[distinct - 1], &raw[i], stat);
		else
			raw[distinct++] = raw[i];
	}
	return distinct;
}

/* The points to fit from @raw's @distinct sizes: the sizes, or their
 * buckets above BIN_ABOVE, in place.  Sets @out's sizes, range of sizes
 * and points; 0 when the data is refused (@out says why). */
static size_t points_to_fit(struct raw_point *raw, size_t distinct,
			    enum cost_stat stat, struct growth_estimate *out)
{
	out->sizes = distinct;
	if (distinct > 0) {
		out->n_min = raw[0].n;
		out->n_max = raw[distinct - 1].n;
		out->span = out->n_max / out->n_min;
	}
	if (distinct < MIN_SIZES) {
		refuse(out, "insufficient data: %zu distinct sizes (need %d)",
		       distinct, MIN_SIZES);
		return 0;
	}
	if (out->span < MIN_SPAN) {
		refuse(out, "insufficient data: sizes span %.3gx (need %.0fx)",
		       out->span, MIN_SPAN);
		return 0;
	}
	size_t p = distinct > BIN_ABOVE ? bin_points(raw, distinct, stat)
					: distinct;

	out->points = p;
	if (p < MIN_SIZES) {
		refuse(out, "insufficient data: the sizes fall in %zu of %d "
			    "log-spaced ranges (need %d)",
		       p, BUCKETS, MIN_SIZES);
		return 0;
	}
	return p;
}

/* @raw's @p points as they are fitted, into @ps: costs scaled by the
 * largest, g(n) of every class, and @span, the span of the sizes (not
 * of the bucket points: binning the worst case puts the first bucket at
 * its largest size). */
static void set_point_set(struct point_set *ps, const struct raw_point *raw,
			  size_t p, double span)
{
	*ps = (struct point_set){ .p = p, .y_scale = 0, .y_weight = INFINITY };
	for (size_t i = 0; i < p; i++) {
		if (raw[i].y > ps->y_scale)
			ps->y_scale = raw[i].y;
		if (raw[i].y > 0 && raw[i].y < ps->y_weight)
			ps->y_weight = raw[i].y;
	}
	for (size_t i = 0; i < p; i++) {
		ps->n[i] = raw[i].n;
		ps->y[i] = ps->y_scale > 0 ? raw[i].y / ps->y_scale : 0;
		for (int g = 0; g < GROWTH_MODELS; g++)
			ps->g[g][i] = growth_g((enum growth_class)g, ps->n[i]);
	}
	ps->span = span;
	if (ps->y_scale > 0) {
		ps->y_weight /= ps->y_scale;
	} else {
		/* Nothing costs anything: the constant 0, exactly. */
		ps->y_scale = 1;
		ps->y_weight = 1;
	}
}

void growth_estimate(const struct size_point *points, size_t n_points,
		     enum cost_stat stat, struct growth_estimate *out)
{
	struct raw_point *raw;
	struct point_set ps;
	struct selection s;

	memset(out, 0, sizeof(*out));
	out->slope = NAN;
	out->slope_expected = NAN;
	for (int g = 0; g < GROWTH_MODELS; g++)
		out->models[g].g = (enum growth_class)g;
	out->exponential.g = GROWTH_EXP;
	raw = malloc((n_points ? n_points : 1) * sizeof(*raw));
	if (!raw) {
		refuse(out, "out of memory");
		return;
	}
	size_t p = points_to_fit(
		raw, distinct_sizes(raw, points, n_points, stat), stat, out);

	if (p > 0)
		set_point_set(&ps, raw, p, out->span);
	free(raw);
	if (p == 0)
		return;

	growth_select_class(&ps, &s);
	memcpy(out->models, s.models, sizeof(out->models));
	out->exponential = s.exponential;
	out->growth = s.growth;
	out->has_range = s.has_range;
	out->range_low = s.range_low;
	out->range_high = s.range_high;
	out->range_reason = s.range_reason;
	out->fit = s.growth == GROWTH_EXP ? s.exponential
					  : s.models[s.growth];
	growth_rate_confidence(&ps, &s, out);
}
