/*
 * bench.h - what the benchmarks share: timing, repetitions and medians,
 * side-by-side comparison with a baseline, and the table they print.
 *
 * Every benchmark compares the library with a baseline measured in the
 * same process, in the same run, interleaved with it: repetition i of the
 * measured case runs right next to repetition i of its baseline, so that
 * a noisy neighbour slows both alike.  Reported values are medians over
 * BENCH_REPS repetitions; a ratio is the median of the per-repetition
 * ratios.  Targets are shown, and whether the medians meet them, but no
 * benchmark fails on a time: the exit status only says whether the
 * benchmark could run at all.
 */
#ifndef TRMS_BENCH_H
#define TRMS_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Repetitions of every measurement, and the least time one lasts. */
#define BENCH_REPS 7
#define BENCH_MIN_MS 50
#define BENCH_MIN_NS (BENCH_MIN_MS * 1000000ull)

#define BENCH_STR2_(x) #x
#define BENCH_STR_(x) BENCH_STR2_(x)

/* How bench_run measures, for the notes under the tables. */
#define BENCH_METHOD                                                        \
	"medians of " BENCH_STR_(BENCH_REPS) " repetitions of >= "          \
	BENCH_STR_(BENCH_MIN_MS) " ms, each run next to its baseline's; "   \
	"ratio: median of the per-repetition ratios"

/* CLOCK_MONOTONIC, in nanoseconds. */
uint64_t bench_now_ns(void);

/* Keep the compiler from dropping stores to *p or loads it cannot see. */
static inline void bench_clobber(const void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

/* Print "bench: @what failed: <errno text>" and exit if @rc is not 0. */
void bench_check(int rc, const char *what);

/* Median of @n values (which are not reordered); n > 0. */
double bench_median(const double *v, size_t n);

/* One measured loop.  @body runs @iters iterations of the operation;
 * @setup and @teardown (optional) run before and after each timed call of
 * @body, untimed, to put the state the operation needs in place. */
struct bench_case {
	const char *name;
	void (*body)(void *arg, uint64_t iters);
	void (*setup)(void *arg);
	void (*teardown)(void *arg);
	void *arg;
	uint64_t iters;                  /* per repetition; set by bench_run */
	double ns_per_iter[BENCH_REPS];  /* one value per repetition */
};

/* Calibrate each case (its first runs also warm it up) so that one
 * repetition lasts at least BENCH_MIN_NS, then run BENCH_REPS
 * repetitions of all cases, interleaved: 0, 1, ..., n-1, 0, 1, ... */
void bench_run(struct bench_case *cases, size_t n);

/* Medians over the repetitions of @c, and of @a/@b and @a-@b taken
 * repetition by repetition. */
double bench_case_median(const struct bench_case *c);
double bench_ratio_median(const struct bench_case *a,
			  const struct bench_case *b);
double bench_diff_median(const struct bench_case *a,
			 const struct bench_case *b);

/* The result column of a table row. */
enum bench_verdict { BENCH_NO_TARGET, BENCH_MET, BENCH_MISSED };

static inline enum bench_verdict bench_at_most(double value, double limit)
{
	return value <= limit ? BENCH_MET : BENCH_MISSED;
}

static inline enum bench_verdict bench_at_least(double value, double limit)
{
	return value >= limit ? BENCH_MET : BENCH_MISSED;
}

#define BENCH_TABLE_ROWS 16
#define BENCH_CELL 48

struct bench_table {
	char title[160];
	size_t rows;
	char cell[BENCH_TABLE_ROWS][6][BENCH_CELL];
};

/* Start a table: @title is printed above it, followed by the settings of
 * the library and of the measurement. */
void bench_table_init(struct bench_table *t, const char *title);

/* Add a row.  @value and @baseline are in @unit; a baseline or ratio that
 * is NAN prints as "-", and so does a NULL @target. */
void bench_table_add(struct bench_table *t, const char *what, double value,
		     double baseline, const char *unit, double ratio,
		     const char *target, enum bench_verdict verdict);

/* Print the table, then @note (NULL: none; may hold several lines)
 * below it. */
void bench_table_print(const struct bench_table *t, const char *note);

/* Exit with a message unless the library is active in this process (it is
 * inert under TRMS_OFF=1, which would make the numbers meaningless). */
void bench_require_active(void);

#endif
