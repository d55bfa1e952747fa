/*
 * trace_write.h - TRMS_TRACE: the engine's operations written as a trace
 * (see trace_write.c).
 */
#ifndef TRMS_TRACE_WRITE_H
#define TRMS_TRACE_WRITE_H

/* At start, if TRMS_TRACE names a file: create it and trace. */
void trace_start(void);

/* When the profile is written at exit: stop, and write what is left. */
void trace_finish(void);

/* In a forked child: the parent's trace is not the child's to write. */
void trace_after_fork_child(void);

#endif
