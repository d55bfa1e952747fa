/*
 * cmd_report.c - `trms report`: what a profile says.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cct_view.h"
#include "commands.h"
#include "pprof_export.h"
#include "profile_reader.h"
#include "../src/profile_writer.h"

static const char usage[] =
	"Usage: trms report [OPTIONS] PROFILE...\n"
	"\n"
	"Print what one or more profiles say.  Profiles of several threads,\n"
	"processes and runs are merged: tuples of the same region, thread,\n"
	"metric and input size are added together.\n"
	"\n"
	"Without options: one line per region, ranked by total cost, with\n"
	"its activations, distinct input sizes, largest input and the share\n"
	"of its input that came from other threads and from outside; then,\n"
	"if call stacks were sampled, the functions with most samples.\n"
	"\n"
	"Options:\n"
	"  --tree      the sampled calling context tree, top-down: per node\n"
	"              its share of all samples (total), samples that ended\n"
	"              there (self), and over its subtree the samples of a\n"
	"              working thread (work), the idleness charged to them\n"
	"              (blocked threads per working thread), those in\n"
	"              synchronisation calls (overhead) and those of blocked\n"
	"              threads (blocked, with TRMS_SAMPLE_CLOCK=wall).\n"
	"              Regions show as [name]; a thread's own path starts at\n"
	"              (thread start), below its creation context\n"
	"  --folded    the sampled stacks as collapsed stacks, one line per\n"
	"              distinct stack: frame;frame;...;frame count\n"
	"  --threads   with --tree or --folded: one tree per thread instead of\n"
	"              all threads merged\n"
	"  --lines     name frames with their source file and line too, where\n"
	"              the program has debug information (-g): for a caller,\n"
	"              the line of the call.  Read with binutils' addr2line\n"
	"  --pprof OUT write the sampled stacks to the file OUT as a pprof\n"
	"              profile (gzip-compressed profile.proto), for `go tool\n"
	"              pprof` and other pprof readers, and print nothing.\n"
	"              Frames are named as in --tree; regions are functions\n"
	"              [name] and thread starts (thread start).  Each sample\n"
	"              has the labels thread (its name, else its ordinal)\n"
	"              and region (the innermost region on its stack, if\n"
	"              any), and the values samples, cpu (or wall, with\n"
	"              TRMS_SAMPLE_CLOCK=wall) in nanoseconds (the default),\n"
	"              work and overhead.  OUT is written atomically (a\n"
	"              temporary file in its directory, then renamed); if\n"
	"              there are no samples, nothing is written\n"
	"  --min P     with --tree: leave out nodes under P% of all samples\n"
	"              (default 1)\n"
	"  --tuples    print every tuple as tab-separated values, one per\n"
	"              line, under the header line\n"
	"              region thread metric n count min max sum sumsq "
	"induced_thread induced_external\n"
	"              sorted by region, thread, metric (trms first) and n.\n"
	"              thread is the thread's name if it has one, else its\n"
	"              ordinal (0 is the main thread); tabs, newlines and\n"
	"              backslashes in names are written as \\t, \\n, \\\\.\n"
	"  -h, --help  show this help\n"
	"\n"
	"Exit status: 0 on success; 2 if a profile cannot be read (a message\n"
	"names the file and line) or the profiles cannot be combined (costs\n"
	"in different units; with --pprof, samples of CPU and of wall time),\n"
	"with --pprof if the profiles have no call-stack samples, or on bad\n"
	"usage; 1 if the output cannot be written (with --pprof: OUT cannot\n"
	"be created or written, and is left as it was).\n";

/* One merged tuple, keyed by text so that profiles combine. */
struct row {
	const char *region;
	const char *thread;
	bool thread_named;
	uint32_t thread_ordinal;
	struct tuple_data data;
};

struct rows {
	struct row *v;
	size_t n, cap;
};

static int compare_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->region, y->region);

	if (c)
		return c;
	if (x->thread_named != y->thread_named)
		return x->thread_named ? 1 : -1;
	if (x->thread_named) {
		c = strcmp(x->thread, y->thread);
		if (c)
			return c;
	} else if (x->thread_ordinal != y->thread_ordinal) {
		return x->thread_ordinal < y->thread_ordinal ? -1 : 1;
	}
	if (x->data.metric != y->data.metric)
		return x->data.metric < y->data.metric ? -1 : 1;
	if (x->data.n != y->data.n)
		return x->data.n < y->data.n ? -1 : 1;
	return 0;
}

static void add_row(struct rows *rows, const struct row *r)
{
	if (rows->n == rows->cap) {
		rows->cap = rows->cap ? 2 * rows->cap : 256;
		rows->v = realloc(rows->v, rows->cap * sizeof(*rows->v));
		if (!rows->v) {
			fprintf(stderr, "trms: out of memory\n");
			exit(1);
		}
	}
	rows->v[rows->n++] = *r;
}

/* Sort and fold rows with equal keys. */
static void merge_rows(struct rows *rows)
{
	size_t out = 0;

	qsort(rows->v, rows->n, sizeof(*rows->v), compare_rows);
	for (size_t i = 0; i < rows->n; i++) {
		if (out && compare_rows(&rows->v[out - 1], &rows->v[i]) == 0)
			tuple_merge(&rows->v[out - 1].data, &rows->v[i].data);
		else
			rows->v[out++] = rows->v[i];
	}
	rows->n = out;
}

static void print_field(const char *s)
{
	for (; *s; s++) {
		if (*s == '\t')
			fputs("\\t", stdout);
		else if (*s == '\n')
			fputs("\\n", stdout);
		else if (*s == '\\')
			fputs("\\\\", stdout);
		else
			putchar(*s);
	}
}

static void print_tuples(const struct rows *rows)
{
	char sumsq[40];

	puts("region\tthread\tmetric\tn\tcount\tmin\tmax\tsum\tsumsq\t"
	     "induced_thread\tinduced_external");
	for (size_t i = 0; i < rows->n; i++) {
		const struct row *r = &rows->v[i];
		const struct tuple_data *d = &r->data;
		print_field(r->region);
		putchar('\t');
		if (r->thread_named)
			print_field(r->thread);
		else
			printf("%" PRIu32, r->thread_ordinal);
		printf("\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
		       "\t%" PRIu64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\n",
		       d->metric == METRIC_TRMS ? "trms" : "rms", d->n,
		       d->count, d->min, d->max, d->sum,
		       u128_to_text(d->sumsq, sumsq), d->induced_thread,
		       d->induced_external);
	}
}

struct region_summary {
	const char *name;
	uint64_t activations, sizes, max_n;
	long double total_cost;
	uint64_t input, induced_thread, induced_external;
};

static int by_cost(const void *a, const void *b)
{
	const struct region_summary *x = a, *y = b;

	if (x->total_cost != y->total_cost)
		return x->total_cost > y->total_cost ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Per region, from the trms-keyed tuples (rows are sorted by region). */
static void print_summary(const struct rows *rows, const char *unit)
{
	struct region_summary *s = calloc(rows->n + 1, sizeof(*s));
	size_t n = 0;

	if (!s) {
		fprintf(stderr, "trms: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < rows->n; i++) {
		const struct row *r = &rows->v[i];
		if (r->data.metric != METRIC_TRMS)
			continue;
		if (!n || strcmp(s[n - 1].name, r->region))
			s[n++].name = r->region;
		struct region_summary *cur = &s[n - 1];
		cur->activations += r->data.count;
		cur->sizes++; /* distinct per thread; close enough per region */
		if (r->data.n > cur->max_n)
			cur->max_n = r->data.n;
		cur->total_cost += r->data.sum;
		cur->input += r->data.n * r->data.count;
		cur->induced_thread += r->data.induced_thread;
		cur->induced_external += r->data.induced_external;
	}
	qsort(s, n, sizeof(*s), by_cost);
	printf("%-32s %12s %8s %10s %16s %8s %8s\n", "region", "activations",
	       "tuples", "max trms", unit, "thread%", "extern%");
	for (size_t i = 0; i < n; i++) {
		double in = s[i].input ? (double)s[i].input : 1.0;
		printf("%-32s %12" PRIu64 " %8" PRIu64 " %10" PRIu64
		       " %16.0Lf %7.1f%% %7.1f%%\n",
		       s[i].name, s[i].activations, s[i].sizes, s[i].max_n,
		       s[i].total_cost, 100.0 * (double)s[i].induced_thread / in,
		       100.0 * (double)s[i].induced_external / in);
	}
	free(s);
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tuples", no_argument, NULL, 't' },
		{ "tree", no_argument, NULL, 'T' },
		{ "folded", no_argument, NULL, 'F' },
		{ "threads", no_argument, NULL, 'P' },
		{ "lines", no_argument, NULL, 'l' },
		{ "min", required_argument, NULL, 'm' },
		{ "pprof", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool tuples = false, tree = false, folded = false, per_thread = false,
	     lines = false;
	const char *pprof_out = NULL;
	double min_percent = 1.0;
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			tuples = true;
			break;
		case 'T':
			tree = true;
			break;
		case 'F':
			folded = true;
			break;
		case 'P':
			per_thread = true;
			break;
		case 'l':
			lines = true;
			break;
		case 'p':
			if (!*optarg)
				return usage_error("report",
						   "--pprof takes a file name");
			pprof_out = optarg;
			break;
		case 'm': {
			char *end;
			min_percent = strtod(optarg, &end);
			if (*end || min_percent < 0 || min_percent > 100)
				return usage_error("report",
						   "--min takes a percentage");
			break;
		}
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return usage_error("report", NULL);
		}
	}
	if (optind == argc)
		return usage_error("report", "no PROFILE given");
	if (pprof_out && (tuples || tree || folded))
		return usage_error("report", "--pprof cannot be combined with "
					     "--tuples, --tree or --folded");

	size_t n_docs = (size_t)(argc - optind);
	struct profile_doc *docs = calloc(n_docs, sizeof(*docs));
	struct rows rows = { 0 };
	const char *unit = NULL;
	char err[512];
	int status = 0;

	if (!docs) {
		fprintf(stderr, "trms: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < n_docs; i++) {
		struct profile_doc *doc = &docs[i];
		if (profile_read(argv[optind + (int)i], doc, err, sizeof(err))) {
			fprintf(stderr, "trms report: %s\n", err);
			status = 2;
			goto out;
		}
		const char *cost = profile_meta(doc, "cost");
		if (!cost)
			cost = "ns";
		if (unit && strcmp(unit, cost)) {
			fprintf(stderr,
				"trms report: %s: costs in %s, but %s has "
				"costs in %s; they cannot be combined\n",
				doc->path, cost, docs[0].path, unit);
			status = 2;
			goto out;
		}
		unit = cost;
		for (size_t j = 0; j < doc->n_tuples; j++) {
			const struct profile_tuple *t = &doc->tuples[j];
			const struct profile_thread *th =
				profile_thread(doc, t->thread);
			struct row r = {
				.region = profile_region_name(doc,
							      t->data.region),
				.thread = th->name,
				.thread_named = th->name != NULL,
				.thread_ordinal = t->thread,
				.data = t->data,
			};
			add_row(&rows, &r);
		}
	}
	merge_rows(&rows);
	if (pprof_out) {
		status = pprof_export(pprof_out, docs, n_docs, err,
				      sizeof(err));
		if (status)
			fprintf(stderr, "trms report: %s\n", err);
	} else if (tuples) {
		print_tuples(&rows);
	} else if (tree || folded) {
		struct view v;
		view_init(&v, per_thread, lines);
		for (size_t i = 0; i < n_docs; i++)
			view_add(&v, &docs[i]);
		view_finish(&v);
		if (tree)
			view_print_tree(&v, stdout, min_percent);
		else
			view_print_folded(&v, stdout);
		view_free(&v);
	} else {
		struct view v;
		if (rows.n)
			print_summary(&rows, !strcmp(unit, "events")
						     ? "total events"
						     : "total ns");
		view_init(&v, false, lines);
		for (size_t i = 0; i < n_docs; i++)
			view_add(&v, &docs[i]);
		view_finish(&v);
		if (v.root.total_samples) {
			printf("%s%" PRIu64 " call-stack samples; the functions "
			       "where most ended (trms report --tree for the "
			       "paths):\n",
			       rows.n ? "\n" : "", v.root.total_samples);
			view_print_hot(&v, stdout, 15);
		} else if (!rows.n) {
			printf("no regions and no call-stack samples in this "
			       "profile\n");
		}
		view_free(&v);
	}
out:
	for (size_t i = 0; i < n_docs; i++)
		profile_doc_free(&docs[i]);
	free(docs);
	free(rows.v);
	if (fflush(stdout) != 0 && !status)
		status = 1;
	return status;
}
