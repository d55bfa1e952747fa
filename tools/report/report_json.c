/*
 * report_json.c - `trms report --json`: the report as one JSON document
 * (its fields are documented in docs/report-json.md).
 */
#define _GNU_SOURCE
#include "report_output.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_form.h"

/* The length of the valid UTF-8 sequence at @p, or 0. */
static size_t utf8_length(const unsigned char *p)
{
	size_t n = p[0] >= 0xf0 && p[0] <= 0xf4   ? 4
		   : p[0] >= 0xe0 && p[0] <= 0xef ? 3
		   : p[0] >= 0xc2 && p[0] <= 0xdf ? 2
						  : 0;

	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms, surrogates and code points above U+10FFFF. */
	if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) ||
	    (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
	    (n == 4 && p[0] == 0xf0 && p[1] < 0x90) ||
	    (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

/* A JSON string; bytes that are not UTF-8 become U+FFFD. */
static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		size_t n;
		if (*p == '"' || *p == '\\') {
			fprintf(out, "\\%c", *p);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(out, "\\u%04x", *p);
		} else if (*p < 0x80) {
			fputc(*p, out);
		} else if ((n = utf8_length(p))) {
			fwrite(p, 1, n, out);
			p += n - 1;
		} else {
			fputs("\\ufffd", out);
		}
	}
	fputc('"', out);
}

/* JSON has no NaN or infinity. */
static void put_number(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.10g", v);
	else
		fputs("null", out);
}

static void put_key(FILE *out, const char *key)
{
	put_string(out, key);
	fputc(':', out);
}

/* ,"key":value -- every field but an object's first. */
static void num(FILE *out, const char *key, double v)
{
	fputc(',', out);
	put_key(out, key);
	put_number(out, v);
}

static void u64(FILE *out, const char *key, uint64_t v)
{
	fprintf(out, ",\"%s\":%" PRIu64, key, v);
}

static void str(FILE *out, const char *key, const char *s)
{
	fputc(',', out);
	put_key(out, key);
	if (s)
		put_string(out, s);
	else
		fputs("null", out);
}

static void boolean(FILE *out, const char *key, bool v)
{
	fprintf(out, ",\"%s\":%s", key, v ? "true" : "false");
}

static void put_points(FILE *out, const char *key,
		       const struct size_point *p, size_t n)
{
	fputc(',', out);
	put_key(out, key);
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s{\"n\":%" PRIu64, i ? "," : "", p[i].n);
		u64(out, "count", p[i].count);
		num(out, "best", p[i].best);
		num(out, "mean", p[i].mean);
		num(out, "worst", p[i].worst);
		num(out, "stddev", sqrt(p[i].variance));
		fputc('}', out);
	}
	fputc(']', out);
}

static void put_model(FILE *out, const struct growth_model *m)
{
	fputs("{\"growth\":", out);
	put_string(out, growth_name(m->g));
	boolean(out, "valid", m->valid);
	num(out, "c0", m->c0);
	num(out, "c1", m->c1);
	num(out, "smape", m->smape);
	fputc('}', out);
}

static void put_growth(FILE *out, const struct growth_estimate *e)
{
	char formula[128];
	bool refused = e->growth == GROWTH_INSUFFICIENT;

	str(out, "growth", growth_name(e->growth));
	if (e->has_range) {
		fputs(",\"growth_range\":[", out);
		put_string(out, growth_name(e->range_low));
		fputc(',', out);
		put_string(out, growth_name(e->range_high));
		fputc(']', out);
	}
	str(out, "confidence",
	    refused ? NULL : confidence_name(e->confidence));
	str(out, "reason", e->reason);
	if (refused) {
		fputs(",\"fit\":null", out);
	} else {
		fputs(",\"fit\":{\"model\":", out);
		put_string(out, growth_name(e->fit.g));
		num(out, "c0", e->fit.c0);
		num(out, "c1", e->fit.c1);
		num(out, "smape", e->fit.smape);
		if (e->fit.g == GROWTH_EXP)
			num(out, "base", e->fit.base);
		str(out, "formula", growth_formula(e, formula, sizeof(formula)));
		num(out, "span", e->span);
		num(out, "upper_slope", e->slope);
		fputc('}', out);
	}
	fputs(",\"models\":[", out);
	for (int i = 0; i < GROWTH_MODELS && !refused; i++) {
		if (i)
			fputc(',', out);
		put_model(out, &e->models[i]);
	}
	fputc(']', out);
}

/* With costs in ns from profiles that say it (version 3): the
 * correction of the region's costs (report_correction.h). */
static void put_correction(FILE *out, const struct report_correction *c)
{
	if (!c->known)
		return;
	fputs(",\"correction\":{\"library_share\":", out);
	put_number(out, c->library_share);
	num(out, "error", c->error);
	num(out, "fitted_library_share", c->fitted_share);
	num(out, "fitted_error", c->fitted_error);
	u64(out, "sizes", c->sizes);
	fputs(",\"unresolved_sizes\":[", out);
	for (size_t i = 0; i < c->unresolved; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", c->unresolved_n[i]);
	fputc(']', out);
	boolean(out, "refused", c->refused);
	char note[320];
	str(out, "note", correction_note(c, note, sizeof(note)));
	fputc('}', out);
}

static void put_region(FILE *out, const struct report *r,
		       const struct report_region *g)
{
	fputs("{\"name\":", out);
	put_string(out, g->name);
	if (g->object)
		str(out, "object", g->object);
	if (g->thread)
		str(out, "thread", g->thread);
	u64(out, "calls", g->calls);
	u64(out, "sizes", g->n_points);
	u64(out, "max_n", g->max_n);
	num(out, "total_cost", (double)g->total_cost);
	num(out, "cost_at_max_n", g->cost_at_max_n);
	put_growth(out, &g->growth);
	num(out, "input_thread_share", g->thread_share);
	num(out, "input_external_share", g->external_share);
	u64(out, "induced_thread", g->induced_thread);
	u64(out, "induced_external", g->induced_external);
	num(out, "profile_richness", g->richness);
	num(out, "input_volume", g->input_volume);
	boolean(out, "variance_cancelled", g->variance_cancelled);
	put_correction(out, &g->correction);
	put_points(out, "points", g->points, g->n_points);
	put_points(out,
		   r->opt.metric == METRIC_TRMS ? "points_rms" : "points_trms",
		   g->other_points, g->n_other_points);
	fputc('}', out);
}

static void put_tree(FILE *out, const struct view_node *n)
{
	fputs("{\"name\":", out);
	put_string(out, n->label);
	u64(out, "self", n->samples);
	u64(out, "total", n->total_samples);
	u64(out, "work", n->total_work);
	u64(out, "overhead", n->total_overhead);
	u64(out, "blocked", n->total_blocked);
	num(out, "idleness", n->total_idleness);
	fputs(",\"children\":[", out);
	for (size_t i = 0; i < n->n_children; i++) {
		if (i)
			fputc(',', out);
		put_tree(out, n->children[i]);
	}
	fputs("]}", out);
}

static void put_library(FILE *out, const struct library_share *s)
{
	fputs(",\"library\":{", out);
	fprintf(out, "\"metered_ns\":%" PRIu64, s->ns);
	boolean(out, "calls_timed", s->timed);
	if (s->sampled) {
		u64(out, "samples", s->samples);
		u64(out, "samples_in_library", s->in_library);
	}
	fputc('}', out);
}

void report_print_json(const struct report *r, const struct view *tree,
		       char *const *profiles, size_t n_profiles, FILE *out)
{
	static const char *const stats[] = { "worst", "mean", "best" };

	fputs("{\"trms_report\":1", out);
	str(out, "unit", r->unit);
	str(out, "size_metric", profile_metric_word(r->opt.metric));
	str(out, "cost_statistic", stats[r->opt.stat]);
	boolean(out, "per_thread", r->opt.per_thread);
	fputs(",\"profiles\":[", out);
	for (size_t i = 0; i < n_profiles; i++) {
		if (i)
			fputc(',', out);
		put_string(out, profiles[i]);
	}
	fputs("],\"regions\":[", out);
	for (size_t i = 0; i < r->n_regions; i++) {
		if (i)
			fputs(",\n", out);
		put_region(out, r, r->regions[i]);
	}
	fputc(']', out);
	if (tree) {
		u64(out, "samples", tree->root.total_samples);
		fputs(",\"call_tree\":", out);
		put_tree(out, &tree->root);
	}
	put_library(out, &r->library);
	fputs("}\n", out);
}

static int print_json(const struct report_form_input *in)
{
	report_print_json(in->r, report_form_sampled(in), in->paths,
			  in->n_docs, stdout);
	return 0;
}

const struct report_form report_form_json = {
	.option = "json", .print = print_json, .selects = true, .tree = true,
	.help =
		"the report as one JSON document (docs/report-json.md); the "
		"options above apply",
};
