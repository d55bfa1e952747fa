/*
 * report_disturbance.h - whether a region's worst costs in time say more
 * about the machine than about the region.
 *
 * A time cost is the region's own work plus whatever interrupted it:
 * preemption, interrupts, a virtual machine's stolen time, page faults.
 * Those add tens of microseconds to single activations at random, so the
 * worst cost of a size measured a thousand times holds one of them, and
 * the worst costs of small sizes are mostly that: they grow more slowly
 * than the region's work (on a 2-vCPU virtual machine a linear loop's
 * worst costs fitted sqrt n, HIGH, in every run, where its best and mean
 * costs fitted n).  The best cost is the one such additions disturb
 * least.  When the worst costs grow as a class the best costs do not,
 * the worst's estimate is kept (a region whose cost depends on more than
 * its input's size has a worst case of its own) but its confidence is
 * LOW, and the reason names the best costs' class and the remedy
 * (docs/growth.md, "Worst costs in time").
 */
#ifndef TRMS_REPORT_DISTURBANCE_H
#define TRMS_REPORT_DISTURBANCE_H

#include <stddef.h>

#include "growth.h"

/* @e, estimated over @points on statistic @stat, costs in @unit ("ns"
 * or "events"): if they are worst costs in time and the best costs of the
 * same points grow as no class @e names, @e's confidence becomes LOW and
 * its reason says why.  Nothing otherwise (events are exact: their worst
 * case is the region's own). */
void disturbance_judge(const struct size_point *points, size_t n_points,
		       const char *unit, enum cost_stat stat,
		       struct growth_estimate *e);

#endif
