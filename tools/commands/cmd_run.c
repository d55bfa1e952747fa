/*
 * cmd_run.c - `trms run`: run a command with the library preloaded, keep
 * every profile of its tree in one place, and say at the end what there
 * is.  The signals between the caller and the command: run_signals.c;
 * the profiles handed over: run_collector.c; the last words:
 * run_summary.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "run_collector.h"
#include "run_place.h"
#include "run_signals.h"
#include "run_summary.h"
#include "xalloc.h"
#include "run_protocol.h"

static const char usage[] =
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
	"samples, no regions, no I/O) leaves no profile, unless --all.  At\n"
	"the end trms run says on stderr how many processes there were, how\n"
	"many profiles and where, and the command to read them (trms report\n"
	"DIR reads every profile of a directory); which profiles could not\n"
	"be written and why; and which processes of the run are still\n"
	"running (daemons): each writes its own profile when it ends, to the\n"
	"same place, where its user may write.\n"
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
	"  -g, --granularity K    TRMS_GRANULARITY: 1, 2, 4, 8 or 16\n"
	"  -c, --cost UNIT        TRMS_COST: ns or events\n"
	"  -F, --sample-hz HZ     TRMS_SAMPLE_HZ: call-stack samples per\n"
	"                         second of each thread, 0 to 10000; 0 turns\n"
	"                         sampling off (default 100)\n"
	"      --sample-clock C   TRMS_SAMPLE_CLOCK: cpu (threads sampled as\n"
	"                         they use CPU time) or wall (every thread,\n"
	"                         blocked or not)\n"
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

/* ---- the command ---- */

/* Start @argv with @s's dispositions and mask.  @return its pid, or -1
 * (with a message) if it could not be started; *@exec_error: the errno
 * of a failed exec. */
static pid_t start_command(char **argv, const struct run_signals *s,
			   int *exec_error)
{
	int pipe_fds[2];

	*exec_error = 0;
	if (pipe2(pipe_fds, O_CLOEXEC)) {
		fprintf(stderr, "trms run: pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t child = fork();
	if (child == 0) {
		close(pipe_fds[0]);
		run_signals_restore(s);
		execvp(argv[0], argv);
		int e = errno;
		ssize_t ignored = write(pipe_fds[1], &e, sizeof(e));
		(void)ignored;
		_exit(127);
	}
	close(pipe_fds[1]);
	if (child < 0) {
		fprintf(stderr, "trms run: fork: %s\n", strerror(errno));
		close(pipe_fds[0]);
		return -1;
	}
	ssize_t n;
	while ((n = read(pipe_fds[0], exec_error, sizeof(*exec_error))) < 0 &&
	       errno == EINTR)
		;
	if (n != (ssize_t)sizeof(*exec_error))
		*exec_error = 0;
	close(pipe_fds[0]);
	return child;
}

/* Stopped, as /proc says (the kernel continues a whole process group at
 * once, before trms run hears of it). */
static bool is_stopped(pid_t pid)
{
	char path[64], stat[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	const char *end = strrchr(stat, ')');
	return end && (end[2] == 'T' || end[2] == 't');
}

/* Serve the processes and pass signals on until the command ends.
 * @return its wait status, or -1. */
static int wait_command(struct run_collector *c, int signal_fd, pid_t child)
{
	for (;;) {
		size_t cap = c->n_connections + 2;
		struct pollfd *fds = xcalloc(cap, sizeof(*fds));
		fds[0] = (struct pollfd){ signal_fd, POLLIN, 0 };
		size_t n = 1 + run_collector_pollfds(c, fds + 1, cap - 1);
		int r = poll(fds, n, -1);
		if (r < 0 && errno != EINTR) {
			free(fds);
			return -1;
		}
		if (r > 0)
			run_collector_serve(c, fds + 1, n - 1);
		bool signalled = r > 0 && fds[0].revents;
		free(fds);
		if (!signalled)
			continue;
		struct signalfd_siginfo info;
		while (read(signal_fd, &info, sizeof(info)) ==
		       (ssize_t)sizeof(info))
			run_signals_forward(&info, child,
					    info.ssi_signo == SIGCONT &&
						    is_stopped(child));
		int status;
		pid_t w;
		while ((w = waitpid(child, &status,
				    WNOHANG | WUNTRACED | WCONTINUED)) == child) {
			if (WIFEXITED(status) || WIFSIGNALED(status))
				return status;
			if (WIFSTOPPED(status))
				run_signals_follow_stop(WSTOPSIG(status));
		}
		if (w < 0 && errno == ECHILD)
			return -1;
	}
}

/* The processes still running after the command, given a moment to
 * finish (those that end just after it). */
static size_t wait_for_stragglers(struct run_collector *c, pid_t *pids,
				  size_t max)
{
	char variable[sizeof(c->variable) + 32];

	snprintf(variable, sizeof(variable), "%s=%s", RUN_SOCKET_VARIABLE,
		 c->variable);
	size_t n = run_still_running(c, variable, pids, max);
	for (int round = 0; n && round < 6; round++) {
		run_collector_drain(c, 50);
		n = run_still_running(c, variable, pids, max);
	}
	return n;
}

/* ---- options ---- */

struct run_options {
	const char *output;
	const char *library;
	int verbose;
	bool keep_empty;
};

static int parse_options(int argc, char **argv, struct run_options *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "all", no_argument, NULL, 'A' },
		{ "granularity", required_argument, NULL, 'g' },
		{ "cost", required_argument, NULL, 'c' },
		{ "sample-hz", required_argument, NULL, 'F' },
		{ "sample-clock", required_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "library", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned granularity;
	int c;

	/* '+': options stop at the command's name. */
	while ((c = getopt_long(argc, argv, "+o:g:c:F:vh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return usage_error("run",
						   "--output needs a path");
			o->output = optarg;
			break;
		case 'A':
			o->keep_empty = true;
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
			o->verbose++;
			break;
		case 'L':
			o->library = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return usage_error("run", NULL);
		}
	}
	if (optind == argc)
		return usage_error("run", "no COMMAND given");
	return 0;
}

/* The environment of the command: the library, where profiles go, and
 * trms run's socket. */
static int set_environment(const struct run_options *o, const char *library,
			   const struct run_place *p,
			   const struct run_collector *c)
{
	if (o->verbose)
		setenv("TRMS_VERBOSE", o->verbose > 1 ? "2" : "1", 1);
	if (set_preload(library) || setenv("TRMS_OUTPUT", p->template, 1) ||
	    setenv(RUN_SOCKET_VARIABLE, c->variable, 1)) {
		fprintf(stderr, "trms run: cannot set the environment\n");
		return -1;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_signals signals;
	struct run_options options = { 0 };
	struct run_collector collector;
	struct run_place place;
	char library[PATH_MAX], err[256];
	pid_t running[64];

	/* Before anything changes them. */
	run_signals_record(&signals);
	int rc = parse_options(argc, argv, &options);
	if (rc)
		return rc < 0 ? 0 : rc;
	char **command = argv + optind;
	if (options.library) {
		if (!realpath(options.library, library)) {
			fprintf(stderr, "trms run: %s: %s\n", options.library,
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
	if (run_place_choose(&place, options.output, command[0]))
		return 1;
	run_place_check(&place);
	if (run_collector_open(&collector, place.directory,
			       place.name_template ? place.name_template : "",
			       options.keep_empty, err, sizeof(err))) {
		fprintf(stderr, "trms run: %s\n", err);
		run_place_remove_if_empty(&place, 0);
		run_place_free(&place);
		return 1;
	}
	int signal_fd = run_signals_take(&signals);
	if (signal_fd < 0 ||
	    set_environment(&options, library, &place, &collector)) {
		if (signal_fd < 0)
			fprintf(stderr, "trms run: signalfd: %s\n",
				strerror(errno));
		run_collector_close(&collector);
		run_place_remove_if_empty(&place, 0);
		run_place_free(&place);
		return 1;
	}

	int exec_error;
	pid_t child = start_command(command, &signals, &exec_error);
	int status = -1;
	if (child > 0 && exec_error) {
		fprintf(stderr, "trms run: %s: %s\n", command[0],
			strerror(exec_error));
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	} else if (child > 0) {
		status = wait_command(&collector, signal_fd, child);
	}
	close(signal_fd);

	if (status != -1) {
		/* Profiles on their way (the command's own, and those of
		 * processes that ended with it) are taken first. */
		run_collector_drain(&collector, 5000);
		size_t n_running = wait_for_stragglers(
			&collector, running,
			sizeof(running) / sizeof(running[0]));
		struct run_end end = {
			.collector = &collector,
			.shown_directory = place.directory ? place.shown : NULL,
			.template = place.template,
			.command = command[0],
			.child = child,
			.status = status,
			.keep_empty = options.keep_empty,
			.verbose = options.verbose,
		};
		run_summary_print(stderr, &end, running, n_running);
		run_place_remove_if_empty(&place, n_running);
	} else {
		run_place_remove_if_empty(&place, 0);
	}
	run_collector_close(&collector);
	run_place_free(&place);
	fflush(stderr);
	if (exec_error || child < 0)
		return child < 0 ? 1 : 127;
	if (status == -1)
		return 1;
	if (WIFSIGNALED(status)) {
		run_signals_die_of(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
