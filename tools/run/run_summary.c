/*
 * run_summary.c - what `trms run` says at the end (see run_summary.h).
 */
#define _GNU_SOURCE
#include "run_summary.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_signals.h"
#include "xalloc.h"

/* At most this many lines of failures. */
#define FAILURES_SHOWN 10

struct process_key {
	long pid;
	uint64_t start;
	bool wrote, empty, other;
};

static int by_process(const void *a, const void *b)
{
	const struct process_key *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* How many processes spoke, and how many of them only to say they
 * recorded nothing. */
static void count_processes(const struct run_collector *c, size_t *processes,
			    size_t *empty)
{
	struct process_key *keys =
		xcalloc(c->n_outcomes + 1, sizeof(*keys));
	size_t n = 0;

	for (size_t i = 0; i < c->n_outcomes; i++) {
		const struct outcome *o = &c->outcomes[i];
		keys[n++] = (struct process_key){
			o->pid, o->process_start, false,
			o->kind == OUTCOME_EMPTY, o->kind != OUTCOME_EMPTY
		};
	}
	qsort(keys, n, sizeof(*keys), by_process);
	*processes = *empty = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		bool only_empty = true;
		for (; j < n && !by_process(&keys[i], &keys[j]); j++)
			only_empty = only_empty && keys[j].empty;
		(*processes)++;
		*empty += only_empty;
		i = j;
	}
	free(keys);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The distinct paths of the profiles written, sorted (caller frees the
 * array, not the strings): of the windows (TRMS_INTERVAL) if @windows,
 * else of the processes' profiles. */
static char **written_paths(const struct run_collector *c, bool windows,
			    size_t *n_out)
{
	char **paths = xcalloc(c->n_outcomes + 1, sizeof(*paths));
	size_t n = 0;

	for (size_t i = 0; i < c->n_outcomes; i++)
		if (c->outcomes[i].kind == OUTCOME_WRITTEN &&
		    (c->outcomes[i].window != 0) == windows)
			paths[n++] = c->outcomes[i].path;
	qsort(paths, n, sizeof(*paths), by_string);
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++)
		if (!distinct || strcmp(paths[distinct - 1], paths[i]))
			paths[distinct++] = paths[i];
	*n_out = distinct;
	return paths;
}

size_t run_profiles_written(const struct run_collector *c)
{
	size_t n;

	free(written_paths(c, false, &n));
	return n;
}

/* @text with control characters as '?': what processes said reaches a
 * terminal. */
static void print_text(FILE *out, const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		fputc(*p < ' ' || *p == 0x7f ? '?' : *p, out);
}

/* @path as the user knows it: inside the directory shown, if it is
 * there. */
static void print_path(FILE *out, const struct run_end *end, const char *path)
{
	const char *dir = end->collector->directory;
	size_t len = dir ? strlen(dir) : 0;

	if (end->shown_directory && dir && !strncmp(path, dir, len) &&
	    path[len] == '/') {
		fputs(end->shown_directory, out);
		path += len + 1;
	}
	print_text(out, path);
}

/* Whether /proc/@pid/environ holds @variable ("NAME=VALUE", whole). */
static bool environ_holds(const char *pid, const char *variable)
{
	char path[300];
	size_t cap = 65536, len = 0;
	char *buf = xrealloc(NULL, cap + 1);
	ssize_t r;

	snprintf(path, sizeof(path), "/proc/%s/environ", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return false;
	}
	while ((r = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)r;
		if (len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
	}
	close(fd);
	bool found = false;
	size_t vlen = strlen(variable);
	for (size_t i = 0; i < len && !found;) {
		size_t entry = strnlen(buf + i, len - i);
		found = entry == vlen && !memcmp(buf + i, variable, vlen);
		i += entry + 1;
	}
	free(buf);
	return found;
}

size_t run_still_running(const struct run_collector *c, const char *variable,
			 pid_t *pids, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid_t pid = (pid_t)atol(e->d_name);
		if (pid == getpid() || !environ_holds(e->d_name, variable))
			continue;
		bool done = false;
		for (size_t i = 0; i < c->n_outcomes && !done; i++)
			done = c->outcomes[i].peer == pid &&
			       c->outcomes[i].last;
		if (done)
			continue;
		if (n < max)
			pids[n] = pid;
		n++;
	}
	closedir(d);
	return n;
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The command died of a signal before it said its last word. */
static bool died_unheard(const struct run_end *end)
{
	if (!WIFSIGNALED(end->status))
		return false;
	for (size_t i = 0; i < end->collector->n_outcomes; i++)
		if (end->collector->outcomes[i].peer == end->child &&
		    end->collector->outcomes[i].last)
			return false;
	return true;
}

static void print_failures(FILE *out, const struct run_end *end)
{
	const struct run_collector *c = end->collector;
	size_t shown = 0, more = 0, cut = 0;

	for (size_t i = 0; i < c->n_outcomes; i++) {
		const struct outcome *o = &c->outcomes[i];
		if (o->kind == OUTCOME_CUT_SHORT) {
			cut++;
			continue;
		}
		if (o->kind != OUTCOME_FAILED)
			continue;
		if (shown == FAILURES_SHOWN) {
			more++;
			continue;
		}
		fputs("trms: profile NOT written: ", out);
		print_path(out, end, o->path ? o->path : "?");
		fputs(": ", out);
		print_text(out, o->reason ? o->reason : "?");
		fputc('\n', out);
		shown++;
	}
	if (more)
		fprintf(out, "trms: ... and %zu more profiles NOT written\n",
			more);
	if (cut)
		fprintf(out,
			"trms: %zu %s ended while handing over %s profile "
			"(killed?): nothing of it was kept\n",
			cut, plural(cut, "process", "processes"),
			plural(cut, "its", "their"));
}

static void print_counts(FILE *out, const struct run_end *end)
{
	size_t processes, empty, n_paths, n_windows;
	char **paths = written_paths(end->collector, false, &n_paths);
	char **windows = written_paths(end->collector, true, &n_windows);

	count_processes(end->collector, &processes, &empty);
	if (end->verbose) {
		for (size_t i = 0; i < n_paths; i++) {
			fputs("trms: profile written: ", out);
			print_path(out, end, paths[i]);
			fputc('\n', out);
		}
		for (size_t i = 0; i < n_windows; i++) {
			fputs("trms: window written: ", out);
			print_path(out, end, windows[i]);
			fputc('\n', out);
		}
	}
	if (n_windows)
		fprintf(out,
			"trms: %zu %s of the run's profiles (TRMS_INTERVAL) "
			"beside them, *.wN.trms; compare them with: trms "
			"report --windows\n",
			n_windows, plural(n_windows, "window", "windows"));
	free(windows);
	fprintf(out, "trms: %zu %s, ", processes,
		plural(processes, "process", "processes"));
	if (!n_paths)
		fputs("no profile", out);
	else if (end->whole_directory)
		fprintf(out, "%zu %s in %s", n_paths,
			plural(n_paths, "profile", "profiles"),
			end->shown_directory);
	else {
		fprintf(out, "%zu %s (", n_paths,
			plural(n_paths, "profile", "profiles"));
		print_path(out, end, end->template);
		fputc(')', out);
	}
	if (empty == processes)
		fputs(processes == 1 ? ": it recorded nothing"
				     : ": none recorded anything",
		      out);
	else if (empty)
		fprintf(out, "; %zu recorded nothing", empty);
	if (empty)
		fputs(" (no samples, regions or I/O; --all keeps such "
		      "profiles)",
		      out);
	if (n_paths == 1) {
		fputs("; read it with: trms report ", out);
		print_path(out, end, paths[0]);
	} else if (n_paths && end->whole_directory) {
		fprintf(out, "; read them with: trms report %s",
			end->shown_directory);
	} else if (n_paths && n_paths <= 4) {
		fputs("; read them with: trms report", out);
		for (size_t i = 0; i < n_paths; i++) {
			fputc(' ', out);
			print_path(out, end, paths[i]);
		}
	} else if (n_paths) {
		fputs("; read them with trms report (trms run -v lists them)",
		      out);
	}
	fputc('\n', out);
	free(paths);
}

void run_summary_print(FILE *out, const struct run_end *end,
		       const pid_t *running, size_t n_running)
{
	const struct run_collector *c = end->collector;

	if (died_unheard(end))
		fprintf(out,
			"trms: %s died of signal %d (%s) before writing its "
			"profile\n",
			end->command, WTERMSIG(end->status),
			run_signal_name(WTERMSIG(end->status)));
	if (!c->n_outcomes && !n_running) {
		if (!died_unheard(end))
			fprintf(out,
				"trms: no profile was written (a statically "
				"linked or set-user-ID command does not load "
				"the library; try --verbose)\n");
		return;
	}
	print_failures(out, end);
	if (c->n_outcomes)
		print_counts(out, end);
	if (n_running) {
		fprintf(out, "trms: %zu %s of this run %s still running (",
			n_running, plural(n_running, "process", "processes"),
			plural(n_running, "is", "are"));
		for (size_t i = 0; i < n_running && i < 8; i++)
			fprintf(out, "%s%d", i ? " " : "pid ", (int)running[i]);
		fprintf(out, "%s): %s profile%s will be written %s%s when %s "
			     "end%s, by %s (where %s user may write)\n",
			n_running > 8 ? " ..." : "",
			plural(n_running, "its", "their"),
			plural(n_running, "", "s"),
			end->shown_directory ? "to " : "as ",
			end->shown_directory ? end->shown_directory
					     : end->template,
			plural(n_running, "it", "they"),
			plural(n_running, "s", ""),
			plural(n_running, "itself", "themselves"),
			plural(n_running, "its", "their"));
	}
}
