/*
 * selection.h - which activations are measured.
 *
 * By default every activation is.  Three settings measure fewer, each
 * thread deciding for itself, region by region (docs/production.md):
 *  - TRMS_ACTIVATION_SAMPLE=N: about one candidate in N of each region,
 *    at random;
 *  - TRMS_BUDGET=P: the rate of each region adapted so that the library
 *    takes at most P% of the thread's CPU time (selection.c);
 *  - TRMS_PARTITION=I/K: only the regions whose name falls in part I.
 *
 * A candidate is an activation that begins while none of the thread's
 * pending activations is measured.  Each region on each thread counts
 * down the candidates to skip before its next measured one, drawn so
 * that every candidate is measured with the region's probability,
 * independently of the others (a geometric countdown): the gate's slots
 * (gate.h) hold the countdowns of a few regions, so that the program's
 * own code skips their candidates without a call.  A measured activation is measured
 * whole: every activation nested in it is measured too (those of regions
 * outside the partition are "silent": measured, so that their reads
 * reach the enclosing activations exactly as in a full run, but not
 * recorded).  A candidate that is not chosen is "skipped": its frame is
 * still pushed (it is open, for the sampler and for the checks of ends
 * and jumps) but its clock is not read, nothing is recorded, and while
 * only skipped activations are pending the thread's reads are not
 * recorded either.  Writes are always recorded: another thread's
 * measured activation must see them.  What stays exact: docs/production.md.
 */
#ifndef TRMS_SELECTION_H
#define TRMS_SELECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/gate.h"
#include "engine/region.h"

/* A candidate is measured if 32 random bits are below the threshold. */
#define SELECTION_ALWAYS ((uint64_t)1 << 32)

/* TRMS_BUDGET looks at the clock every so many begins of a thread, and
 * adapts its rates once a period has passed: as many begins as it
 * expects a period to hold, from SELECTION_CHECK_SOON to
 * SELECTION_CHECK_EVERY (costly activations are looked at soon, cheap
 * ones rarely: a look reads the clock). */
#define SELECTION_CHECK_EVERY 256
#define SELECTION_CHECK_SOON 8
#define SELECTION_PERIOD_NS 10000000ull
/* Overspending is paid back, up to so many periods' budget. */
#define SELECTION_DEBT_PERIODS 10
/* A period in debt ends early no sooner than this fraction of it. */
#define SELECTION_EARLY_END_PARTS 16

/* Each region on each thread, by region id. */
struct selection_region {
	uint64_t activations; /* begun: measured or not */
	uint64_t measured;    /* of them, measured (recorded if a member) */
	uint64_t threshold;   /* out of SELECTION_ALWAYS */
	/* Candidates to skip before the next measured one (with a slot,
	 * the slot's is newer: selection_slot_sync). */
	uint64_t countdown;
	bool known;           /* set up (selection_region_setup) */
	bool member;          /* in this process's partition */
	uint8_t slot;         /* 1 + its slot in the gate, or 0 */
	/* TRMS_BUDGET, over the current period: candidates, the chosen ones,
	 * and the library's time inside the chosen ones (clock ticks). */
	uint64_t period_candidates;
	uint32_t period_chosen;
	uint64_t period_ticks;
	/* The library's time per chosen activation, a running average in
	 * ticks (0: not known yet). */
	uint64_t ticks_per_chosen;
};

/* What the library put in a slot of the gate: the region, and the
 * countdown it left there (what the program took since is the
 * difference). */
struct selection_slot {
	uint32_t id;
	uint64_t set;
};

/*
 * The first accesses of a measured activation chosen among skipped ones
 * come after a stretch that left the library's code and shadow out of
 * the caches, which the running estimate does not describe (a 32-int
 * range read cost such an activation 1.3 us more than with every
 * activation measured): SELECTION_COLD_ACCESSES of them are timed
 * exactly, and the rest one in SELECTION_ACCESS_SAMPLE_EVERY (the others
 * charged the estimate those teach), where timing every one cost two
 * clock reads an access, most of such an access's time.
 */
#define SELECTION_COLD_ACCESSES 16
#define SELECTION_ACCESS_SAMPLE_EVERY 8

struct selection_thread {
	/* By region id; a grown array replaces the old one, which is kept:
	 * the profile writer may be reading it. */
	struct selection_region *regions;
	uint32_t capacity;
	/* The thread's gate (gate.h), NULL if it has none, and its slots. */
	struct trms_thread_gate_v1_ *gate;
	struct selection_slot slots[TRMS_GATE_SLOTS_];
	bool measuring; /* told the gate (gate_measuring) */
	/* Index in the engine's stack of the outermost measured frame; 0:
	 * none is pending. */
	size_t measured_from;
	/* Accesses still to time exactly in the measured activation just
	 * chosen (selection_cold_access). */
	uint32_t cold_accesses;
	uint64_t rng;
	/* selection_skip decided for the candidate whose begin goes on:
	 * selection_begin must not count or pick it again. */
	enum { SELECTION_UNDECIDED, SELECTION_DECIDED_MEASURE,
	       SELECTION_DECIDED_SKIP } decided;
	/* The thread's excluded time (cost.h) when the outermost measured
	 * activation began. */
	uint64_t excluded_at_open;
	/* TRMS_BUDGET: candidates until the next look at the clock, and
	 * where the period began. */
	uint32_t until_check;
	uint32_t check_interval; /* until_check's last start */
	uint64_t period_begins;  /* begins counted in the period */
	uint64_t period_start_ticks, period_start_cpu_ns;
	uint64_t period_start_excluded, period_skipped;
	/* Measured activations' time in a period (ticks) past which the
	 * next begin looks at the clock, without waiting for the
	 * check_interval begins: one period's budget, so that costly
	 * activations cannot overspend for several begins (at the start of
	 * a run, every activation is measured until the first look). */
	uint64_t look_after_inside;
	uint64_t period_inside; /* the regions' period_ticks, summed */
	/* TRMS_BUDGET: the time measured activations took beyond their
	 * share of the budget in the periods so far (ticks), which the next
	 * periods pay back: the budget holds over the run, not only period
	 * by period, though the rates are set from costs that lag. */
	double overspent;
	/* TRMS_BUDGET: the measured activations pending cost more than the
	 * budget allows (one that never ends, such as main's in a program
	 * built with trms cc, would otherwise keep everything measured): at
	 * the next begin they are given up, not recorded (activation.h),
	 * and activations become candidates again.  How many were. */
	bool give_up;
	uint64_t given_up;
	/* Budget periods ended, early ones included (meta budget_periods):
	 * each walks every region, so a bounded number per second. */
	uint64_t periods;
};

/* What the settings ask, fixed at start (selection_configure). */
/* The way a begin or an end of the API goes, from selection.on and the
 * cost unit: one test where there were two, on the hottest paths. */
enum selection_route { ROUTE_EVENTS, ROUTE_NS, ROUTE_SELECTED };

struct selection_settings {
	bool on;            /* anything but "measure everything" */
	unsigned char route; /* enum selection_route */
	bool outside_reads; /* record reads outside measured activations */
	bool budget;
	uint64_t threshold; /* TRMS_ACTIVATION_SAMPLE's */
	/* What a skipped activation costs, begin and end, in clock ticks
	 * (calibrate.c, for the budget). */
	uint64_t skip_ticks;
	/* While calibrating: the calibration region's activations are
	 * skipped (to time skip_ticks), else measured. */
	bool calibrating_skips;
};

extern struct selection_settings selection;

/* From the configuration, at start. */
void selection_configure(void);

/* Set up @s for a new thread (@seed differs between threads), whose gate
 * is @gate (or NULL). */
void selection_thread_init(struct selection_thread *s, uint64_t seed,
			   struct trms_thread_gate_v1_ *gate);

/* Give back @s's memory (in a child after fork, for the threads that
 * are not there). */
void selection_thread_fini(struct selection_thread *s);

/* In a child after fork: the counts start over with its profile. */
void selection_after_fork(struct selection_thread *s);

/* @s's slot for region @id, set up on first use; NULL if there is no
 * memory for it. */
struct selection_region *selection_region_setup(struct selection_thread *s,
						uint32_t id);

static inline struct selection_region *
selection_region(struct selection_thread *s, uint32_t id)
{
	if (__builtin_expect(id < s->capacity && s->regions[id].known, 1))
		return &s->regions[id];
	return selection_region_setup(s, id);
}

/* TRMS_BUDGET: adapt the thread's rates if a period has passed, or
 * sooner if the period has already spent more than its budget inside
 * measured activations.  @excluded: the thread's excluded ticks now. */
void selection_budget_check(struct selection_thread *s, uint64_t excluded);

/* A countdown for a region measured with probability @threshold out of
 * SELECTION_ALWAYS: the number of candidates before the next measured
 * one (selection.c). */
uint64_t selection_draw(struct selection_thread *s, uint64_t threshold);

/* Fold what the program took from slot @i since the library last looked
 * into its region's counts. */
void selection_slot_sync(struct selection_thread *s, unsigned i);

/* The same for every slot. */
void selection_slots_sync(struct selection_thread *s);

/* Put region @r (of id @id, named by the literal @name, or NULL) in its
 * slot of the gate, with its countdown (0 while the thread measures: the
 * program then calls for every begin). */
void selection_slot_put(struct selection_thread *s,
			struct selection_region *r, uint32_t id,
			const char *name);

/* The candidates of @r the program skipped in its slot since the library
 * last synced it (for the profile's writer, from another thread: the
 * gate is read while its thread runs, which only lowers the skip). */
static inline uint64_t selection_slot_taken(const struct selection_thread *s,
					    const struct selection_region *r)
{
	const struct trms_thread_gate_v1_ *g = s->gate;
	unsigned slot = __atomic_load_n(&r->slot, __ATOMIC_RELAXED);

	if (!g || !slot)
		return 0;
	uint64_t set = __atomic_load_n(&s->slots[slot - 1].set,
				       __ATOMIC_RELAXED);
	uint64_t left = __atomic_load_n(&g->slot[slot - 1].skip,
					__ATOMIC_RELAXED);
	return set > left ? set - left : 0;
}

/* @r's slot (it has one) takes @r's countdown again, after the library
 * changed it (0 while the thread measures). */
void selection_slot_publish(struct selection_thread *s,
			    const struct selection_region *r);

/* The region's countdown is the library's again (its slot synced). */
static inline void selection_slot_take(struct selection_thread *s,
				       struct selection_region *r)
{
	if (r->slot)
		selection_slot_sync(s, r->slot - 1);
}

/* Whether a candidate of @r is measured: its countdown, or a new one. */
static inline bool selection_pick(struct selection_thread *s,
				  struct selection_region *r,
				  uint64_t excluded)
{
	if (selection.budget) {
		r->period_candidates++;
		if (__builtin_expect(--s->until_check == 0, 0))
			selection_budget_check(s, excluded);
	}
	if (r->threshold >= SELECTION_ALWAYS)
		return true;
	bool skip = r->countdown != 0;
	if (skip)
		r->countdown--;
	else
		r->countdown = selection_draw(s, r->threshold);
	if (r->slot)
		selection_slot_publish(s, r);
	return !skip;
}

/* The thread starts (@on) or stops measuring: the gate is told, and its
 * slots let no begin through while it measures. */
void selection_measuring(struct selection_thread *s, bool on);

/* A candidate of @r was chosen: the outermost measured activation, at
 * depth + 1. */
static inline void selection_chosen(struct selection_thread *s,
				    struct selection_region *r, size_t depth,
				    uint64_t excluded)
{
	s->measured_from = depth + 1;
	s->cold_accesses = SELECTION_COLD_ACCESSES;
	selection_measuring(s, true);
	s->excluded_at_open = excluded;
	if (selection.budget)
		r->period_chosen++;
	r->measured++;
}

/* The quick look at a begin of region @id (its slot set up already) on a
 * thread with no measured activation pending: count it and pick.  @return
 * true if it is skipped; else (or if it is not that case) the begin goes
 * on to selection_begin, which keeps what was decided. */
static inline bool selection_skip(struct selection_thread *s, uint32_t id,
				  uint64_t excluded)
{
	if (s->measured_from || id >= s->capacity || !s->regions[id].known)
		return false;
	struct selection_region *r = &s->regions[id];
	selection_slot_take(s, r);
	r->activations++;
	bool skip = !selection_pick(s, r, excluded);
	s->decided = skip ? SELECTION_DECIDED_SKIP : SELECTION_DECIDED_MEASURE;
	return skip;
}

enum selection_kind {
	SELECTION_MEASURED, /* recorded */
	SELECTION_SILENT,   /* measured, not recorded: outside the partition */
	SELECTION_SKIPPED,  /* not measured */
};

/* An activation of region @id begins on a thread whose engine stack is
 * @depth deep, @excluded its excluded ticks. */
static inline enum selection_kind selection_begin(struct selection_thread *s,
						  uint32_t id, size_t depth,
						  uint64_t excluded)
{
	if (__builtin_expect(id == REGION_CALIBRATION, 0)) {
		if (selection.calibrating_skips && !s->measured_from)
			return SELECTION_SKIPPED;
		if (!s->measured_from)
			s->measured_from = depth + 1;
		return SELECTION_MEASURED;
	}
	struct selection_region *r = selection_region(s, id);

	if (__builtin_expect(!r, 0))
		return s->measured_from ? SELECTION_SILENT : SELECTION_SKIPPED;
	if (__builtin_expect(s->decided != SELECTION_UNDECIDED, 0)) {
		bool skip = s->decided == SELECTION_DECIDED_SKIP;
		s->decided = SELECTION_UNDECIDED;
		if (skip)
			return SELECTION_SKIPPED;
		selection_chosen(s, r, depth, excluded);
		return SELECTION_MEASURED;
	}
	if (!s->measured_from)
		selection_slot_take(s, r);
	r->activations++;
	if (s->measured_from) {
		/* (Inside a measured activation, begins are counted too: a
		 * long one must still be looked at.) */
		if (selection.budget && --s->until_check == 0)
			selection_budget_check(s, excluded);
		if (!r->member)
			return SELECTION_SILENT;
	} else {
		if (!selection_pick(s, r, excluded))
			return SELECTION_SKIPPED;
		selection_chosen(s, r, depth, excluded);
		return SELECTION_MEASURED;
	}
	r->measured++;
	return SELECTION_MEASURED;
}

/* The frame at @depth + 1, of region @id, was popped. */
static inline void selection_end(struct selection_thread *s, uint32_t id,
				 size_t depth, uint64_t excluded)
{
	if (depth >= s->measured_from)
		return;
	s->measured_from = 0;
	if (selection.budget && id < s->capacity) {
		s->regions[id].period_ticks += excluded - s->excluded_at_open;
		s->period_inside += excluded - s->excluded_at_open;
		if (s->period_inside > s->look_after_inside &&
		    s->until_check > 1) {
			/* Look at the next begin; as many begins counted as
			 * have passed. */
			s->check_interval -= s->until_check - 1;
			s->until_check = 1;
		}
	}
	/* (After the look is set: the slots take their countdowns again
	 * only up to it.) */
	selection_measuring(s, false);
}

/* A skipped activation's frame is about to be popped. */
static inline void selection_skipped_end(struct selection_thread *s)
{
	if (selection.budget)
		s->period_skipped++;
}

/* Whether a measured activation is pending on a thread where activations
 * are skipped at all (TRMS_ACTIVATION_SAMPLE above 1, or a budget; not
 * TRMS_PARTITION alone, which keeps some out of the profile but measures
 * every one). */
static inline bool
selection_measuring_among_skipped(const struct selection_thread *s)
{
	return s->measured_from &&
	       (selection.budget || selection.threshold < SELECTION_ALWAYS);
}

/* Is this access of a measured activation among skipped ones one of
 * its first (timed exactly)? */
static inline bool selection_cold_access(struct selection_thread *s)
{
	if (!s->cold_accesses)
		return false;
	s->cold_accesses--;
	return true;
}

/* Reads are not recorded now: only skipped activations are pending (or
 * none), and reads outside measured activations are not kept. */
static inline bool selection_skips_reads(const struct selection_thread *s)
{
	return selection.on && !selection.outside_reads && !s->measured_from;
}

/* Nor a write of @size bytes at @addr: no other thread's measured
 * activation has touched its memory (gate.h). */
static inline bool selection_skips_write(const struct selection_thread *s,
					 uintptr_t addr, size_t size)
{
	return selection_skips_reads(s) && gate_write_free(addr, size);
}

/* The thread measures: the memory it touches is watched (gate.h). */
static inline void selection_watch(const struct selection_thread *s,
				   uintptr_t addr, size_t size)
{
	if (s->measuring)
		gate_watch(addr, size);
}

/* For each region of @s some of whose activations begun were not
 * measured, and that is this process's to count (in its partition: the
 * process that measures a region counts it): @fn with its id, the
 * activations begun and those measured.  Read while the owner runs. */
void selection_for_each_unmeasured(const struct selection_thread *s,
				   void (*fn)(void *ctx, uint32_t region,
					      uint64_t begun,
					      uint64_t measured),
				   void *ctx);

#endif
