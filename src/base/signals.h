/*
 * signals.h - the one owner of signal dispositions in the process.
 *
 * The library needs signals of its own (the sampler's, SIGTERM and SIGINT
 * for a last profile, SIGTRAP when samples arrive on it), and the program
 * must never see the difference: sigaction reports the dispositions the
 * program set, a signal the library holds behaves for the program as the
 * default it believes is there, and every signal the program handles
 * reaches its handler.  Everything that changes a disposition goes
 * through here: the library's modules by the functions below, the
 * program by the sigaction hook (signal_hooks.c) calling
 * signals_sigaction.
 *
 * A handler of the library's runs with every signal blocked (from its
 * own mask: no system call for it) and is told apart from the program's
 * by the deliveries each thread counts, so that a blocking call
 * interrupted only by the library can be retried (interrupted_by_us_only).
 */
#ifndef TRMS_SIGNALS_H
#define TRMS_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

typedef void signals_handler(int sig, siginfo_t *info, void *uctx);

/* signals_claim: the program setting SIG_DFL keeps the library's handler,
 * which behaves as the default (SIGTERM, SIGINT). */
#define SIGNALS_AS_DEFAULT 1u

/* The highest real-time signal that nobody handles, other than @avoid
 * (and any the library holds), or 0. */
int signals_free_realtime(int avoid);

/* Install @handler for @sig, which the program has left at its default
 * (else -EBUSY).  When the program later sets a disposition of its own,
 * @taken (if not NULL) is called first, with the lock on dispositions
 * held (it may claim another signal, not release this one); then the
 * program's disposition replaces the library's handler, unless
 * SIGNALS_AS_DEFAULT is in @flags and it is SIG_DFL.  @return 0 or
 * -errno. */
int signals_claim(int sig, signals_handler *handler, unsigned flags,
		  void (*taken)(int sig));

/* Keep @sig for @handler whatever the program sets (SIGTRAP, on which
 * samples arrive and which cannot move): @ours tells the deliveries that
 * are the library's; every other goes to the program's disposition as it
 * set it (its handler, with its mask; nothing if it ignores the signal;
 * else the default action).  @sig must be at its default now.  @return 0
 * or -errno. */
int signals_share(int sig, signals_handler *handler,
		  bool (*ours)(const siginfo_t *info));

/* Whether the library holds @sig (claimed or shared). */
bool signals_held(int sig);

/* Give @sig back: the program's disposition (or the default) replaces
 * the library's handler.  With @discard, deliveries still pending in any
 * thread are dropped first (a disposition set to "ignore" drops them).
 * Not async-signal-safe. */
void signals_release(int sig, bool discard);

/* End the process by @sig, as its default action would (from a handler
 * of the library's holding @sig). */
void signals_die_of(int sig);

/* What the program's sigaction does: the program's view of dispositions,
 * the library's handlers kept where they must be.  Same contract as
 * sigaction(2). */
int signals_sigaction(int sig, const struct sigaction *act,
		      struct sigaction *old);

/* The calling thread runs a handler of the library's now (every signal
 * blocked): the sigprocmask hooks need not go to the kernel. */
bool signals_in_library_handler(void);

/* The address the kernel made a handler of the library's return to (the
 * C library's restorer, at the bottom of every signal frame), once one
 * has run; else NULL.  Async-signal-safe. */
const void *signals_restorer(void);

/* Deliveries of signals on the calling thread so far: of the library's
 * handlers, and of the program's. */
struct interruptions {
	unsigned ours, program;
};

void interruptions_note(struct interruptions *n);

/* Since @n was noted, a signal of the library's came, and none of the
 * program's: a blocking call that failed with EINTR then was interrupted
 * by the library alone. */
bool interrupted_by_us_only(const struct interruptions *n);

#endif
