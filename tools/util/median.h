/*
 * median.h - the median of a set of numbers, for every tool that takes
 * one (the growth estimate's robust spread, the report's correction
 * figures).
 */
#ifndef TRMS_MEDIAN_H
#define TRMS_MEDIAN_H

#include <stddef.h>

/* The median of @v[0..@n) (sorted in place): the middle value, or the
 * mean of the two middle ones; NaN for none. */
double median(double *v, size_t n);

#endif
