/*
 * calibrate.h - the cost calibration (see cost.h and docs/cost.md): once
 * per process, at its first region begun with costs in nanoseconds.
 */
#ifndef TRMS_CALIBRATE_H
#define TRMS_CALIBRATE_H

struct trms_thread;

/* Measure the cost floor and seed the estimates on the calling thread
 * @t. */
void api_calibrate(struct trms_thread *t);

/* In a child process after fork: a calibration another thread had under
 * way is to be made again. */
void api_after_fork_child(void);

#endif
