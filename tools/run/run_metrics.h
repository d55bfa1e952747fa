/*
 * run_metrics.h - trms run --metrics-dir DIR: the run's metrics written
 * into DIR (a node-exporter textfile-collector directory) as the run goes,
 * whole, by `trms report --prometheus` run on the profiles: at each tick
 * from the windows written so far, at the end from the profiles at exit.
 */
#ifndef TRMS_RUN_METRICS_H
#define TRMS_RUN_METRICS_H

#include <stdbool.h>
#include <stdint.h>

struct run_metrics {
	const char *dir;      /* where the .prom file goes */
	const char *profiles; /* the run's directory of profiles */
	const char *trms;     /* this trms, to run `trms report` */
	char file[4096];      /* DIR/trms-NAME-PID.prom */
	char temporary[4096]; /* DIR/.trms-NAME-PID.prom.tmp */
	uint64_t period_ms, next_ms;
};

/* Set @m up for the run of @command into @profiles, every @period_ms.
 * @return 0, or -errno with a message on stderr (DIR not a directory). */
int run_metrics_init(struct run_metrics *m, const char *dir,
		     const char *profiles, const char *command,
		     uint64_t period_ms);

/* Milliseconds until the next write (0: due). */
int run_metrics_wait_ms(const struct run_metrics *m);

/* Write the metrics: of the windows so far, or with @at_end of the
 * profiles at exit; a failure is said on stderr, and the run goes on. */
void run_metrics_write(struct run_metrics *m, bool at_end);

#endif
