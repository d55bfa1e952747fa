/*
 * growth.h - how a region's cost grows with its input size: the statistics
 * of each distinct size, and the estimate of the growth class fitted to
 * them (docs/growth.md).
 */
#ifndef TRMS_GROWTH_H
#define TRMS_GROWTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/tuples.h"

/* ---- per distinct input size ---- */

enum cost_stat { STAT_WORST, STAT_MEAN, STAT_BEST };

/* The activations of one region with one input size n: a merged tuple. */
struct size_point {
	uint64_t n;
	uint64_t count;
	double worst, mean, best; /* max, sum/count, min */
	double variance;          /* of the cost; 0 if count < 2 */
	/* The variance came out of sumsq/count - mean^2 with most of its
	 * digits cancelled (or below 0 and clamped): not to be trusted. */
	bool variance_cancelled;
};

/* @t as a point (n, count, cost statistics).  Computed in long double. */
void size_point_from_tuple(struct size_point *p, const struct tuple_data *t);

static inline double size_point_cost(const struct size_point *p,
				     enum cost_stat stat)
{
	return stat == STAT_WORST ? p->worst
	       : stat == STAT_MEAN ? p->mean
				   : p->best;
}

/* ---- growth classes ---- */

enum growth_class {
	GROWTH_CONSTANT, /* 1 */
	GROWTH_LOG,      /* log n */
	GROWTH_SQRT,     /* sqrt n */
	GROWTH_LINEAR,   /* n */
	GROWTH_NLOGN,    /* n log n */
	GROWTH_N1_5,     /* n^1.5 */
	GROWTH_N2,       /* n^2 */
	GROWTH_N2LOGN,   /* n^2 log n */
	GROWTH_N3,       /* n^3 */
	GROWTH_EXP,      /* exponential: flagged by a separate check */
	GROWTH_INSUFFICIENT,
};

#define GROWTH_MODELS (GROWTH_N3 + 1) /* the fitted ones: 1 ... n^3 */

/* "1", "log n", "sqrt n", "n", "n log n", "n^1.5", "n^2", "n^2 log n",
 * "n^3", "exp", "insufficient": the names of the JSON output. */
const char *growth_name(enum growth_class g);

/* g(n) of a fitted class (log is the natural logarithm, taken as 0 for
 * n <= 1: log n, n log n and n^2 log n are 0 at n = 1); NaN for
 * GROWTH_EXP and GROWTH_INSUFFICIENT, which have no g. */
double growth_g(enum growth_class g, double n);

enum confidence { CONFIDENCE_LOW, CONFIDENCE_MEDIUM, CONFIDENCE_HIGH };

/* "LOW", "MEDIUM", "HIGH". */
const char *confidence_name(enum confidence c);

/* One candidate model cost = c0 + c1 * g(n). */
struct growth_model {
	enum growth_class g;
	bool valid;    /* fitted, with c1 > 0 (always valid for constant) */
	double c0, c1;
	double smape;  /* leave-one-out SMAPE over the points, 0..2 */
	/* GROWTH_EXP only (growth_estimate's exponential): the cost is
	 * c1 * base^n, and c0 is 0. */
	double base;
};

struct growth_estimate {
	enum growth_class growth;  /* GROWTH_INSUFFICIENT: refused */
	/* When the data cannot tell a log factor (the winner and runner-up
	 * differ by one and are close; the class without it fits as well
	 * given a lower-order term; the span is too short to claim one):
	 * the range range_low ... range_high ("n^2...n^2 log n"), and
	 * range_reason says which.  growth is then one of the two ends, the
	 * one fit describes: the better fit, or the end without the log
	 * when the span is too short. */
	bool has_range;
	enum growth_class range_low, range_high;
	const char *range_reason;  /* static text; NULL without a range */
	enum confidence confidence;
	struct growth_model fit;   /* the chosen model */
	struct growth_model models[GROWTH_MODELS]; /* every candidate */
	size_t sizes;              /* distinct sizes given */
	size_t points;             /* fitted: the sizes, or their buckets */
	double span;               /* n_max / n_min */
	double n_min, n_max;       /* smallest and largest size (n >= 1) */
	/* Log-log slope of the costs over the upper half of the points (the
	 * larger sizes), and the slope of the class's own g(n) there (for a
	 * range: of the end nearer the costs'). */
	double slope, slope_expected;
	/* The exponential cost = c1 * base^n (g = GROWTH_EXP), fitted and
	 * scored whatever the class; fit when growth is GROWTH_EXP. */
	struct growth_model exponential;
	/* Leave-one-size-out: of jackknife_runs reruns of the selection,
	 * each without one point, jackknife_agree named a class of this
	 * estimate; stability = agree / runs. */
	unsigned jackknife_agree, jackknife_runs;
	double stability;
	/* The largest SMAPE term of the chosen fit over the points (above
	 * 1: some size is more than 3x off the fit). */
	double worst_residual;
	/* Runs test on the signs of the chosen fit's residuals in order of
	 * n (0 for an exact fit): well below 0, they follow a pattern. */
	double runs_z;
	/* How far the costs scatter around a smooth curve (estimated from
	 * neighbouring sizes, no model), and how far around the chosen fit:
	 * robust standard deviations of log cost.  scatter is NaN when it
	 * cannot be estimated (fewer than 5 points, a zero cost). */
	double scatter, fit_scatter;
	/* Why: "insufficient data: 3 distinct sizes (need 5)", or what
	 * lowered the confidence; NULL if nothing did (HIGH).  Static text
	 * or in @reason_buf. */
	const char *reason;
	char reason_buf[640];
};

/* Estimate the growth of cost with n over @points (any order, distinct
 * n, n >= 1 for fitting: points with n == 0 are left out), using the cost
 * statistic @stat.  Never fails: too little data gives
 * GROWTH_INSUFFICIENT with the reason. */
void growth_estimate(const struct size_point *points, size_t n_points,
		     enum cost_stat stat, struct growth_estimate *out);

/* Whether @x and @y name a common class (a range names both its ends). */
bool growth_estimates_agree(const struct growth_estimate *x,
			    const struct growth_estimate *y);

/* The estimate's class as text: "n^2", the range "n^2...n^2 log n",
 * "insufficient" (into @buf, returned). */
const char *growth_class_text(const struct growth_estimate *e, char *buf,
			      size_t len);

/* The estimate's formula as text, e.g. "3.02 n^2 + 12.5" or
 * "0.5 n log n + 200", "1.5 * 1.1^n" for GROWTH_EXP, "" for
 * GROWTH_INSUFFICIENT (into @buf, returned). */
const char *growth_formula(const struct growth_estimate *e, char *buf,
			   size_t len);

#endif
