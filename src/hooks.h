/*
 * hooks.h - what the library's own versions of C library functions share:
 * how they are exported, and how the hook modules that need setting up
 * at start are set up.
 */
#ifndef TRMS_HOOKS_H
#define TRMS_HOOKS_H

/* An interposed function: exported under the C library's name (the
 * version script, trms.map, lists them all). */
#define EXPORT __attribute__((visibility("default")))

/* Set up the fork handlers (process_hooks.c) and the handlers that write
 * the profile on SIGTERM and SIGINT (signal_hooks.c). */
void process_hooks_start(void);
void signal_hooks_start(void);

/* SIGTERM and SIGINT back to the program's dispositions: no code of the
 * library's runs on them any more (a thread entered a sandbox). */
void signal_hooks_stop(void);

#endif
