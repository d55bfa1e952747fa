/*
 * run_collector.h - `trms run`'s end of the socket the processes of its
 * tree hand their profiles to (the protocol: src/output/run_protocol.h).
 *
 * trms run writes each profile handed over into its directory, as itself,
 * atomically (src/base/atomic_file.h), under a name it makes from its own
 * template, the process's pid and program name: a process never chooses a
 * path (trms run may run as root, and any local process can connect; only
 * those that know the token in the environment are heard).  A process
 * that drops its privileges, or chroots, still reaches it.  Every message
 * is kept as an outcome for the summary at the end.
 */
#ifndef TRMS_RUN_COLLECTOR_H
#define TRMS_RUN_COLLECTOR_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "run_tally.h"

/* How long the collector leaves its listener alone after taking the
 * connections that woke it (see run_collector_pollfds). */
#define RUN_REST_MS 20

enum outcome_kind {
	OUTCOME_WRITTEN,  /* a profile is at path */
	OUTCOME_FAILED,   /* no profile at path: reason */
	OUTCOME_EMPTY,    /* the process recorded nothing */
	OUTCOME_CUT_SHORT /* the process ended while handing its profile */
};

struct outcome {
	enum outcome_kind kind;
	bool last;     /* the image's last word (not a flush, not an exec) */
	unsigned long window; /* a window's (TRMS_INTERVAL) outcome, or 0 */
	pid_t peer;    /* the process, as trms run sees its pid */
	long pid;      /* ... as it sees itself */
	uint64_t process_start;
	char *path;    /* WRITTEN, FAILED */
	char *reason;  /* FAILED */
};

struct connection;
struct file_name;

struct run_collector {
	int listen_fd;
	char token[33];
	/* TRMS_RUN_SOCKET's value */
	char variable[640];
	/* where processes that recorded nothing say so */
	struct run_tally tally;
	/* NULL: processes write their profiles themselves (the template's
	 * directory depends on the process) */
	char *directory;
	char *name_template; /* the file name, inside directory */
	uint64_t rest_until; /* CLOCK_MONOTONIC ms; 0: not resting */
	struct connection **connections;
	size_t n_connections, connections_cap;
	struct file_name *names; /* open addressing, by name */
	size_t n_names, names_cap;
	struct outcome *outcomes;
	size_t n_outcomes, outcomes_cap;
};

/* Listen on a fresh abstract socket.  @directory and @name_template:
 * where handed profiles go (@directory NULL: nowhere, processes write
 * their own); @keep_empty: processes that recorded nothing write a
 * profile too.  @return 0, or -errno with a message in @err. */
int run_collector_open(struct run_collector *c, const char *directory,
		       const char *name_template, bool keep_empty, char *err,
		       size_t errlen);

/* The descriptors to poll: the listener (unless the collector rests),
 * then each connection.  @return how many were filled (at most @max).
 *
 * Each connection to a listener somebody polls wakes that somebody up,
 * and on a virtual machine the wake-up cost the connecting process some
 * 0.3-0.4 ms of CPU, more than the rest of its message (a build of 5,000
 * processes talks to trms run thousands of times).  So after taking the
 * connections that woke it, the collector rests RUN_REST_MS before it
 * looks at the listener again, and takes whatever came meanwhile at
 * once: nobody waits on the listener then, and connecting wakes nobody. */
size_t run_collector_pollfds(const struct run_collector *c,
			     struct pollfd *fds, size_t max);

/* How long poll may wait (ms; -1: for ever): until the rest is over. */
int run_collector_wait_ms(const struct run_collector *c);

/* Act on what poll said of the descriptors run_collector_pollfds gave
 * (@n 0 after a poll that timed out: the rest may be over). */
void run_collector_serve(struct run_collector *c, const struct pollfd *fds,
			 size_t n);

/* Take every connection already waiting and finish them all, waiting up
 * to @timeout_ms for one still sending (a process in the middle of its
 * profile); and what the tally says. */
void run_collector_drain(struct run_collector *c, int timeout_ms);

void run_collector_close(struct run_collector *c);

#endif
