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
#include "profile_reader.h"
#include "report_library.h"
#include "report_selection.h"
#include "report_form.h"
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

struct settings {
	const struct report_form *form;
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

/* The report in @s's form: what it needs made, then its printer.
 * @return the exit status. */
static int print_form(const struct settings *s, struct report *r,
		      struct profile_doc *docs, size_t n_docs,
		      char *const *paths)
{
	const struct report_form *f = s->form;
	struct view v;
	struct report_form_input in = {
		.r = r, .docs = docs, .n_docs = n_docs, .paths = paths,
		.view = f->tree ? &v : NULL, .out = s->out, .opt = &s->opt,
		.filter = s->filter, .colour = want_colour(s->colour),
		.min_percent = s->min_percent,
	};

	if (f->selects && select_regions(s, r))
		return 2;
	if (f->tree)
		build_view(&v, s, docs, n_docs);
	int status = f->print(&in);
	if (f->tree)
		view_free(&v);
	return status;
}

/* The forms besides the table, one option each; they exclude each other
 * (report_form.h: a form is defined beside its printer). */
static const struct report_form *const forms[] = {
	&report_form_json,	 &report_form_html,
	&report_form_tuples,	 &report_form_tree,
	&report_form_folded,	 &report_form_prometheus,
	&report_form_openmetrics, &report_form_callgrind,
	&report_form_pprof,	 &report_form_windows,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define N_FORMS COUNT(forms)
/* getopt_long's value for forms[i]: past every character. */
#define FORM_OPTION 0x100

/* Form @f asked for, with @arg.  @return 0 or the exit status of bad
 * usage. */
static int set_form(struct settings *s, const struct report_form *f,
		    const char *arg)
{
	char message[256];
	size_t len = 0;

	if (s->form != &report_form_table && s->form != f) {
		for (size_t i = 0; i < N_FORMS; i++)
			len += (size_t)snprintf(
				message + len, sizeof(message) - len, "%s--%s",
				!i ? "" : i + 1 < N_FORMS ? ", " : " and ",
				forms[i]->option);
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
		snprintf(label, sizeof(label), "--%s%s%s", forms[i]->option,
			 forms[i]->arg ? " " : "",
			 forms[i]->arg ? forms[i]->arg : "");
		usage_option(out, label, forms[i]->help, 15, 72);
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
			forms[i]->option,
			forms[i]->arg ? required_argument : no_argument, NULL,
			FORM_OPTION + (int)i
		};
	memcpy(longopts + N_FORMS, choices, sizeof(choices));
	longopts[N_FORMS + COUNT(choices)] = (struct option){ 0 };
	while (!rc && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c >= FORM_OPTION && c < FORM_OPTION + (int)N_FORMS)
			rc = set_form(s, forms[c - FORM_OPTION], optarg);
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
		.form = &report_form_table,
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
