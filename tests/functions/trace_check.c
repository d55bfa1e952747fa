/*
 * trace_check.c - TRACE PROFILE GRANULARITY: the profile a program wrote
 * holds exactly the activations the definitions give for the trace of the
 * same run (TRMS_TRACE): the naive oracle (tests/oracle.c) run over the
 * trace, its activations counted by (region, thread, metric, size), with
 * their induced reads summed, must equal the profile's tuples, key by key.
 * Costs are not compared (the oracle has none to give).  The trace names
 * region N "rN" and threads by their ordinals, as the profile does.
 * Exit 0 if they agree; else 1, with the differences.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "engine/tuples.h"
#include "format/profile_doc.h"
#include "trace.h"

struct row {
	uint32_t region, thread, metric;
	uint64_t n, count, induced_thread, induced_external;
};

struct rows {
	struct row *row;
	size_t n, cap;
};

static void add(struct rows *r, struct row x)
{
	for (size_t i = 0; i < r->n; i++) {
		struct row *y = &r->row[i];
		if (y->region == x.region && y->thread == x.thread &&
		    y->metric == x.metric && y->n == x.n) {
			y->count += x.count;
			y->induced_thread += x.induced_thread;
			y->induced_external += x.induced_external;
			return;
		}
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->row = realloc(r->row, r->cap * sizeof(*r->row));
		if (!r->row)
			abort();
	}
	r->row[r->n++] = x;
}

static int by_key(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

static bool same_counts(const struct row *x, const struct row *y)
{
	return x->count == y->count &&
	       x->induced_thread == y->induced_thread &&
	       x->induced_external == y->induced_external;
}

struct oracle_ctx {
	const struct trace *trace;
	struct rows *rows;
};

static void emit(void *ctx, const struct oracle_activation *a)
{
	struct oracle_ctx *o = ctx;
	unsigned long region = strtoul(o->trace->names[a->name] + 1, NULL, 10);

	if (region >= UINT32_MAX) /* the cost calibration's hidden region */
		return;
	for (uint32_t metric = METRIC_TRMS; metric <= METRIC_RMS; metric++)
		add(o->rows, (struct row){ (uint32_t)region, (uint32_t)a->tid,
					   metric,
					   metric == METRIC_TRMS ? a->trms
								 : a->rms,
					   1, a->induced_thread,
					   a->induced_external });
}

static void print(const char *who, const struct row *r)
{
	fprintf(stderr, "  %s: region %u thread %u %s n=%llu count %llu "
		"induced %llu/%llu\n", who, r->region, r->thread,
		r->metric == METRIC_TRMS ? "trms" : "rms",
		(unsigned long long)r->n, (unsigned long long)r->count,
		(unsigned long long)r->induced_thread,
		(unsigned long long)r->induced_external);
}

int main(int argc, char **argv)
{
	struct rows from_trace = { 0 }, from_profile = { 0 };
	struct profile_doc doc;
	struct trace trace;
	char err[512];
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: trace_check TRACE PROFILE K\n");
		return 2;
	}
	trace_init(&trace);
	if (!(f = fopen(argv[1], "r")) ||
	    trace_parse(f, argv[1], &trace, err, sizeof(err))) {
		fprintf(stderr, "trace_check: %s: %s\n", argv[1],
			f ? err : "cannot open");
		return 2;
	}
	fclose(f);
	struct oracle_ctx ctx = { &trace, &from_trace };
	if (oracle_run(&trace, (unsigned)atoi(argv[3]), emit, &ctx)) {
		fprintf(stderr, "trace_check: the oracle refused the trace\n");
		return 1;
	}
	if (profile_read(argv[2], &doc, err, sizeof(err))) {
		fprintf(stderr, "trace_check: %s: %s\n", argv[2], err);
		return 2;
	}
	for (size_t i = 0; i < doc.n_tuples; i++) {
		const struct tuple_data *d = &doc.tuples[i].data;
		add(&from_profile,
		    (struct row){ d->region, doc.tuples[i].thread, d->metric,
				  d->n, d->count, d->induced_thread,
				  d->induced_external });
	}
	qsort(from_trace.row, from_trace.n, sizeof(struct row), by_key);
	qsort(from_profile.row, from_profile.n, sizeof(struct row), by_key);
	size_t bad = 0;
	for (size_t i = 0, j = 0; i < from_trace.n || j < from_profile.n;) {
		int c = i == from_trace.n     ? 1
			: j == from_profile.n ? -1
					      : by_key(&from_trace.row[i],
						       &from_profile.row[j]);
		if (!c && same_counts(&from_trace.row[i],
				      &from_profile.row[j])) {
			i++, j++;
			continue;
		}
		if (bad++ < 20) {
			fprintf(stderr, "trace_check: differ:\n");
			if (c <= 0)
				print("definitions", &from_trace.row[i]);
			if (c >= 0)
				print("profile", &from_profile.row[j]);
		}
		i += c <= 0;
		j += c >= 0;
	}
	printf("trace_check: %zu activation keys from the trace, %zu from the "
	       "profile, %zu differ\n", from_trace.n, from_profile.n, bad);
	profile_doc_free(&doc);
	trace_free(&trace);
	free(from_trace.row);
	free(from_profile.row);
	return bad != 0;
}
