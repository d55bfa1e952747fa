/*
 * growth_confidence.c - how far the chosen class can be trusted: whether
 * it survives leaving out each point in turn, enough points over a wide
 * enough span, the log-log slope of the larger sizes against the
 * class's own, the shape of the fit's residuals and the largest one.
 * Each check that fails lowers the confidence and says why.
 */
#include "growth_internal.h"
#include "median.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the rules (docs/growth.md states them for users) ---- */

/* See growth_rate_confidence. */
#define JACKKNIFE_HIGH 0.9
#define JACKKNIFE_LOW 0.7
#define HIGH_MIN_POINTS 8
#define HIGH_MIN_SPAN 100.0
#define SLOPE_TOLERANCE 0.25
#define SLOPE_ERRORS 3.0
#define RUNS_Z -2.33
#define LACK_OF_FIT 3.0
/* A fit within 5% of the costs (robust standard deviation of the log
 * residuals) describes them: a pattern in smaller residuals is a
 * lower-order term's detail, not another class (a missing log factor
 * misses by 10-30% over the spans where one is claimed). */
#define SHAPE_MIN_MISS 0.05
/* A point the chosen fit misses by more than 3x (SMAPE term above 1):
 * an outlier, or the wrong model. */
#define OUTLIER_SMAPE 1.0

/* ---- robust statistics ---- */

/* A robust standard deviation from absolute deviations @v[0..@k)
 * (reordered): their median over the median absolute deviation of a
 * standard normal, 0.6745. */
static double robust_sd(double *v, size_t k)
{
	return median(v, k) / 0.6745;
}

/* ---- slopes ---- */

/* Least-squares slope of @logs (log y, NaN: left out) on log n over the
 * points from @from on; its standard error into @se (0 without a degree
 * of freedom).  NaN if fewer than two values remain.  The upper half is
 * from p / 2: the larger sizes, with the median for an odd count. */
static double loglog_slope(const struct point_set *ps, size_t from,
			   const double *logs, double *se)
{
	long double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, k = 0;

	*se = 0;
	for (size_t i = from; i < ps->p; i++) {
		if (isnan(logs[i]))
			continue;
		sx += log(ps->n[i]);
		sy += logs[i];
		k++;
	}
	if (k < 2)
		return NAN;
	long double mx = sx / k, my = sy / k;

	for (size_t i = from; i < ps->p; i++) {
		if (isnan(logs[i]))
			continue;
		long double dx = log(ps->n[i]) - mx, dy = logs[i] - my;

		sxx += dx * dx;
		sxy += dx * dy;
		syy += dy * dy;
	}
	if (!(sxx > 0))
		return NAN;
	long double slope = sxy / sxx;
	long double residual = syy - slope * sxy;

	if (k > 2 && residual > 0)
		*se = (double)sqrtl(residual / (k - 2) / sxx);
	return (double)slope;
}

/* The upper half's log-log slope of the costs and its standard error (0
 * if it costs nothing at all: a constant 0). */
static double data_slope(const struct point_set *ps, double *se)
{
	size_t from = ps->p / 2;
	double logs[MAX_POINTS];
	bool all_zero = true;

	for (size_t i = 0; i < ps->p; i++) {
		logs[i] = ps->y[i] > 0 ? log(ps->y[i]) : NAN;
		if (i >= from && ps->y[i] > 0)
			all_zero = false;
	}
	if (all_zero) {
		*se = 0;
		return 0;
	}
	return loglog_slope(ps, from, logs, se);
}

/* The same slope of the class itself, g(n) without the constant term
 * (the exponential: base^n): what the data's slope approaches where the
 * class's term dominates.  n log n over n = 100..1000 gives 1.17. */
static double class_slope(const struct point_set *ps, enum growth_class g,
			  double base)
{
	double logs[MAX_POINTS], se;

	for (size_t i = 0; i < ps->p; i++) {
		double v = g == GROWTH_EXP ? ps->n[i] * log(base)
					   : log(growth_g(g, ps->n[i]));

		logs[i] = isfinite(v) ? v : NAN;
	}
	return loglog_slope(ps, ps->p / 2, logs, &se);
}

/* ---- the residuals ---- */

/* The scatter of the costs around any smooth curve, estimated without a
 * model: each inner point's log cost against the straight line (in log n,
 * log y) through its two neighbours, scaled to one point's share of the
 * difference, and the median of those taken as a robust standard
 * deviation.  The curvature of the true curve adds to it, which only makes
 * the lack-of-fit check below more lenient.  NaN with fewer than 3 inner
 * points or a zero cost. */
static double local_scatter(const struct point_set *ps)
{
	double e[MAX_POINTS];
	size_t k = 0;

	for (size_t i = 0; i < ps->p; i++)
		if (!(ps->y[i] > 0))
			return NAN;
	for (size_t i = 1; i + 1 < ps->p; i++) {
		double u0 = log(ps->n[i - 1]), u = log(ps->n[i]);
		double u1 = log(ps->n[i + 1]);
		double w = (u - u0) / (u1 - u0);
		double line = (1 - w) * log(ps->y[i - 1]) +
			      w * log(ps->y[i + 1]);

		e[k++] = fabs(log(ps->y[i]) - line) /
			 sqrt(1 + (1 - w) * (1 - w) + w * w);
	}
	if (k < 3)
		return NAN;
	return robust_sd(e, k);
}

/* Wald-Wolfowitz runs test on the signs of the fit's residuals in order
 * of n: z of the number of runs (negative: fewer runs than chance, the
 * residuals follow a pattern, the class misses the curve's shape).  0 if
 * the fit is exact (residuals of rounding error have no meaning) or has
 * only one sign. */
static double residual_runs_z(const struct point_set *ps,
			      const double *residual)
{
	unsigned plus = 0, minus = 0, runs = 0;
	int last = 0;
	double largest = 0;

	for (size_t i = 0; i < ps->p; i++)
		if (fabs(residual[i]) > largest)
			largest = fabs(residual[i]);
	if (largest <= EXACT_SMAPE)
		return 0;
	for (size_t i = 0; i < ps->p; i++) {
		int sign = residual[i] > 0 ? 1 : residual[i] < 0 ? -1 : 0;

		if (sign == 0)
			continue;
		plus += sign > 0;
		minus += sign < 0;
		runs += sign != last;
		last = sign;
	}
	double total = plus + minus;

	if (plus == 0 || minus == 0 || total < 3)
		return 0;
	double mean = 1 + 2.0 * plus * minus / total;
	double variance = (mean - 1) * (mean - 2) / (total - 1);

	return variance > 0 ? (runs - mean) / sqrt(variance) : 0;
}

static double model_predict(const struct growth_model *m, double n)
{
	if (m->g == GROWTH_EXP)
		return m->c1 * pow(m->base, n);
	return m->c0 + m->c1 * growth_g(m->g, n);
}


/* ---- the checks ---- */

/* Appends to @buf (size @len) a "; "-separated clause. */
__attribute__((format(printf, 3, 4))) static void
add_reason(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 3 >= len)
		return;
	if (used > 0) {
		strcpy(buf + used, "; ");
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* Reruns the selection with each point of @ps left out in turn: how many
 * of those name a class of @full, into @out. */
static void jackknife(const struct point_set *ps,
		      const struct selection *full,
		      struct growth_estimate *out)
{
	struct point_set rest;
	struct selection sub;
	unsigned agree = 0;
	double binning = ps->span / (ps->n[ps->p - 1] / ps->n[0]);

	for (size_t j = 0; j < ps->p; j++) {
		rest = *ps;
		rest.p = ps->p - 1;
		for (size_t i = j; i < rest.p; i++) {
			rest.n[i] = ps->n[i + 1];
			rest.y[i] = ps->y[i + 1];
			for (int g = 0; g < GROWTH_MODELS; g++)
				rest.g[g][i] = ps->g[g][i + 1];
		}
		/* Its span as the full set's: the points' ratio, widened
		 * by what binning took off the ends of the sizes. */
		rest.span = rest.n[rest.p - 1] / rest.n[0] * binning;
		growth_select_class(&rest, &sub);
		agree += growth_selections_agree(full, &sub);
	}
	out->jackknife_agree = agree;
	out->jackknife_runs = (unsigned)ps->p;
	out->stability = (double)agree / (double)ps->p;
}

/* Sets @out's upper-half log-log slope and the class's own (for a range:
 * of whichever end is nearer the data's); whether the two are within the
 * tolerance. */
static bool slope_matches(const struct point_set *ps,
			  struct growth_estimate *out)
{
	double slope_error;

	out->slope = data_slope(ps, &slope_error);
	out->slope_expected = class_slope(ps, out->growth, out->fit.base);
	double off = fabs(out->slope - out->slope_expected);

	if (out->has_range) {
		enum growth_class other = out->growth == out->range_low
						  ? out->range_high
						  : out->range_low;
		double e2 = class_slope(ps, other, 0);

		if (fabs(out->slope - e2) < off) {
			off = fabs(out->slope - e2);
			out->slope_expected = e2;
		}
	}

	double tolerance = fmax(SLOPE_TOLERANCE, SLOPE_ERRORS * slope_error);

	return off <= tolerance;
}

/* The residuals of predictions @pred over @ps: the largest SMAPE term
 * into *@worst, the runs test into *@runs_z.  @return the fit's
 * scatter. */
static double residuals_of(const struct point_set *ps, const double *pred,
			   double *worst, double *runs_z)
{
	double residual[MAX_POINTS], size[MAX_POINTS];

	*worst = 0;
	for (size_t i = 0; i < ps->p; i++) {
		double term = growth_smape_term(pred[i], ps->y[i]);

		if (term > *worst)
			*worst = term;
		/* In log terms where both are positive, as the scatter. */
		residual[i] = pred[i] > 0 && ps->y[i] > 0
				      ? log(ps->y[i] / pred[i])
				      : (ps->y[i] - pred[i]) /
						weighing_cost(ps, i);
		size[i] = fabs(residual[i]);
	}
	*runs_z = residual_runs_z(ps, residual);
	return robust_sd(size, ps->p);
}

/* Sets @out's measures of the chosen fit's residuals over @ps: the
 * largest SMAPE term, the runs test, the fit's scatter and the costs'
 * own.
 *
 * A class above n is measured against c0 + c1 g(n) + c2 n too, where
 * that fits better: a linear lower-order term (a loop's own n steps
 * beside its n^2, strlen's n + 1 reads per call) does not make a
 * quadratic cost any less quadratic, but the two-parameter fit cannot
 * follow it, and misses the small sizes by more than exact costs
 * scatter.  (A range keeps its fit: which end would the term be of?) */
static void measure_residuals(const struct point_set *ps,
			      struct growth_estimate *out)
{
	double pred[MAX_POINTS], lower[MAX_POINTS], worst, runs_z;

	for (size_t i = 0; i < ps->p; i++)
		pred[i] = model_predict(&out->fit, ps->n[i]) / ps->y_scale;
	out->fit_scatter =
		residuals_of(ps, pred, &out->worst_residual, &out->runs_z);
	if (!out->has_range && out->growth > GROWTH_LINEAR &&
	    out->growth < GROWTH_EXP &&
	    growth_fit_lower_term(ps, out->growth, GROWTH_LINEAR, lower)) {
		double scatter = residuals_of(ps, lower, &worst, &runs_z);

		if (scatter < out->fit_scatter) {
			out->fit_scatter = scatter;
			out->worst_residual = worst;
			out->runs_z = runs_z;
		}
	}
	out->scatter = local_scatter(ps);
}

/* The confidence of @out's class over @ps, and why it is not HIGH.
 *
 * The selection is rerun with each point left out in turn (jackknife);
 * the agreement is the share of those reruns naming a class of the
 * estimate (a range stands for its two ends).  Under JACKKNIFE_LOW:
 * LOW, whatever else holds.  Otherwise these are checked:
 *   - the agreement is at least JACKKNIFE_HIGH;
 *   - at least HIGH_MIN_POINTS points are fitted;
 *   - the span is at least HIGH_MIN_SPAN;
 *   - the upper half's log-log slope is within SLOPE_TOLERANCE, or
 *     SLOPE_ERRORS of its standard errors if that is more, of the slope
 *     of the class's own g(n) at the same sizes (for a range: of either
 *     end);
 *     a slope below it means the sizes have not reached the regime
 *     where the class's term dominates, a slope above it a faster
 *     growth than claimed;
 *   - the class follows the curve's shape: the signs of the fit's
 *     residuals, in order of n, change often enough (Wald-Wolfowitz
 *     runs test, z >= RUNS_Z: fewer runs happen by chance about 1 time
 *     in 100), and the residuals (median, in log terms) are at most
 *     LACK_OF_FIT times the costs' own scatter (local_scatter); neither
 *     counts while the fit misses by at most SHAPE_MIN_MISS.  A fit
 *     that misses by more than the data scatters, or in long runs of one
 *     sign, is held back by a lower-order term the two-parameter fit
 *     cannot follow, or is the wrong class;
 *   - no point is further than 3x from the fit (SMAPE term above
 *     OUTLIER_SMAPE): a fit that misses a point by that much is either
 *     the wrong model or was pulled by an outlier.
 * All hold: HIGH; one fails: MEDIUM; two or more: LOW. */
void growth_rate_confidence(const struct point_set *ps,
			    const struct selection *full,
			    struct growth_estimate *out)
{
	unsigned failures = 0;

	jackknife(ps, full, out);

	bool slope_ok = slope_matches(ps, out);

	measure_residuals(ps, out);

	bool patterned = out->runs_z < RUNS_Z &&
			 out->fit_scatter > SHAPE_MIN_MISS;
	bool lack_of_fit = out->fit_scatter > SHAPE_MIN_MISS &&
			   out->fit_scatter > LACK_OF_FIT * out->scatter;

	char *buf = out->reason_buf;
	size_t len = sizeof(out->reason_buf);

	buf[0] = '\0';
	if (out->stability < JACKKNIFE_HIGH) {
		failures += out->stability < JACKKNIFE_LOW ? 2 : 1;
		add_reason(buf, len, "%u of %zu leave-one-size-out fits agree",
			   out->jackknife_agree, ps->p);
	}
	if (ps->p < HIGH_MIN_POINTS) {
		failures++;
		add_reason(buf, len, "only %zu sizes (%d for HIGH)", ps->p,
			   HIGH_MIN_POINTS);
	}
	if (ps->span < HIGH_MIN_SPAN) {
		failures++;
		add_reason(buf, len, "span %.0fx (%.0fx for HIGH)", ps->span,
			   HIGH_MIN_SPAN);
	}
	if (!slope_ok) {
		failures++;
		add_reason(buf, len,
			   "upper-half log-log slope %.2f, the class's %.2f",
			   out->slope, out->slope_expected);
	}
	if (patterned || lack_of_fit) {
		failures++;
		if (lack_of_fit)
			add_reason(buf, len, "the fit misses by %.2g, the "
					     "costs scatter by %.2g",
				   out->fit_scatter, out->scatter);
		else
			add_reason(buf, len, "the fit's residuals follow a "
					     "pattern (runs z = %.1f)",
				   out->runs_z);
	}
	if (out->worst_residual > OUTLIER_SMAPE) {
		double term = out->worst_residual;

		failures++;
		/* A term s means a ratio (2 + s) / (2 - s) between the
		 * larger and the smaller of cost and fit. */
		add_reason(buf, len, "a size is %.3gx off the fit",
			   term >= 2 ? INFINITY : (2 + term) / (2 - term));
	}
	out->confidence = failures == 0   ? CONFIDENCE_HIGH
			  : failures == 1 ? CONFIDENCE_MEDIUM
					  : CONFIDENCE_LOW;
	out->reason = failures ? buf : NULL;
}
