/*
 * growth.c - the growth class of a region's cost in its input size: the
 * statistics of each distinct size (size_point_from_tuple), and the class
 * fitted to them (growth_estimate).  docs/growth.md says what the user
 * sees; the rules and why they are what they are are stated here, next to
 * the code that applies them.
 *
 * The estimate, in order:
 *   1. points with n >= 1, sorted, equal sizes merged; refuse below
 *      MIN_SIZES distinct sizes or a span (largest n / smallest n) below
 *      MIN_SPAN;
 *   2. more than BIN_ABOVE sizes: one point per non-empty log-spaced
 *      bucket (BUCKETS of them), see bin_points();
 *   3. every class c0 + c1 g(n) fitted by weighted least squares with
 *      weights 1/y^2 (relative errors), c1 <= 0 rejected, and scored by
 *      its leave-one-out SMAPE;
 *   4. the selection (select_class): the constant unless a growing class
 *      does CONSTANT_MARGIN times better; log classes never claimed under
 *      LOG_CLASS_SPAN; a log-factor pair within RANGE_CLOSE reported as a
 *      range, and so is a log factor that the class without it explains
 *      as well given a lower-order term; an exponential flagged when
 *      log y linear in n fits far better than every polynomial;
 *   5. the confidence (rate_confidence): the selection rerun with each
 *      point left out, the number of points, the span, the log-log slope
 *      of the upper half, the shape of the residuals and the largest
 *      one.
 *
 * No global state, no randomness: the same points give the same estimate.
 */
#include "growth.h"

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

/* A log factor grows slowly: over 32x, from n = 30 to 1000, log n goes
 * from 3.4 to 6.9, a doubling that a constant term, a lower-order term
 * or noise imitate.  Under 100x, log n, n log n and n^2 log n are never
 * claimed. */
#define LOG_CLASS_SPAN 100.0

/* Binning: above BIN_ABOVE distinct sizes, BUCKETS log-spaced buckets.
 * So at most BIN_ABOVE points are ever fitted. */
#define BIN_ABOVE 30
#define BUCKETS 24
#define MAX_POINTS BIN_ABOVE

/* Selection.  The constant stays unless the best growing class's LOO
 * SMAPE is CONSTANT_MARGIN times smaller: a growing class has one more
 * parameter and fits noise a little better. */
#define CONSTANT_MARGIN 1.3
/* A constant whose LOO SMAPE is below this explains the data to rounding
 * error: no margin can be computed from two numerical zeros. */
#define EXACT_SMAPE 1e-9
/* Log-factor neighbours whose (margin-adjusted) LOO SMAPEs are within
 * 10% of each other fit about equally well: reported as a range.  The
 * log factors the data cannot resolve for another reason, a lower-order
 * term, are caught by their own check (select_class), which lets this
 * margin stay small: 1.3 made a quarter of the n log n answers at 20%
 * noise ranges in the accuracy suite, for few wrong answers less. */
#define RANGE_CLOSE 1.1
/* Exponential: log y linear in n must fit with half the LOO SMAPE of the
 * best polynomial class, and the fitted exponential must grow at least
 * 100x over the sizes (a gentler curve is fitted as well by a power). */
#define EXP_BETTER 0.5
#define EXP_MIN_GROWTH 100.0

/* Confidence (see rate_confidence). */
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

static bool is_log_class(enum growth_class g)
{
	return g == GROWTH_LOG || g == GROWTH_NLOGN || g == GROWTH_N2LOGN;
}

/* The class that differs from @g by a log factor, or @g if none. */
static enum growth_class log_neighbour(enum growth_class g)
{
	switch (g) {
	case GROWTH_CONSTANT:
		return GROWTH_LOG;
	case GROWTH_LOG:
		return GROWTH_CONSTANT;
	case GROWTH_LINEAR:
		return GROWTH_NLOGN;
	case GROWTH_NLOGN:
		return GROWTH_LINEAR;
	case GROWTH_N2:
		return GROWTH_N2LOGN;
	case GROWTH_N2LOGN:
		return GROWTH_N2;
	default:
		return g;
	}
}

/* ---- least squares with leave-one-out ---- */

/* Every fit here is min sum_i (t_i - sum_j c_j x_ij)^2 over up to three
 * columns: the weighted fits of the classes are put in this form by
 * dividing each row by its cost (fit_model), so that the residual is the
 * relative error. */
#define MAX_COLUMNS 3

struct design {
	size_t p;
	int k;
	long double x[MAX_POINTS][MAX_COLUMNS];
	long double t[MAX_POINTS];
};

/* The normal equations' sums over some rows, packed: the k (k + 1) / 2
 * products x_a x_b (a <= b: 00, 01, 11, 02, 12, 22) then the k products
 * x_a t. */
#define NORMAL_SUMS 9

static int normal_size(int k)
{
	return k * (k + 1) / 2 + k;
}

static int packed(int a, int b)
{
	return b * (b + 1) / 2 + a; /* a <= b */
}

/* Solves the @k x @k equations of the packed sums @s into @c; false if
 * they are singular (to within rounding). */
static bool normal_solve(const long double *s, int k, long double *c)
{
	const long double *xt = s + k * (k + 1) / 2;

	if (k == 1) {
		if (!(s[0] > 0))
			return false;
		c[0] = xt[0] / s[0];
		return true;
	}
	if (k == 2) {
		/* The closed form of the 2 x 2 normal equations. */
		long double det = s[0] * s[2] - s[1] * s[1];

		if (!(det > s[0] * s[2] * LDBL_EPSILON * 16))
			return false;
		c[0] = (xt[0] * s[2] - s[1] * xt[1]) / det;
		c[1] = (s[0] * xt[1] - s[1] * xt[0]) / det;
		return isfinite((double)c[0]) && isfinite((double)c[1]);
	}

	/* Three columns: Gaussian elimination, partial pivoting. */
	long double m[MAX_COLUMNS][MAX_COLUMNS + 1], scale = 0;

	for (int a = 0; a < k; a++) {
		for (int b = 0; b < k; b++)
			m[a][b] = s[a <= b ? packed(a, b) : packed(b, a)];
		m[a][k] = xt[a];
		if (m[a][a] > scale)
			scale = m[a][a];
	}
	for (int col = 0; col < k; col++) {
		int pivot = col;

		for (int a = col + 1; a < k; a++)
			if (fabsl(m[a][col]) > fabsl(m[pivot][col]))
				pivot = a;
		if (!(fabsl(m[pivot][col]) > scale * LDBL_EPSILON * 64))
			return false;
		for (int b = 0; b <= k; b++) {
			long double swap = m[col][b];

			m[col][b] = m[pivot][b];
			m[pivot][b] = swap;
		}
		for (int a = col + 1; a < k; a++) {
			long double f = m[a][col] / m[col][col];

			for (int b = col; b <= k; b++)
				m[a][b] -= f * m[col][b];
		}
	}
	for (int a = k - 1; a >= 0; a--) {
		long double v = m[a][k];

		for (int b = a + 1; b < k; b++)
			v -= m[a][b] * c[b];
		c[a] = v / m[a][a];
		if (!isfinite((double)c[a]))
			return false;
	}
	return true;
}

/* Fits @d: the coefficients over all rows into @c (false if singular),
 * and each row's t as predicted by the fit of the other rows into @loo
 * (NaN where that fit is singular).  The sums without row i are a
 * prefix plus a suffix, never a total minus row i: with weights 1/y^2
 * one row can outweigh all the others by many decades. */
static inline __attribute__((always_inline)) bool
fit_design_body(const struct design *d, int k, long double *c, double *loo)
{
	long double prefix[MAX_POINTS + 1][NORMAL_SUMS];
	long double suffix[MAX_POINTS + 1][NORMAL_SUMS];
	long double row[MAX_POINTS][NORMAL_SUMS];
	int m = normal_size(k);
	size_t p = d->p;

	for (size_t i = 0; i < p; i++) {
		int j = 0;

		for (int b = 0; b < k; b++)
			for (int a = 0; a <= b; a++)
				row[i][j++] = d->x[i][a] * d->x[i][b];
		for (int a = 0; a < k; a++)
			row[i][j++] = d->x[i][a] * d->t[i];
	}
	for (int j = 0; j < m; j++) {
		prefix[0][j] = 0;
		suffix[p][j] = 0;
	}
	for (size_t i = 0; i < p; i++)
		for (int j = 0; j < m; j++)
			prefix[i + 1][j] = prefix[i][j] + row[i][j];
	for (size_t i = p; i-- > 0;)
		for (int j = 0; j < m; j++)
			suffix[i][j] = suffix[i + 1][j] + row[i][j];
	for (size_t i = 0; i < p; i++) {
		long double rest[NORMAL_SUMS], ci[MAX_COLUMNS], pred = 0;

		for (int j = 0; j < m; j++)
			rest[j] = prefix[i][j] + suffix[i + 1][j];
		if (!normal_solve(rest, k, ci)) {
			loo[i] = NAN;
			continue;
		}
		for (int a = 0; a < k; a++)
			pred += ci[a] * d->x[i][a];
		loo[i] = (double)pred;
	}
	return normal_solve(prefix[p], k, c);
}

/* fit_design_body for one, two and three columns: with k a constant the
 * compiler unrolls its loops (the estimate spends most of its time
 * here). */
static bool fit_design(const struct design *d, long double *c, double *loo)
{
	switch (d->k) {
	case 1:
		return fit_design_body(d, 1, c, loo);
	case 2:
		return fit_design_body(d, 2, c, loo);
	default:
		return fit_design_body(d, 3, c, loo);
	}
}

static int compare_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The median of @v[0..@k) (reordered). */
static double median(double *v, size_t k)
{
	qsort(v, k, sizeof(*v), compare_double);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

static double smape_term(double pred, double y)
{
	double scale = (fabs(pred) + fabs(y)) / 2;

	if (isnan(pred))
		return 2; /* no prediction: the worst term */
	if (scale == 0)
		return 0;
	return fabs(pred - y) / scale;
}

/* ---- the candidate models ---- */

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
static double weighing_cost(const struct point_set *ps, size_t i)
{
	return ps->y[i] > ps->y_weight ? ps->y[i] : ps->y_weight;
}

/* The rows of c0 + c1 g(n) [+ c2 h(n)] weighted by 1/y^2: each row is
 * divided by its cost, the target becomes 1 and the residual the
 * relative error.  g(n) and h(n) are scaled by their value at the largest
 * size, into @g_scale. */
static void weighted_rows(const struct point_set *ps, enum growth_class g,
			  enum growth_class h, int k, struct design *d,
			  double *g_scale)
{
	double scales[MAX_COLUMNS] = { 1, ps->g[g][ps->p - 1],
				       ps->g[h][ps->p - 1] };

	for (int a = 1; a < k; a++)
		if (!(scales[a] > 0))
			scales[a] = 1;
	d->p = ps->p;
	d->k = k;
	for (size_t i = 0; i < ps->p; i++) {
		long double yw = weighing_cost(ps, i);

		d->x[i][0] = 1 / yw;
		if (k > 1)
			d->x[i][1] = ps->g[g][i] / scales[1] / yw;
		if (k > 2)
			d->x[i][2] = ps->g[h][i] / scales[2] / yw;
		d->t[i] = ps->y[i] / yw;
	}
	*g_scale = scales[1];
}

/* The leave-one-out SMAPE of a weighted fit, from its predictions of t
 * (= y / weighing cost). */
static double weighted_loo_smape(const struct point_set *ps,
				 const double *loo)
{
	double total = 0;

	for (size_t i = 0; i < ps->p; i++)
		total += smape_term(loo[i] * weighing_cost(ps, i), ps->y[i]);
	return total / (double)ps->p;
}

/* Fits c0 + c1 g(n) over @ps into @m (in the costs' units), with its
 * leave-one-out SMAPE: each point predicted by the fit of the others. */
static void fit_model(const struct point_set *ps, enum growth_class g,
		      struct growth_model *m)
{
	struct design d;
	long double c[MAX_COLUMNS];
	double loo[MAX_POINTS], g_scale;
	bool constant = g == GROWTH_CONSTANT;

	memset(m, 0, sizeof(*m));
	m->g = g;
	m->smape = 2;
	weighted_rows(ps, g, GROWTH_CONSTANT, constant ? 1 : 2, &d, &g_scale);
	if (!fit_design(&d, c, loo))
		return;
	m->valid = constant || c[1] > 0;
	m->c0 = (double)c[0] * ps->y_scale;
	m->c1 = constant ? 0 : (double)c[1] * ps->y_scale / g_scale;
	m->smape = weighted_loo_smape(ps, loo);
}

/* The leave-one-out SMAPE of c0 + c1 g(n) + c2 h(n), 2 if it cannot be
 * fitted: for the lower-order-term check of select_class. */
static double lower_term_smape(const struct point_set *ps,
			       enum growth_class g, enum growth_class h)
{
	struct design d;
	long double c[MAX_COLUMNS];
	double loo[MAX_POINTS], g_scale;

	if (ps->p < 4)
		return 2;
	weighted_rows(ps, g, h, 3, &d, &g_scale);
	if (!fit_design(&d, c, loo))
		return 2;
	return weighted_loo_smape(ps, loo);
}

/* The term below @g that a cost with a log factor less most likely
 * carries: n for n^2 (n^2 - 30n + 1000), sqrt n for n. */
static enum growth_class lower_term(enum growth_class g)
{
	return g == GROWTH_N2 ? GROWTH_LINEAR : GROWTH_SQRT;
}

/* The exponential cost = c1 base^n, fitted as log y = alpha + beta n by
 * least squares (relative errors again), with its leave-one-out SMAPE.
 * Valid when every cost is positive and beta > 0. */
static void fit_exponential(const struct point_set *ps,
			    struct growth_model *m)
{
	struct design d = { .p = ps->p, .k = 2 };
	long double c[MAX_COLUMNS];
	double loo[MAX_POINTS], n_scale = ps->n[ps->p - 1], total = 0;

	memset(m, 0, sizeof(*m));
	m->g = GROWTH_EXP;
	m->smape = 2;
	for (size_t i = 0; i < ps->p; i++) {
		if (!(ps->y[i] > 0))
			return;
		d.x[i][0] = 1;
		d.x[i][1] = ps->n[i] / n_scale;
		d.t[i] = log(ps->y[i]);
	}
	if (!fit_design(&d, c, loo))
		return;
	m->valid = c[1] > 0;
	m->c1 = exp((double)c[0]) * ps->y_scale;
	m->base = exp((double)c[1] / n_scale);
	for (size_t i = 0; i < ps->p; i++)
		total += smape_term(exp(loo[i]), ps->y[i]);
	m->smape = total / (double)ps->p;
}

/* ---- selection ---- */

struct selection {
	enum growth_class growth;
	bool has_range;
	enum growth_class range_low, range_high;
	const char *range_reason;
	struct growth_model models[GROWTH_MODELS];
	struct growth_model exponential;
};

/* The LOO SMAPE a class is compared on: the constant's divided by the
 * margin it is given; an invalid class never wins. */
static double score(const struct growth_model *m)
{
	if (!m->valid)
		return INFINITY;
	return m->g == GROWTH_CONSTANT ? m->smape / CONSTANT_MARGIN
				       : m->smape;
}

static void set_range(struct selection *s, enum growth_class x,
		      enum growth_class y, const char *why)
{
	s->has_range = true;
	s->range_reason = why;
	s->range_low = x < y ? x : y;
	s->range_high = x < y ? y : x;
}

static void select_class(const struct point_set *ps, struct selection *s)
{
	enum growth_class winner = GROWTH_CONSTANT;
	enum growth_class runner_up = GROWTH_INSUFFICIENT;
	double best_smape = INFINITY;

	memset(s, 0, sizeof(*s));
	for (int g = 0; g < GROWTH_MODELS; g++)
		fit_model(ps, (enum growth_class)g, &s->models[g]);
	fit_exponential(ps, &s->exponential);

	/* Winner and runner-up by score; ties go to the slower class. */
	for (int g = 1; g < GROWTH_MODELS; g++) {
		double sc = score(&s->models[g]);

		if (sc < score(&s->models[winner])) {
			runner_up = winner;
			winner = (enum growth_class)g;
		} else if (sc < INFINITY &&
			   (runner_up == GROWTH_INSUFFICIENT ||
			    sc < score(&s->models[runner_up]))) {
			runner_up = (enum growth_class)g;
		}
	}
	if (s->models[GROWTH_CONSTANT].smape <= EXACT_SMAPE) {
		winner = GROWTH_CONSTANT;
		runner_up = GROWTH_INSUFFICIENT;
	}
	for (int g = 0; g < GROWTH_MODELS; g++)
		if (s->models[g].valid && s->models[g].smape < best_smape)
			best_smape = s->models[g].smape;

	/* Exponential: far better than every polynomial, which must not fit
	 * to rounding error, and a growth of at least EXP_MIN_GROWTH over
	 * the sizes. */
	const struct growth_model *e = &s->exponential;

	if (e->valid && best_smape > EXACT_SMAPE &&
	    e->smape <= EXP_BETTER * best_smape &&
	    (ps->n[ps->p - 1] - ps->n[0]) * log(e->base) >=
		    log(EXP_MIN_GROWTH)) {
		s->growth = GROWTH_EXP;
		return;
	}

	s->growth = winner;
	if (is_log_class(winner) && ps->span < LOG_CLASS_SPAN) {
		/* Never a log class over a short span: the neighbour
		 * without the log, and the range up to the log class. */
		enum growth_class plain = log_neighbour(winner);

		if (s->models[plain].valid) {
			s->growth = plain;
			set_range(s, plain, winner,
				  "a log factor is not claimed under a "
				  "100x span");
			return;
		}
		/* Its neighbour does not fit (c1 <= 0): the best class
		 * without a log factor, and no range. */
		s->growth = GROWTH_CONSTANT;
		for (int g = 1; g < GROWTH_MODELS; g++)
			if (!is_log_class((enum growth_class)g) &&
			    score(&s->models[g]) <
				    score(&s->models[s->growth]))
				s->growth = (enum growth_class)g;
		return;
	}
	if (runner_up != GROWTH_INSUFFICIENT &&
	    runner_up == log_neighbour(winner) &&
	    score(&s->models[runner_up]) <=
		    RANGE_CLOSE * score(&s->models[winner])) {
		set_range(s, winner, runner_up,
			  "both ends fit about equally well");
		return;
	}
	/* A log factor the class without it explains as well once given a
	 * lower-order term (n^2 + c2 n for n^2 log n, n + c2 sqrt n for
	 * n log n): a negative lower-order term over small sizes makes a
	 * cost rise faster than its leading term, like a log factor does.
	 * The data cannot tell them apart: the range. */
	if (winner == GROWTH_NLOGN || winner == GROWTH_N2LOGN) {
		enum growth_class plain = log_neighbour(winner);
		double with_lower = lower_term_smape(ps, plain,
						     lower_term(plain));

		if (with_lower <= RANGE_CLOSE * s->models[winner].smape)
			set_range(s, winner, plain,
				  "the lower end fits as well with a "
				  "lower-order term");
	}
}

/* Whether two selections name a common class (a range stands for both
 * its ends). */
static bool selections_agree(const struct selection *x,
			     const struct selection *y)
{
	enum growth_class xs[2] = { x->growth, x->growth };
	enum growth_class ys[2] = { y->growth, y->growth };

	if (x->has_range) {
		xs[0] = x->range_low;
		xs[1] = x->range_high;
	}
	if (y->has_range) {
		ys[0] = y->range_low;
		ys[1] = y->range_high;
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (xs[i] == ys[j])
				return true;
	return false;
}

/* ---- confidence ---- */

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
	return median(e, k) / 0.6745;
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
static void rate_confidence(const struct point_set *ps,
			    const struct selection *full,
			    struct growth_estimate *out)
{
	struct point_set rest;
	struct selection sub;
	unsigned agree = 0, failures = 0;
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
		select_class(&rest, &sub);
		agree += selections_agree(full, &sub);
	}
	out->jackknife_agree = agree;
	out->jackknife_runs = (unsigned)ps->p;
	out->stability = (double)agree / (double)ps->p;

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
	double worst_term = 0, residual[MAX_POINTS], size[MAX_POINTS];

	for (size_t i = 0; i < ps->p; i++) {
		double pred = model_predict(&out->fit, ps->n[i]) / ps->y_scale;
		double term = smape_term(pred, ps->y[i]);

		if (term > worst_term)
			worst_term = term;
		/* In log terms where both are positive, as the scatter. */
		residual[i] = pred > 0 && ps->y[i] > 0
				      ? log(ps->y[i] / pred)
				      : (ps->y[i] - pred) /
						(ps->y[i] > ps->y_weight
							 ? ps->y[i]
							 : ps->y_weight);
		size[i] = fabs(residual[i]);
	}
	out->worst_residual = worst_term;
	out->runs_z = residual_runs_z(ps, residual);
	out->fit_scatter = median(size, ps->p) / 0.6745;
	out->scatter = local_scatter(ps);

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
			   agree, ps->p);
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
	if (!(off <= tolerance)) {
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
	if (worst_term > OUTLIER_SMAPE) {
		failures++;
		/* A term s means a ratio (2 + s) / (2 - s) between the
		 * larger and the smaller of cost and fit. */
		add_reason(buf, len, "a size is %.3gx off the fit",
			   worst_term >= 2 ? INFINITY
					   : (2 + worst_term) / (2 - worst_term));
	}
	out->confidence = failures == 0   ? CONFIDENCE_HIGH
			  : failures == 1 ? CONFIDENCE_MEDIUM
					  : CONFIDENCE_LOW;
	out->reason = failures ? buf : NULL;
}

/* ---- the estimate ---- */

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

void growth_estimate(const struct size_point *points, size_t n_points,
		     enum cost_stat stat, struct growth_estimate *out)
{
	struct raw_point *raw;
	size_t k = 0;

	memset(out, 0, sizeof(*out));
	out->slope = NAN;
	out->slope_expected = NAN;
	for (int g = 0; g < GROWTH_MODELS; g++)
		out->models[g].g = (enum growth_class)g;
	out->exponential.g = GROWTH_EXP;
	raw = malloc((n_points ? n_points : 1) * sizeof(*raw));
	if (!raw) {
		out->growth = GROWTH_INSUFFICIENT;
		out->fit.g = GROWTH_INSUFFICIENT;
		out->reason = "out of memory";
		return;
	}
	for (size_t i = 0; i < n_points; i++) {
		double y = size_point_cost(&points[i], stat);

		if (points[i].n == 0 || !isfinite(y))
			continue;
		raw[k++] = (struct raw_point){ (double)points[i].n,
					       y > 0 ? y : 0,
					       (double)points[i].count };
	}
	qsort(raw, k, sizeof(*raw), compare_raw);
	/* Equal sizes (not expected, but possible after a careless merge)
	 * become one. */
	size_t distinct = 0;

	for (size_t i = 0; i < k; i++) {
		if (distinct > 0 && raw[distinct - 1].n == raw[i].n)
			combine(&raw[distinct - 1], &raw[i], stat);
		else
			raw[distinct++] = raw[i];
	}
	out->sizes = distinct;
	if (distinct > 0) {
		out->n_min = raw[0].n;
		out->n_max = raw[distinct - 1].n;
		out->span = out->n_max / out->n_min;
	}
	if (distinct < MIN_SIZES) {
		refuse(out, "insufficient data: %zu distinct sizes (need %d)",
		       distinct, MIN_SIZES);
		free(raw);
		return;
	}
	if (out->span < MIN_SPAN) {
		refuse(out, "insufficient data: sizes span %.3gx (need %.0fx)",
		       out->span, MIN_SPAN);
		free(raw);
		return;
	}
	size_t p = distinct > BIN_ABOVE ? bin_points(raw, distinct, stat)
					: distinct;

	out->points = p;
	if (p < MIN_SIZES) {
		refuse(out, "insufficient data: the sizes fall in %zu of %d "
			    "log-spaced ranges (need %d)",
		       p, BUCKETS, MIN_SIZES);
		free(raw);
		return;
	}

	struct point_set ps = { .p = p, .y_scale = 0, .y_weight = INFINITY };

	for (size_t i = 0; i < p; i++) {
		if (raw[i].y > ps.y_scale)
			ps.y_scale = raw[i].y;
		if (raw[i].y > 0 && raw[i].y < ps.y_weight)
			ps.y_weight = raw[i].y;
	}
	for (size_t i = 0; i < p; i++) {
		ps.n[i] = raw[i].n;
		ps.y[i] = ps.y_scale > 0 ? raw[i].y / ps.y_scale : 0;
		for (int g = 0; g < GROWTH_MODELS; g++)
			ps.g[g][i] = growth_g((enum growth_class)g, ps.n[i]);
	}
	free(raw);
	/* The span of the sizes, not of the bucket points: binning the
	 * worst case puts the first bucket at its largest size. */
	ps.span = out->span;
	if (ps.y_scale > 0) {
		ps.y_weight /= ps.y_scale;
	} else {
		/* Nothing costs anything: the constant 0, exactly. */
		ps.y_scale = 1;
		ps.y_weight = 1;
	}

	struct selection s;

	select_class(&ps, &s);
	memcpy(out->models, s.models, sizeof(out->models));
	out->exponential = s.exponential;
	out->growth = s.growth;
	out->has_range = s.has_range;
	out->range_low = s.range_low;
	out->range_high = s.range_high;
	out->range_reason = s.range_reason;
	out->fit = s.growth == GROWTH_EXP ? s.exponential
					  : s.models[s.growth];
	rate_confidence(&ps, &s, out);
}

/* ---- as text ---- */

const char *growth_class_text(const struct growth_estimate *e, char *buf,
			      size_t len)
{
	if (e->has_range)
		snprintf(buf, len, "%s...%s", growth_name(e->range_low),
			 growth_name(e->range_high));
	else
		snprintf(buf, len, "%s", growth_name(e->growth));
	return buf;
}

/* @x with 3 significant digits, trailing zeros dropped: "3.02", "12.5",
 * "200", "0.5", "123456" (integer digits are never dropped below 1e6),
 * "1.2e+07". */
static void format_number(char *buf, size_t len, double x)
{
	double mag = fabs(x);

	if (mag == 0) {
		snprintf(buf, len, "0");
		return;
	}
	int exponent = (int)floor(log10(mag));

	if (exponent >= -4 && exponent < 6) {
		int decimals = exponent >= 2 ? 0 : 2 - exponent;

		snprintf(buf, len, "%.*f", decimals, x);
	} else {
		snprintf(buf, len, "%.2e", x);
	}

	char *e = strchr(buf, 'e');
	char *dot = strchr(buf, '.');

	if (!dot)
		return;
	char *end = e ? e : buf + strlen(buf);
	char *cut = end;

	while (cut > dot + 1 && cut[-1] == '0')
		cut--;
	if (cut == dot + 1)
		cut = dot;
	memmove(cut, end, strlen(end) + 1);
}

const char *growth_formula(const struct growth_estimate *e, char *buf,
			   size_t len)
{
	char c1[32], c0[32];
	const struct growth_model *m = &e->fit;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (e->growth == GROWTH_INSUFFICIENT || m->g == GROWTH_INSUFFICIENT)
		return buf;
	if (m->g == GROWTH_EXP) {
		char base[32];

		format_number(c1, sizeof(c1), m->c1);
		/* The base needs more digits than the coefficient: 1.05^n
		 * and 1.1^n differ by 100x at n = 100. */
		snprintf(base, sizeof(base), "%.4g", m->base);
		snprintf(buf, len, "%s * %s^n", c1, base);
		return buf;
	}
	if (m->g == GROWTH_CONSTANT) {
		format_number(buf, len, m->c0);
		return buf;
	}
	format_number(c0, sizeof(c0), fabs(m->c0));
	format_number(c1, sizeof(c1), m->c1);

	const char *coefficient = strcmp(c1, "1") == 0 ? "" : c1;
	const char *space = *coefficient ? " " : "";
	/* The constant term is left out when it is below 1e-4 of the
	 * growing term at the smallest size: it changes no printed digit of
	 * the sum anywhere in the data. */
	double g_low = growth_g(m->g, e->n_min > 0 ? e->n_min : 1);
	bool with_c0 = !(fabs(m->c0) <= 1e-4 * fabs(m->c1 * g_low));

	if (with_c0)
		snprintf(buf, len, "%s%s%s %c %s", coefficient, space,
			 growth_name(m->g), m->c0 < 0 ? '-' : '+', c0);
	else
		snprintf(buf, len, "%s%s%s", coefficient, space,
			 growth_name(m->g));
	return buf;
}
