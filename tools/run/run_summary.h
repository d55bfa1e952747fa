/*
 * run_summary.h - what `trms run` says at the end: how many processes,
 * how many profiles and where, the command to read them, what went wrong,
 * and which processes of the run are still running (their profiles come
 * later).
 */
#ifndef TRMS_RUN_SUMMARY_H
#define TRMS_RUN_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "run_collector.h"

struct run_end {
	const struct run_collector *collector;
	/* The directory as the user knows it (relative if given so), with
	 * a trailing '/'; NULL if the processes wrote their own profiles
	 * (then template is what they followed). */
	const char *shown_directory;
	/* The directory is the place the user chose (or trms run's own),
	 * not that of a file name -o gave: the summary names it for
	 * trms report, which reads every profile in it. */
	bool whole_directory;
	const char *template;
	const char *command; /* the command's name as given */
	pid_t child;
	int status; /* the command's wait status */
	bool keep_empty;
	int verbose;
};

/* Processes of the run still running: those whose environment holds
 * @variable (TRMS_RUN_SOCKET=VALUE), that have not said their last
 * word.  @return how many; their pids in @pids (up to @max). */
size_t run_still_running(const struct run_collector *c, const char *variable,
			 pid_t *pids, size_t max);

/* Print the summary to @out.  @running: as run_still_running found. */
void run_summary_print(FILE *out, const struct run_end *end,
		       const pid_t *running, size_t n_running);

/* Profiles written at the end (distinct files). */
size_t run_profiles_written(const struct run_collector *c);

#endif
