/*
 * metrics_file.h - the library's own metrics file (TRMS_METRICS_DIR,
 * docs/metrics.md): the profile so far as metrics for Prometheus, written
 * whole (a reader sees the last file or the one before, never a mix) to
 * DIR/trms-NAME-PID.prom, where node-exporter's textfile collector finds
 * it, by the window writer's thread every so often and at exit.
 */
#ifndef TRMS_METRICS_FILE_H
#define TRMS_METRICS_FILE_H

#include <stdint.h>

/* How often the file is written without windows; with windows
 * (TRMS_INTERVAL), at each. */
#define METRICS_FILE_PERIOD_NS (10ull * 1000000000u)

/* Write the file now (not from a signal handler: it allocates with
 * vm_alloc and takes the runtime lock).  A file that cannot be written
 * is said once; the program runs on. */
void metrics_file_write(void);

#endif
