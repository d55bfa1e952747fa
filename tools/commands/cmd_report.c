/*
 * cmd_report.c - `trms report`: what profiles say, merged.  Options are
 * read here; the report is computed in report_model.c and printed by
 * report_table.c, report_json.c, report_html.c, cct_view.c,
 * report_callgrind.c and pprof_export.c, each form a line of the table of
 * forms below.
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
#include "report_callgrind.h"
#include "commands.h"
#include "output_file.h"
#include "pprof_export.h"
#include "profile_paths.h"
#include "report_windows.h"
#include "profile_reader.h"
#include "report_library.h"
#include "report_selection.h"
#include "report_output.h"
#include "format/profile_format.h"
#include "xalloc.h"

/* Before the forms, which the table of forms below gives. */
static const char usage_head[] =
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
	"\n"
	"Other forms (they exclude each other):\n";

/* After the forms. */
static const char usage_tail[] =
	"\n"
	"Naming frames (--tree, --folded, --callgrind, --pprof, --html):\n"
	"  --min P      with --tree: leave out nodes under P% of all samples\n"
	"               (default 1)\n"
	"  --lines      name frames with their source file and line too, where\n"
	"               the program has debug information (-g): for a caller,\n"
	"               the line of the call.  Read with binutils' addr2line\n"
	"  --no-demangle  C++ function names as the linker knows them\n"
	"               (_ZN2ns5parseEPKc); by default they are demangled\n"
	"               (ns::parse(char const*)) with binutils' c++filt,\n"
	"               where it is installed\n"
	"  -h, --help   show this help\n"
	"\n"
	"Exit status: 0 on success; 2 if a profile cannot be read (a message\n"
	"names the file and line) or the profiles cannot be combined (costs\n"
	"in different units, sums past 64 bits; with --pprof, samples of CPU\n"
	"and of wall time), with --pprof if the profiles have no call-stack\n"
	"samples, or on bad usage; 1 if the output cannot be written (with\n"
	"--pprof and --html: OUT cannot be created or written, and is left as\n"
	"it was).\n";

struct printing;

/* A form of the report: its option (NULL for the table, the default), the
 * name of the option's argument (NULL: none), its paragraph of --help,
 * what prints it, and what it needs made first.  A new form is its
 * printer and a line of the table below. */
struct form {
	const char *option, *arg, *help;
	int (*print)(const struct printing *p); /* the exit status */
	bool windows;   /* a directory stands for the windows in it */
	bool raw_names; /* C++ names as the linker knows them */
	bool selects;   /* the regions sorted, filtered and limited */
	bool tree;      /* the sampled trees merged into a view */
};

struct settings {
	const struct form *form;
	const char *out; /* the form's argument */
	struct report_options opt;
	enum report_sort sort;
	const char *filter;
	size_t limit;
	int colour; /* -1 auto, 0 never, 1 always */
	bool lines, mangled;
	double min_percent;
};

/* One of @names, as its index; -1 if none. */
static int pick(const char *arg, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	return -1;
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

/* The table's, JSON's and HTML's regions: sorted, filtered, limited.
 * @return 0, or the exit status of a bad --filter. */
static int select_regions(const struct settings *s, struct report *r)
{
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
	return 0;
}

/* What a form prints from. */
struct printing {
	const struct settings *s;
	struct report *r;
	struct profile_doc *docs;
	size_t n_docs;
	char *const *paths;
	const struct view *view; /* the form's tree, or NULL */
};

/* The view if it has samples (JSON and HTML leave the tree out), or
 * NULL. */
static const struct view *sampled(const struct printing *p)
{
	return p->view->root.total_samples ? p->view : NULL;
}

static int print_table(const struct printing *p)
{
	const struct report *r = p->r;
	uint64_t samples = p->view->root.total_samples;

	if (r->n_regions)
		report_print_table(r, stdout, want_colour(p->s->colour));
	else if (r->n_rows && p->s->filter)
		printf("no region matches '%s'\n", p->s->filter);
	if (samples) {
		printf("%s%" PRIu64 " call-stack samples; the functions where "
		       "most ended (trms report --tree for the paths):\n",
		       r->n_regions ? "\n" : "", samples);
		view_print_hot(p->view, stdout, 15);
	} else if (!r->n_rows) {
		printf("no regions and no call-stack samples in this "
		       "profile\n");
	}
	report_print_selection(p->docs, p->n_docs, stdout);
	report_print_memory(p->docs, p->n_docs, stdout);
	report_print_library(&r->library, stdout);
	return 0;
}

static int print_json(const struct printing *p)
{
	report_print_json(p->r, sampled(p), p->paths, p->n_docs, stdout);
	return 0;
}

static int write_html(const struct printing *p)
{
	char err[512];

	if (report_write_html(p->r, sampled(p), p->paths, p->n_docs, p->s->out,
			      err, sizeof(err))) {
		fprintf(stderr, "trms report: %s\n", err);
		return 1;
	}
	return 0;
}

static int print_tree(const struct printing *p)
{
	view_print_tree(p->view, stdout, p->s->min_percent);
	return 0;
}

static int print_folded(const struct printing *p)
{
	view_print_folded(p->view, stdout);
	return 0;
}

static int print_tuples(const struct printing *p)
{
	report_print_tuples(p->r, stdout);
	return 0;
}

static int print_prometheus(const struct printing *p)
{
	report_print_metrics(p->r, p->docs, p->n_docs, false, stdout);
	return 0;
}

static int print_openmetrics(const struct printing *p)
{
	report_print_metrics(p->r, p->docs, p->n_docs, true, stdout);
	return 0;
}

static int print_windows(const struct printing *p)
{
	char err[512];

	if (report_print_windows(stdout, p->r, p->docs, p->n_docs, &p->s->opt,
				 err, sizeof(err))) {
		fprintf(stderr, "trms report: %s\n", err);
		return 2;
	}
	return 0;
}

/* The form's file OUT, @len bytes at @data (freed): put in place whole.
 * @return the exit status. */
static int write_out(const struct printing *p, void *data, size_t len)
{
	char err[512];
	int rc = output_file_write(p->s->out, data, len, err, sizeof(err));

	free(data);
	if (rc)
		fprintf(stderr, "trms report: %s\n", err);
	return rc ? 1 : 0;
}

/* --callgrind OUT: the tree built in memory, then put in place. */
static int write_callgrind(const struct printing *p)
{
	char *text = NULL;
	size_t len = 0;

	if (!p->view->root.total_samples) {
		fprintf(stderr, "trms report: no call-stack samples in these "
				"profiles: nothing to write to %s\n",
			p->s->out);
		return 2;
	}
	FILE *mem = open_memstream(&text, &len);
	if (!mem || view_write_callgrind(p->view, mem) || fclose(mem)) {
		fprintf(stderr, "trms report: out of memory for --callgrind\n");
		return 1;
	}
	return write_out(p, text, len);
}

/* --pprof OUT. */
static int write_pprof(const struct printing *p)
{
	uint8_t *bytes;
	size_t len;
	char err[512];

	if (pprof_build(p->docs, p->n_docs, p->s->out, &bytes, &len, err,
			sizeof(err))) {
		fprintf(stderr, "trms report: %s\n", err);
		return 2;
	}
	return write_out(p, bytes, len);
}

/* The report in @s's form: what it needs made, then its printer.
 * @return the exit status. */
static int print_form(const struct settings *s, struct report *r,
		      struct profile_doc *docs, size_t n_docs,
		      char *const *paths)
{
	const struct form *f = s->form;
	struct view v;
	struct printing p = { s, r, docs, n_docs, paths, f->tree ? &v : NULL };

	if (f->selects && select_regions(s, r))
		return 2;
	if (f->tree)
		build_view(&v, s, docs, n_docs);
	int status = f->print(&p);
	if (f->tree)
		view_free(&v);
	return status;
}

static const struct form table_form = {
	.print = print_table, .selects = true, .tree = true
};

/* The other forms, one option each; they exclude each other. */
static const struct form forms[] = {
	{ .option = "json", .print = print_json, .selects = true, .tree = true,
	  .help =
		"the report as one JSON document (docs/report-json.md); the "
		"options above apply" },
	{ .option = "html", .arg = "OUT", .print = write_html, .selects = true,
	  .tree = true,
	  .help =
		"the report as one self-contained HTML page written to OUT "
		"(no network access needed to view it): per region, cost "
		"against input size with the fitted curve, the number of "
		"activations per size, cost / g(n), trms against rms; and "
		"the sampled calling context tree as an icicle.  The "
		"options above apply" },
	{ .option = "tuples", .print = print_tuples, .raw_names = true,
	  .help =
		"every tuple as tab-separated values, one per line, under a "
		"header line that names the columns: region thread metric n "
		"count min max sum sumsq induced_thread induced_external; "
		"sorted by region, thread, metric (trms first) and n. "
		"thread is the thread's name if it has one, else its "
		"ordinal (0 is the main thread); tabs, newlines and "
		"backslashes in names are written as \\t, \\n, \\\\" },
	{ .option = "tree", .print = print_tree, .tree = true,
	  .help =
		"the sampled calling context tree, top-down: per node its "
		"share of all samples (total), samples that ended there "
		"(self), and over its subtree the samples of a working "
		"thread (work), the idleness charged to them (blocked "
		"threads per working thread), those in synchronisation "
		"calls (overhead) and those of blocked threads (blocked, "
		"with TRMS_SAMPLE_CLOCK=wall). Regions show as [name]; a "
		"thread's own path starts at (thread start), below its "
		"creation context" },
	{ .option = "folded", .print = print_folded, .tree = true,
	  .help =
		"the sampled stacks as collapsed stacks, one line per "
		"distinct stack: frame;frame;...;frame count" },
	{ .option = "prometheus", .print = print_prometheus, .raw_names = true,
	  .help =
		"the tuples as metrics in Prometheus' text format, for "
		"node-exporter's textfile collector: per region and thread, "
		"trms_activations_total, trms_activations_begun_total "
		"(measured or not), trms_cost_seconds_total (or "
		"trms_cost_events_total), trms_input_cells_total{size=trms|"
		"rms}, trms_induced_input_cells_total{source=thread|external} "
		"and the histogram trms_input_size_cells (buckets at powers "
		"of two); trms_library_seconds_total (docs/metrics.md)" },
	{ .option = "openmetrics", .print = print_openmetrics,
	  .raw_names = true,
	  .help =
		"the same metrics in OpenMetrics 1.0 (docs/metrics.md)" },
	{ .option = "callgrind", .arg = "OUT", .print = write_callgrind,
	  .tree = true,
	  .help =
		"write the sampled calling context tree to the file OUT in "
		"callgrind's format, for KCachegrind and callgrind_annotate, "
		"and print nothing: each frame name a function ([name] for "
		"regions), its self cost the samples that ended in it, each "
		"caller and callee a call, its count the calling contexts it "
		"stands for and its inclusive cost the samples below it; "
		"with --lines, costs at their source lines.  OUT is written "
		"atomically" },
	{ .option = "pprof", .arg = "OUT", .print = write_pprof,
	  .help =
		"write the sampled stacks to the file OUT as a pprof "
		"profile (gzip-compressed profile.proto), for `go tool "
		"pprof` and other pprof readers, and print nothing. Frames "
		"are named as in --tree, with source lines where there is "
		"debug information; regions are functions [name] and thread "
		"starts (thread start).  Each sample has the labels thread "
		"(its name, else its ordinal) and region (the innermost "
		"region on its stack, if any), and the values samples, cpu "
		"(or wall, with TRMS_SAMPLE_CLOCK=wall) in nanoseconds (the "
		"default), work and overhead.  OUT is written atomically (a "
		"temporary file in its directory, then renamed); if there "
		"are no samples, nothing is written" },
	{ .option = "windows", .print = print_windows, .windows = true,
	  .help =
		"the windows of a run (TRMS_INTERVAL, trms run --interval: "
		"PROFILE.wN.trms; a directory stands for the windows in "
		"it): per region, a line per window with its calls, largest "
		"input, cost per input cell and growth class, to see them "
		"change as the run goes (docs/windows.md); regions in name "
		"order.  --size and --stat apply" },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define N_FORMS COUNT(forms)
/* getopt_long's value for forms[i]: past every character. */
#define FORM_OPTION 0x100

/* Form @f asked for, with @arg.  @return 0 or the exit status of bad
 * usage. */
static int set_form(struct settings *s, const struct form *f,
		    const char *arg)
{
	char message[256];
	size_t len = 0;

	if (s->form != &table_form && s->form != f) {
		for (size_t i = 0; i < N_FORMS; i++)
			len += (size_t)snprintf(
				message + len, sizeof(message) - len, "%s--%s",
				!i ? "" : i + 1 < N_FORMS ? ", " : " and ",
				forms[i].option);
		snprintf(message + len, sizeof(message) - len,
			 " exclude each other");
		return usage_error("report", message);
	}
	if (f->arg && !*arg) {
		snprintf(message, sizeof(message), "--%s takes a file name",
			 f->option);
		return usage_error("report", message);
	}
	s->form = f;
	s->out = f->arg ? arg : NULL;
	return 0;
}

static void print_usage(FILE *out)
{
	fputs(usage_head, out);
	for (size_t i = 0; i < N_FORMS; i++) {
		char label[64];
		snprintf(label, sizeof(label), "--%s%s%s", forms[i].option,
			 forms[i].arg ? " " : "",
			 forms[i].arg ? forms[i].arg : "");
		usage_option(out, label, forms[i].help, 15, 72);
	}
	fputs(usage_tail, out);
}

/* @return 0 to report, -1 after --help, or the exit status of bad
 * usage. */
static int parse_options(int argc, char **argv, struct settings *s)
{
	static const struct option choices[] = {
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
	};
	struct option longopts[N_FORMS + COUNT(choices) + 1];
	int c, rc = 0;

	for (size_t i = 0; i < N_FORMS; i++)
		longopts[i] = (struct option){
			forms[i].option,
			forms[i].arg ? required_argument : no_argument, NULL,
			FORM_OPTION + (int)i
		};
	memcpy(longopts + N_FORMS, choices, sizeof(choices));
	longopts[N_FORMS + COUNT(choices)] = (struct option){ 0 };
	while (!rc && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c >= FORM_OPTION && c < FORM_OPTION + (int)N_FORMS)
			rc = set_form(s, &forms[c - FORM_OPTION], optarg);
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
		print_usage(stdout);
	if (rc)
		return rc;
	if (optind == argc)
		return usage_error("report", "no PROFILE given");
	return 0;
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
	if (!s->mangled && !s->form->raw_names)
		for (size_t i = 0; i < n_docs; i++)
			profile_demangle(&docs[i]);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct settings s = {
		.form = &table_form,
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
					 s.form->windows, &inputs, err,
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
