/*
 * bench.c - the helpers of bench.h.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/thread.h"

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bench_check(int rc, const char *what)
{
	if (rc == 0)
		return;
	fprintf(stderr, "bench: %s failed: %s\n", what, strerror(rc < 0 ? -rc : rc));
	exit(1);
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(const double *v, size_t n)
{
	double sorted[n];

	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), compare_double);
	return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* One repetition of @c: nanoseconds per iteration. */
static double run_once(struct bench_case *c, uint64_t iters)
{
	if (c->setup)
		c->setup(c->arg);
	uint64_t start = bench_now_ns();
	c->body(c->arg, iters);
	uint64_t elapsed = bench_now_ns() - start;
	if (c->teardown)
		c->teardown(c->arg);
	return (double)elapsed / (double)iters;
}

/* Grow the iteration count until one run lasts a tenth of BENCH_MIN_NS,
 * then size it for the whole of it, with a margin. */
static void calibrate(struct bench_case *c)
{
	uint64_t iters = 1;
	double per_iter;

	for (;;) {
		per_iter = run_once(c, iters);
		if (per_iter * (double)iters >= BENCH_MIN_NS / 10 ||
		    iters >= UINT64_MAX / 4)
			break;
		iters *= 4;
	}
	double want = 1.2 * (double)BENCH_MIN_NS / per_iter;
	c->iters = want < 1 ? 1 : (uint64_t)want;
}

void bench_run(struct bench_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		calibrate(&cases[i]);
	for (unsigned rep = 0; rep < BENCH_REPS; rep++)
		for (size_t i = 0; i < n; i++)
			cases[i].ns_per_iter[rep] =
				run_once(&cases[i], cases[i].iters);
}

double bench_case_median(const struct bench_case *c)
{
	return bench_median(c->ns_per_iter, BENCH_REPS);
}

double bench_ratio_median(const struct bench_case *a,
			  const struct bench_case *b)
{
	double r[BENCH_REPS];

	for (unsigned i = 0; i < BENCH_REPS; i++)
		r[i] = a->ns_per_iter[i] / b->ns_per_iter[i];
	return bench_median(r, BENCH_REPS);
}

double bench_diff_median(const struct bench_case *a,
			 const struct bench_case *b)
{
	double d[BENCH_REPS];

	for (unsigned i = 0; i < BENCH_REPS; i++)
		d[i] = a->ns_per_iter[i] - b->ns_per_iter[i];
	return bench_median(d, BENCH_REPS);
}

void bench_require_active(void)
{
	runtime_start();
	if (runtime_active())
		return;
	fprintf(stderr, "bench: the trms library is inert in this process "
			"(TRMS_OFF=1?); nothing to measure\n");
	exit(1);
}

/* ------------------------------------------------------------------ */
/* Tables */

static const char *const header[6] = { "quantity", "measured", "baseline",
					"ratio",    "target",   "result" };

static void format_cell(char *cell, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void format_cell(char *cell, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cell, BENCH_CELL, fmt, ap);
	va_end(ap);
}

/* A value with its unit, with about three significant digits. */
static void format_value(char *cell, double v, const char *unit)
{
	if (isnan(v))
		format_cell(cell, "-");
	else if (fabs(v) < 10)
		format_cell(cell, "%.2f %s", v, unit);
	else if (fabs(v) < 1000)
		format_cell(cell, "%.1f %s", v, unit);
	else
		format_cell(cell, "%.0f %s", v, unit);
}

void bench_table_init(struct bench_table *t, const char *title)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->title, sizeof(t->title), "%s", title);
}

void bench_table_add(struct bench_table *t, const char *what, double value,
		     double baseline, const char *unit, double ratio,
		     const char *target, enum bench_verdict verdict)
{
	static const char *const verdicts[] = { "-", "met", "MISSED" };

	if (t->rows == BENCH_TABLE_ROWS) {
		fprintf(stderr, "bench: too many rows in \"%s\"\n", t->title);
		exit(1);
	}
	char(*row)[BENCH_CELL] = t->cell[t->rows++];
	format_cell(row[0], "%s", what);
	format_value(row[1], value, unit);
	format_value(row[2], baseline, unit);
	if (isnan(ratio))
		format_cell(row[3], "-");
	else
		format_cell(row[3], "%.2fx", ratio);
	format_cell(row[4], "%s", target ? target : "-");
	format_cell(row[5], "%s", verdicts[verdict]);
}

static void print_row(const char *const cells[6], const size_t width[6])
{
	/* The first column is text, left-aligned; the numbers right. */
	printf("  %-*s", (int)width[0], cells[0]);
	for (int c = 1; c < 4; c++)
		printf("  %*s", (int)width[c], cells[c]);
	printf("  %-*s  %s\n", (int)width[4], cells[4], cells[5]);
}

void bench_table_print(const struct bench_table *t, const char *note)
{
	size_t width[6];
	const char *cells[6];

	for (int c = 0; c < 6; c++) {
		width[c] = strlen(header[c]);
		for (size_t r = 0; r < t->rows; r++)
			if (strlen(t->cell[r][c]) > width[c])
				width[c] = strlen(t->cell[r][c]);
	}
	printf("== %s ==\n", t->title);
	printf("  library: TRMS_COST=%s, TRMS_GRANULARITY=%u, clock %s\n",
	       config_cost_name(config.cost), config.granularity,
	       clock_source());
	print_row(header, width);
	for (size_t r = 0; r < t->rows; r++) {
		for (int c = 0; c < 6; c++)
			cells[c] = t->cell[r][c];
		print_row(cells, width);
	}
	for (const char *line = note; line && *line;) {
		size_t len = strcspn(line, "\n");
		printf("  %.*s\n", (int)len, line);
		line += len + (line[len] == '\n');
	}
	printf("\n");
	fflush(stdout);
}
