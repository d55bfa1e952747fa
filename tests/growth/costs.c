/*
 * costs.c - size points, cost functions and the seeded generator of the
 * growth tests (see costs.h).
 */
#include "costs.h"

#include <math.h>

struct size_point point_of(uint64_t n, double cost)
{
	return (struct size_point){ .n = n, .count = 1, .worst = cost,
				    .mean = cost, .best = cost };
}

uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

double uniform(uint64_t *state)
{
	return (double)(next_random(state) >> 11) * 0x1p-53;
}

double gaussian(uint64_t *state)
{
	for (;;) {
		double u = uniform(state), v = uniform(state);
		double z = sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);

		if (fabs(z) <= 3)
			return z;
	}
}

double f_3n2(double n)
{
	return 3 * n * n;
}

double f_nlogn(double n)
{
	return 5 * n * log(n) + 200;
}

double f_n15(double n)
{
	return n * sqrt(n);
}

double f_logn(double n)
{
	return 50 * log(n) + 7;
}

double f_constant(double n)
{
	(void)n;
	return 1000;
}

double f_linear(double n)
{
	return 2 * n + 1e4;
}

double f_quadratic(double n)
{
	return n * n - 30 * n + 1000;
}

double f_sqrt(double n)
{
	return 4 * sqrt(n) + 20;
}

double f_n3(double n)
{
	return n * n * n;
}

double f_cubic(double n)
{
	return n * n * n / 10 + 100 * n;
}

double f_exp(double n)
{
	return 2 * pow(1.1, n);
}
