/*
 * sampler_handler.c - taking a sample: the interrupted thread's frames,
 * its open regions placed among them, into its calling context tree.
 * Runs in the sampling signal's handler: async-signal-safe, no lock, no
 * malloc, no system call (but for a tree's memory growing, and for
 * opening libunwind once where that is safe: unwind.h).
 */
#define _GNU_SOURCE
#include "sampler/sampler_internal.h"

#include <string.h>
#include <sys/single_threaded.h>

#include "base/clock.h"
#include "sampler/modules.h"
#include "base/vm.h"

#define UNKNOWN_MODULE 0xffffffu

/* Scratch space for the handler, one per thread: no stack spent on it. */
struct scratch {
	uintptr_t ip[MAX_FRAMES];
	uintptr_t sp[MAX_FRAMES];
	struct sampler_region regions[CCT_MAX_DEPTH];
	struct cct_step path[CCT_MAX_DEPTH];
};

static __thread struct scratch *scratch
	__attribute__((tls_model("initial-exec")));

/* See sampler_charge_caller. */
static __thread bool charge_caller __attribute__((tls_model("initial-exec")));

void sampler_scratch_init(void)
{
	if (!scratch)
		scratch = vm_alloc(sizeof(*scratch));
}

void sampler_charge_caller(bool on)
{
	charge_caller = on;
}

static bool in_own_module(const struct modules_view *view, uintptr_t ip)
{
	uint32_t module;
	uintptr_t offset;

	uint32_t library = modules_library();

	return library != UINT32_MAX &&
	       modules_find_in(view, ip, &module, &offset) &&
	       module == library;
}

/* The frame of @ip[0..@n) that called the library's frames nearest the
 * leaf (0 if there are none): those, and what they called, cut off. */
static unsigned caller_of_library(const struct modules_view *view,
				  const uintptr_t *ip, unsigned n)
{
	unsigned i = 0;

	while (i < n && !in_own_module(view, ip[i]))
		i++;
	while (i < n && in_own_module(view, ip[i]))
		i++;
	return i < n ? i : 0;
}

static struct cct_step frame_step(const struct modules_view *view,
				  uintptr_t ip)
{
	uint32_t module;
	uintptr_t offset;

	if (!modules_find_in(view, ip, &module, &offset)) {
		module = UNKNOWN_MODULE;
		offset = ip;
	}
	return (struct cct_step){ CCT_FRAME,
				  CCT_FRAME_KEY(module, offset &
							((1ull << 40) - 1)) };
}

/* @s's path: its creation context, then frames @first..@n-1 of @x->ip
 * (stack pointers in @x->sp) from the outermost in, with its open regions
 * @open[0..@depth) placed after the frame that opened each (the deepest
 * frame whose stack pointer is at or above the one recorded when the
 * region began).  @return the path's length. */
static unsigned build_path(const struct sampler_thread *s,
			   const struct modules_view *view, struct scratch *x,
			   unsigned first, unsigned n,
			   const struct sampler_region *open, unsigned depth,
			   struct cct_step *path, unsigned max)
{
	unsigned region = 0, len = 0;

	for (unsigned i = 0; i < s->context_len && len < max; i++)
		path[len++] = s->context[i];
	for (unsigned i = n; i-- > first && len < max;) {
		while (region < depth && x->sp[i] < open[region].cfa &&
		       len < max)
			path[len++] = (struct cct_step){
				CCT_REGION, open[region++].region };
		if (len < max)
			path[len++] = frame_step(view, x->ip[i]);
	}
	while (region < depth && len < max)
		path[len++] = (struct cct_step){ CCT_REGION,
						 open[region++].region };
	return len;
}

static bool in_sync_routine(uintptr_t ip)
{
	for (unsigned i = 0; i < sampler.n_sync; i++)
		if (ip >= sampler.sync[i].start && ip < sampler.sync[i].end)
			return true;
	return false;
}

/* @s's open regions, outermost first, into @out (at most @max). */
static unsigned open_regions_of(const struct sampler_thread *s,
				struct sampler_region *out, unsigned max)
{
	return sampler.open_regions ? sampler.open_regions(s->owner, out, max)
				    : 0;
}

/* Is @s inside a wrapped call passed on to the C library, holding none of
 * its locks? */
static bool passing_through(const struct sampler_thread *s)
{
	return __atomic_load_n(&s->blocked, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&s->passing, __ATOMIC_RELAXED);
}

static void drop(struct sampler_thread *s, enum sample_drop why,
		 uint64_t periods)
{
	cct_add(&s->dropped[why], periods);
}

/* The sample of @n frames in @x, walked within @view, its thread's open
 * regions @open[0..@depth), charged to the library's caller if
 * @to_caller (sampler_charge_caller): its path into the tree.  @return
 * the tree's node for it, or NULL (a drop, counted). */
static struct cct_node *record_frames(struct sampler_thread *s,
				      const struct modules_view *view,
				      struct scratch *x, unsigned n,
				      const struct sampler_region *open,
				      unsigned depth, bool to_caller,
				      uint64_t periods)
{
	if (!n) {
		drop(s, DROP_UNWIND, periods);
		return NULL;
	}
	unsigned first = to_caller ? caller_of_library(view, x->ip, n) : 0;
	if (in_own_module(view, x->ip[first])) {
		drop(s, DROP_IN_LIBRARY, periods);
		return NULL;
	}
	unsigned len = build_path(s, view, x, first, n, open, depth, x->path,
				  CCT_MAX_DEPTH);
	struct cct_node *leaf = cct_insert(&s->cct, x->path, len);
	if (!leaf)
		drop(s, DROP_NO_MEMORY, periods);
	return leaf;
}

/* How a sample counts, as it was when it came. */
struct sample_kind {
	bool blocked;        /* under the wall clock, in a blocking call */
	double idle, working; /* threads waiting and working then */
};

static struct sample_kind kind_now(const struct sampler_thread *s)
{
	struct sample_kind k = {
		.blocked = sampler.wall &&
			   __atomic_load_n(&s->blocked, __ATOMIC_RELAXED),
	};

	if (!k.blocked)
		sampler_count_threads(&k.idle, &k.working);
	return k;
}

/* Count the sample of @periods periods at @leaf, whose frame 0 is @ip. */
static void count(struct sampler_thread *s, struct cct_node *leaf,
		  uint64_t periods, const struct sample_kind *k, uintptr_t ip)
{
	cct_add(&leaf->samples, periods);
	/* A CPU-time timer fires only on a thread that is running: inside
	 * a hooked write() copying data, say, it is working.  Only on the
	 * wall clock can a sample find the thread waiting. */
	if (k->blocked) {
		cct_add(&leaf->blocked, periods);
	} else {
		cct_add(&leaf->work, periods);
		cct_add_idleness(leaf, (double)periods * k->idle / k->working);
		if (in_sync_routine(ip))
			cct_add(&leaf->overhead, periods);
	}
	cct_add(&s->samples, periods);
	cct_add(&s->overrun, periods - 1);
}

/* ---- samples kept until libunwind is open ---- */

/* A process of one thread opens libunwind at a sample that finds it
 * where the loader may run (unwind.h); the samples before it, which found
 * it inside the C library (in malloc, say), are kept — their context and
 * stack copied — and walked then, or when the profile is written.  At
 * most KEPT_MAX: beyond, each new one takes the place of a kept one at
 * random, with the chance that keeps every sample equally likely to be
 * kept (reservoir sampling), and the kept ones share all the periods:
 * the totals stay exact, the early stretch is told by a fair subset of
 * its samples.  Until walked they count as dropped. */
#define KEPT_MAX 128
#define KEPT_STACK (32u << 10)
#define KEPT_REGIONS 32

struct kept_sample {
	struct unwind_saved saved;
	uint64_t periods;
	struct sample_kind kind;
	bool to_caller;
	unsigned depth;
	struct sampler_region open[KEPT_REGIONS];
	unsigned char stack[KEPT_STACK];
};

static struct {
	struct kept_sample *slots; /* KEPT_MAX, mapped at the first kept */
	unsigned n;                /* slots in use */
	uint64_t seen;             /* samples offered, kept or not */
	uint64_t periods;          /* theirs */
	uint64_t random;           /* xorshift state, 0 until seeded */
	struct sampler_thread *thread; /* whose samples they are */
	/* Walked outside a handler now: a sample that comes meanwhile finds
	 * the library at work (and its scratch space in use). */
	bool walking;
} kept;

#define KEPT_BYTES (KEPT_MAX * sizeof(struct kept_sample))

/* Uniform enough in [0, @n). */
static uint64_t kept_random(uint64_t n)
{
	uint64_t x = kept.random ? kept.random : clock_monotonic_ns() | 1;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	kept.random = x;
	return x % n;
}

/* Keep the sample of @s that interrupted @uc.  @return false if it
 * cannot be kept (a stack too deep or not known, no memory). */
static bool keep(struct sampler_thread *s, const ucontext_t *uc,
		 uint64_t periods)
{
	if (kept.seen && kept.thread != s)
		return false;
	if (!kept.slots && !(kept.slots = vm_alloc(KEPT_BYTES)))
		return false;
	uint64_t slot = kept.n < KEPT_MAX ? kept.n : kept_random(kept.seen + 1);
	if (slot < KEPT_MAX) {
		struct kept_sample *k = &kept.slots[slot];
		struct sampler_region open[KEPT_REGIONS];
		unsigned depth = open_regions_of(s, open, KEPT_REGIONS);
		/* (unwind_save writes nothing when it fails: a kept sample
		 * replaced stays whole.) */
		if (depth == KEPT_REGIONS ||
		    !unwind_save(&s->stack, uc, &k->saved, k->stack,
				 sizeof(k->stack)))
			return false;
		memcpy(k->open, open, depth * sizeof(open[0]));
		k->depth = depth;
		k->periods = periods;
		k->kind = kind_now(s);
		k->to_caller = charge_caller;
		if (slot == kept.n)
			kept.n++;
	}
	kept.thread = s;
	kept.seen++;
	kept.periods += periods;
	return true;
}

/* Walk and count the samples kept (libunwind is open), and give their
 * memory back: none is kept again.  Each counts its own periods, or, if
 * some were not kept, an equal share of all. */
static void walk_kept(const struct modules_view *view, struct scratch *x)
{
	struct sampler_thread *s = kept.thread;
	bool shared = kept.seen > kept.n;
	uint64_t share = kept.periods / kept.n, rest = kept.periods % kept.n;

	for (unsigned i = 0; i < kept.n; i++) {
		struct kept_sample *k = &kept.slots[i];
		uint64_t periods = shared ? share + (i < rest) : k->periods;
		unsigned n = unwind_saved_frames(&k->saved, view, x->ip, x->sp,
						 MAX_FRAMES);
		struct cct_node *leaf =
			record_frames(s, view, x, n, k->open, k->depth,
				      k->to_caller, periods);
		if (leaf)
			count(s, leaf, periods, &k->kind, x->ip[0]);
	}
	sampler_forget_kept();
	vm_free(kept.slots, KEPT_BYTES);
	kept.slots = NULL;
}

uint64_t sampler_kept_periods(void)
{
	return kept.periods;
}

void sampler_forget_kept(void)
{
	kept.n = 0;
	kept.seen = 0;
	kept.periods = 0;
	kept.thread = NULL;
}

void sampler_walk_kept(void)
{
	if (!kept.n)
		return;
	__atomic_store_n(&kept.walking, true, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unwind_prepare() == 0 && modules_ready(false)) {
		sampler_scratch_init();
		const struct modules_view *view = modules_walk_begin();
		if (view && scratch)
			walk_kept(view, scratch);
		if (view)
			modules_walk_end();
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&kept.walking, false, __ATOMIC_RELAXED);
}

/* ---- a sample ---- */

/* Record the sample of @periods periods (more than one when the timer
 * expired again before its signal was taken) at the interrupted stack. */
static void take_sample(struct sampler_thread *s, void *uctx,
			uint64_t periods)
{
	struct scratch *x = scratch;

	if (!x) {
		drop(s, DROP_NO_MEMORY, periods);
		return;
	}
	/* The first sample of a process that has kept to one thread opens
	 * libunwind, if the interrupted code holds no lock the loader needs
	 * (else it is kept for later), and takes the table of loaded
	 * objects (see sampler_capture_context for the others). */
	if (!unwind_ready()) {
		int ready = -1;
		if (__libc_single_threaded)
			ready = unwind_prepare_interrupting(
				&s->stack, uctx, passing_through(s));
		if (ready > 0 && keep(s, uctx, periods))
			return;
		if (ready != 0) {
			drop(s, DROP_UNWIND, periods);
			return;
		}
	}
	if (!modules_ready(true)) {
		drop(s, DROP_UNWIND, periods);
		return;
	}
	/* dlclose may be unmapping the unwind tables the walk reads. */
	const struct modules_view *view = modules_walk_begin();
	if (!view) {
		drop(s, DROP_IN_LOADER, periods);
		return;
	}
	if (kept.n)
		walk_kept(view, x);
	unsigned n = unwind_frames(&s->stack, view, uctx, true, x->ip, x->sp,
				   MAX_FRAMES);
	unsigned depth = open_regions_of(s, x->regions, CCT_MAX_DEPTH);
	struct cct_node *leaf = record_frames(s, view, x, n, x->regions, depth,
					      charge_caller, periods);
	if (leaf) {
		struct sample_kind k = kind_now(s);
		count(s, leaf, periods, &k, x->ip[0]);
	}
	modules_walk_end();
}

void sampler_on_sample(int sig, siginfo_t *info, void *uctx)
{
	struct sampler_thread *s = sampler_self;

	(void)sig;
	if (!s) {
		atomic_fetch_add_explicit(&sampler.unattached, 1,
					  memory_order_relaxed);
		return;
	}
	__atomic_store_n(&s->signalled, true, __ATOMIC_RELEASE);
	/* A CPU-time timer is checked at the kernel's ticks: when a tick
	 * finds more than one period used up, one signal comes for all of
	 * them, and the rest are its overrun. */
	uint64_t periods = 1;
	if (info && info->si_code == SI_TIMER && info->si_overrun > 0)
		periods += (uint64_t)info->si_overrun;
	/* (Not timed before the cost clock is chosen: the choice is not
	 * for a handler to make.) */
	bool timed = clock_is_chosen();
	uint64_t start = timed ? clock_ticks() : 0;
	bool in_program = false;
	if (!atomic_load_explicit(&sampler.on, memory_order_relaxed)) {
		/* a signal still in flight when sampling was turned off */
	} else if ((s->busy && *s->busy) ||
		   __atomic_load_n(&kept.walking, __ATOMIC_RELAXED)) {
		/* (The library walking its kept samples uses the handler's
		 * scratch space too.) */
		drop(s, DROP_IN_LIBRARY, periods);
	} else if (modules_loader_busy()) {
		drop(s, DROP_IN_LOADER, periods);
	} else {
		/* libunwind calls dl_iterate_phdr and sigprocmask, which are
		 * hooked: inside a handler of the library's the hooks go
		 * straight through, recording nothing and taking no lock of
		 * the library's (the interrupted code may hold one), and
		 * answer sigprocmask without the kernel: every signal is
		 * blocked already (signals.h). */
		take_sample(s, uctx, periods);
		in_program = true;
	}
	sampler_judge_waits(s, periods);
	uint64_t ticks = timed ? clock_ticks() - start : 0;
	cct_add(&s->handler_ticks, ticks);
	/* The program's code was interrupted, perhaps inside a measured
	 * activation, whose cost must not have the library's time in it.
	 * (Inside the library's code, the call that was interrupted keeps
	 * its own time out, or charges its estimate.) */
	if (in_program && sampler.exclude_ticks &&
	    sampler.exclude_ticks(s->owner, ticks))
		cct_add(&s->handed_ticks, ticks);
}

unsigned sampler_capture(struct sampler_thread *s, struct cct_step *steps,
			 unsigned max)
{
	struct scratch *x = scratch;
	const struct modules_view *view;

	if (!x || !(view = modules_walk_begin()))
		return 0;
	unsigned n = unwind_frames_here(&s->stack, view, x->ip, x->sp,
					MAX_FRAMES);
	/* Leave out the library's own frames (this function and the
	 * pthread_create hook). */
	unsigned first = 0;
	while (first < n && in_own_module(view, x->ip[first]))
		first++;
	if (modules_library() == UINT32_MAX)
		first = n > 2 ? 2 : n;
	unsigned depth = open_regions_of(s, x->regions, CCT_MAX_DEPTH);
	unsigned len = build_path(s, view, x, first, n, x->regions, depth,
				  steps, max);
	modules_walk_end();
	return len;
}
