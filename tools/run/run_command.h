/*
 * run_command.h - `trms run`'s command: the library it preloads, the
 * command started with the signals trms run was given, and the wait for
 * it while the processes of its tree hand their profiles over.
 */
#ifndef TRMS_RUN_COMMAND_H
#define TRMS_RUN_COMMAND_H

#include <stddef.h>
#include <sys/types.h>

#include "run_collector.h"
#include "run_signals.h"

/* The first of @paths[0..@n) (each relative to this trms's directory,
 * unless absolute) that is a readable file: its real path into @out.
 * @return 0, or -ENOENT. */
int run_find_near(const char *const *paths, size_t n, char *out,
		  size_t len);

/* The library next to this trms: in the build tree (BUILD/tools/trms
 * and BUILD/src/libtrms.so), or where `meson install` put it (@installed_libdir,
 * relative to trms's directory unless absolute).  Its real path into
 * @out.  @return 0, or -ENOENT. */
int run_find_library(const char *installed_libdir, char *out, size_t len);

/* LD_PRELOAD with @library first.  @return 0 or -errno. */
int run_set_preload(const char *library);

/* Start @argv with @s's dispositions and mask.  @return its pid, or
 * -errno (with a message on stderr) if it could not be started;
 * *@exec_error: the errno of a failed exec (the child has ended then). */
pid_t run_start(char **argv, const struct run_signals *s, int *exec_error);

struct run_metrics;

/* Serve the processes on @c and pass the signals of @signal_fd on to
 * @child until it ends; write @metrics (if not NULL) when due.  @return
 * its wait status, or -errno. */
int run_wait(struct run_collector *c, int signal_fd, pid_t child,
	     struct run_metrics *metrics);

/* The processes of the run still running after the command, given a
 * moment to finish (those that end just after it).  @return how many;
 * their pids in @pids (up to @max). */
size_t run_wait_for_stragglers(struct run_collector *c, pid_t *pids,
			       size_t max);

#endif
