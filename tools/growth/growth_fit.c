/*
 * growth_fit.c - the candidate models of the growth estimate: each class
 * c0 + c1 g(n) fitted by weighted least squares with weights 1/y^2
 * (relative errors) and scored by its leave-one-out SMAPE, the
 * lower-order-term fit the selection asks for, and the exponential.
 */
#include "growth_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- least squares with leave-one-out ---- */

/* Every fit here is min sum_i (t_i - sum_j c_j x_ij)^2 over up to three
 * columns: the weighted fits of the classes are put in this form by
 * dividing each row by its cost (weighted_rows), so that the residual is
 * the relative error. */
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


/* ---- scoring ---- */

/* The largest a SMAPE term can be: a prediction of the opposite sign, or
 * none at all. */
#define WORST_SMAPE 2.0

double growth_smape_term(double pred, double y)
{
	double scale = (fabs(pred) + fabs(y)) / 2;

	if (isnan(pred))
		return WORST_SMAPE; /* no prediction */
	if (scale == 0)
		return 0;
	return fabs(pred - y) / scale;
}

/* The mean SMAPE of @pred as predictions of the points' costs y; with
 * leave-one-out predictions, the score every model is compared on. */
static double mean_smape(const struct point_set *ps, const double *pred)
{
	double total = 0;

	for (size_t i = 0; i < ps->p; i++)
		total += growth_smape_term(pred[i], ps->y[i]);
	return total / (double)ps->p;
}

/* ---- the candidate models ---- */

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

/* Fits the @k columns of c0 + c1 g(n) [+ c2 h(n)] weighted by 1/y^2:
 * the coefficients into @c (c1 for g scaled by @g_scale), the
 * leave-one-out SMAPE into @smape.  False if the fit is singular. */
static bool weighted_fit(const struct point_set *ps, enum growth_class g,
			 enum growth_class h, int k, long double *c,
			 double *g_scale, double *smape)
{
	struct design d;
	double loo[MAX_POINTS];

	weighted_rows(ps, g, h, k, &d, g_scale);
	if (!fit_design(&d, c, loo))
		return false;
	/* The fit predicts t = y / weighing cost: back to costs. */
	for (size_t i = 0; i < ps->p; i++)
		loo[i] *= weighing_cost(ps, i);
	*smape = mean_smape(ps, loo);
	return true;
}

/* @m as a model of class @g that could not be fitted: invalid, with the
 * worst SMAPE, until a fit says otherwise. */
static void unfitted(struct growth_model *m, enum growth_class g)
{
	memset(m, 0, sizeof(*m));
	m->g = g;
	m->smape = WORST_SMAPE;
}

void growth_fit_model(const struct point_set *ps, enum growth_class g,
		      struct growth_model *m)
{
	long double c[MAX_COLUMNS];
	double g_scale, smape;
	bool constant = g == GROWTH_CONSTANT;

	unfitted(m, g);
	if (!weighted_fit(ps, g, GROWTH_CONSTANT, constant ? 1 : 2, c,
			  &g_scale, &smape))
		return;
	m->valid = constant || c[1] > 0;
	m->c0 = (double)c[0] * ps->y_scale;
	m->c1 = constant ? 0 : (double)c[1] * ps->y_scale / g_scale;
	m->smape = smape;
}

double growth_lower_term_smape(const struct point_set *ps,
			       enum growth_class g, enum growth_class h)
{
	long double c[MAX_COLUMNS];
	double g_scale, smape;

	if (ps->p < 4)
		return WORST_SMAPE;
	if (!weighted_fit(ps, g, h, 3, c, &g_scale, &smape))
		return WORST_SMAPE;
	return smape;
}

bool growth_fit_lower_term(const struct point_set *ps, enum growth_class g,
			   enum growth_class h, double *pred)
{
	struct design d;
	long double c[MAX_COLUMNS];
	double loo[MAX_POINTS], g_scale;

	if (ps->p < 4)
		return false;
	weighted_rows(ps, g, h, 3, &d, &g_scale);
	/* g's term must lead: a fit that needs it negative is another
	 * curve. */
	if (!fit_design(&d, c, loo) || !(c[1] > 0))
		return false;
	for (size_t i = 0; i < ps->p; i++)
		pred[i] = (double)((c[0] * d.x[i][0] + c[1] * d.x[i][1] +
				    c[2] * d.x[i][2]) *
				   weighing_cost(ps, i));
	return true;
}

/* Least squares on log y (relative errors again), n scaled by the
 * largest size. */
void growth_fit_exponential(const struct point_set *ps,
			    struct growth_model *m)
{
	struct design d = { .p = ps->p, .k = 2 };
	long double c[MAX_COLUMNS];
	double loo[MAX_POINTS], n_scale = ps->n[ps->p - 1];

	unfitted(m, GROWTH_EXP);
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
	/* The fit predicts log y: back to costs. */
	for (size_t i = 0; i < ps->p; i++)
		loo[i] = exp(loo[i]);
	m->smape = mean_smape(ps, loo);
}
