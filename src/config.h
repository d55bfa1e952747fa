/*
 * config.h - the library's settings, read once from TRMS_* environment
 * variables.  The table in config.c is the only list of them: the
 * `trms --help` text is printed from it too.
 */
#ifndef TRMS_CONFIG_H
#define TRMS_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

enum cost_unit { COST_NS, COST_EVENTS };

#define CONFIG_PATH_MAX 4096

struct config {
	char output[CONFIG_PATH_MAX]; /* path template */
	unsigned granularity;
	enum cost_unit cost;
	int verbose;
	bool off;
	unsigned sample_hz;       /* 0: no sampling */
	bool sample_wall;         /* wall clock instead of CPU time */
	bool sample_trap;         /* perf_event samples may come as SIGTRAP */
	int sample_toggle_signal; /* 0: none */
	char run_socket[256]; /* see TRMS_RUN_SOCKET (run_link.h) */
};

extern struct config config;

/* Reset to defaults, then apply the environment.  An invalid value gets
 * one line on stderr naming the variable and the accepted values, and the
 * default is kept. */
void config_load(void);

/* One line per variable, for help texts. */
void config_describe(FILE *out);

const char *config_cost_name(enum cost_unit cost);

#endif
