/*
 * growth_internal.h - what the parts of the growth estimate share and
 * nothing outside them needs: the fitted points, a selection, and the
 * functions that pass them from one step to the next.  The steps, in
 * order (growth.c ties them together):
 *   growth.c             points gathered, merged, refused or binned;
 *   growth_fit.c         each candidate model fitted and scored;
 *   growth_select.c      the class chosen among them, or a range;
 *   growth_confidence.c  how far the choice can be trusted, and why.
 * A rule used by one step is defined in that step's file, next to the
 * code that applies it; only the ones two steps need are here.
 */
#ifndef TRMS_GROWTH_INTERNAL_H
#define TRMS_GROWTH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "growth.h"

/* Binning: above BIN_ABOVE distinct sizes the points are binned (see
 * growth.c), so at most BIN_ABOVE points are ever fitted. */
#define BIN_ABOVE 30
#define MAX_POINTS BIN_ABOVE

/* A LOO SMAPE (or residual) below this is rounding error: the data is
 * explained exactly, and no ratio of two such numbers means anything. */
#define EXACT_SMAPE 1e-9

/* The fitted points: n ascending, costs y >= 0 scaled by the largest
 * (the fits are scale-free; scaling keeps n^3 and 1/y^2 in range). */
struct point_set {
	size_t p;
	double n[MAX_POINTS];
	double y[MAX_POINTS];
	double g[GROWTH_MODELS][MAX_POINTS]; /* growth_g(class, n[i]) */
	double y_scale;  /* y[i] * y_scale is the cost */
	double y_weight; /* costs below it weigh as it: the smallest y > 0 */
	double span;     /* of the sizes these points stand for */
};

/* The cost a point weighs as: its own, or the smallest positive one for
 * a zero cost (whose relative error is undefined). */
static inline double weighing_cost(const struct point_set *ps, size_t i)
{
	return ps->y[i] > ps->y_weight ? ps->y[i] : ps->y_weight;
}

/* ---- growth_fit.c: the candidate models ---- */

/* One term of a SMAPE: |pred - y| over their mean magnitude, 0..2 (2
 * when there is no prediction, @pred NaN). */
double growth_smape_term(double pred, double y);

/* Fits c0 + c1 g(n) over @ps into @m (in the costs' units), with its
 * leave-one-out SMAPE: each point predicted by the fit of the others. */
void growth_fit_model(const struct point_set *ps, enum growth_class g,
		      struct growth_model *m);

/* The leave-one-out SMAPE of c0 + c1 g(n) + c2 h(n), 2 if it cannot be
 * fitted: whether a lower-order term h explains what looks like more
 * growth than g. */
double growth_lower_term_smape(const struct point_set *ps,
			       enum growth_class g, enum growth_class h);

/* Fits c0 + c1 g(n) + c2 h(n) over @ps, @pred its prediction at each
 * size (in @ps's units).  False if it cannot be fitted, or only with
 * c1 <= 0. */
bool growth_fit_lower_term(const struct point_set *ps, enum growth_class g,
			   enum growth_class h, double *pred);

/* The exponential cost = c1 base^n, fitted as log y = alpha + beta n,
 * with its leave-one-out SMAPE.  Valid when every cost is positive and
 * beta > 0. */
void growth_fit_exponential(const struct point_set *ps,
			    struct growth_model *m);

/* ---- growth_select.c: the class ---- */

/* What the selection chose, and every fit it chose among. */
struct selection {
	enum growth_class growth;
	bool has_range;
	enum growth_class range_low, range_high;
	const char *range_reason;
	struct growth_model models[GROWTH_MODELS];
	struct growth_model exponential;
};

/* Fits every candidate over @ps and chooses the class into @s. */
void growth_select_class(const struct point_set *ps, struct selection *s);

/* Whether two selections name a common class (a range stands for both
 * its ends). */
bool growth_selections_agree(const struct selection *x,
			     const struct selection *y);

/* ---- growth_confidence.c: how far to trust it ---- */

/* Sets @out's confidence, reason and the measures they rest on (slope,
 * jackknife, residuals, scatter) for the class @full chose over @ps;
 * @out's class, range and fit are already set from @full. */
void growth_rate_confidence(const struct point_set *ps,
			    const struct selection *full,
			    struct growth_estimate *out);

#endif
