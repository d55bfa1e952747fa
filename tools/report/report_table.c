/*
 * report_table.c - `trms report` on a terminal: one line per region, then
 * a sentence per region on how its cost grows.
 */
#define _GNU_SOURCE
#include "report_output.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* SGR sequences, or nothing when colour is off. */
struct paint {
	const char *bold, *dim, *red, *yellow, *green, *off;
};

static const struct paint colours = { "\033[1m", "\033[2m", "\033[31m",
				      "\033[33m", "\033[32m", "\033[0m" };
static const struct paint plain = { "", "", "", "", "", "" };

const char *report_format_cost(double v, const char *unit, char *buf,
			       size_t len)
{
	static const struct {
		double scale;
		const char *name;
	} ns_units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" },
			 { 1, "ns" } };

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
	} else if (strcmp(unit, "ns")) {
		snprintf(buf, len, v < 1e15 ? "%.0f" : "%.3g", v);
	} else {
		size_t i = 0;
		while (i + 1 < sizeof(ns_units) / sizeof(ns_units[0]) &&
		       fabs(v) < ns_units[i].scale)
			i++;
		double x = v / ns_units[i].scale;
		snprintf(buf, len, x >= 100 || i == 3 ? "%.0f %s" : "%.3g %s",
			 x, ns_units[i].name);
	}
	return buf;
}

static const char *growth_colour(const struct paint *p,
				 const struct growth_estimate *e)
{
	switch (e->growth) {
	case GROWTH_CONSTANT:
	case GROWTH_LOG:
	case GROWTH_SQRT:
	case GROWTH_LINEAR:
		return p->green;
	case GROWTH_NLOGN:
	case GROWTH_N1_5:
		return p->yellow;
	case GROWTH_N2:
	case GROWTH_N2LOGN:
	case GROWTH_N3:
	case GROWTH_EXP:
		return p->red;
	case GROWTH_INSUFFICIENT:
		break;
	}
	return p->dim;
}

static const char *stat_name(enum cost_stat s)
{
	return s == STAT_WORST ? "worst" : s == STAT_MEAN ? "mean" : "best";
}

static int name_width(const struct report *r)
{
	size_t w = strlen("region");

	for (size_t i = 0; i < r->n_regions; i++) {
		size_t n = strlen(r->regions[i]->name);
		if (r->regions[i]->thread)
			n += 3 + strlen(r->regions[i]->thread);
		if (n > w)
			w = n;
	}
	return w > 48 ? 48 : (int)w;
}

static void print_row(const struct report *r, const struct report_region *g,
		      int width, const struct paint *p, FILE *out)
{
	char name[256], total[32], at_max[48], cost[32], growth[48];

	if (g->thread)
		snprintf(name, sizeof(name), "%s @ %s", g->name, g->thread);
	else
		snprintf(name, sizeof(name), "%s", g->name);
	report_format_cost(g->cost_at_max_n, r->unit, cost, sizeof(cost));
	snprintf(at_max, sizeof(at_max), "%s @ %" PRIu64, cost, g->max_n);
	report_growth_text(g, growth, sizeof(growth));
	bool refused = g->growth.growth == GROWTH_INSUFFICIENT;
	const char *conf = refused ? "-"
				   : confidence_name(g->growth.confidence);
	fprintf(out, "%-*s %10s %9" PRIu64 " %6zu  %s%-19s%s %s%-6s%s %20s"
		     " %6.1f%% %6.1f%% %+8.2f %6.2f\n",
		width, name,
		report_format_cost((double)g->total_cost, r->unit, total,
				   sizeof(total)),
		g->calls, g->n_points, growth_colour(p, &g->growth), growth,
		p->off,
		!refused && g->growth.confidence == CONFIDENCE_HIGH ? p->bold
								    : "",
		conf, p->off, at_max, 100 * g->thread_share,
		100 * g->external_share, g->richness, g->input_volume);
}

/* What the sentence on @g adds of its costs' correction, where there is
 * something to say (report_correction.h): sizes left out of the fit, or
 * an error bound worth knowing. */
static void print_correction(const struct report_region *g,
			     const struct paint *p, FILE *out)
{
	char note[320];

	if (correction_note(&g->correction, note, sizeof(note)))
		fprintf(out, "    %s(%s)%s\n", p->dim, note, p->off);
}

/* "str_tolower: cost grows as n^2 in its input size (HIGH confidence,
 * 14 distinct sizes from 3 to 4096): 1.02 n^2 + 3" */
static void print_sentence(const struct report *r,
			   const struct report_region *g,
			   const struct paint *p, FILE *out)
{
	const struct growth_estimate *e = &g->growth;
	const char *metric = profile_metric_word(r->opt.metric);
	char growth[48], formula[96];

	fprintf(out, "  %s%s%s%s%s: ", p->bold, g->name, g->thread ? " @ " : "",
		g->thread ? g->thread : "", p->off);
	if (e->growth == GROWTH_INSUFFICIENT) {
		fprintf(out, "%sno estimate%s: %s\n", p->dim, p->off,
			e->reason ? e->reason : "insufficient data");
		return;
	}
	/* Where sizes were left out, the ones fitted. */
	bool fewer = g->correction.unresolved > 0;
	fprintf(out,
		"%s cost grows as %s%s%s in its input size (%s confidence, "
		"%zu distinct %s sizes from %" PRIu64 " to %" PRIu64 "): %s\n",
		r->opt.stat == STAT_WORST  ? "worst-case"
		: r->opt.stat == STAT_MEAN ? "mean"
					   : "best-case",
		growth_colour(p, e),
		growth_class_text(e, growth, sizeof(growth)), p->off,
		confidence_name(e->confidence), e->sizes, metric,
		fewer ? (uint64_t)e->n_min : g->points[0].n,
		fewer ? (uint64_t)e->n_max : g->max_n,
		growth_formula(e, formula, sizeof(formula)));
	if (e->reason && e->confidence != CONFIDENCE_HIGH)
		fprintf(out, "    %s(%s)%s\n", p->dim, e->reason, p->off);
	if (g->variance_cancelled)
		fprintf(out, "    %s(the spread of costs at some sizes lost "
			     "precision: too few digits left after "
			     "cancellation)%s\n",
			p->dim, p->off);
	print_correction(g, p, out);
}

void report_print_table(const struct report *r, FILE *out, bool colour)
{
	const struct paint *p = colour ? &colours : &plain;
	int width = name_width(r);
	char at_max[32];

	snprintf(at_max, sizeof(at_max), "%s cost @ max n",
		 stat_name(r->opt.stat));
	fprintf(out, "%s%-*s %10s %9s %6s  %-19s %-6s %20s %7s %7s %8s %6s%s\n",
		p->bold, width, "region", "total", "calls", "sizes", "growth",
		"conf", at_max, "thread", "extern", "richness", "volume",
		p->off);
	for (size_t i = 0; i < r->n_regions; i++)
		print_row(r, r->regions[i], width, p, out);
	if (!r->n_regions)
		return;
	fprintf(out, "\n%sHow each region's cost grows with its %s:%s\n",
		p->bold,
		r->opt.metric == METRIC_TRMS ? "input size (trms)"
					     : "read memory size (rms)",
		p->off);
	for (size_t i = 0; i < r->n_regions; i++)
		print_sentence(r, r->regions[i], p, out);
}
