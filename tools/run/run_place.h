/*
 * run_place.h - where `trms run` puts the profiles of its tree, fixed at
 * start: a new trms-NAME.PID/ in the working directory, or what -o says
 * (a directory, or a file name template), made absolute against trms
 * run's own working directory.
 */
#ifndef TRMS_RUN_PLACE_H
#define TRMS_RUN_PLACE_H

#include <stdbool.h>
#include <stddef.h>

struct run_place {
	char *directory;     /* absolute; NULL: each process writes its own
				(a % in the template's directory part) */
	char *shown;         /* the directory as the user knows it, ending
				in / (with directory) */
	char *name_template; /* the file name inside directory */
	char *template;      /* the whole template, absolute: TRMS_OUTPUT */
	bool created;        /* trms run made the directory */
	bool whole;          /* the directory is the place (the default, or
				-o naming a directory), not a file name's */
};

/* The place for -o @output (NULL: the default directory, made now, named
 * after @command).  @return 0, or -errno with a message on stderr. */
int run_place_choose(struct run_place *p, const char *output,
		     const char *command);

/* Say now on stderr if profiles cannot be written there. */
void run_place_check(const struct run_place *p);

/* Remove the directory trms run made if nothing came into it and no
 * process of the run (@running of them) may still write there. */
void run_place_remove_if_empty(const struct run_place *p, size_t running);

void run_place_free(struct run_place *p);

#endif
