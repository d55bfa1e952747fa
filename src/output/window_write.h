/*
 * window_write.h - profiles while the program runs (TRMS_INTERVAL): every
 * so many seconds a thread of the library's cuts a window (each thread's
 * activations since the last cut) and writes it beside the process's
 * profile, which still covers the whole run.  See docs/windows.md.
 */
#ifndef TRMS_WINDOW_WRITE_H
#define TRMS_WINDOW_WRITE_H

#include <stdbool.h>

/* Start the window writer if TRMS_INTERVAL asks for windows or
 * TRMS_METRICS_DIR for the metrics file (at start, and in a child after
 * fork, where the parent's writer does not exist).  A writer that cannot
 * be started is said once; the process runs on without them. */
void window_writer_start(void);

/* Stop the writer and wait for it; with @final, then cut and write the
 * last window and the metrics file on the calling thread (at exit,
 * before a sandbox), so that the windows add up to the profile written
 * next.  Nothing if no writer runs; later calls do nothing. */
void window_writer_stop(bool final);

/* In a child after fork: forget the parent's writer (its thread is not
 * in the child) and start the child's own. */
void window_writer_after_fork_child(void);

#endif
