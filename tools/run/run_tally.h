/*
 * run_tally.h - the file where the processes of `trms run`'s tree that
 * recorded nothing say so (the protocol: src/output/run_protocol.h).
 *
 * A note on the socket wakes trms run, which costs a short process more
 * than anything else it does under trms run; an append to a file wakes
 * nobody.  trms run makes the file in TMPDIR (or /tmp), writable by every
 * user (a process may drop its privileges) and readable by trms run
 * alone, reads it at the end, and removes it.  Lines are trusted only
 * with the run's token.
 */
#ifndef TRMS_RUN_TALLY_H
#define TRMS_RUN_TALLY_H

#include <stdint.h>
#include <sys/types.h>

struct run_tally {
	int fd;      /* -1: no tally (processes connect) */
	char *path;
	off_t taken; /* up to here, read */
};

/* Make the tally for the socket called @name.  @return 0, or -errno
 * (then there is none and t->fd is -1). */
int run_tally_create(struct run_tally *t, const char *name);

/* Each complete line appended since the last call that carries @token:
 * @keep(@ctx, pid, process_start, last). */
void run_tally_take(struct run_tally *t, const char *token,
		    void (*keep)(void *ctx, long pid, uint64_t start,
				 int last),
		    void *ctx);

/* Close and remove it. */
void run_tally_remove(struct run_tally *t);

#endif
