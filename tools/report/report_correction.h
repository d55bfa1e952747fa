/*
 * report_correction.h - whether a region's costs in ns can be told apart
 * from the error of their correction (docs/cost.md, "When the library
 * dominates"): size by size, from what the tuples say of the library's
 * own time taken out of their costs; which sizes the growth estimate may
 * use; and what the report says of it.
 *
 * The rule: the correction of an activation's cost is off by at most
 * CORRECTION_ERROR times the library time it charged by estimate (the
 * measured bound, bench/bench_correction.c).  A size's costs are
 * resolved when that bound, for the mean activation of the size, is at
 * most CORRECTION_RESOLVES times the size's smallest cost (the
 * activation least disturbed by anything else; a cost of 0 is never
 * resolved).  The growth is estimated on the resolved sizes only; if too
 * few are left for an estimate, the region gets none, with the reason
 * and the remedy.
 */
#ifndef TRMS_REPORT_CORRECTION_H
#define TRMS_REPORT_CORRECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "growth.h"
#include "engine/tuples.h"

/* The bound of the correction's error, as a share of the library time
 * charged by estimate: over every loop bench-correction measured, the
 * smallest corrected cost of a size was off from the loop's own time by
 * -0.21 to +0.85 times it (docs/performance.md, "The correction's
 * error"). */
#define CORRECTION_ERROR 1.0
/* The largest error bound, as a share of a size's smallest cost, at
 * which the size's costs count as resolved. */
#define CORRECTION_RESOLVES 0.5
/* From this error bound on (a share of the costs fitted), the report
 * says it. */
#define CORRECTION_NOTED 0.1

/* What the tuples of a region say of its costs' correction. */
struct report_correction {
	/* Costs in ns and some tuple carries the correction (version 3):
	 * there is something to judge.  Nothing below is set otherwise. */
	bool known;
	/* Over the region's sizes judged: the medians of each size's
	 * library time over its time measured (its smallest cost + its mean
	 * library time) and of its correction's error bound over its
	 * smallest cost. */
	double library_share, error;
	/* The same over the sizes the growth was estimated on (NaN if
	 * none). */
	double fitted_share, fitted_error;
	size_t sizes;      /* sizes judged (n >= 1) */
	size_t unresolved; /* of them, not resolved: left out of the fit */
	uint64_t unresolved_min, unresolved_max; /* their range of n */
	uint64_t *unresolved_n; /* their sizes, ascending (allocated) */
	/* Too few sizes resolved for a growth estimate. */
	bool refused;
};

/* Judge the @n tuples of one region and metric (ascending n, one per n:
 * the tuples the region's points are made from, in the same order), with
 * @unit the costs' unit.  Fills @c, and copies into @kept those of
 * @points whose costs are resolved.  @return how many were kept. */
size_t correction_judge(struct report_correction *c,
			const struct tuple_data *tuples, size_t n,
			const char *unit, const struct size_point *points,
			struct size_point *kept);

/* After the growth @e was estimated on the kept points: where it could
 * not be because sizes were left out, @e is refused for the correction,
 * with the reason (the sizes left out, and why the others gave no
 * estimate) and the remedy, and @c says so. */
void correction_conclude(struct report_correction *c,
			 struct growth_estimate *e);

/* "library time 85% of measured time, correction error ±140%" for all
 * the region's sizes, or (@fitted) those fitted, into @buf. */
const char *correction_text(const struct report_correction *c, bool fitted,
			    char *buf, size_t len);

/* What the report says of @c beside a class, into @buf: the sizes left
 * out of the fit, or an error bound of CORRECTION_NOTED or more on the
 * sizes fitted.  NULL when there is nothing to say (a refusal says it
 * in the estimate's reason). */
const char *correction_note(const struct report_correction *c, char *buf,
			    size_t len);

void correction_free(struct report_correction *c);

#endif
