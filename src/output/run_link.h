/*
 * run_link.h - the library's side of `trms run`'s socket (the protocol:
 * run_protocol.h).  Every call is a system call or plain memory work:
 * usable at exit, from a signal handler, in a sandboxed or unprivileged
 * process.  Nothing here raises SIGPIPE (MSG_NOSIGNAL) or waits forever.
 */
#ifndef TRMS_RUN_LINK_H
#define TRMS_RUN_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum run_kind { RUN_PROFILE, RUN_EMPTY, RUN_WRITTEN, RUN_FAILED };

/* What a message says besides who sends it. */
struct run_message {
	enum run_kind kind;
	bool last;
	unsigned long window; /* a window's profile (TRMS_INTERVAL), or 0 */
	const char *path;   /* RUN_WRITTEN, RUN_FAILED */
	int error;          /* RUN_FAILED: errno */
	const char *reason; /* RUN_FAILED: in words */
};

/* Read TRMS_RUN_SOCKET (at start).  A malformed value is reported once
 * and ignored. */
void run_link_init(void);

/* Running under trms run. */
bool run_link_active(void);

/* trms run wants the profiles of processes that recorded nothing. */
bool run_link_keeps_empty(void);

struct run_delivery {
	int fd;
};

/* Connect and send @m's header.  @return 0, or -errno if trms run cannot
 * be reached (gone, another network namespace, a sandbox). */
int run_link_open(struct run_delivery *d, const struct run_message *m);

/* A profile_sink: one chunk of the profile. */
int run_link_send(void *ctx, const void *buf, size_t n);

/* End the profile.  trms run has it all once this returns 0 (it writes
 * it, and says at the end if it could not): the process does not wait
 * for it.  @return 0 or -errno. */
int run_link_finish(struct run_delivery *d);

void run_link_close(struct run_delivery *d);

/* A message without a profile (empty, written, failed), if trms run can
 * be reached. */
void run_link_note(const struct run_message *m);

#endif
