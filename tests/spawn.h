/*
 * spawn.h - run a program as the tests need it: what it prints, its exit
 * status and how long it took; given input, a working directory, an
 * environment; under a deadline that kills it and says so; or started in
 * the background, to be signalled while it runs.  The one process runner
 * of the tests (the command line's, the examples', the sampling helpers',
 * trms run's).
 */
#ifndef TRMS_SPAWN_H
#define TRMS_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct spawn_options {
	const char *dir;	  /* working directory; NULL: the caller's */
	char *const *env;	  /* "K=V" added to the environment
				     (NULL-terminated; may be NULL) */
	const char *const *unset; /* names taken out of the environment
				     before @env is added (NULL-terminated;
				     may be NULL) */
	const char *input;	  /* fed on standard input, then end of
				     file; NULL: /dev/null */
	void (*prepare)(void);	  /* runs in the child just before exec
				     (dispositions, limits); may be NULL */
	bool own_group;		  /* in a process group of its own, which
				     the deadline kills whole */
	/* At the deadline, just before the kill (to save the backtraces of
	 * its threads, say); may be NULL. */
	void (*before_kill)(pid_t pid, void *arg);
	void *before_kill_arg;
};

/* A program started by spawn_start, then finished by spawn_finish. */
struct spawn_result {
	pid_t pid;
	int status;	 /* exit status, or 128 + signal */
	int wait_status; /* as waitpid gave it */
	bool timed_out;	 /* killed (SIGKILL) at the deadline */
	double seconds;	 /* from its start to its end */
	char *out;	 /* standard output so far, NUL-terminated */
	char *err;	 /* standard error so far, NUL-terminated */

	/* The runner's own. */
	int in_fd, out_fd, err_fd; /* -1 once closed */
	const char *input;
	size_t input_len, input_done, out_len, err_len;
	double start;
	bool own_group;
	void (*before_kill)(pid_t pid, void *arg);
	void *before_kill_arg;
};

/* Start @argv (argv[0] a path) as @options say (NULL: no options). */
void spawn_start(struct spawn_result *r, char *const argv[],
		 const struct spawn_options *options);

/* Read its output until @text appears on its standard output; false if it
 * ended, or @timeout_ms passed, first. */
bool spawn_wait_for(struct spawn_result *r, const char *text,
		    int timeout_ms);

/* Read everything and wait for its end: its wait status.  Past
 * @timeout_ms (< 0: never) it is killed with SIGKILL, its process group
 * too if it has one, and timed_out says so. */
int spawn_finish(struct spawn_result *r, int timeout_ms);

/* spawn_start, then spawn_finish. */
void spawn_run(char *const argv[], const struct spawn_options *options,
	       int timeout_ms, struct spawn_result *r);

/* Run @argv to its end, feeding @input (may be NULL: nothing) on standard
 * input, with @env added to the environment (NULL-terminated "K=V" list,
 * may be NULL). */
void spawn(char *const argv[], const char *input, char *const env[],
	   struct spawn_result *r);

void spawn_free(struct spawn_result *r);

#endif
