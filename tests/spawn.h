/*
 * spawn.h - run a program with given input and collect what it prints,
 * for tests of the `trms` command line.
 */
#ifndef TRMS_SPAWN_H
#define TRMS_SPAWN_H

#include <stddef.h>

struct spawn_result {
	int status; /* exit status, or 128 + signal */
	char *out;  /* standard output, NUL-terminated */
	char *err;  /* standard error, NUL-terminated */
};

/* Run @argv (argv[0] a path), feeding @input (may be NULL) on standard
 * input, with @env added to the environment (NULL-terminated "K=V" list,
 * may be NULL). */
void spawn(char *const argv[], const char *input, char *const env[],
	   struct spawn_result *r);
void spawn_free(struct spawn_result *r);

#endif
