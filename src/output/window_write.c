/*
 * window_write.c - profiles while the program runs (TRMS_INTERVAL; see
 * window_write.h and docs/windows.md).
 *
 * Each thread records its activations, without locks, into the table its
 * `recording` points to: its profile table or its spare one.  Cutting a
 * window, the writer (a thread of the library's, started only when
 * windows are asked for) points every thread to its other table, waits
 * until each thread has left the one it was using (below), writes the
 * window from those tables, then folds them into the thread's `past`
 * table and empties them for the window after next.  The profile of the
 * whole run folds all three tables, so it is right at any moment, and
 * every activation is in exactly one window: the windows add up to it.
 *
 * The handshake.  A thread records only while marked busy (call.h); a
 * table may be read while its owner records into it (tuples.h), but is
 * emptied only once the writer has seen the owner not busy after the
 * switch.  On x86 the owner's store of busy may still sit in its store
 * buffer when it loads `recording`, so an expedited membarrier (one
 * interrupt of each running thread of the process, microseconds) after
 * the switch makes every thread's earlier stores visible first; without
 * membarrier the writer waits a millisecond instead.  A thread preempted
 * while busy is waited for (LEAVE_WAIT_NS at most); one busy for longer
 * keeps its old table until a later cut finds it left, and that window
 * takes it.  The last window (exit, exec, a sandbox) takes every table
 * not in a window yet.  The program's threads never wait for the writer.
 */
#define _GNU_SOURCE
#include "output/window_write.h"
#include "runtime/thread.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "base/log.h"
#include "output/metrics_file.h"
#include "output/profile_dump.h"
#include "output/profile_write.h"
#include "base/real.h"
#include "output/run_link.h"

/* How long a cut waits for the threads it switched to leave the library:
 * a thread preempted inside it runs again within a scheduler's period.
 * One still busy after that (a debugger stopped it there) has its part
 * in a later window.  The first part of the wait spins, the rest
 * sleeps. */
#define LEAVE_WAIT_NS 200000000ull
#define LEAVE_SPIN_NS 50000u
#define LEAVE_NAP_NS 100000

static struct {
	pthread_mutex_t lock; /* stopping, the wake-up */
	pthread_cond_t wake;
	pthread_mutex_t cut_lock; /* one cut at a time */
	pthread_t thread;
	bool running, stopping;
	bool failed;	      /* no memory to fold windows: no more */
	bool said_unwritable; /* a window could not be written: said */
	unsigned long number; /* the last window's number */
	uint64_t start_ns;    /* when the current window began (epoch) */
	int fence_command;    /* membarrier's, or 0 */
} win = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cut_lock = PTHREAD_MUTEX_INITIALIZER,
};

static void fence_setup(void)
{
	long cmds = REAL(syscall)(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	win.fence_command = 0;
	if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    REAL(syscall)(SYS_membarrier,
			  MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		win.fence_command = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
	else if (cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL))
		win.fence_command = MEMBARRIER_CMD_GLOBAL;
}

static void nap(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

/* Every thread's stores before now visible to this one, and this one's
 * to them (its own: the switches are sequentially consistent stores, and
 * runtime.lock was released since). */
static void fence(void)
{
	if (win.fence_command &&
	    REAL(syscall)(SYS_membarrier, win.fence_command, 0, 0) == 0)
		return;
	nap(1000000);
}

/* Whether @t is surely not recording into the table it was switched away
 * from (runtime.lock held: dead cannot change). */
static bool left_table(const struct trms_thread *t)
{
	return t == thread_current || t->dead ||
	       !__atomic_load_n(&t->busy, __ATOMIC_ACQUIRE);
}

static void note_counters(struct trms_thread *t)
{
	uint64_t *at = t->windows->at_cut;

	at[WIN_IN_BYTES] = __atomic_load_n(&t->in_bytes, __ATOMIC_RELAXED);
	at[WIN_IN_CALLS] = __atomic_load_n(&t->in_calls, __ATOMIC_RELAXED);
	at[WIN_OUT_BYTES] = __atomic_load_n(&t->out_bytes, __ATOMIC_RELAXED);
	at[WIN_OUT_CALLS] = __atomic_load_n(&t->out_calls, __ATOMIC_RELAXED);
	at[WIN_DROPPED] = thread_dropped(t);
}

/* Point @t to its other table, which is empty (runtime.lock held).  What
 * the table it leaves holds is in a window already if @written. */
static void switch_thread(struct trms_thread *t, bool written)
{
	struct thread_windows *w = t->windows;
	struct tuple_table *now = atomic_load(&t->recording);

	atomic_store(&t->recording,
		     now == &t->tuples ? &w->spare : &t->tuples);
	w->cut = now;
	w->ready = false;
	w->cut_written = written;
	note_counters(t);
}

/* Switch every thread whose earlier windows are folded to its other
 * table. */
static void switch_tables(void)
{
	struct trms_thread *t;

	pthread_mutex_lock(&runtime.lock);
	cds_list_for_each_entry(t, &runtime.threads, link)
		if (t->windows && !t->windows->cut)
			switch_thread(t, false);
	pthread_mutex_unlock(&runtime.lock);
}

/* Wait, LEAVE_WAIT_NS at most, until every thread switched has left the
 * table it was switched away from; never holding runtime.lock while
 * waiting (a thread busy in the library may be waiting for it). */
static void wait_left(void)
{
	uint64_t start = clock_monotonic_ns();
	struct trms_thread *t;

	fence();
	for (;;) {
		unsigned waiting = 0;
		pthread_mutex_lock(&runtime.lock);
		cds_list_for_each_entry(t, &runtime.threads, link) {
			struct thread_windows *w = t->windows;
			if (w && w->cut && !w->ready) {
				w->ready = left_table(t);
				waiting += !w->ready;
			}
		}
		pthread_mutex_unlock(&runtime.lock);
		uint64_t spent = clock_monotonic_ns() - start;
		if (!waiting || spent >= LEAVE_WAIT_NS)
			return;
		if (spent < LEAVE_SPIN_NS)
			__builtin_ia32_pause();
		else
			nap(LEAVE_NAP_NS);
	}
}

/* What each thread gives the window about to be written: its cut table
 * once it has left it (unless a window has it already); in the last
 * window (@last), everything not in a window yet, the table it records
 * into too, left or not (a table may be read while its owner records). */
static void choose_tables(bool last)
{
	struct trms_thread *t;

	pthread_mutex_lock(&runtime.lock);
	/* The last window folds nothing: what it would say would be said
	 * of no later window. */
	if (!last)
		thread_fold_choose();
	cds_list_for_each_entry(t, &runtime.threads, link) {
		struct thread_windows *w = t->windows;
		if (!w)
			continue;
		w->n_in_window = 0;
		if (w->cut && !w->cut_written && (w->ready || last))
			w->in_window[w->n_in_window++] = w->cut;
		const struct tuple_table *now = atomic_load(&t->recording);
		if (last && __atomic_load_n(&now->used, __ATOMIC_RELAXED)) {
			w->in_window[w->n_in_window++] = now;
			note_counters(t);
		}
	}
	pthread_mutex_unlock(&runtime.lock);
}

/* After the window was written: fold each thread's cut table into past
 * once the thread has left it, under the profile's lock (a profile
 * written meanwhile sees the tables before or after, never half-way).
 * A table the last window took that the thread still records into is
 * switched away from, so that later windows (after an exec that failed)
 * do not count it again; it is folded once left. */
static void fold_window(bool last)
{
	struct trms_thread *t;

	pthread_mutex_lock(&runtime.flush_lock);
	pthread_mutex_lock(&runtime.lock);
	cds_list_for_each_entry(t, &runtime.threads, link) {
		struct thread_windows *w = t->windows;
		if (!w)
			continue;
		bool took_recording =
			last && w->n_in_window &&
			w->in_window[w->n_in_window - 1] ==
				atomic_load(&t->recording);
		w->n_in_window = 0;
		if (w->cut && w->ready) {
			if (tuple_table_absorb(&w->past, w->cut)) {
				win.failed = true;
				continue;
			}
			tuple_table_clear(w->cut);
			memcpy(w->base, w->at_cut, sizeof(w->base));
			w->cut = NULL;
			w->ready = false;
		} else if (w->cut && last) {
			w->cut_written = true;
		}
		if (took_recording && !w->cut) {
			switch_thread(t, true);
			memcpy(w->base, w->at_cut, sizeof(w->base));
		}
	}
	thread_fold_chosen();
	pthread_mutex_unlock(&runtime.lock);
	pthread_mutex_unlock(&runtime.flush_lock);
	if (win.failed)
		log_internal("out of memory for the profile's windows; no more "
			     "windows (the profile at exit is complete)");
}

/* End the current window and write it; the @last one takes everything
 * not in a window yet. */
static void cut(bool last)
{
	char path[CONFIG_PATH_MAX] = "";
	const char *why = NULL;

	pthread_mutex_lock(&win.cut_lock);
	if (win.failed || atomic_load(&runtime.finished) ||
	    !runtime_active()) {
		pthread_mutex_unlock(&win.cut_lock);
		return;
	}
	struct dump_window window = {
		.number = ++win.number,
		.start_ns = win.start_ns,
		.end_ns = runtime_realtime_ns(),
	};
	win.start_ns = window.end_ns;
	switch_tables();
	wait_left();
	choose_tables(last);
	int rc = profile_write_window(&window, path, sizeof(path), &why);
	if (rc && !win.said_unwritable) {
		/* Once: a full disk would say it every few seconds. */
		win.said_unwritable = true;
		if (run_link_active())
			log_info("window %lu not written to %s: %s; windows "
				 "that cannot be written are skipped",
				 window.number, path, why);
		else
			log_environment("cannot write window %lu of the "
					"profile to %s: %s; windows that "
					"cannot be written are skipped",
					window.number, path, why);
	} else if (!rc) {
		log_debug("window %lu written to %s", window.number, path);
	}
	fold_window(last);
	pthread_mutex_unlock(&win.cut_lock);
}

/* Every so often: a window (TRMS_INTERVAL), the metrics file
 * (TRMS_METRICS_DIR, written at each window, else every 10 s). */
static uint64_t period_ns(void)
{
	if (config.interval_ns)
		return config.interval_ns;
	return config.metrics_dir[0] ? METRICS_FILE_PERIOD_NS : 0;
}

static void *writer_main(void *arg)
{
	(void)arg;
	/* Not a thread of the program's: no profile, no hooks. */
	thread_disown_self();
	uint64_t next = clock_monotonic_ns() + period_ns();

	pthread_mutex_lock(&win.lock);
	while (!win.stopping) {
		struct timespec at = { (time_t)(next / 1000000000u),
				       (long)(next % 1000000000u) };
		pthread_cond_timedwait(&win.wake, &win.lock, &at);
		if (win.stopping)
			break;
		uint64_t now = clock_monotonic_ns();
		if (now < next)
			continue;
		pthread_mutex_unlock(&win.lock);
		if (config.interval_ns)
			cut(false);
		metrics_file_write();
		/* Windows missed (the machine slept) are not made up. */
		next += period_ns();
		if (next <= now)
			next = now + period_ns();
		pthread_mutex_lock(&win.lock);
	}
	pthread_mutex_unlock(&win.lock);
	return NULL;
}

void window_writer_start(void)
{
	pthread_condattr_t attr;
	sigset_t all, saved;

	if (!period_ns() || !runtime_active() || win.running)
		return;
	fence_setup();
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&win.wake, &attr);
	pthread_condattr_destroy(&attr);
	win.stopping = false;
	/* After a failed exec the windows go on from the last one. */
	if (!win.number)
		win.start_ns = runtime.start_realtime_ns;
	/* With a second thread about, no sample could open libunwind: it
	 * is opened now, as before a thread of the program's. */
	sampler_open_unwinder();
	/* The writer takes none of the program's signals: it starts with
	 * every one blocked. */
	sigfillset(&all);
	REAL(pthread_sigmask)(SIG_SETMASK, &all, &saved);
	int rc = REAL(pthread_create)(&win.thread, NULL, writer_main, NULL);
	REAL(pthread_sigmask)(SIG_SETMASK, &saved, NULL);
	if (rc) {
		log_environment("cannot start the thread that writes the "
				"profile's windows (%s); no windows",
				strerror(rc));
		return;
	}
	win.running = true;
}

void window_writer_stop(bool final)
{
	/* (Not from a child made by vfork: the writer is its parent's.) */
	if (!runtime_own_process())
		return;
	pthread_mutex_lock(&win.lock);
	bool running = win.running;
	win.running = false;
	win.stopping = true;
	if (running)
		pthread_cond_signal(&win.wake);
	pthread_mutex_unlock(&win.lock);
	if (!running)
		return;
	pthread_join(win.thread, NULL);
	if (final && config.interval_ns)
		cut(true);
	if (final)
		metrics_file_write();
}

void window_writer_after_fork_child(void)
{
	/* The parent's writer may have held these at the fork. */
	pthread_mutex_init(&win.lock, NULL);
	pthread_mutex_init(&win.cut_lock, NULL);
	win.running = false;
	win.failed = false;
	win.said_unwritable = false;
	win.number = 0;
	window_writer_start();
}
