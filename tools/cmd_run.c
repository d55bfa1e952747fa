/*
 * cmd_run.c - `trms run`: run a command with the library preloaded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"

static const char usage[] =
	"Usage: trms run [OPTIONS] [--] COMMAND [ARGS...]\n"
	"\n"
	"Run COMMAND with the trms library preloaded (LD_PRELOAD), so that\n"
	"it and every process it starts write a profile at exit, and say\n"
	"where the profiles went.  The exit status is COMMAND's, unchanged\n"
	"(a command killed by a signal kills trms run with the same signal).\n"
	"\n"
	"Options (each sets the environment variable named after it; see\n"
	"`trms help` for all of them):\n"
	"  -o, --output TEMPLATE  TRMS_OUTPUT: where profiles go; %p pid,\n"
	"                         %e executable name (default %e.%p.trms)\n"
	"  -g, --granularity K    TRMS_GRANULARITY: 1, 2, 4, 8 or 16\n"
	"  -c, --cost UNIT        TRMS_COST: ns or events\n"
	"  -F, --sample-hz HZ     TRMS_SAMPLE_HZ: call-stack samples per\n"
	"                         second of each thread, 0 to 10000; 0 turns\n"
	"                         sampling off (default 100)\n"
	"      --sample-clock C   TRMS_SAMPLE_CLOCK: cpu (threads sampled as\n"
	"                         they use CPU time) or wall (every thread,\n"
	"                         blocked or not)\n"
	"  -v, --verbose          TRMS_VERBOSE: once 1, twice 2\n"
	"      --library PATH     preload PATH instead of the library that\n"
	"                         belongs to this trms\n"
	"  -h, --help             show this help\n"
	"\n"
	"Statically linked and set-user-ID programs do not load the library:\n"
	"they run unprofiled.\n"
	"\n"
	"Exit status: COMMAND's; 2 on bad usage; 127 if COMMAND cannot be\n"
	"run.\n";

#ifndef TRMS_INSTALLED_LIBDIR
#define TRMS_INSTALLED_LIBDIR "../lib"
#endif

/* The library next to this trms: in the build tree (tools/trms and
 * src/libtrms.so), or where `meson install` put it. */
static int find_library(char *out, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	static const char *const candidates[] = {
		"../src/libtrms.so",
		TRMS_INSTALLED_LIBDIR "/libtrms.so.0",
		TRMS_INSTALLED_LIBDIR "/libtrms.so",
	};

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]);
	     i++) {
		char path[PATH_MAX + 64];
		if (candidates[i][0] == '/')
			snprintf(path, sizeof(path), "%s", candidates[i]);
		else
			snprintf(path, sizeof(path), "%s/%s", exe,
				 candidates[i]);
		if (access(path, R_OK) == 0 && realpath(path, out) &&
		    strlen(out) < len)
			return 0;
	}
	return -1;
}

/* LD_PRELOAD with @library first (once). */
static int set_preload(const char *library)
{
	const char *old = getenv("LD_PRELOAD");
	char *value;

	if (!old || !*old)
		return setenv("LD_PRELOAD", library, 1);
	if (asprintf(&value, "%s:%s", library, old) < 0)
		return -1;
	int rc = setenv("LD_PRELOAD", value, 1);
	free(value);
	return rc;
}

/* Print the profiles the processes reported, one per line. */
static void say_where(const char *report)
{
	FILE *f = fopen(report, "r");
	char *line = NULL;
	size_t cap = 0, count = 0;

	if (f) {
		while (getline(&line, &cap, f) > 0) {
			line[strcspn(line, "\n")] = '\0';
			if (line[0] == '!')
				fprintf(stderr, "trms: profile NOT written: %s\n",
					line + 1);
			else
				fprintf(stderr, "trms: profile written: %s\n",
					line);
			count++;
		}
		fclose(f);
	}
	free(line);
	if (!count)
		fprintf(stderr,
			"trms: no profile was written (a statically linked "
			"or set-user-ID command does not load the library; "
			"try --verbose)\n");
}

/* Wait for @child, passing on the signals that are meant for it. */
static int wait_child(pid_t child)
{
	int status;

	for (;;) {
		pid_t r = waitpid(child, &status, 0);
		if (r == child)
			return status;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

static volatile pid_t running_child;

static void forward(int sig)
{
	if (running_child > 0)
		kill(running_child, sig);
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "granularity", required_argument, NULL, 'g' },
		{ "cost", required_argument, NULL, 'c' },
		{ "sample-hz", required_argument, NULL, 'F' },
		{ "sample-clock", required_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "library", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char library[PATH_MAX];
	const char *library_option = NULL;
	int verbose = 0, c;
	unsigned granularity;

	/* '+': options stop at the command's name. */
	while ((c = getopt_long(argc, argv, "+o:g:c:F:vh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return usage_error("run",
						   "--output needs a path");
			setenv("TRMS_OUTPUT", optarg, 1);
			break;
		case 'g':
			if (parse_granularity(optarg, &granularity))
				return usage_error("run",
						   "--granularity must be 1, "
						   "2, 4, 8 or 16");
			setenv("TRMS_GRANULARITY", optarg, 1);
			break;
		case 'c':
			if (strcmp(optarg, "ns") && strcmp(optarg, "events"))
				return usage_error(
					"run", "--cost must be ns or events");
			setenv("TRMS_COST", optarg, 1);
			break;
		case 'F': {
			char *end;
			errno = 0;
			unsigned long hz = strtoul(optarg, &end, 10);
			if (!*optarg || *end || errno || hz > 10000 ||
			    *optarg == '-')
				return usage_error("run", "--sample-hz must be "
							  "0 to 10000");
			setenv("TRMS_SAMPLE_HZ", optarg, 1);
			break;
		}
		case 'C':
			if (strcmp(optarg, "cpu") && strcmp(optarg, "wall"))
				return usage_error(
					"run", "--sample-clock must be cpu or "
					       "wall");
			setenv("TRMS_SAMPLE_CLOCK", optarg, 1);
			break;
		case 'v':
			verbose++;
			break;
		case 'L':
			library_option = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return usage_error("run", NULL);
		}
	}
	if (optind == argc)
		return usage_error("run", "no COMMAND given");
	if (verbose)
		setenv("TRMS_VERBOSE", verbose > 1 ? "2" : "1", 1);
	if (library_option) {
		if (!realpath(library_option, library)) {
			fprintf(stderr, "trms run: %s: %s\n", library_option,
				strerror(errno));
			return 2;
		}
	} else if (find_library(library, sizeof(library))) {
		fprintf(stderr,
			"trms run: cannot find libtrms.so next to this trms "
			"(looked in ../src and %s); use --library\n",
			TRMS_INSTALLED_LIBDIR);
		return 2;
	}

	char report[] = "/tmp/trms-run-XXXXXX";
	int report_fd = mkstemp(report);
	if (report_fd < 0) {
		fprintf(stderr, "trms run: cannot create a temporary file: %s\n",
			strerror(errno));
		return 1;
	}
	close(report_fd);
	if (set_preload(library) || setenv("TRMS_RUN_REPORT", report, 1)) {
		fprintf(stderr, "trms run: cannot set the environment\n");
		unlink(report);
		return 1;
	}

	/* Like a shell waiting for a foreground job: the terminal's ^C and
	 * ^\ reach the command directly; other signals are passed on. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTERM, forward);
	signal(SIGHUP, forward);
	pid_t child = fork();
	if (child < 0) {
		fprintf(stderr, "trms run: fork: %s\n", strerror(errno));
		unlink(report);
		return 1;
	}
	if (child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "trms run: %s: %s\n", argv[optind],
			strerror(errno));
		_exit(127);
	}
	running_child = child;
	int status = wait_child(child);
	running_child = 0;
	say_where(report);
	unlink(report);
	if (status < 0)
		return 1;
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		signal(sig, SIG_DFL);
		fflush(NULL);
		kill(getpid(), sig);
		return 128 + sig;
	}
	return WEXITSTATUS(status);
}
