/*
 * report_disturbance.c - worst costs in time that grow unlike the best
 * ones: see report_disturbance.h.
 */
#include "report_disturbance.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Whether @x and @y name a common class (a range names both its ends). */
static bool estimates_agree(const struct growth_estimate *x,
			    const struct growth_estimate *y)
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

/* The largest ratio of a size's worst cost to its best, over @points. */
static double widest_spread(const struct size_point *points, size_t n)
{
	double widest = 1;

	for (size_t i = 0; i < n; i++)
		if (points[i].best > 0 &&
		    points[i].worst / points[i].best > widest)
			widest = points[i].worst / points[i].best;
	return widest;
}

void disturbance_judge(const struct size_point *points, size_t n_points,
		       const char *unit, enum cost_stat stat,
		       struct growth_estimate *e)
{
	struct growth_estimate best;
	char worst_text[48], best_text[48], earlier[sizeof(e->reason_buf)];

	if (stat != STAT_WORST || !unit || strcmp(unit, "ns") ||
	    e->growth == GROWTH_INSUFFICIENT)
		return;
	growth_estimate(points, n_points, STAT_BEST, &best);
	if (best.growth == GROWTH_INSUFFICIENT || estimates_agree(e, &best))
		return;
	snprintf(earlier, sizeof(earlier), "%s", e->reason ? e->reason : "");
	/* The reasons found before, then this one, cut short if need be:
	 * the reason is one line of text. */
	size_t at = strlen(earlier);

	snprintf(earlier + at, sizeof(earlier) - at,
		 "%sthe worst costs grow as %s, the best as %s, and at one "
		 "size the worst is %.3gx the best: time that interrupted "
		 "single activations (preemption, interrupts, page faults) "
		 "inflates worst costs; --stat best fits the least disturbed",
		 at ? "; " : "",
		 growth_class_text(e, worst_text, sizeof(worst_text)),
		 growth_class_text(&best, best_text, sizeof(best_text)),
		 widest_spread(points, n_points));
	memcpy(e->reason_buf, earlier, sizeof(e->reason_buf));
	e->reason = e->reason_buf;
	e->confidence = CONFIDENCE_LOW;
}
