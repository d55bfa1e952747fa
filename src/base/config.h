/*
 * config.h - the library's settings, read once from TRMS_* environment
 * variables.  The table in config.c is the only list of them: the library
 * parses the environment with it, `trms run` builds and checks the
 * options that set them from it (config_settings), and `trms help` prints
 * it.
 */
#ifndef TRMS_CONFIG_H
#define TRMS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* not used here: files that include this rely on it */

enum cost_unit { COST_NS, COST_EVENTS };

#define CONFIG_PATH_MAX 4096

/* TRMS_SAMPLE_TIMER: the CPU-time timer up to the kernel's tick rate and
 * the perf_event task clock above it (auto), or one of them at any rate. */
enum sample_timer { SAMPLE_TIMER_AUTO, SAMPLE_TIMER_TICK, SAMPLE_TIMER_PERF };

struct config {
	/* (The path buffers last, and tracing in a flag of its own: a
	 * process that never writes a profile or a trace then touches the
	 * first of their pages only.) */
	unsigned granularity;
	enum cost_unit cost;
	int verbose;
	bool off;
	bool keep_empty;          /* TRMS_EMPTY=keep */
	unsigned sample_hz;       /* 0: no sampling */
	bool sample_wall;         /* wall clock instead of CPU time */
	bool sample_trap;         /* perf_event samples may come as SIGTRAP */
	enum sample_timer sample_timer; /* which timer (TRMS_SAMPLE_TIMER) */
	int sample_toggle_signal; /* 0: none */
	unsigned activation_sample; /* 1: every activation measured */
	unsigned budget_centi;      /* TRMS_BUDGET in 1/100 %; 0: none */
	unsigned partition_index;   /* 1..partition_count */
	unsigned partition_count;   /* 1: no partition */
	/* TRMS_EXACT_KINDS: record every access outside measured
	 * activations too, so that induced reads keep their exact kinds. */
	bool exact_kinds;
	/* TRMS_MEMORY_LIMIT: bytes, or 0 for the default (memory_limit.h);
	 * memory_limit_percent: of the machine's memory instead, if set. */
	uint64_t memory_limit;
	unsigned memory_limit_percent;
	uint64_t interval_ns; /* TRMS_INTERVAL: 0 for no windows */
	bool tracing;         /* TRMS_TRACE names a file (trace[0] != 0) */
	char run_socket[640]; /* see TRMS_RUN_SOCKET (run_link.h) */
	char output[CONFIG_PATH_MAX]; /* path template */
	char metrics_dir[CONFIG_PATH_MAX]; /* TRMS_METRICS_DIR: "" for none */
	char trace[CONFIG_PATH_MAX]; /* TRMS_TRACE: "" for none */
};

extern struct config config __attribute__((visibility("hidden")));

/* Reset to defaults, then apply the environment.  An invalid value gets
 * one line on stderr naming the variable and the accepted values, and the
 * default is kept. */
void config_load(void);

/* A setting that `trms run` offers as an option of its own: -SHORT,
 * --LONG ARG, "HELP" in its --help after the variable's name. */
struct config_run_option {
	char short_name; /* 0: a long option only */
	const char *long_name; /* NULL: not an option of trms run */
	const char *arg;
	const char *help;
};

struct config_setting {
	const char *name;     /* the environment variable */
	const char *accepted; /* the values it takes, in words */
	const char *help;     /* what it does, for `trms help` */
	const char *fallback; /* the default, as text */
	struct config_run_option run;
	/* Set @value in @c: 0, or -EINVAL if it is not accepted. */
	int (*apply)(struct config *c, const char *value);
};

/* Every setting, in the order help texts list them; *@n of them. */
const struct config_setting *config_settings(size_t *n);

/* The setting of variable @name, or NULL. */
const struct config_setting *config_setting(const char *name);

const char *config_cost_name(enum cost_unit cost);

#endif
