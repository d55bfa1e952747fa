/*
 * cmd_report.c - `trms report`: what profiles say, merged.  Options are
 * read here; the report is computed in report_model.c and printed by
 * report_table.c, report_json.c, report_html.c, cct_view.c and
 * pprof_export.c.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cct_view.h"
#include "commands.h"
#include "output_file.h"
#include "pprof_export.h"
#include "profile_paths.h"
#include "report_windows.h"
#include "profile_reader.h"
#include "report_library.h"
#include "report_selection.h"
#include "report_output.h"
#include "profile_format.h"
#include "xalloc.h"

static const char usage[] =
	"Usage: trms report [OPTIONS] PROFILE...\n"
	"\n"
	"Print what one or more profiles say.  A PROFILE that is a directory\n"
	"(as `trms run` leaves) stands for every profile in it (its *.trms\n"
	"files).  Profiles of several threads, processes and runs are merged:\n"
	"tuples of the same region, thread, metric and input size are added\n"
	"together.\n"
	"\n"
	"Without options: one line per region, ranked by total cost: its\n"
	"total cost, activations (calls), distinct input sizes, how its cost\n"
	"grows with its input size and how sure that estimate is (see\n"
	"docs/growth.md), its cost at the largest size, the share of its\n"
	"input that other threads (thread) and the kernel (extern) wrote,\n"
	"its profile richness ((distinct trms - distinct rms) / distinct rms)\n"
	"and input volume (1 - total rms / total trms); then a sentence per\n"
	"region on its growth; then, if call stacks were sampled, the\n"
	"functions with most samples.\n"
	"\n"
	"Choosing what the table shows:\n"
	"  --stat S     the cost statistic fitted and shown: worst (default),\n"
	"               mean or best\n"
	"  --size M     the input size: trms (default) or rms\n"
	"  --threads    one entry per region and thread, instead of threads\n"
	"               merged (with --tree or --folded: one tree per thread)\n"
	"  --sort K     rank by cost (default), calls, sizes, growth or name\n"
	"  --filter RE  only regions whose name matches the extended regular\n"
	"               expression RE\n"
	"  --limit N    only the first N regions\n"
	"  --color WHEN colour the table: auto (default: when standard output\n"
	"               is a terminal and NO_COLOR is not set), always, never\n"
	"\n"
	"Other forms:\n"
	"  --json       the report as one JSON document (docs/report-json.md);\n"
	"               the options above apply\n"
	"  --html OUT   the report as one self-contained HTML page written to\n"
	"               OUT (no network access needed to view it): per region,\n"
	"               cost against input size with the fitted curve, the\n"
	"               number of activations per size, cost / g(n), trms\n"
	"               against rms; and the sampled calling context tree as\n"
	"               an icicle.  The options above apply\n"
	"  --windows    the windows of a run (TRMS_INTERVAL, trms run\n"
	"               --interval: PROFILE.wN.trms; a directory stands for\n"
	"               the windows in it): per region, a line per window\n"
	"               with its calls, largest input, cost per input cell\n"
	"               and growth class, to see them change as the run goes\n"
	"               (docs/windows.md); regions in name order.  --size\n"
	"               and --stat apply\n"
	"  --tuples     every tuple as tab-separated values, one per line,\n"
	"               under the header line\n"
	"               region thread metric n count min max sum sumsq "
	"induced_thread induced_external\n"
	"               sorted by region, thread, metric (trms first) and n.\n"
	"               thread is the thread's name if it has one, else its\n"
	"               ordinal (0 is the main thread); tabs, newlines and\n"
	"               backslashes in names are written as \\t, \\n, \\\\.\n"
	"  --tree       the sampled calling context tree, top-down: per node\n"
	"               its share of all samples (total), samples that ended\n"
	"               there (self), and over its subtree the samples of a\n"
	"               working thread (work), the idleness charged to them\n"
	"               (blocked threads per working thread), those in\n"
	"               synchronisation calls (overhead) and those of blocked\n"
	"               threads (blocked, with TRMS_SAMPLE_CLOCK=wall).\n"
	"               Regions show as [name]; a thread's own path starts at\n"
	"               (thread start), below its creation context\n"
	"  --min P      with --tree: leave out nodes under P% of all samples\n"
	"               (default 1)\n"
	"  --folded     the sampled stacks as collapsed stacks, one line per\n"
	"               distinct stack: frame;frame;...;frame count\n"
	"  --lines      name frames with their source file and line too, where\n"
	"               the program has debug information (-g): for a caller,\n"
	"               the line of the call.  Read with binutils' addr2line\n"
	"  --no-demangle  C++ function names as the linker knows them\n"
	"               (_ZN2ns5parseEPKc); by default they are demangled\n"
	"               (ns::parse(char const*)) with binutils' c++filt,\n"
	"               where it is installed\n"
	"  --pprof OUT  write the sampled stacks to the file OUT as a pprof\n"
	"               profile (gzip-compressed profile.proto), for `go tool\n"
	"               pprof` and other pprof readers, and print nothing.\n"
	"               Frames are named as in --tree, with source lines where\n"
	"               there is debug information; regions are functions\n"
	"               [name] and thread starts (thread start).  Each sample\n"
	"               has the labels thread (its name, else its ordinal)\n"
	"               and region (the innermost region on its stack, if\n"
	"               any), and the values samples, cpu (or wall, with\n"
	"               TRMS_SAMPLE_CLOCK=wall) in nanoseconds (the default),\n"
	"               work and overhead.  OUT is written atomically (a\n"
	"               temporary file in its directory, then renamed); if\n"
	"               there are no samples, nothing is written\n"
	"  -h, --help   show this help\n"
	"\n"
	"Exit status: 0 on success; 2 if a profile cannot be read (a message\n"
	"names the file and line) or the profiles cannot be combined (costs\n"
	"in different units, sums past 64 bits; with --pprof, samples of CPU\n"
	"and of wall time), with --pprof if the profiles have no call-stack\n"
	"samples, or on bad usage; 1 if the output cannot be written (with\n"
	"--pprof and --html: OUT cannot be created or written, and is left as\n"
	"it was).\n";

enum form { FORM_TABLE, FORM_JSON, FORM_HTML, FORM_TUPLES, FORM_TREE,
	    FORM_FOLDED, FORM_PPROF, FORM_WINDOWS };

struct settings {
	enum form form;
	bool form_given;
	struct report_options opt;
	enum report_sort sort;
	const char *filter;
	size_t limit;
	int colour; /* -1 auto, 0 never, 1 always */
	bool lines, mangled;
	double min_percent;
	const char *pprof_out, *html_out;
};

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

static void print_tuples(const struct report *r)
{
	char sumsq[40];

	puts("region\tthread\tmetric\tn\tcount\tmin\tmax\tsum\tsumsq\t"
	     "induced_thread\tinduced_external");
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct report_row *row = &r->rows[i];
		const struct tuple_data *d = &row->data;
		print_field(row->region);
		putchar('\t');
		if (row->thread)
			print_field(row->thread);
		else
			printf("%" PRIu32, row->thread_ordinal);
		printf("\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
		       "\t%" PRIu64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\n",
		       profile_metric_word(d->metric), d->n,
		       d->count, d->min, d->max, d->sum,
		       u128_to_text(d->sumsq, sumsq), d->induced_thread,
		       d->induced_external);
	}
}

/* One of @names, as its index; -1 if none. */
static int pick(const char *arg, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	return -1;
}

static int set_form(struct settings *s, enum form form)
{
	if (s->form_given && s->form != form)
		return usage_error("report", "--json, --html, --tuples, "
					     "--tree, --folded, --pprof and "
					     "--windows exclude each other");
	s->form = form;
	s->form_given = true;
	return 0;
}

/* The forms' options: --tuples, --tree, --folded, --json, --html OUT,
 * --pprof OUT. */
static int form_option(struct settings *s, int c, const char *arg)
{
	static const struct {
		int option;
		enum form form;
	} forms[] = {
		{ 't', FORM_TUPLES }, { 'T', FORM_TREE }, { 'F', FORM_FOLDED },
		{ 'j', FORM_JSON },   { 'H', FORM_HTML }, { 'p', FORM_PPROF },
		{ 'W', FORM_WINDOWS },
	};
	size_t k = 0;

	while (forms[k].option != c)
		k++;
	if (c == 'H' || c == 'p') {
		if (!*arg)
			return usage_error("report",
					   c == 'H' ? "--html takes a file name"
						    : "--pprof takes a file "
						      "name");
		*(c == 'H' ? &s->html_out : &s->pprof_out) = arg;
	}
	return set_form(s, forms[k].form);
}

/* The options that choose what the table (and JSON, HTML) shows, and
 * --min of the tree. */
static int choice_option(struct settings *s, int c, const char *arg)
{
	static const char *const stats[] = { "worst", "mean", "best" };
	static const char *const sorts[] = { "cost", "calls", "sizes",
					     "growth", "name" };
	static const char *const colours[] = { "never", "always", "auto" };
	unsigned long long n;
	char *end;
	int k;

	switch (c) {
	case 'm':
		s->min_percent = strtod(arg, &end);
		if (*end || !*arg || s->min_percent < 0 ||
		    s->min_percent > 100)
			return usage_error("report", "--min takes a percentage");
		return 0;
	case 's':
		if ((k = pick(arg, stats, 3)) < 0)
			return usage_error("report", "--stat must be worst, "
						     "mean or best");
		s->opt.stat = (enum cost_stat)k;
		return 0;
	case 'z':
		if ((k = profile_metric(arg)) < 0)
			return usage_error("report",
					   "--size must be trms or rms");
		s->opt.metric = (enum metric)k;
		return 0;
	case 'o':
		if ((k = pick(arg, sorts, 5)) < 0)
			return usage_error("report", "--sort must be cost, "
						     "calls, sizes, growth or "
						     "name");
		s->sort = (enum report_sort)k;
		return 0;
	case 'f':
		s->filter = arg;
		return 0;
	case 'n':
		n = strtoull(arg, &end, 10);
		if (*end || !*arg || *arg == '-' || !n)
			return usage_error("report",
					   "--limit takes a positive number");
		s->limit = (size_t)n;
		return 0;
	default: /* 'c' */
		if ((k = pick(arg, colours, 3)) < 0)
			return usage_error("report", "--color must be auto, "
						     "always or never");
		s->colour = k == 2 ? -1 : k;
		return 0;
	}
}

/* @return 0 to report, -1 after --help, or the exit status of bad
 * usage. */
static int parse_options(int argc, char **argv, struct settings *s)
{
	static const struct option longopts[] = {
		{ "tuples", no_argument, NULL, 't' },
		{ "windows", no_argument, NULL, 'W' },
		{ "tree", no_argument, NULL, 'T' },
		{ "folded", no_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ "html", required_argument, NULL, 'H' },
		{ "pprof", required_argument, NULL, 'p' },
		{ "threads", no_argument, NULL, 'P' },
		{ "lines", no_argument, NULL, 'l' },
		{ "no-demangle", no_argument, NULL, 'M' },
		{ "min", required_argument, NULL, 'm' },
		{ "stat", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'z' },
		{ "sort", required_argument, NULL, 'o' },
		{ "filter", required_argument, NULL, 'f' },
		{ "limit", required_argument, NULL, 'n' },
		{ "color", required_argument, NULL, 'c' },
		{ "colour", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = 0;

	while (!rc && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c && strchr("tTFjHpW", c))
			rc = form_option(s, c, optarg);
		else if (c && strchr("mszofnc", c))
			rc = choice_option(s, c, optarg);
		else if (c == 'P')
			s->opt.per_thread = true;
		else if (c == 'l')
			s->lines = true;
		else if (c == 'M')
			s->mangled = true;
		else if (c == 'h')
			rc = -1;
		else
			rc = usage_error("report", NULL);
	}
	if (rc == -1)
		fputs(usage, stdout);
	if (rc)
		return rc;
	if (optind == argc)
		return usage_error("report", "no PROFILE given");
	return 0;
}

static bool want_colour(int setting)
{
	const char *no_colour = getenv("NO_COLOR");
	const char *term = getenv("TERM");

	if (setting >= 0)
		return setting;
	return isatty(STDOUT_FILENO) && !(no_colour && *no_colour) &&
	       !(term && !strcmp(term, "dumb"));
}

/* The sampled trees of @docs merged (or per thread). */
static void build_view(struct view *v, const struct settings *s,
		       struct profile_doc *docs, size_t n_docs)
{
	view_init(v, s->opt.per_thread, s->lines);
	for (size_t i = 0; i < n_docs; i++)
		view_add(v, &docs[i]);
	view_finish(v);
}

static int print_report(const struct settings *s, struct report *r,
			struct profile_doc *docs, size_t n_docs,
			char *const *paths)
{
	struct view v;
	regex_t filter;

	if (s->filter) {
		int rc = regcomp(&filter, s->filter, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char why[128];
			regerror(rc, &filter, why, sizeof(why));
			fprintf(stderr, "trms report: --filter '%s': %s\n",
				s->filter, why);
			return 2;
		}
	}
	report_sort(r, s->sort);
	report_select(r, s->filter ? &filter : NULL, s->limit);
	if (s->filter)
		regfree(&filter);
	build_view(&v, s, docs, n_docs);
	const struct view *tree = v.root.total_samples ? &v : NULL;
	int status = 0;
	if (s->form == FORM_JSON) {
		report_print_json(r, tree, paths, n_docs, stdout);
	} else if (s->form == FORM_HTML) {
		char err[512];
		if (report_write_html(r, tree, paths, n_docs, s->html_out, err,
				      sizeof(err))) {
			fprintf(stderr, "trms report: %s\n", err);
			status = 1;
		}
	} else {
		if (r->n_regions)
			report_print_table(r, stdout, want_colour(s->colour));
		else if (r->n_rows && s->filter)
			printf("no region matches '%s'\n", s->filter);
		if (v.root.total_samples) {
			printf("%s%" PRIu64 " call-stack samples; the functions "
			       "where most ended (trms report --tree for the "
			       "paths):\n",
			       r->n_regions ? "\n" : "", v.root.total_samples);
			view_print_hot(&v, stdout, 15);
		} else if (!r->n_rows) {
			printf("no regions and no call-stack samples in this "
			       "profile\n");
		}
		report_print_selection(docs, n_docs, stdout);
		report_print_memory(docs, n_docs, stdout);
		report_print_library(&r->library, stdout);
	}
	view_free(&v);
	return status;
}

/* Every profile of @paths into @docs (zeroed).  @return 0, or the exit
 * status of a profile that cannot be read, with a message. */
static int read_profiles(const struct settings *s, char *const *paths,
			 size_t n_docs, struct profile_doc *docs)
{
	char err[512];

	for (size_t i = 0; i < n_docs; i++) {
		if (profile_read(paths[i], &docs[i], err, sizeof(err))) {
			fprintf(stderr, "trms report: %s\n", err);
			return 2;
		}
		profile_name_functions(&docs[i]);
	}
	if (!s->mangled && s->form != FORM_TUPLES)
		for (size_t i = 0; i < n_docs; i++)
			profile_demangle(&docs[i]);
	return 0;
}

/* --pprof OUT.  @return the exit status. */
static int write_pprof(const struct settings *s, struct profile_doc *docs,
		       size_t n_docs)
{
	uint8_t *bytes;
	size_t len;
	char err[512];

	if (pprof_build(docs, n_docs, s->pprof_out, &bytes, &len, err,
			sizeof(err))) {
		fprintf(stderr, "trms report: %s\n", err);
		return 2;
	}
	int rc = output_file_write(s->pprof_out, bytes, len, err, sizeof(err));
	free(bytes);
	if (rc) {
		fprintf(stderr, "trms report: %s\n", err);
		return 1;
	}
	return 0;
}

/* The report in the form asked for.  @return the exit status. */
static int print_form(const struct settings *s, struct report *r,
		      struct profile_doc *docs, size_t n_docs,
		      char *const *paths)
{
	struct view v;
	char err[512];

	switch (s->form) {
	case FORM_PPROF:
		return write_pprof(s, docs, n_docs);
	case FORM_TUPLES:
		print_tuples(r);
		return 0;
	case FORM_TREE:
	case FORM_FOLDED:
		build_view(&v, s, docs, n_docs);
		if (s->form == FORM_TREE)
			view_print_tree(&v, stdout, s->min_percent);
		else
			view_print_folded(&v, stdout);
		view_free(&v);
		return 0;
	case FORM_WINDOWS:
		if (report_print_windows(stdout, r, docs, n_docs, &s->opt, err,
					 sizeof(err))) {
			fprintf(stderr, "trms report: %s\n", err);
			return 2;
		}
		return 0;
	case FORM_TABLE:
	case FORM_JSON:
	case FORM_HTML:
		break;
	}
	return print_report(s, r, docs, n_docs, paths);
}

int cmd_report(int argc, char **argv)
{
	struct settings s = {
		.opt = { METRIC_TRMS, STAT_WORST, false },
		.sort = SORT_COST,
		.colour = -1,
		.min_percent = 1.0,
	};
	struct profile_paths inputs;
	struct report r = { 0 };
	char err[512];
	int status = parse_options(argc, argv, &s);

	if (status)
		return status < 0 ? 0 : status;
	if (profile_paths_expand_windows(argv + optind,
					 (size_t)(argc - optind),
					 s.form == FORM_WINDOWS, &inputs, err,
					 sizeof(err))) {
		fprintf(stderr, "trms report: %s\n", err);
		return 2;
	}
	struct profile_doc *docs = xcalloc(inputs.n, sizeof(*docs));
	status = read_profiles(&s, inputs.paths, inputs.n, docs);
	if (!status && report_build(&r, docs, inputs.n, &s.opt, err,
				    sizeof(err))) {
		fprintf(stderr, "trms report: %s\n", err);
		status = 2;
	}
	if (!status)
		status = print_form(&s, &r, docs, inputs.n, inputs.paths);
	report_free(&r);
	/* Unread profiles are zeroed, which profile_doc_free() takes. */
	for (size_t i = 0; i < inputs.n; i++)
		profile_doc_free(&docs[i]);
	free(docs);
	profile_paths_free(&inputs);
	if (fflush(stdout) != 0 && !status) {
		fprintf(stderr, "trms report: cannot write the output\n");
		status = 1;
	}
	return status;
}
