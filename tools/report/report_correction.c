/*
 * report_correction.c - whether a region's costs can be told apart from
 * the error of their correction (see report_correction.h).
 */
#define _GNU_SOURCE
#include "report_correction.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "median.h"
#include "xalloc.h"

/* The mean library time of @t's activations, and its estimated part
 * (over those that carry them: all, unless merged with older profiles). */
static long double mean_library(const struct tuple_data *t)
{
	return (long double)t->library / (long double)t->corrected;
}

static long double mean_estimated(const struct tuple_data *t)
{
	return (long double)t->estimated / (long double)t->corrected;
}

/* A size's figures, from its smallest cost: the activation least
 * disturbed by anything else (a preemption, another thread's cache
 * misses) shows the correction's error least covered. */
static double size_share(const struct tuple_data *t)
{
	long double measured = (long double)t->min + mean_library(t);

	return measured > 0 ? (double)(mean_library(t) / measured) : 0;
}

static double size_error(const struct tuple_data *t)
{
	long double e = CORRECTION_ERROR * mean_estimated(t);

	if (e <= 0)
		return 0;
	return t->min > 0 ? (double)(e / (long double)t->min) : INFINITY;
}

/* Whether the costs of @t are resolved. */
static bool resolved(const struct tuple_data *t)
{
	return size_error(t) <= CORRECTION_RESOLVES;
}

/* The figures of some of a region's sizes. */
struct figures {
	double *share, *error;
	size_t n;
};

static void figures_add(struct figures *f, const struct tuple_data *t)
{
	f->share[f->n] = size_share(t);
	f->error[f->n++] = size_error(t);
}

size_t correction_judge(struct report_correction *c,
			const struct tuple_data *tuples, size_t n,
			const char *unit, const struct size_point *points,
			struct size_point *kept)
{
	size_t k = 0;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < n && !strcmp(unit, "ns"); i++)
		c->known |= tuples[i].corrected > 0;
	if (!c->known) {
		memcpy(kept, points, n * sizeof(*points));
		return n;
	}
	struct figures all = { xcalloc(n + 1, sizeof(double)),
			       xcalloc(n + 1, sizeof(double)), 0 };
	struct figures fitted = { xcalloc(n + 1, sizeof(double)),
				  xcalloc(n + 1, sizeof(double)), 0 };
	c->unresolved_n = xcalloc(n + 1, sizeof(*c->unresolved_n));
	for (size_t i = 0; i < n; i++) {
		const struct tuple_data *t = &tuples[i];
		/* A size without the figures (an older profile's) is not
		 * judged; one of n = 0 is never fitted. */
		bool judged = t->corrected > 0 && t->n > 0;
		c->sizes += t->n > 0;
		if (judged)
			figures_add(&all, t);
		if (judged && !resolved(t)) {
			if (!c->unresolved++)
				c->unresolved_min = t->n;
			c->unresolved_max = t->n;
			c->unresolved_n[c->unresolved - 1] = t->n;
			continue;
		}
		if (judged)
			figures_add(&fitted, t);
		kept[k++] = points[i];
	}
	c->library_share = median(all.share, all.n);
	c->error = median(all.error, all.n);
	c->fitted_share = median(fitted.share, fitted.n);
	c->fitted_error = median(fitted.error, fitted.n);
	free(all.share);
	free(all.error);
	free(fitted.share);
	free(fitted.error);
	return k;
}

const char *correction_text(const struct report_correction *c, bool fitted,
			    char *buf, size_t len)
{
	double share = fitted ? c->fitted_share : c->library_share;
	double err = fitted ? c->fitted_error : c->error;
	char bound[64];

	/* A size whose smallest cost is 0 has an unbounded error. */
	if (!isfinite(err))
		snprintf(bound, sizeof(bound),
			 "unbounded, the smallest cost being 0 at most "
			 "sizes");
	else if (err >= 10)
		snprintf(bound, sizeof(bound), "\u00b1%.0f times the costs", err);
	else
		snprintf(bound, sizeof(bound), "\u00b1%.0f%%", 100 * err);
	snprintf(buf, len,
		 "library time %.0f%% of measured time, correction error %s",
		 100 * share, bound);
	return buf;
}

/* The remedy, where a region's costs cannot be resolved. */
#define REMEDY                                                              \
	"use TRMS_COST=events, or annotate whole ranges with one trms_read " \
	"of the range"

void correction_conclude(struct report_correction *c,
			 struct growth_estimate *e)
{
	char text[160], why[160];

	if (!c->known || !c->unresolved || e->growth != GROWTH_INSUFFICIENT)
		return;
	c->refused = true;
	correction_text(c, false, text, sizeof(text));
	if (c->unresolved == c->sizes) {
		snprintf(e->reason_buf, sizeof(e->reason_buf),
			 "costs below what the correction of the library's "
			 "time resolves at all %zu sizes (%s); " REMEDY,
			 c->sizes, text);
	} else {
		/* Why the sizes left gave no estimate. */
		snprintf(why, sizeof(why), "%s", e->reason ? e->reason : "");
		snprintf(e->reason_buf, sizeof(e->reason_buf),
			 "costs below what the correction of the library's "
			 "time resolves at %zu of %zu sizes, from %" PRIu64
			 " to %" PRIu64 " (%s), and the others alone give no "
			 "estimate (%s); " REMEDY,
			 c->unresolved, c->sizes, c->unresolved_min,
			 c->unresolved_max, text, why);
	}
	e->reason = e->reason_buf;
}

const char *correction_note(const struct report_correction *c, char *buf,
			    size_t len)
{
	char text[160];

	if (!c->known || c->refused ||
	    !(c->unresolved || c->fitted_error >= CORRECTION_NOTED))
		return NULL;
	/* The sizes fitted may all be without figures (an older
	 * profile's): then there are none to give. */
	if (isnan(c->fitted_share))
		snprintf(text, sizeof(text), "no figures");
	else
		correction_text(c, true, text, sizeof(text));
	if (c->unresolved)
		snprintf(buf, len,
			 "%zu of %zu sizes, from %" PRIu64 " to %" PRIu64
			 ", left out: their costs are below what the "
			 "correction of the library's time resolves; on the "
			 "sizes fitted, %s",
			 c->unresolved, c->sizes, c->unresolved_min,
			 c->unresolved_max, text);
	else
		snprintf(buf, len, "%s", text);
	return buf;
}

void correction_free(struct report_correction *c)
{
	free(c->unresolved_n);
	c->unresolved_n = NULL;
}
