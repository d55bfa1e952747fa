/*
 * profile_write.h - writing the process's profile: when (a flush, before
 * exec, at exit, from a fatal signal), and the exit's timing against
 * terminating signals.  Where it goes is profile_write.c's concern (a
 * file, or trms run's socket); what it says, profile_dump.c's.
 */
#ifndef TRMS_PROFILE_WRITE_H
#define TRMS_PROFILE_WRITE_H

#include <stdbool.h>
#include <stddef.h>

/* How a profile write came about. */
enum write_reason {
	WRITE_FLUSH,  /* trms_flush */
	WRITE_EXEC,   /* before exec: like a flush (the exec may fail), but
			 trms run is told where it went */
	WRITE_EXIT,   /* normal exit: the last one */
	WRITE_ABRUPT, /* a fatal signal or _exit, perhaps inside a signal
			 handler: locks are only tried, the last one */
};

/* Write the profile.  A last write also closes the calling thread's open
 * regions, and later writes do nothing.  @return 0 or -errno. */
int profile_write_now(enum write_reason reason);

/* Write the profile of @window (window_write.c: the threads' tables of
 * the window just cut) beside the process's profile, or hand it to trms
 * run, without the lock of the process's profile: only the window writer
 * calls it.  @return 0 or -errno, with where in @path and why in *@why. */
struct dump_window;
int profile_write_window(const struct dump_window *window, char *path,
			 size_t len, const char **why);

/* Around the last profile's write at a normal exit (the destructor):
 * from the program's exit on, terminating signals come too late (see
 * profile_write_exiting). */
void profile_write_exit_begin(void);
void profile_write_exit_end(void);

/* The process is past the program's exit: the final profile is being
 * written at a normal exit, or was a moment ago.  A terminating signal
 * now comes too late to matter (without the library the process would
 * be gone): the library's SIGTERM and SIGINT handler lets it pass.
 * Async-signal-safe. */
bool profile_write_exiting(void);

#endif
