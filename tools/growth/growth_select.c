/*
 * growth_select.c - which class the fitted models make: the constant
 * unless a growing class does clearly better, no log factor claimed over
 * a short span, a range where the data cannot tell a log factor, and the
 * exponential where it fits far better than every polynomial.
 */
#include "growth_internal.h"

#include <math.h>
#include <string.h>

/* ---- the rules (docs/growth.md states them for users) ---- */

/* A log factor grows slowly: over 32x, from n = 30 to 1000, log n goes
 * from 3.4 to 6.9, a doubling that a constant term, a lower-order term
 * or noise imitate.  Under 100x, log n, n log n and n^2 log n are never
 * claimed. */
#define LOG_CLASS_SPAN 100.0

/* The constant stays unless the best growing class's LOO SMAPE is
 * CONSTANT_MARGIN times smaller: a growing class has one more parameter
 * and fits noise a little better.  A constant whose LOO SMAPE is below
 * EXACT_SMAPE explains the data to rounding error: no margin can be
 * computed from two numerical zeros. */
#define CONSTANT_MARGIN 1.3
/* Log-factor neighbours whose (margin-adjusted) LOO SMAPEs are within
 * 10% of each other fit about equally well: reported as a range.  The
 * log factors the data cannot resolve for another reason, a lower-order
 * term, are caught by their own check (growth_select_class), which lets
 * this margin stay small: 1.3 made a quarter of the n log n answers at
 * 20% noise ranges in the accuracy suite, for few wrong answers less. */
#define RANGE_CLOSE 1.1
/* Exponential: log y linear in n must fit with half the LOO SMAPE of the
 * best polynomial class, and the fitted exponential must grow at least
 * 100x over the sizes (a gentler curve is fitted as well by a power). */
#define EXP_BETTER 0.5
#define EXP_MIN_GROWTH 100.0

/* ---- classes and their neighbours ---- */

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

/* The term below @g that a cost with a log factor less most likely
 * carries: n for n^2 (n^2 - 30n + 1000), sqrt n for n. */
static enum growth_class lower_term(enum growth_class g)
{
	return g == GROWTH_N2 ? GROWTH_LINEAR : GROWTH_SQRT;
}

/* ---- selection ---- */

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

/* The best class by score and the runner-up; ties go to the slower
 * class.  A constant that fits to rounding error wins alone. */
static void rank_classes(const struct selection *s, enum growth_class *winner,
			 enum growth_class *runner_up)
{
	*winner = GROWTH_CONSTANT;
	*runner_up = GROWTH_INSUFFICIENT;
	for (int g = 1; g < GROWTH_MODELS; g++) {
		double sc = score(&s->models[g]);

		if (sc < score(&s->models[*winner])) {
			*runner_up = *winner;
			*winner = (enum growth_class)g;
		} else if (sc < INFINITY &&
			   (*runner_up == GROWTH_INSUFFICIENT ||
			    sc < score(&s->models[*runner_up]))) {
			*runner_up = (enum growth_class)g;
		}
	}
	if (s->models[GROWTH_CONSTANT].smape <= EXACT_SMAPE) {
		*winner = GROWTH_CONSTANT;
		*runner_up = GROWTH_INSUFFICIENT;
	}
}

/* Exponential: far better than every polynomial, which must not fit to
 * rounding error, and a growth of at least EXP_MIN_GROWTH over the
 * sizes. */
static bool exponential_wins(const struct point_set *ps,
			     const struct selection *s)
{
	const struct growth_model *e = &s->exponential;
	double best_smape = INFINITY;

	for (int g = 0; g < GROWTH_MODELS; g++)
		if (s->models[g].valid && s->models[g].smape < best_smape)
			best_smape = s->models[g].smape;
	return e->valid && best_smape > EXACT_SMAPE &&
	       e->smape <= EXP_BETTER * best_smape &&
	       (ps->n[ps->p - 1] - ps->n[0]) * log(e->base) >=
		       log(EXP_MIN_GROWTH);
}

/* Never a log class over a short span: the neighbour without the log,
 * and the range up to the log class @winner; or, if that neighbour does
 * not fit (c1 <= 0), the best class without a log factor, and no range. */
static void without_log_factor(struct selection *s, enum growth_class winner)
{
	enum growth_class plain = log_neighbour(winner);

	if (s->models[plain].valid) {
		s->growth = plain;
		set_range(s, plain, winner,
			  "a log factor is not claimed under a 100x span");
		return;
	}
	s->growth = GROWTH_CONSTANT;
	for (int g = 1; g < GROWTH_MODELS; g++)
		if (!is_log_class((enum growth_class)g) &&
		    score(&s->models[g]) < score(&s->models[s->growth]))
			s->growth = (enum growth_class)g;
}

/* A range where the data cannot tell whether @winner has a log factor:
 * its log neighbour, the runner-up, fits about as well; or the class
 * without the log explains the data as well once given a lower-order
 * term (n^2 + c2 n for n^2 log n, n + c2 sqrt n for n log n: a negative
 * lower-order term over small sizes makes a cost rise faster than its
 * leading term, like a log factor does). */
static void log_factor_range(const struct point_set *ps, struct selection *s,
			     enum growth_class winner,
			     enum growth_class runner_up)
{
	if (runner_up != GROWTH_INSUFFICIENT &&
	    runner_up == log_neighbour(winner) &&
	    score(&s->models[runner_up]) <=
		    RANGE_CLOSE * score(&s->models[winner])) {
		set_range(s, winner, runner_up,
			  "both ends fit about equally well");
		return;
	}
	if (winner == GROWTH_NLOGN || winner == GROWTH_N2LOGN) {
		enum growth_class plain = log_neighbour(winner);
		double with_lower =
			growth_lower_term_smape(ps, plain, lower_term(plain));

		if (with_lower <= RANGE_CLOSE * s->models[winner].smape)
			set_range(s, winner, plain,
				  "the lower end fits as well with a "
				  "lower-order term");
	}
}

void growth_select_class(const struct point_set *ps, struct selection *s)
{
	enum growth_class winner, runner_up;

	memset(s, 0, sizeof(*s));
	for (int g = 0; g < GROWTH_MODELS; g++)
		growth_fit_model(ps, (enum growth_class)g, &s->models[g]);
	growth_fit_exponential(ps, &s->exponential);
	rank_classes(s, &winner, &runner_up);
	if (exponential_wins(ps, s)) {
		s->growth = GROWTH_EXP;
	} else if (is_log_class(winner) && ps->span < LOG_CLASS_SPAN) {
		without_log_factor(s, winner);
	} else {
		s->growth = winner;
		log_factor_range(ps, s, winner, runner_up);
	}
}

/* Whether a class and range (@g, or @lo to @hi if @range) names one of
 * the other's: a range names both its ends. */
static bool names_agree(enum growth_class g, bool range,
			enum growth_class lo, enum growth_class hi,
			enum growth_class g2, bool range2,
			enum growth_class lo2, enum growth_class hi2)
{
	enum growth_class xs[2] = { range ? lo : g, range ? hi : g };
	enum growth_class ys[2] = { range2 ? lo2 : g2, range2 ? hi2 : g2 };

	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			if (xs[i] == ys[j])
				return true;
	return false;
}

bool growth_selections_agree(const struct selection *x,
			     const struct selection *y)
{
	return names_agree(x->growth, x->has_range, x->range_low,
			   x->range_high, y->growth, y->has_range,
			   y->range_low, y->range_high);
}

bool growth_estimates_agree(const struct growth_estimate *x,
			    const struct growth_estimate *y)
{
	return names_agree(x->growth, x->has_range, x->range_low,
			   x->range_high, y->growth, y->has_range,
			   y->range_low, y->range_high);
}
