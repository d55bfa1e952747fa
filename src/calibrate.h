/*
 * calibrate.h - the cost calibration (see cost.h and docs/cost.md): once
 * per process, at its first region begun with costs in nanoseconds, on
 * that thread, by timing the API's own calls; the other threads take its
 * results.
 */
#ifndef TRMS_CALIBRATE_H
#define TRMS_CALIBRATE_H

#include <stddef.h>

struct trms_thread;

/* The API's calls to time (api.c hands them over: the paths the exported
 * functions take, without the exported symbols). */
struct calibration_calls {
	int (*begin)(const char *name);
	int (*end)(const char *name);
	int (*read)(const void *addr, size_t size);
};

/* Give @t the process's estimates and floors before its first activation,
 * calibrating them first with @calls if no thread has. */
void calibrate_thread(struct trms_thread *t,
		      const struct calibration_calls *calls);

/* In a child process after fork: a calibration another thread had under
 * way is to be made again. */
void calibrate_after_fork_child(void);

#endif
