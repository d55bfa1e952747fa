/*
 * cmd_run.c - `trms run`: run a command with the library preloaded, keep
 * every profile of its tree in one place, and say at the end what there
 * is.  Its options, messages and exit status are here; the work is in
 * tools/run/: the command started and waited for (run_command.c), the
 * signals between the caller and the command (run_signals.c), the
 * profiles handed over (run_collector.c), the place they go
 * (run_place.c), the last words (run_summary.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "run_collector.h"
#include "run_command.h"
#include "run_metrics.h"
#include "run_place.h"
#include "output/run_protocol.h"
#include "run_signals.h"
#include "run_summary.h"
#include "xalloc.h"

static const char usage_head[] =
	"Usage: trms run [OPTIONS] [--] COMMAND [ARGS...]\n"
	"\n"
	"Run COMMAND with the trms library preloaded (LD_PRELOAD), so that\n"
	"it and every process it starts leave a profile, all in one place,\n"
	"fixed at start:\n"
	"\n"
	"  by default a new directory in the current directory,\n"
	"  trms-NAME.PID/ (NAME: COMMAND's file name, PID: trms run's\n"
	"  process id), each profile in it named PROGRAM.PID.trms (the name\n"
	"  the process was started as, and its pid; NAME.PID.1.trms, ...\n"
	"  for the later images of a process that execs);\n"
	"  with -o, where TEMPLATE says.\n"
	"\n"
	"The processes hand their profiles to trms run, which writes them\n"
	"(as itself, atomically): a process that changes directory, user\n"
	"(a server's workers running as nobody) or root directory still\n"
	"gets its profile there.  A process that recorded nothing (no\n"
	"samples, no regions, no I/O) leaves no profile, unless --all; it\n"
	"is counted through a file in $TMPDIR (or /tmp) that trms run\n"
	"removes when it ends.  At the end trms run says on stderr how\n"
	"many processes there were, how many profiles and where, and the\n"
	"command to read them (trms report DIR reads every profile of a\n"
	"directory); which profiles could not be written and why; and\n"
	"which processes of the run are still running (daemons): each\n"
	"writes its own profile when it ends, to the same place, where its\n"
	"user may write.\n"
	"\n"
	"Options (most set the library's environment variable named after\n"
	"them; see `trms help` for all of them):\n"
	"  -o, --output TEMPLATE  where profiles go: a directory (an existing\n"
	"                         one, or a path ending in /, made if it is\n"
	"                         missing), or a file name template, %p the\n"
	"                         pid, %e the program's name (e.g.\n"
	"                         prof/%e.%p.trms; two processes given the\n"
	"                         same name get NAME.1.trms, ...); relative\n"
	"                         to trms run's working directory.  If the\n"
	"                         template's directory part has a %, each\n"
	"                         process writes its profile itself, where\n"
	"                         its user may\n"
	"      --all              keep the profiles of processes that\n"
	"                         recorded nothing too\n"
	"      --metrics-dir DIR  write the run's metrics into DIR (a\n"
	"                         node-exporter textfile-collector\n"
	"                         directory) as trms-NAME-PID.prom, whole:\n"
	"                         every --interval seconds (else every 10 s)\n"
	"                         from the windows so far, and at the end\n"
	"                         (trms report --prometheus; docs/metrics.md)\n"
	"      --partitions K     run COMMAND K times, one after the other,\n"
	"                         each measuring only the regions in its part\n"
	"                         of K (TRMS_PARTITION=I/K), their profiles in\n"
	"                         DIR/part-I-of-K/, then merge them all into\n"
	"                         DIR/merged.trms: the profile of one full\n"
	"                         measurement, each copy paying about 1/K of\n"
	"                         it (COMMAND must do the same work each time;\n"
	"                         a copy that fails stops the series)\n";

/* The options that set a setting of the library come between: from its
 * table (config.c). */

static const char usage_tail[] =
	"  -v, --verbose          TRMS_VERBOSE: once 1, twice 2; and list\n"
	"                         every profile at the end\n"
	"      --library PATH     preload PATH instead of the library that\n"
	"                         belongs to this trms\n"
	"  -h, --help             show this help\n"
	"\n"
	"Signals: COMMAND starts with the signal dispositions and mask trms\n"
	"run was given (under nohup, SIGHUP stays ignored).  A signal sent\n"
	"to trms run by a process (kill, sigqueue) is passed on to COMMAND,\n"
	"and trms run ends only when COMMAND does.  Those the terminal sends\n"
	"(^C, ^\\, ^Z, window size, hang-up) reach COMMAND directly, and are\n"
	"not passed on twice; when COMMAND stops for the terminal, trms run\n"
	"stops with it; SIGCONT is passed on only to a stopped COMMAND.\n"
	"\n"
	"Statically linked and set-user-ID programs do not load the library:\n"
	"they run unprofiled.\n"
	"\n"
	"Exit status: COMMAND's, unchanged (a command killed by a signal\n"
	"kills trms run with the same signal); 2 on bad usage; 1 if the\n"
	"profile directory cannot be made (nothing is run); 127 if COMMAND\n"
	"cannot be run.\n";


#ifndef TRMS_INSTALLED_LIBDIR
#define TRMS_INSTALLED_LIBDIR "../lib"
#endif

/* ---- options ---- */

/* Options without a short form, and the settings' long-only options
 * (OPT_SETTING + their index in the table). */
enum { OPT_ALL = 256, OPT_LIBRARY, OPT_PARTITIONS, OPT_METRICS_DIR,
       OPT_SETTING };

/* The column the options' help starts in, and the width of the text. */
#define HELP_COLUMN 25
#define HELP_WIDTH 68

/* "  -g, --granularity K    TRMS_GRANULARITY: 1, 2, 4, 8 or 16", the
 * help wrapped at HELP_WIDTH. */
static void print_setting_option(FILE *out, const struct config_setting *s)
{
	const struct config_run_option *o = &s->run;
	char label[128], help[512];

	if (o->short_name)
		snprintf(label, sizeof(label), "-%c, --%s %s", o->short_name,
			 o->long_name, o->arg);
	else
		snprintf(label, sizeof(label), "    --%s %s", o->long_name,
			 o->arg);
	snprintf(help, sizeof(help), "%s: %s", s->name, o->help);
	usage_option(out, label, help, HELP_COLUMN, HELP_WIDTH);
}

static void print_usage(FILE *out)
{
	size_t n;
	const struct config_setting *settings = config_settings(&n);

	fputs(usage_head, out);
	for (size_t i = 0; i < n; i++)
		if (settings[i].run.long_name)
			print_setting_option(out, &settings[i]);
	fputs(usage_tail, out);
}

struct run_options {
	const char *output;
	const char *library;
	int verbose;
	bool keep_empty;
	unsigned partitions; /* 0: one run, measuring every region */
	const char *metrics_dir;
};

#define MAX_OPTIONS 32

/* getopt's tables: trms run's own options, and one per setting with a
 * run option. */
static void option_tables(struct option *longopts, char *shorts)
{
	static const struct option own[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "verbose", no_argument, NULL, 'v' },
		{ "library", required_argument, NULL, OPT_LIBRARY },
		{ "partitions", required_argument, NULL, OPT_PARTITIONS },
		{ "metrics-dir", required_argument, NULL, OPT_METRICS_DIR },
		{ "help", no_argument, NULL, 'h' },
	};
	size_t n_settings, n = 0;
	const struct config_setting *s = config_settings(&n_settings);

	/* '+': options stop at the command's name. */
	strcpy(shorts, "+o:vh");
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		longopts[n++] = own[i];
	for (size_t i = 0; i < n_settings && n + 1 < MAX_OPTIONS; i++) {
		const struct config_run_option *o = &s[i].run;
		if (!o->long_name)
			continue;
		longopts[n++] = (struct option){
			o->long_name, required_argument, NULL,
			o->short_name ? o->short_name : OPT_SETTING + (int)i
		};
		if (o->short_name)
			sprintf(shorts + strlen(shorts), "%c:", o->short_name);
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* The setting option getopt returned as @c, or NULL. */
static const struct config_setting *setting_of(int c)
{
	size_t n;
	const struct config_setting *s = config_settings(&n);

	for (size_t i = 0; i < n; i++)
		if (s[i].run.long_name &&
		    (c == OPT_SETTING + (int)i ||
		     (s[i].run.short_name && c == s[i].run.short_name)))
			return &s[i];
	return NULL;
}

/* @return 0 to run, -1 after --help, or the exit status of bad usage. */
static int parse_options(int argc, char **argv, struct run_options *o)
{
	struct option longopts[MAX_OPTIONS];
	char shorts[3 * MAX_OPTIONS];
	const struct config_setting *s;
	struct config checked;
	int c, rc;

	option_tables(longopts, shorts);
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return usage_error("run",
						   "--output needs a path");
			o->output = optarg;
			break;
		case OPT_ALL:
			o->keep_empty = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case OPT_LIBRARY:
			o->library = optarg;
			break;
		case OPT_METRICS_DIR:
			o->metrics_dir = optarg;
			break;
		case OPT_PARTITIONS: {
			char *end;
			unsigned long k = strtoul(optarg, &end, 10);
			if (*optarg < '1' || *optarg > '9' || *end || k < 2 ||
			    k > 1024)
				return usage_error("run", "--partitions must be "
							  "2 to 1024");
			o->partitions = (unsigned)k;
			break;
		}
		case 'h':
			print_usage(stdout);
			return -1;
		default:
			/* A setting: checked as the library checks it, then
			 * handed to it in its variable. */
			if (!(s = setting_of(c)))
				return usage_error("run", NULL);
			rc = setting_option("run", s->run.long_name, s, optarg,
					    &checked);
			if (rc)
				return rc;
			setenv(s->name, optarg, 1);
			break;
		}
	}
	if (optind == argc)
		return usage_error("run", "no COMMAND given");
	return 0;
}

/* ---- the run ---- */

struct run {
	struct run_options options;
	char **command;
	char library[PATH_MAX];
	struct run_signals signals;
	struct run_place place;
	struct run_collector collector;
	int signal_fd;
	struct run_metrics metrics; /* --metrics-dir */
};

/* The library to preload.  @return 0, or the exit status of bad usage. */
static int choose_library(struct run *r)
{
	if (r->options.library) {
		if (!realpath(r->options.library, r->library)) {
			fprintf(stderr, "trms run: %s: %s\n",
				r->options.library, strerror(errno));
			return 2;
		}
	} else if (run_find_library(TRMS_INSTALLED_LIBDIR, r->library,
				    sizeof(r->library))) {
		fprintf(stderr,
			"trms run: cannot find libtrms.so next to this trms "
			"(looked in ../src and %s); use --library\n",
			TRMS_INSTALLED_LIBDIR);
		return 2;
	}
	return 0;
}

/* The environment of the command: the library, where profiles go, and
 * trms run's socket. */
static int set_environment(const struct run *r)
{
	const struct run_options *o = &r->options;

	if (o->verbose)
		setenv("TRMS_VERBOSE", o->verbose > 1 ? "2" : "1", 1);
	if (run_set_preload(r->library) ||
	    setenv("TRMS_OUTPUT", r->place.template, 1) ||
	    setenv(RUN_SOCKET_VARIABLE, r->collector.variable, 1)) {
		fprintf(stderr, "trms run: cannot set the environment\n");
		return -1;
	}
	return 0;
}

/* --metrics-dir: every window's interval (TRMS_INTERVAL, set by
 * --interval too), else every 10 s.  @return 0, or -1 with a message. */
static int prepare_metrics(struct run *r)
{
	const char *interval = getenv("TRMS_INTERVAL");
	double seconds = interval ? strtod(interval, NULL) : 0;

	if (!r->place.directory) {
		fprintf(stderr, "trms run: --metrics-dir needs the profiles in "
				"a directory (-o DIR/ or the default)\n");
		return -1;
	}
	return run_metrics_init(&r->metrics, r->options.metrics_dir,
				r->place.directory, r->command[0],
				seconds > 0 ? (uint64_t)(seconds * 1000) : 10000)
		       ? -1
		       : 0;
}

/* The place, the socket, the signals and the environment, before the
 * command starts.  @return 0, or 1 with nothing left behind. */
static int prepare(struct run *r)
{
	char err[256];

	if (run_place_choose(&r->place, r->options.output, r->command[0]))
		return 1;
	run_place_check(&r->place);
	if (r->options.metrics_dir && prepare_metrics(r)) {
		run_place_remove_if_empty(&r->place, 0);
		run_place_free(&r->place);
		return 1;
	}
	if (run_collector_open(&r->collector, r->place.directory,
			       r->place.name_template ? r->place.name_template
						      : "",
			       r->options.keep_empty, err, sizeof(err))) {
		fprintf(stderr, "trms run: %s\n", err);
		run_place_remove_if_empty(&r->place, 0);
		run_place_free(&r->place);
		return 1;
	}
	r->signal_fd = run_signals_take(&r->signals);
	if (r->signal_fd < 0)
		fprintf(stderr, "trms run: signalfd: %s\n",
			strerror(-r->signal_fd));
	if (r->signal_fd < 0 || set_environment(r)) {
		if (r->signal_fd >= 0)
			close(r->signal_fd);
		run_collector_close(&r->collector);
		run_place_remove_if_empty(&r->place, 0);
		run_place_free(&r->place);
		return 1;
	}
	return 0;
}

/* After the command: the profiles on their way, the processes still
 * running, the summary. */
static void finish(struct run *r, pid_t child, int status)
{
	pid_t running[64];

	/* Profiles on their way (the command's own, and those of processes
	 * that ended with it) are taken first. */
	run_collector_drain(&r->collector, 5000);
	size_t n_running = run_wait_for_stragglers(
		&r->collector, running, sizeof(running) / sizeof(running[0]));
	struct run_end end = {
		.collector = &r->collector,
		.shown_directory = r->place.directory ? r->place.shown : NULL,
		.whole_directory = r->place.whole,
		.template = r->place.template,
		.command = r->command[0],
		.child = child,
		.status = status,
		.keep_empty = r->options.keep_empty,
		.verbose = r->options.verbose,
	};
	run_summary_print(stderr, &end, running, n_running);
	run_place_remove_if_empty(&r->place, n_running);
}

/* Run the command to its end.  @return trms run's exit status. */
static int run(struct run *r)
{
	int exec_error, status = -1;

	pid_t child = run_start(r->command, &r->signals, &exec_error);
	if (child > 0 && exec_error)
		fprintf(stderr, "trms run: %s: %s\n", r->command[0],
			strerror(exec_error));
	else if (child > 0)
		status = run_wait(&r->collector, r->signal_fd, child,
				  r->options.metrics_dir ? &r->metrics : NULL);
	close(r->signal_fd);
	if (status >= 0)
		finish(r, child, status);
	else
		run_place_remove_if_empty(&r->place, 0);
	if (status >= 0 && r->options.metrics_dir)
		run_metrics_write(&r->metrics, true);
	run_collector_close(&r->collector);
	run_place_free(&r->place);
	fflush(stderr);
	if (exec_error || child < 0)
		return child < 0 ? 1 : 127;
	if (status < 0)
		return 1;
	if (WIFSIGNALED(status)) {
		run_signals_die_of(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

/*
 * --partitions K (the scheme of partitioned profiling, P3): the command
 * run K times, copy I measuring the regions of part I, each copy a run of
 * its own into DIR/part-I-of-K/, then all of them merged.  @return the
 * exit status: the first failing copy's, else the merge's.
 */
static int run_partitions(struct run *r)
{
	struct run_place base;
	unsigned k = r->options.partitions;
	int status = 0;

	if (getenv("TRMS_PARTITION") && *getenv("TRMS_PARTITION")) {
		fprintf(stderr, "trms run: --partitions with TRMS_PARTITION "
				"set: unset one of them\n");
		return 2;
	}
	if (run_place_choose(&base, r->options.output, r->command[0]))
		return 1;
	if (!base.directory) {
		fprintf(stderr, "trms run: --partitions needs a directory for "
				"the profiles (-o DIR/), not a template\n");
		run_place_free(&base);
		return 2;
	}
	size_t len = strlen(base.directory) + 64;
	char *dirs[1024] = { NULL }, value[32];
	for (unsigned i = 1; i <= k && !status; i++) {
		struct run copy = { .options = r->options, .command = r->command,
				    .signals = r->signals, .signal_fd = -1 };
		memcpy(copy.library, r->library, sizeof(copy.library));
		dirs[i - 1] = xcalloc(1, len);
		snprintf(dirs[i - 1], len, "%s/part-%u-of-%u/", base.directory,
			 i, k);
		copy.options.output = dirs[i - 1];
		snprintf(value, sizeof(value), "%u/%u", i, k);
		setenv("TRMS_PARTITION", value, 1);
		fprintf(stderr, "trms run: copy %u of %u (TRMS_PARTITION=%s)\n",
			i, k, value);
		status = prepare(&copy);
		if (!status)
			status = run(&copy);
		if (status)
			fprintf(stderr, "trms run: copy %u of %u ended with "
					"status %d: the parts are not merged\n",
				i, k, status);
	}
	unsetenv("TRMS_PARTITION");
	if (!status) {
		char *merged = xcalloc(1, len);
		snprintf(merged, len, "%smerged.trms", base.shown);
		status = merge_profiles(dirs, k, merged, "trms run");
		if (!status)
			fprintf(stderr,
				"trms run: the %u parts merged into %s; read it "
				"with: trms report %s\n",
				k, merged, merged);
		free(merged);
	}
	for (unsigned i = 0; i < k && dirs[i]; i++)
		free(dirs[i]);
	run_place_free(&base);
	return status;
}

int cmd_run(int argc, char **argv)
{
	struct run r = { .signal_fd = -1 };

	/* Before anything changes them. */
	run_signals_record(&r.signals);
	int rc = parse_options(argc, argv, &r.options);
	if (rc)
		return rc < 0 ? 0 : rc;
	r.command = argv + optind;
	rc = choose_library(&r);
	if (!rc && r.options.partitions)
		return run_partitions(&r);
	if (!rc)
		rc = prepare(&r);
	return rc ? rc : run(&r);
}
