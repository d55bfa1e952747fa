/*
 * test_growth.c - the growth-rate estimate of tools/growth.c: unit tests
 * of its parts and rules, and a synthetic accuracy suite that measures how
 * often it names the right class (docs/growth.md quotes the table it
 * prints).
 *
 * The accuracy suite draws, for every case, ACCURACY_SEEDS data sets per
 * noise level: 8-40 distinct sizes, log-uniform between a smallest size
 * (log-uniform in 1..100) and that times a span (log-uniform in
 * 100..10^4), both ends included; each cost is the case's function times
 * (1 + e), e Gaussian with the noise level as standard deviation,
 * truncated at 3 standard deviations.  The generator is written here and
 * seeded by the case and seed numbers: the table is the same on every
 * run.  The rates asserted are a margin below the ones measured (the
 * table), not the measured ones: the same arithmetic on another
 * compiler or libm may move a borderline data set.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../suite_main.h"
#include "growth.h"

/* ---- helpers ---- */

static struct size_point point_of(uint64_t n, double cost)
{
	return (struct size_point){ .n = n, .count = 1, .worst = cost,
				    .mean = cost, .best = cost };
}

/* The estimate of cost(n) at @k sizes, geometric from @n0 by @ratio
 * (rounded to integers, duplicates dropped). */
static void estimate_of(double (*cost)(double), double n0, double ratio,
			int k, struct growth_estimate *e)
{
	struct size_point pts[256];
	size_t m = 0;

	ck_assert_int_le(k, 256);
	for (int i = 0; i < k; i++) {
		uint64_t n = (uint64_t)llround(n0 * pow(ratio, i));

		if (m > 0 && pts[m - 1].n == n)
			continue;
		pts[m++] = point_of(n, cost((double)n));
	}
	growth_estimate(pts, m, STAT_WORST, e);
}

static bool names_class(const struct growth_estimate *e,
			enum growth_class g)
{
	if (e->has_range)
		return e->range_low == g || e->range_high == g;
	return e->growth == g;
}

/* Fixed-seed generator: splitmix64. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double uniform(uint64_t *state)
{
	return (double)(next_random(state) >> 11) * 0x1p-53;
}

/* Standard normal, truncated at 3 (Box-Muller, rejected beyond). */
static double gaussian(uint64_t *state)
{
	for (;;) {
		double u = uniform(state), v = uniform(state);
		double z = sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);

		if (fabs(z) <= 3)
			return z;
	}
}

/* The cases' costs (the accuracy suite's, and some units'). */
static double f_3n2(double n)
{
	return 3 * n * n;
}

static double f_nlogn(double n)
{
	return 5 * n * log(n) + 200;
}

static double f_n15(double n)
{
	return n * sqrt(n);
}

static double f_logn(double n)
{
	return 50 * log(n) + 7;
}

static double f_constant(double n)
{
	(void)n;
	return 1000;
}

static double f_linear(double n)
{
	return 2 * n + 1e4;
}

static double f_quadratic(double n)
{
	return n * n - 30 * n + 1000;
}

static double f_sqrt(double n)
{
	return 4 * sqrt(n) + 20;
}

static double f_n3(double n)
{
	return n * n * n;
}

static double f_cubic(double n)
{
	return n * n * n / 10 + 100 * n;
}

static double f_exp(double n)
{
	return 2 * pow(1.1, n);
}

/* ---- size_point_from_tuple ---- */

START_TEST(tuple_hand_computed)
{
	/* Costs 2, 4, 6: mean 4, variance (4 + 0 + 4) / 3. */
	struct tuple_data t = { .n = 10, .count = 3, .min = 2, .max = 6,
				.sum = 12, .sumsq = 4 + 16 + 36 };
	struct size_point p;

	size_point_from_tuple(&p, &t);
	ck_assert_uint_eq(p.n, 10);
	ck_assert_uint_eq(p.count, 3);
	ck_assert_double_eq(p.worst, 6);
	ck_assert_double_eq(p.best, 2);
	ck_assert_double_eq(p.mean, 4);
	ck_assert_double_eq_tol(p.variance, 8.0 / 3, 1e-12);
	ck_assert(!p.variance_cancelled);
	ck_assert_double_eq(size_point_cost(&p, STAT_WORST), 6);
	ck_assert_double_eq(size_point_cost(&p, STAT_MEAN), 4);
	ck_assert_double_eq(size_point_cost(&p, STAT_BEST), 2);
}
END_TEST

START_TEST(tuple_count_one)
{
	struct tuple_data t = { .n = 7, .count = 1, .min = 9, .max = 9,
				.sum = 9, .sumsq = 81 };
	struct size_point p;

	size_point_from_tuple(&p, &t);
	ck_assert_double_eq(p.worst, 9);
	ck_assert_double_eq(p.mean, 9);
	ck_assert_double_eq(p.best, 9);
	ck_assert_double_eq(p.variance, 0);
	ck_assert(!p.variance_cancelled);
}
END_TEST

START_TEST(tuple_equal_costs)
{
	/* Every activation cost 10^9: the variance is exactly 0, not a
	 * cancellation. */
	const uint64_t c = 1000000000;
	struct tuple_data t = { .n = 5, .count = 4, .min = c, .max = c,
				.sum = 4 * c,
				.sumsq = (unsigned __int128)4 * c * c };
	struct size_point p;

	size_point_from_tuple(&p, &t);
	ck_assert_double_eq(p.variance, 0);
	ck_assert(!p.variance_cancelled);
}
END_TEST

START_TEST(tuple_huge_sumsq)
{
	/* Costs 2^61 and 2^62: sumsq = 5 * 2^122 does not fit 64 bits;
	 * mean 1.5 * 2^61, variance (0.5 * 2^61)^2 = 2^120. */
	const uint64_t a = (uint64_t)1 << 61, b = (uint64_t)1 << 62;
	struct tuple_data t = {
		.n = 3, .count = 2, .min = a, .max = b, .sum = a + b,
		.sumsq = (unsigned __int128)a * a + (unsigned __int128)b * b
	};
	struct size_point p;

	size_point_from_tuple(&p, &t);
	ck_assert_double_eq(p.mean, ldexp(1.5, 61));
	ck_assert_double_eq(p.variance, ldexp(1, 120));
	ck_assert(!p.variance_cancelled);
	ck_assert_double_eq(p.worst, ldexp(1, 62));
}
END_TEST

START_TEST(tuple_cancellation)
{
	/* Costs 10^9 and 10^9 + 1: variance 0.25 next to a mean square of
	 * 10^18, 18 of the digits cancelled. */
	const uint64_t c = 1000000000;
	struct tuple_data t = {
		.n = 3, .count = 2, .min = c, .max = c + 1, .sum = 2 * c + 1,
		.sumsq = (unsigned __int128)c * c +
			 (unsigned __int128)(c + 1) * (c + 1)
	};
	struct size_point p;

	size_point_from_tuple(&p, &t);
	ck_assert(p.variance_cancelled);
	ck_assert(p.variance >= 0);

	/* An impossible tuple (sumsq below sum^2 / count): negative before
	 * the clamp. */
	struct tuple_data bad = { .n = 3, .count = 2, .min = 4, .max = 6,
				  .sum = 10, .sumsq = 40 };

	size_point_from_tuple(&p, &bad);
	ck_assert(p.variance_cancelled);
	ck_assert_double_eq(p.variance, 0);
}
END_TEST

/* ---- names and g ---- */

START_TEST(names_and_g)
{
	static const char *const names[] = {
		"1", "log n", "sqrt n", "n", "n log n", "n^1.5", "n^2",
		"n^2 log n", "n^3", "exp", "insufficient"
	};

	for (int g = 0; g <= GROWTH_INSUFFICIENT; g++)
		ck_assert_str_eq(growth_name((enum growth_class)g), names[g]);
	ck_assert_str_eq(confidence_name(CONFIDENCE_LOW), "LOW");
	ck_assert_str_eq(confidence_name(CONFIDENCE_MEDIUM), "MEDIUM");
	ck_assert_str_eq(confidence_name(CONFIDENCE_HIGH), "HIGH");

	ck_assert_double_eq(growth_g(GROWTH_CONSTANT, 1234), 1);
	ck_assert_double_eq_tol(growth_g(GROWTH_LOG, M_E), 1, 1e-15);
	ck_assert_double_eq(growth_g(GROWTH_LOG, 1), 0);
	ck_assert_double_eq(growth_g(GROWTH_SQRT, 49), 7);
	ck_assert_double_eq(growth_g(GROWTH_LINEAR, 12), 12);
	ck_assert_double_eq_tol(growth_g(GROWTH_NLOGN, 100), 100 * log(100),
				1e-12);
	ck_assert_double_eq(growth_g(GROWTH_N1_5, 16), 64);
	ck_assert_double_eq(growth_g(GROWTH_N2, 30), 900);
	ck_assert_double_eq_tol(growth_g(GROWTH_N2LOGN, 10), 100 * log(10),
				1e-12);
	ck_assert_double_eq(growth_g(GROWTH_N2LOGN, 1), 0);
	ck_assert_double_eq(growth_g(GROWTH_N3, 5), 125);
	ck_assert(isnan(growth_g(GROWTH_EXP, 3)));
	ck_assert(isnan(growth_g(GROWTH_INSUFFICIENT, 3)));
}
END_TEST

/* ---- refusals ---- */

START_TEST(refuse_four_sizes)
{
	struct growth_estimate e;
	/* Five points, one of them at n = 0 (never fitted): four sizes. */
	struct size_point pts[] = { point_of(0, 5), point_of(1, 1),
				    point_of(10, 1000), point_of(100, 1e6),
				    point_of(1000, 1e9) };

	growth_estimate(pts, 5, STAT_WORST, &e);
	ck_assert_int_eq(e.growth, GROWTH_INSUFFICIENT);
	ck_assert_uint_eq(e.sizes, 4);
	ck_assert_ptr_nonnull(e.reason);
	ck_assert_str_eq(e.reason,
			 "insufficient data: 4 distinct sizes (need 5)");
	ck_assert_int_eq(e.confidence, CONFIDENCE_LOW);

	char buf[64];

	ck_assert_str_eq(growth_formula(&e, buf, sizeof(buf)), "");
	ck_assert_str_eq(growth_class_text(&e, buf, sizeof(buf)),
			 "insufficient");

	/* Nothing at all. */
	growth_estimate(NULL, 0, STAT_WORST, &e);
	ck_assert_int_eq(e.growth, GROWTH_INSUFFICIENT);
	ck_assert_uint_eq(e.sizes, 0);
}
END_TEST

START_TEST(refuse_short_span)
{
	struct growth_estimate e;

	/* 12 sizes from 10 to 200: a span of 20x, however clean. */
	estimate_of(f_n3, 10, pow(20, 1.0 / 11), 12, &e);
	ck_assert_int_eq(e.growth, GROWTH_INSUFFICIENT);
	ck_assert_uint_eq(e.sizes, 12);
	ck_assert_double_eq_tol(e.span, 20, 1e-9);
	ck_assert_ptr_nonnull(strstr(e.reason, "span 20x (need 32x)"));
}
END_TEST

START_TEST(log_class_short_span)
{
	struct growth_estimate e;
	char buf[64];

	/* Exact 5 n log n + 200 from 2 to 100 (50x): n log n fits best,
	 * but is not claimed: n, and the range up to n log n. */
	estimate_of(f_nlogn, 2, pow(50, 1.0 / 14), 15, &e);
	ck_assert_double_eq_tol(e.span, 50, 1e-9);
	ck_assert(e.models[GROWTH_NLOGN].smape <
		  e.models[GROWTH_LINEAR].smape);
	ck_assert_int_eq(e.growth, GROWTH_LINEAR);
	ck_assert(e.has_range);
	ck_assert_str_eq(growth_class_text(&e, buf, sizeof(buf)),
			 "n...n log n");
	ck_assert_str_eq(e.range_reason,
			 "a log factor is not claimed under a 100x span");
	ck_assert_int_ne(e.confidence, CONFIDENCE_HIGH);

	/* The same from 2 to 2000 (1000x): claimed. */
	estimate_of(f_nlogn, 2, pow(1000, 1.0 / 14), 15, &e);
	ck_assert_int_eq(e.growth, GROWTH_NLOGN);
	ck_assert(!e.has_range);
	ck_assert_str_eq(growth_class_text(&e, buf, sizeof(buf)), "n log n");
	ck_assert_ptr_null(e.range_reason);

	/* 50 log n + 7 over 50x: the constant, up to log n. */
	estimate_of(f_logn, 2, pow(50, 1.0 / 14), 15, &e);
	ck_assert_int_eq(e.growth, GROWTH_CONSTANT);
	ck_assert(e.has_range);
	ck_assert_str_eq(growth_class_text(&e, buf, sizeof(buf)),
			 "1...log n");
}
END_TEST

/* ---- fitting and selection ---- */

static double decreasing(double n)
{
	return 2000 - n;
}

START_TEST(negative_slope_rejected)
{
	struct growth_estimate e;

	/* Cost falling with n: every growing class fits c1 < 0. */
	estimate_of(decreasing, 10, pow(100, 1.0 / 19), 20, &e);
	for (int g = 1; g < GROWTH_MODELS; g++) {
		ck_assert_msg(!e.models[g].valid, "%s valid",
			      growth_name((enum growth_class)g));
		ck_assert(e.models[g].c1 <= 0);
	}
	ck_assert(e.models[GROWTH_CONSTANT].valid);
	ck_assert_int_eq(e.growth, GROWTH_CONSTANT);
}
END_TEST

static double exact_quadratic(double n)
{
	return 3.02 * n * n + 12.5;
}

START_TEST(exact_fit_and_formula)
{
	struct growth_estimate e;
	char buf[64];

	estimate_of(exact_quadratic, 3, 1.5, 20, &e);
	ck_assert_int_eq(e.growth, GROWTH_N2);
	ck_assert(!e.has_range);
	ck_assert_int_eq(e.confidence, CONFIDENCE_HIGH);
	ck_assert_double_eq_tol(e.fit.c1, 3.02, 1e-9);
	ck_assert_double_eq_tol(e.fit.c0, 12.5, 1e-6);
	ck_assert(e.fit.smape < 1e-9);
	ck_assert_str_eq(growth_formula(&e, buf, sizeof(buf)),
			 "3.02 n^2 + 12.5");
	ck_assert_ptr_null(e.reason);
	ck_assert_str_eq(growth_class_text(&e, buf, sizeof(buf)), "n^2");
	ck_assert_uint_eq(e.jackknife_runs, e.points);
	ck_assert_uint_eq(e.jackknife_agree, e.points);
	ck_assert_double_eq_tol(e.slope, 2, 0.01);
}
END_TEST

START_TEST(formula_text)
{
	struct growth_estimate e;
	char buf[64];

	memset(&e, 0, sizeof(e));
	e.n_min = 10;
	e.growth = GROWTH_N2;
	e.fit = (struct growth_model){ .g = GROWTH_N2, .valid = true,
				       .c0 = -30, .c1 = 3.0186 };
	ck_assert_str_eq(growth_formula(&e, buf, sizeof(buf)),
			 "3.02 n^2 - 30");
	e.growth = e.fit.g = GROWTH_NLOGN;
	e.fit.c1 = 0.5;
	e.fit.c0 = 200.4;
	ck_assert_str_eq(growth_formula(&e, buf, sizeof(buf)),
			 "0.5 n log n + 200");
	e.growth = e.fit.g = GROWTH_LINEAR;
	e.fit.c1 = 1;
	e.fit.c0 = 12345678;
	ck_assert_str_eq(growth_formula(&e, buf, sizeof(buf)),
			 "n + 1.23e+07");
	e.fit.c1 = 2.5e-7;
	e.fit.c0 = 0.0123;
	ck_assert_str_eq(growth_formula(&e, buf, sizeof(buf)),
			 "2.5e-07 n + 0.0123");
	/* A constant term below 1e-4 of the growing one at the smallest
	 * size is left out. */
	e.fit.c1 = 3;
	e.fit.c0 = -1e-9;
	ck_assert_str_eq(growth_formula(&e, buf, sizeof(buf)), "3 n");
	e.growth = e.fit.g = GROWTH_CONSTANT;
	e.fit.c0 = 999.96;
	ck_assert_str_eq(growth_formula(&e, buf, sizeof(buf)), "1000");
	e.growth = e.fit.g = GROWTH_EXP;
	e.fit.c1 = 2;
	e.fit.base = 1.1;
	ck_assert_str_eq(growth_formula(&e, buf, sizeof(buf)), "2 * 1.1^n");
	/* Too short a buffer truncates. */
	ck_assert_str_eq(growth_formula(&e, buf, 4), "2 *");
	e.has_range = true;
	e.range_low = GROWTH_N2;
	e.range_high = GROWTH_N2LOGN;
	ck_assert_str_eq(growth_class_text(&e, buf, sizeof(buf)),
			 "n^2...n^2 log n");
}
END_TEST

START_TEST(constant_margin)
{
	uint64_t state = 42;

	/* 1000 with 1% noise at 20 sizes over 1000x: stays constant. */
	for (int run = 0; run < 20; run++) {
		struct size_point pts[20];
		struct growth_estimate e;

		for (int i = 0; i < 20; i++)
			pts[i] = point_of((uint64_t)llround(pow(1.44, i) * 2),
					  1000 * (1 + 0.01 * gaussian(&state)));
		growth_estimate(pts, 20, STAT_WORST, &e);
		ck_assert_int_eq(e.growth, GROWTH_CONSTANT);

		/* The rule itself: a growing class only at 1.3x. */
		double best = INFINITY;

		for (int g = 1; g < GROWTH_MODELS; g++)
			if (e.models[g].valid && e.models[g].smape < best)
				best = e.models[g].smape;
		ck_assert(e.models[GROWTH_CONSTANT].smape < 1.3 * best);
	}

	/* 1000 + n / 10 over 1..1000 with the same noise: the growth (10%)
	 * is well above the noise, and the rule lets it through. */
	for (int run = 0; run < 20; run++) {
		struct size_point pts[20];
		struct growth_estimate e;

		for (int i = 0; i < 20; i++) {
			double n = llround(pow(1.44, i) * 2);

			pts[i] = point_of((uint64_t)n,
					  (1000 + n / 10) *
						  (1 + 0.01 * gaussian(&state)));
		}
		growth_estimate(pts, 20, STAT_WORST, &e);
		ck_assert_int_ne(e.growth, GROWTH_CONSTANT);
		ck_assert(e.models[GROWTH_CONSTANT].smape >= 1.3 * e.fit.smape);
	}
}
END_TEST

START_TEST(lower_order_term)
{
	struct growth_estimate e;
	char buf[64];

	/* n^2 - 30n + 1000 from 2 to 5000: the -30n makes the cost rise
	 * faster than n^2 over the small sizes, and n^2 log n fits best;
	 * n^2 + c2 n fits as well, so the log factor is not claimed. */
	estimate_of(f_quadratic, 2, pow(2500, 1.0 / 19), 20,
		    &e);
	ck_assert(e.models[GROWTH_N2LOGN].smape < e.models[GROWTH_N2].smape);
	ck_assert(e.has_range);
	ck_assert_str_eq(growth_class_text(&e, buf, sizeof(buf)),
			 "n^2...n^2 log n");
	ck_assert_str_eq(e.range_reason, "the lower end fits as well with a "
					 "lower-order term");
	/* Exact data that no class fits exactly: the fit misses by more
	 * than the costs scatter. */
	ck_assert_int_ne(e.confidence, CONFIDENCE_HIGH);
	ck_assert(e.fit_scatter > 3 * e.scatter);
	ck_assert_ptr_nonnull(strstr(e.reason, "the fit misses by"));
}
END_TEST

START_TEST(outlier_not_high)
{
	struct size_point pts[20];
	struct growth_estimate e;

	/* Exact 3 n^2 with one size 10x: still n^2, but not HIGH. */
	for (int i = 0; i < 20; i++) {
		double n = round(4 * pow(1.4, i));

		pts[i] = point_of((uint64_t)n, 3 * n * n * (i == 13 ? 10 : 1));
	}
	growth_estimate(pts, 20, STAT_WORST, &e);
	ck_assert_int_eq(e.growth, GROWTH_N2);
	ck_assert_int_ne(e.confidence, CONFIDENCE_HIGH);
	ck_assert(e.worst_residual > 1);
	ck_assert_ptr_nonnull(strstr(e.reason, "off the fit"));
}
END_TEST

START_TEST(exponential_flagged)
{
	struct size_point pts[40];
	struct growth_estimate e;
	char buf[64];

	for (int i = 0; i < 40; i++)
		pts[i] = point_of((uint64_t)(3 + 5 * i),
				  f_exp(3 + 5 * i));
	growth_estimate(pts, 40, STAT_WORST, &e);
	ck_assert_int_eq(e.growth, GROWTH_EXP);
	ck_assert_int_eq(e.fit.g, GROWTH_EXP);
	ck_assert_double_eq_tol(e.fit.base, 1.1, 1e-9);
	ck_assert_str_eq(growth_formula(&e, buf, sizeof(buf)), "2 * 1.1^n");
	ck_assert_str_eq(growth_class_text(&e, buf, sizeof(buf)), "exp");

	/* n^3 is not exponential. */
	estimate_of(f_n3, 1, 1.5, 25, &e);
	ck_assert_int_eq(e.growth, GROWTH_N3);
}
END_TEST

START_TEST(binning_keeps_worst)
{
	struct size_point pts[200];
	struct growth_estimate e;

	/* 200 sizes of exact 3 n^2: binned to at most 24 points, each a
	 * measured point, so the fit stays exact. */
	estimate_of(f_3n2, 5, 1.04, 200, &e);
	ck_assert_uint_gt(e.sizes, 150);
	ck_assert_uint_le(e.points, 24);
	ck_assert_uint_ge(e.points, 20);
	ck_assert_int_eq(e.growth, GROWTH_N2);
	ck_assert_double_eq_tol(e.fit.c1, 3, 1e-9);

	/* Worst case: at each size a fast and a slow activation (cost n^2
	 * and 3 n^2), the slow one's size an odd one.  The bucket's max
	 * goes with the bucket's largest n: 3 n^2, not more. */
	for (int i = 0; i < 200; i++) {
		double n = 10 + 5 * i;

		pts[i] = (struct size_point){ .n = (uint64_t)n, .count = 2,
					      .worst = 3 * n * n,
					      .best = n * n,
					      .mean = 2 * n * n };
	}
	growth_estimate(pts, 200, STAT_WORST, &e);
	ck_assert_uint_le(e.points, 24);
	ck_assert_int_eq(e.growth, GROWTH_N2);
	ck_assert_double_eq_tol(e.fit.c1, 3, 1e-9);
	growth_estimate(pts, 200, STAT_BEST, &e);
	ck_assert_int_eq(e.growth, GROWTH_N2);
	ck_assert_double_eq_tol(e.fit.c1, 1, 1e-9);
	/* The mean of a bucket: mean cost at the mean n, which for a
	 * convex cost lies a little above the curve (less than 1% here). */
	growth_estimate(pts, 200, STAT_MEAN, &e);
	ck_assert_int_eq(e.growth, GROWTH_N2);
	ck_assert_double_eq_tol(e.fit.c1, 2, 0.02);
}
END_TEST

START_TEST(order_and_duplicates)
{
	struct size_point pts[30], shuffled[31];
	struct growth_estimate a, b;
	uint64_t state = 7;

	for (int i = 0; i < 30; i++)
		pts[i] = point_of((uint64_t)(2 + i * i * 3),
				  (5 + i * i * 3) *
					  (1 + 0.05 * gaussian(&state)));
	for (int i = 0; i < 30; i++)
		shuffled[i] = pts[(i * 7) % 30];
	growth_estimate(pts, 30, STAT_WORST, &a);
	growth_estimate(shuffled, 30, STAT_WORST, &b);
	ck_assert_int_eq(a.growth, b.growth);
	ck_assert_int_eq(a.confidence, b.confidence);
	ck_assert_double_eq(a.fit.c0, b.fit.c0);
	ck_assert_double_eq(a.fit.c1, b.fit.c1);
	ck_assert_double_eq(a.fit.smape, b.fit.smape);
	for (int g = 0; g < GROWTH_MODELS; g++)
		ck_assert_double_eq(a.models[g].smape, b.models[g].smape);

	/* A size given twice counts once, with the worse cost. */
	shuffled[30] = shuffled[0];
	shuffled[30].worst = shuffled[0].worst / 2;
	growth_estimate(shuffled, 31, STAT_WORST, &b);
	ck_assert_uint_eq(b.sizes, 30);
	ck_assert_double_eq(a.fit.c1, b.fit.c1);
}
END_TEST

START_TEST(zero_costs)
{
	struct size_point pts[10];
	struct growth_estimate e;
	char buf[64];

	for (int i = 0; i < 10; i++)
		pts[i] = point_of((uint64_t)1 << i, 0);
	growth_estimate(pts, 10, STAT_WORST, &e);
	ck_assert_int_eq(e.growth, GROWTH_CONSTANT);
	ck_assert_double_eq(e.fit.c0, 0);
	ck_assert_str_eq(growth_formula(&e, buf, sizeof(buf)), "0");

	/* A zero among growing costs weighs as the smallest positive one. */
	for (int i = 0; i < 10; i++)
		pts[i] = point_of((uint64_t)1 << i,
				  i == 0 ? 0 : 4.0 * (1 << i));
	growth_estimate(pts, 10, STAT_WORST, &e);
	ck_assert_int_eq(e.growth, GROWTH_LINEAR);
}
END_TEST

/* ---- the synthetic accuracy suite ---- */

#define ACCURACY_SEEDS 200
#define NOISE_LEVELS 3
static const double noise_levels[NOISE_LEVELS] = { 0, 0.05, 0.20 };

enum case_kind {
	KIND_PLAIN,    /* cost(n) at natural sizes */
	KIND_LARGE,    /* the same, smallest size 100-1000 */
	KIND_FEW,      /* too few sizes or too short a span */
	KIND_OUTLIERS, /* 1-3 points x10 */
	KIND_MIN_MAX,  /* tuples: best ~ n, worst ~ n^2 */
	KIND_EXP,      /* sizes linear in 1..64-200 */
};

struct accuracy_case {
	const char *name;
	double (*cost)(double n);
	enum growth_class expected;
	enum case_kind kind;
	/* Asserted: correct >= min_correct[noise] (percent), wrong answers
	 * labelled HIGH <= max_wrong_high[noise] (percent). */
	double min_correct[NOISE_LEVELS];
	double max_wrong_high[NOISE_LEVELS];
};

/* The asserted rates: the measured ones (docs/growth.md, the table this
 * prints) less a margin, 5-10 points for the share correct, 1-8 points
 * more for the share wrong and HIGH; see the file's opening comment.
 * Where a case is hard by nature the comment says why. */
static const struct accuracy_case cases[] = {
	{ "3n^2", f_3n2, GROWTH_N2, KIND_PLAIN,
	  { 95, 95, 90 }, { 1, 1, 2 } },
	/* At 20% noise n log n (slope about 1.2 here) and n blur: ranges
	 * "n...n log n" (counted right) and some n. */
	{ "5n log n + 200", f_nlogn, GROWTH_NLOGN, KIND_PLAIN,
	  { 95, 95, 85 }, { 1, 1, 8 } },
	{ "n^1.5", f_n15, GROWTH_N1_5, KIND_PLAIN,
	  { 95, 95, 90 }, { 1, 1, 2 } },
	{ "50 log n + 7", f_logn, GROWTH_LOG, KIND_PLAIN,
	  { 95, 95, 80 }, { 1, 1, 6 } },
	{ "constant 1000", f_constant, GROWTH_CONSTANT, KIND_PLAIN,
	  { 95, 95, 90 }, { 1, 1, 2 } },
	/* With the largest size under a few thousand, 2n stays within the
	 * noise of 10^4 and the data is a constant: those runs say "1",
	 * many of them HIGH.  The next case has the sizes that show it. */
	{ "2n + 10^4", f_linear, GROWTH_LINEAR, KIND_PLAIN,
	  { 95, 70, 35 }, { 1, 12, 35 } },
	{ "2n + 10^4, n >= 100", f_linear, GROWTH_LINEAR, KIND_LARGE,
	  { 95, 95, 85 }, { 1, 1, 10 } },
	/* Over small sizes the -30n makes the cost rise faster than n^2,
	 * like a log factor: mostly the range n^2...n^2 log n. */
	{ "n^2 - 30n + 1000", f_quadratic, GROWTH_N2, KIND_PLAIN,
	  { 95, 90, 80 }, { 1, 1, 12 } },
	{ "4 sqrt n + 20", f_sqrt, GROWTH_SQRT, KIND_PLAIN,
	  { 95, 95, 80 }, { 1, 1, 6 } },
	/* Below n = 30 the 100n dominates: over sizes up to a few hundred
	 * the curve is no single class (wrong answers are MEDIUM or
	 * LOW). */
	{ "n^3/10 + 100n", f_cubic, GROWTH_N3, KIND_PLAIN,
	  { 80, 85, 85 }, { 1, 1, 4 } },
	{ "too few sizes", f_3n2, GROWTH_INSUFFICIENT, KIND_FEW,
	  { 100, 100, 100 }, { 0, 0, 0 } },
	/* Outliers must never leave a wrong answer HIGH. */
	{ "3n^2, outliers x10", f_3n2, GROWTH_N2, KIND_OUTLIERS,
	  { 90, 90, 85 }, { 0, 0, 0 } },
	{ "constant, outliers x10", f_constant, GROWTH_CONSTANT,
	  KIND_OUTLIERS, { 90, 90, 85 }, { 0, 0, 0 } },
	{ "best 2n, worst n^2", NULL, GROWTH_N2, KIND_MIN_MAX,
	  { 95, 95, 90 }, { 1, 1, 6 } },
	{ "2 * 1.1^n", f_exp, GROWTH_EXP, KIND_EXP,
	  { 95, 95, 85 }, { 1, 1, 2 } },
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

static int compare_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* @k distinct sizes, log-uniform from @lo to @hi, both included (fewer
 * if the integers between run out); sorted.  Returns how many. */
static size_t draw_sizes(uint64_t *state, uint64_t *sizes, size_t k,
			 double lo, double hi, bool linear)
{
	size_t m = 0;

	sizes[m++] = (uint64_t)llround(lo);
	sizes[m++] = (uint64_t)llround(hi);
	for (int attempt = 0; m < k && attempt < 100 * (int)k; attempt++) {
		double u = uniform(state);
		uint64_t n = (uint64_t)llround(linear ? lo + u * (hi - lo)
						      : lo * pow(hi / lo, u));
		bool seen = false;

		for (size_t i = 0; i < m && !seen; i++)
			seen = sizes[i] == n;
		if (!seen)
			sizes[m++] = n;
	}
	qsort(sizes, m, sizeof(*sizes), compare_u64);
	return m;
}

static double noisy(uint64_t *state, double y, double noise)
{
	return noise > 0 ? y * (1 + noise * gaussian(state)) : y;
}

/* One data set of @c at @noise from @seed; true if the estimate is
 * right.  The estimate is left in @e (for best-vs-worst: the wrong one,
 * else the less sure one). */
static bool run_one(const struct accuracy_case *c, double noise,
		    uint64_t seed, struct growth_estimate *e)
{
	uint64_t state = seed, sizes[64];
	struct size_point pts[64];
	size_t k = 8 + next_random(&state) % 33;
	double lo = round(pow(10, 2 * uniform(&state)));
	double span = pow(10, 2 + 2 * uniform(&state));

	switch (c->kind) {
	case KIND_FEW:
		/* Half of them 3-4 sizes over a good span, half 5-12 sizes
		 * over 4-25x. */
		if (seed % 2) {
			k = 3 + next_random(&state) % 2;
		} else {
			k = 5 + next_random(&state) % 8;
			span = 4 + 21 * uniform(&state);
			lo = 100;
		}
		break;
	case KIND_LARGE:
		lo = round(pow(10, 2 + uniform(&state)));
		break;
	case KIND_EXP:
		lo = 1 + next_random(&state) % 2;
		span = (64 + next_random(&state) % 137) / lo;
		break;
	default:
		break;
	}
	k = draw_sizes(&state, sizes, k, lo, lo * span, c->kind == KIND_EXP);

	if (c->kind == KIND_MIN_MAX) {
		struct growth_estimate best;

		/* 2-6 activations per size: the fastest costs 2n, the
		 * slowest n^2 (n >= 2: above 2n), the others between; each
		 * with its own noise.  Integer costs, as in a profile. */
		for (size_t i = 0; i < k; i++) {
			double n = (double)sizes[i];
			unsigned count = 2 + next_random(&state) % 5;
			struct tuple_data t = { .n = sizes[i],
						.count = count,
						.min = UINT64_MAX };

			for (unsigned j = 0; j < count; j++) {
				double base = j == 0	       ? 2 * n
					      : j == count - 1 ? n * n
							       : 2 * n + (n * n - 2 * n) *
								 uniform(&state);
				uint64_t cost = (uint64_t)llround(
					fmax(1, noisy(&state, base, noise)));

				t.sum += cost;
				t.sumsq += (unsigned __int128)cost * cost;
				t.min = cost < t.min ? cost : t.min;
				t.max = cost > t.max ? cost : t.max;
			}
			size_point_from_tuple(&pts[i], &t);
		}
		growth_estimate(pts, k, STAT_BEST, &best);
		growth_estimate(pts, k, STAT_WORST, e);
		/* The estimate left is the wrong one, else the less sure. */
		bool ok = names_class(e, GROWTH_N2);

		if (ok && (!names_class(&best, GROWTH_LINEAR) ||
			   best.confidence < e->confidence))
			*e = best;
		return ok && names_class(&best, GROWTH_LINEAR);
	}

	for (size_t i = 0; i < k; i++)
		pts[i] = point_of(sizes[i],
				  noisy(&state, c->cost((double)sizes[i]),
					noise));
	if (c->kind == KIND_OUTLIERS) {
		unsigned outliers = 1 + next_random(&state) % 3;

		for (unsigned j = 0; j < outliers; j++) {
			size_t i = next_random(&state) % k;

			pts[i].worst = pts[i].mean = pts[i].best =
				pts[i].worst * 10;
		}
	}
	growth_estimate(pts, k, STAT_WORST, e);
	return names_class(e, c->expected);
}

struct tally {
	unsigned runs, correct, refused, wrongly_refused, ranges, wrong_high;
	unsigned confidence[3];
};

/* GROWTH_VERBOSE=1: every wrong answer, with what it was made of; 2:
 * every answer. */
static void print_estimate(const char *name, int level, unsigned seed,
			   bool ok, const struct growth_estimate *e)
{
	char text[64], formula[96];

	printf("%s  %s, %.0f%% noise, seed %u: %s (%s) %s, %zu points over "
	       "%.0fx [%.0f..%.0f], slope %.2f vs %.2f, jackknife %u/%u, "
	       "scatter %.3g fit %.3g, runs z %.2f: %s\n   ",
	       ok ? "ok" : "WRONG", name, 100 * noise_levels[level], seed,
	       growth_class_text(e, text, sizeof(text)),
	       growth_formula(e, formula, sizeof(formula)),
	       confidence_name(e->confidence), e->points, e->span, e->n_min,
	       e->n_max, e->slope, e->slope_expected, e->jackknife_agree,
	       e->jackknife_runs, e->scatter, e->fit_scatter, e->runs_z,
	       e->reason ? e->reason : "");
	for (int g = 0; g < GROWTH_MODELS; g++)
		printf(" %s:%.3f%s", growth_name((enum growth_class)g),
		       e->models[g].smape, e->models[g].valid ? "" : "(x)");
	printf(" exp:%.3f%s\n", e->exponential.smape,
	       e->exponential.valid ? "" : "(x)");
}

static struct tally run_case(const struct accuracy_case *c, int level)
{
	struct tally t = { 0 };
	int verbose = getenv("GROWTH_VERBOSE") ? atoi(getenv("GROWTH_VERBOSE"))
					       : 0;

	for (unsigned s = 0; s < ACCURACY_SEEDS; s++) {
		struct growth_estimate e;
		uint64_t seed = ((uint64_t)(c - cases) << 32) ^
				((uint64_t)level << 24) ^ s;
		bool ok = run_one(c, noise_levels[level], seed, &e);

		if (verbose > 1 || (verbose && !ok))
			print_estimate(c->name, level, s, ok, &e);
		t.runs++;
		t.correct += ok;
		t.refused += e.growth == GROWTH_INSUFFICIENT;
		t.ranges += e.has_range;
		t.wrongly_refused += !ok && e.growth == GROWTH_INSUFFICIENT;
		t.confidence[e.confidence]++;
		t.wrong_high += !ok && e.confidence == CONFIDENCE_HIGH;
	}
	return t;
}

static double percent(unsigned x, unsigned of)
{
	return of ? 100.0 * x / of : 0;
}

START_TEST(accuracy)
{
	const struct accuracy_case *c = &cases[_i];
	struct tally t[NOISE_LEVELS];

	/* The whole row first, then the checks: the log shows every
	 * level even when one fails. */
	for (int level = 0; level < NOISE_LEVELS; level++) {
		t[level] = run_case(c, level);
		printf("| %-22s | %3.0f%% | %5.1f%% | %5.1f%% | %5.1f%% | "
		       "%5.1f%% | %5.1f%% %5.1f%% %5.1f%% | %5.1f%% |\n",
		       c->name, 100 * noise_levels[level],
		       percent(t[level].correct, t[level].runs),
		       percent(t[level].runs - t[level].correct -
				       t[level].wrongly_refused,
			       t[level].runs),
		       percent(t[level].refused, t[level].runs),
		       percent(t[level].ranges, t[level].runs),
		       percent(t[level].confidence[CONFIDENCE_HIGH],
			       t[level].runs),
		       percent(t[level].confidence[CONFIDENCE_MEDIUM],
			       t[level].runs),
		       percent(t[level].confidence[CONFIDENCE_LOW],
			       t[level].runs),
		       percent(t[level].wrong_high, t[level].runs));
	}
	fflush(stdout);
	for (int level = 0; level < NOISE_LEVELS; level++) {
		double correct = percent(t[level].correct, t[level].runs);
		double wrong_high = percent(t[level].wrong_high, t[level].runs);

		ck_assert_msg(correct >= c->min_correct[level],
			      "%s at %.0f%% noise: %.1f%% correct, expected "
			      ">= %.0f%%",
			      c->name, 100 * noise_levels[level], correct,
			      c->min_correct[level]);
		ck_assert_msg(wrong_high <= c->max_wrong_high[level],
			      "%s at %.0f%% noise: %.1f%% wrong and HIGH, "
			      "expected <= %.1f%%",
			      c->name, 100 * noise_levels[level], wrong_high,
			      c->max_wrong_high[level]);
	}
}
END_TEST

/* A constant wrongly called growing: a growing class named without the
 * constant in its range (refusals are not growth). */
START_TEST(constant_not_growing)
{
	const struct accuracy_case *c = &cases[4];

	ck_assert_str_eq(c->name, "constant 1000");
	for (int level = 0; level < NOISE_LEVELS; level++) {
		unsigned growing = 0;

		for (unsigned s = 0; s < ACCURACY_SEEDS; s++) {
			struct growth_estimate e;
			uint64_t seed = ((uint64_t)4 << 32) ^
					((uint64_t)level << 24) ^ s;

			run_one(c, noise_levels[level], seed, &e);
			growing += e.growth != GROWTH_INSUFFICIENT &&
				   !names_class(&e, GROWTH_CONSTANT);
		}
		printf("constant called growing at %.0f%% noise: %.1f%%\n",
		       100 * noise_levels[level],
		       percent(growing, ACCURACY_SEEDS));
		fflush(stdout);
		ck_assert_uint_le(growing, ACCURACY_SEEDS / 10);
	}
}
END_TEST

static Suite *growth_suite(void)
{
	Suite *s = suite_create("growth");
	TCase *tc = tcase_create("units");

	tcase_add_test(tc, tuple_hand_computed);
	tcase_add_test(tc, tuple_count_one);
	tcase_add_test(tc, tuple_equal_costs);
	tcase_add_test(tc, tuple_huge_sumsq);
	tcase_add_test(tc, tuple_cancellation);
	tcase_add_test(tc, names_and_g);
	tcase_add_test(tc, refuse_four_sizes);
	tcase_add_test(tc, refuse_short_span);
	tcase_add_test(tc, log_class_short_span);
	tcase_add_test(tc, negative_slope_rejected);
	tcase_add_test(tc, exact_fit_and_formula);
	tcase_add_test(tc, formula_text);
	tcase_add_test(tc, constant_margin);
	tcase_add_test(tc, lower_order_term);
	tcase_add_test(tc, outlier_not_high);
	tcase_add_test(tc, exponential_flagged);
	tcase_add_test(tc, binning_keeps_worst);
	tcase_add_test(tc, order_and_duplicates);
	tcase_add_test(tc, zero_costs);
	suite_add_tcase(s, tc);

	tc = tcase_create("accuracy");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, accuracy, 0, (int)N_CASES);
	tcase_add_test(tc, constant_not_growing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	printf("growth: synthetic accuracy, %d data sets per case and noise "
	       "level\n"
	       "| case                   | noise | correct | wrong  | "
	       "refused | range  | HIGH   MEDIUM LOW    | wrong & HIGH |\n",
	       ACCURACY_SEEDS);
	fflush(stdout);
	return run_suite(growth_suite());
}
