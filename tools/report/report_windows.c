/*
 * report_windows.c - `trms report --windows`: the windows of a run
 * (TRMS_INTERVAL), each made into a report of its own, and per region
 * how its cost per input cell and its growth estimate went from one
 * window to the next.
 */
#define _GNU_SOURCE
#include "report_form.h"
#include "report_model.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/profile_format.h"
#include "xalloc.h"

/* One window: its number, when it ended, and its report. */
struct window_report {
	uint64_t number, start_ns, end_ns;
	struct report report;
};

static int by_number(const void *a, const void *b)
{
	const struct window_report *x = a, *y = b;

	return x->number < y->number ? -1 : x->number > y->number;
}

static const struct report_region *find_region(const struct report *r,
					       const char *name)
{
	for (size_t i = 0; i < r->n_regions; i++)
		if (!strcmp(r->regions[i]->name, name))
			return r->regions[i];
	return NULL;
}

/* Each region of the whole, then its line in every window. */
static void print_windows(FILE *out, const struct report *whole,
			  const struct window_report *w, size_t n,
			  uint64_t run_start)
{
	for (size_t i = 0; i < whole->n_regions; i++) {
		const char *name = whole->regions[i]->name;
		fprintf(out, "%s%s\n", i ? "\n" : "", name);
		fprintf(out, "  %6s %9s %9s %12s %8s %14s  %s\n", "window",
			"from(s)", "to(s)", "calls", "max n", "cost/cell",
			"growth");
		for (size_t k = 0; k < n; k++) {
			const struct report_region *g =
				find_region(&w[k].report, name);
			char growth[48];
			double from = (double)(w[k].start_ns - run_start) / 1e9;
			double to = (double)(w[k].end_ns - run_start) / 1e9;
			if (!g) {
				fprintf(out, "  %6" PRIu64 " %9.3f %9.3f %12s\n",
					w[k].number, from, to, "-");
				continue;
			}
			long double input = whole->opt.metric == METRIC_TRMS
						    ? g->input_trms
						    : g->input_rms;
			fprintf(out,
				"  %6" PRIu64 " %9.3f %9.3f %12" PRIu64
				" %8" PRIu64 " %14.4Lg  %s\n",
				w[k].number, from, to, g->calls, g->max_n,
				input > 0 ? g->total_cost / input : 0.0L,
				report_growth_text(g, growth, sizeof(growth)));
		}
	}
}

/* For each region of the report (of all the profiles, its regions in
 * their order), a line per window among the profiles: the window's
 * number, its start and end in seconds from the run's start, calls,
 * largest input, cost per input cell (the cost of all calls over all
 * their input, by the report's metric) and growth class.  A profile that
 * is not a window, or windows that do not build, are said: exit status
 * 2. */
static int print_windows_form(const struct report_form_input *in)
{
	struct profile_doc *docs = in->docs;
	size_t n_docs = in->n_docs;
	char err[512];
	size_t errlen = sizeof(err);
	struct window_report *w = xcalloc(n_docs + 1, sizeof(*w));
	size_t n = 0;
	uint64_t run_start = UINT64_MAX;
	int rc = 0;

	/* One report per window number: the windows of several processes
	 * with the same number go together. */
	for (size_t i = 0; i < n_docs; i++) {
		uint64_t number =
			profile_meta_u64(&docs[i], PROFILE_META_WINDOW, 0);
		uint64_t start = profile_meta_u64(&docs[i],
						  PROFILE_META_WINDOW_START, 0);
		uint64_t end =
			profile_meta_u64(&docs[i], PROFILE_META_WINDOW_END, 0);
		uint64_t run =
			profile_meta_u64(&docs[i], PROFILE_META_START_NS, 0);
		if (!number) {
			snprintf(err, errlen, "%s is not a window (no meta %s)",
				 docs[i].path ? docs[i].path : "a profile",
				 PROFILE_META_WINDOW);
			free(w);
			return report_form_failed(err, 2);
		}
		if (run && run < run_start)
			run_start = run;
		size_t k = 0;
		while (k < n && w[k].number != number)
			k++;
		if (k == n)
			w[n++] = (struct window_report){ .number = number,
							 .start_ns = start,
							 .end_ns = end };
		if (start < w[k].start_ns)
			w[k].start_ns = start;
		if (end > w[k].end_ns)
			w[k].end_ns = end;
	}
	qsort(w, n, sizeof(*w), by_number);
	for (size_t k = 0; k < n && !rc; k++) {
		/* The documents of window k, side by side. */
		struct profile_doc *mine = xcalloc(n_docs, sizeof(*mine));
		size_t m = 0;
		for (size_t i = 0; i < n_docs; i++)
			if (profile_meta_u64(&docs[i], PROFILE_META_WINDOW,
					     0) == w[k].number)
				mine[m++] = docs[i];
		rc = report_build(&w[k].report, mine, m, in->opt, err, errlen);
		free(mine);
	}
	if (run_start == UINT64_MAX)
		run_start = n ? w[0].start_ns : 0;
	if (!rc)
		print_windows(stdout, in->r, w, n, run_start);
	for (size_t k = 0; k < n; k++)
		report_free(&w[k].report);
	free(w);
	return rc ? report_form_failed(err, 2) : 0;
}

const struct report_form report_form_windows = {
	.option = "windows", .print = print_windows_form, .windows = true,
	.help =
		"the windows of a run (TRMS_INTERVAL, trms run --interval: "
		"PROFILE.wN.trms; a directory stands for the windows in "
		"it): per region, a line per window with its calls, largest "
		"input, cost per input cell and growth class, to see them "
		"change as the run goes (docs/windows.md); regions in name "
		"order.  --size and --stat apply",
};
