/*
 * costs.h - what the growth tests share: a size point of one activation,
 * the cost functions of the cases, and a generator seeded by the test, so
 * that every run draws the same data.
 */
#ifndef TRMS_GROWTH_COSTS_H
#define TRMS_GROWTH_COSTS_H

#include <stdint.h>

#include "growth.h"

/* One activation of cost @cost at size @n. */
struct size_point point_of(uint64_t n, double cost);

/* Fixed-seed generator: splitmix64. */
uint64_t next_random(uint64_t *state);
/* Uniform in [0, 1). */
double uniform(uint64_t *state);
/* Standard normal, truncated at 3 (Box-Muller, rejected beyond). */
double gaussian(uint64_t *state);

/* The cases' costs (the accuracy suite's, and some units'). */
double f_3n2(double n);
double f_nlogn(double n);
double f_n15(double n);
double f_logn(double n);
double f_constant(double n);
double f_linear(double n);
double f_quadratic(double n);
double f_sqrt(double n);
double f_n3(double n);
double f_cubic(double n);
double f_exp(double n);

#endif
