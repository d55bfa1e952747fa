/*
 * report_disturbance.c - worst costs in time that grow unlike the best
 * ones: see report_disturbance.h.
 */
#include "report_disturbance.h"

#include <stdio.h>
#include <string.h>

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
	char worst_text[48], best_text[48];

	if (stat != STAT_WORST || !unit || strcmp(unit, "ns") ||
	    e->growth == GROWTH_INSUFFICIENT)
		return;
	growth_estimate(points, n_points, STAT_BEST, &best);
	if (best.growth == GROWTH_INSUFFICIENT ||
	    growth_estimates_agree(e, &best))
		return;
	/* The reasons found before (in the buffer, or static text), then
	 * this one, cut short if need be: the reason is one line of text. */
	if (!e->reason)
		e->reason_buf[0] = '\0';
	else if (e->reason != e->reason_buf)
		snprintf(e->reason_buf, sizeof(e->reason_buf), "%s", e->reason);
	size_t at = strlen(e->reason_buf);

	snprintf(e->reason_buf + at, sizeof(e->reason_buf) - at,
		 "%sthe worst costs grow as %s, the best as %s, and at one "
		 "size the worst is %.3gx the best: time that interrupted "
		 "single activations (preemption, interrupts, page faults) "
		 "inflates worst costs; --stat best fits the least disturbed",
		 at ? "; " : "",
		 growth_class_text(e, worst_text, sizeof(worst_text)),
		 growth_class_text(&best, best_text, sizeof(best_text)),
		 widest_spread(points, n_points));
	e->reason = e->reason_buf;
	e->confidence = CONFIDENCE_LOW;
}
