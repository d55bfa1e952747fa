/*
 * selection.c - which activations are measured (see selection.h): the
 * settings, each thread's slots for its regions, and TRMS_BUDGET's
 * adaptation of the rates.
 */
#define _GNU_SOURCE
#include "runtime/selection.h"

#include <dlfcn.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/config.h"
#include "base/fnv1a.h"
#include "base/log.h"
#include "engine/region.h"
#include "base/vm.h"

struct selection_settings selection;

void selection_configure(void)
{
	memset(&selection, 0, sizeof(selection));
	selection.threshold = SELECTION_ALWAYS / config.activation_sample;
	selection.budget = config.budget_centi != 0;
	selection.on = config.activation_sample > 1 || selection.budget ||
		       config.partition_count > 1;
	selection.route = selection.on		  ? ROUTE_SELECTED
			  : config.cost == COST_NS ? ROUTE_NS
						   : ROUTE_EVENTS;
	/* Partitions alone are exact to the last count, the kinds of
	 * induced reads included: a thread's reads outside its measured
	 * activations still stamp its cells (see docs/production.md). */
	selection.outside_reads = (config.activation_sample == 1 &&
				   !selection.budget) ||
				  config.exact_kinds;
	gate_configure(selection.on && !selection.outside_reads, selection.on);
}

void selection_thread_init(struct selection_thread *s, uint64_t seed,
			   struct trms_thread_gate_v1_ *gate)
{
	memset(s, 0, sizeof(*s));
	s->gate = gate;
	/* xorshift must not start at 0. */
	s->rng = (seed * 0x9e3779b97f4a7c15ull) | 1;
	/* The first candidate starts the first period (everything is
	 * measured until it can be adapted: the sooner the better). */
	s->until_check = s->check_interval = 1;
}

void selection_thread_fini(struct selection_thread *s)
{
	if (s->capacity)
		vm_free(s->regions, s->capacity * sizeof(*s->regions));
	s->regions = NULL;
	s->capacity = 0;
}

void selection_after_fork(struct selection_thread *s)
{
	selection_slots_sync(s);
	for (uint32_t id = 0; id < s->capacity; id++)
		s->regions[id].activations = s->regions[id].measured = 0;
	/* The child's thread CPU clock starts at 0: a new period. */
	s->period_start_ticks = 0;
	s->overspent = 0;
	s->until_check = s->check_interval = 1;
}

/*
 * The part of the partition a region falls in: FNV-1a of its name's text,
 * modulo the number of parts, so that every copy of a program puts each
 * region in the same part.  A function (`trms cc`) is named by its
 * address until the profile is written: its part comes from its address
 * relative to its object and the object's name, the same in every copy.
 */
static uint64_t partition_hash(uint32_t id)
{
	uintptr_t fn;

	if (region_function(id, &fn)) {
		uint64_t h = FNV1A_OFFSET;
		uintptr_t offset = fn;
		Dl_info info;
		if (dladdr((void *)fn, &info) && info.dli_fname) {
			const char *base = strrchr(info.dli_fname, '/');
			base = base ? base + 1 : info.dli_fname;
			h = fnv1a_bytes(base, strlen(base), h);
			offset = fn - (uintptr_t)info.dli_fbase;
		}
		return fnv1a_bytes(&offset, sizeof(offset), h);
	}
	return fnv1a_string(region_name(id));
}

static bool partition_member(uint32_t id)
{
	if (config.partition_count <= 1)
		return true;
	return partition_hash(id) % config.partition_count ==
	       config.partition_index - 1;
}

/* Room for region @id in @s: a larger array, the old one kept (the
 * profile writer may be reading it; growth doubles, so what is kept is
 * at most what is used). */
static bool grow(struct selection_thread *s, uint32_t id)
{
	uint32_t capacity = s->capacity ? s->capacity : 64;

	while (capacity <= id)
		capacity *= 2;
	struct selection_region *regions =
		vm_alloc(capacity * sizeof(*regions));
	if (!regions)
		return false;
	if (s->capacity)
		memcpy(regions, s->regions, s->capacity * sizeof(*regions));
	/* The array first, then the capacity that makes it readable. */
	__atomic_store_n(&s->regions, regions, __ATOMIC_RELEASE);
	__atomic_store_n(&s->capacity, capacity, __ATOMIC_RELEASE);
	return true;
}

struct selection_region *selection_region_setup(struct selection_thread *s,
						uint32_t id)
{
	if (id >= REGION_MAX || (id >= s->capacity && !grow(s, id)))
		return NULL;
	struct selection_region *r = &s->regions[id];
	r->member = partition_member(id);
	r->threshold = r->member ? selection.threshold : 0;
	r->countdown = selection_draw(s, r->threshold);
	r->known = true;
	return r;
}

/* ---- Countdowns ---- */

/* ln(x) for x > 0, without libm (the library links none: one object
 * fewer to load into every process), to about 1e-7: x = m 2^e with m in
 * [1, 2), ln m from the series of atanh((m - 1) / (m + 1)). */
static double ln(double x)
{
	union { double d; uint64_t u; } v = { x };
	int e = (int)((v.u >> 52) & 0x7ff) - 1023;
	v.u = (v.u & ((1ull << 52) - 1)) | (1023ull << 52);
	double t = (v.d - 1) / (v.d + 1), t2 = t * t;
	double series = t * (2 + t2 * (2.0 / 3 + t2 * (2.0 / 5 + t2 *
			(2.0 / 7 + t2 * (2.0 / 9 + t2 * (2.0 / 11 +
			t2 * (2.0 / 13)))))));
	return e * 0.69314718055994530942 + series;
}

/* ln(1 - p) for 0 < p < 1, accurate for small p too. */
static double ln_complement(double p)
{
	if (p > 0.125)
		return ln(1 - p);
	double sum = 0, power = p;
	for (int k = 1; k <= 16; k++, power *= p)
		sum += power / k;
	return -sum;
}

static uint64_t next_random(struct selection_thread *s)
{
	/* xorshift64: random enough that periodic behaviour does not alias
	 * with the choices, and a few instructions. */
	uint64_t x = s->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	s->rng = x;
	return x;
}

/* The number of failures before the first success of trials that each
 * succeed with probability p = @threshold / SELECTION_ALWAYS: floor(ln U /
 * ln(1 - p)) for U uniform in (0, 1]. */
uint64_t selection_draw(struct selection_thread *s, uint64_t threshold)
{
	if (threshold >= SELECTION_ALWAYS)
		return 0;
	if (threshold == 0)
		return UINT64_MAX;
	double p = (double)threshold / (double)SELECTION_ALWAYS;
	double u = (double)((next_random(s) >> 11) + 1) * 0x1p-53;
	double g = ln(u) / ln_complement(p);
	return g >= 0x1p63 ? UINT64_MAX : (uint64_t)g;
}

/* ---- The gate's slots ---- */

void selection_slot_sync(struct selection_thread *s, unsigned i)
{
	struct trms_gate_slot_v1_ *g = &s->gate->slot[i];
	struct selection_slot *slot = &s->slots[i];
	struct selection_region *r = &s->regions[slot->id];
	uint64_t left = g->skip, taken = slot->set > left ? slot->set - left : 0;

	if (taken > r->countdown)
		taken = r->countdown;
	r->countdown -= taken;
	r->activations += taken;
	r->period_candidates += taken;
	slot->set = left;
	/* Begins towards the budget's next look (the next begin that
	 * reaches the library makes it, if it is due). */
	if (selection.budget)
		s->until_check = taken < s->until_check
					 ? s->until_check - (uint32_t)taken
					 : 1;
}

void selection_slot_publish(struct selection_thread *s,
			    const struct selection_region *r)
{
	unsigned i = r->slot - 1;
	uint64_t skip = s->measuring ? 0 : r->countdown;

	/* With a budget, no more than until the next look: the library
	 * must see the begins to end its periods and adapt its rates (a
	 * countdown drawn at a low rate would else hold until it ran
	 * out, the rate unchanged however the program changed). */
	uint64_t room = s->until_check ? s->until_check - 1 : 0;
	if (selection.budget && skip > room)
		skip = room;
	s->gate->slot[i].skip = s->slots[i].set = skip;
}

void selection_slots_sync(struct selection_thread *s)
{
	for (unsigned i = 0; s->gate && i < TRMS_GATE_SLOTS_; i++)
		if (s->gate->slot[i].name)
			selection_slot_sync(s, i);
}

/* The slots' countdowns from their regions again (after the library
 * changed them). */
static void slots_publish(struct selection_thread *s)
{
	for (unsigned i = 0; s->gate && i < TRMS_GATE_SLOTS_; i++)
		if (s->gate->slot[i].name)
			selection_slot_publish(s,
					       &s->regions[s->slots[i].id]);
}

/* Slot @i empty again, its region's countdown back with the library. */
static void slot_free(struct selection_thread *s, unsigned i)
{
	struct trms_gate_slot_v1_ *g = &s->gate->slot[i];

	if (!g->name)
		return;
	selection_slot_sync(s, i);
	s->regions[s->slots[i].id].slot = 0;
	g->skip = 0;
	g->name = NULL;
	s->slots[i].set = 0;
}

void selection_slot_put(struct selection_thread *s,
			struct selection_region *r, uint32_t id,
			const char *name)
{
	if (!s->gate || !gate_mode.begins || !name)
		return;
	unsigned i = (unsigned)TRMS_GATE_SLOT_(name);
	struct trms_gate_slot_v1_ *g = &s->gate->slot[i];
	if (r->slot != i + 1) {
		slot_free(s, i);
		if (r->slot)
			slot_free(s, r->slot - 1);
		g->name = name;
		s->slots[i].id = id;
		r->slot = (uint8_t)(i + 1);
	}
	selection_slot_publish(s, r);
}

void selection_measuring(struct selection_thread *s, bool on)
{
	if (s->measuring == on)
		return;
	/* Every begin calls while measuring: the slots give back their
	 * countdowns, and take them again after. */
	if (on)
		selection_slots_sync(s);
	s->measuring = on;
	slots_publish(s);
	if (s->gate)
		gate_measuring(s->gate, on);
}

/* ---- TRMS_BUDGET ---- */

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The level L at which giving each region min(its demand, L) spends
 * @avail: the fair share (max-min fairness) of the budget, so that a
 * region that costs little at full rate is measured whole and a costly
 * one cannot starve the rest.  Found by bisection: the demands are
 * ticks, a few dozen steps make it exact enough.
 */
static double fair_level(const struct selection_thread *s, double avail)
{
	double lo = 0, hi = avail;

	for (int step = 0; step < 48; step++) {
		double mid = (lo + hi) / 2, spent = 0;
		for (uint32_t id = 0; id < s->capacity; id++) {
			const struct selection_region *r = &s->regions[id];
			if (!r->known || !r->member || !r->period_candidates)
				continue;
			double demand = (double)r->ticks_per_chosen *
					r->period_candidates;
			spent += demand < mid ? demand : mid;
		}
		if (spent > avail)
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/* A region's threshold never goes below this: about one candidate in a
 * million stays measured, so that no region vanishes from the profile.
 * (A region starts measured whole, until the first period ends.) */
#define SELECTION_MIN_THRESHOLD ((uint64_t)1 << 12)

static void adapt(struct selection_thread *s, double avail)
{
	selection_slots_sync(s);
	double level = fair_level(s, avail);

	for (uint32_t id = 0; id < s->capacity; id++) {
		struct selection_region *r = &s->regions[id];
		if (!r->known || !r->member)
			continue;
		if (r->period_chosen) {
			/* A running average over about four periods. */
			uint64_t per = r->period_ticks / r->period_chosen;
			r->ticks_per_chosen =
				r->ticks_per_chosen
					? (3 * r->ticks_per_chosen + per) / 4
					: per;
		}
		if (r->period_candidates && r->ticks_per_chosen) {
			double demand = (double)r->ticks_per_chosen *
					r->period_candidates;
			double p = demand <= level ? 1.0 : level / demand;
			uint64_t t = (uint64_t)(p * (double)SELECTION_ALWAYS);
			if (t < SELECTION_MIN_THRESHOLD)
				t = SELECTION_MIN_THRESHOLD;
			t = t > SELECTION_ALWAYS ? SELECTION_ALWAYS : t;
			/* A countdown is drawn for a rate: a new rate, a
			 * new countdown (the draws are memoryless). */
			if (t != r->threshold)
				r->countdown = selection_draw(s, t);
			r->threshold = t;
		}
		r->period_candidates = r->period_chosen = 0;
		r->period_ticks = 0;
	}
	slots_publish(s);
}

/* The next look after @begins in @elapsed_ns of a period: about when the
 * period ends. */
static void schedule_check(struct selection_thread *s, uint64_t begins,
			   uint64_t elapsed_ns)
{
	uint64_t left = elapsed_ns < SELECTION_PERIOD_NS
				? SELECTION_PERIOD_NS - elapsed_ns
				: SELECTION_PERIOD_NS;
	uint64_t next = elapsed_ns ? begins * left / elapsed_ns
				   : SELECTION_CHECK_EVERY;

	if (next < SELECTION_CHECK_SOON)
		next = SELECTION_CHECK_SOON;
	if (next > SELECTION_CHECK_EVERY)
		next = SELECTION_CHECK_EVERY;
	s->until_check = s->check_interval = (uint32_t)next;
}

/* A whole period's budget, in clock ticks. */
static uint64_t period_budget_ticks(void)
{
	double ns_per_tick = clock_ns_per_tick();

	if (!(ns_per_tick > 0))
		ns_per_tick = 1.0;
	return (uint64_t)((double)SELECTION_PERIOD_NS / ns_per_tick *
			  config.budget_centi / 10000.0);
}

/* Has the period spent its whole budget inside measured activations
 * (those ended, and the one pending) in @elapsed ticks?  Elapsed time
 * bounds the CPU time from above, so that needs no look at the CPU clock:
 * a region measured whole at start (or grown costly) is then adapted
 * after a few activations, not a whole period of them. */
static bool spent_already(const struct selection_thread *s,
			  uint64_t excluded, uint64_t elapsed,
			  uint64_t elapsed_ns)
{
	uint64_t inside = s->period_inside;

	/* The pending activation's time in this period only. */
	if (s->measured_from)
		inside += excluded - (s->excluded_at_open > s->period_start_excluded
					      ? s->excluded_at_open
					      : s->period_start_excluded);
	double allowed = (double)elapsed * config.budget_centi / 10000.0;
	if ((double)inside > allowed)
		return true;
	/* In debt from earlier periods, a period ends early too, but not
	 * before a sixteenth of it: else, with the debt above what a
	 * period just begun allows, every look (each few begins) would end
	 * one and walk every region (adapt) — on code that calls small
	 * functions millions of times a second, most of the run. */
	return s->overspent > 0 &&
	       elapsed_ns >= SELECTION_PERIOD_NS / SELECTION_EARLY_END_PARTS &&
	       (double)inside + s->overspent > allowed;
}

void selection_budget_check(struct selection_thread *s, uint64_t excluded)
{
	uint64_t now = clock_ticks();
	s->period_begins += s->check_interval;
	if (!s->period_start_ticks) {
		s->period_start_ticks = now;
		s->period_start_cpu_ns = thread_cpu_ns();
		s->period_start_excluded = excluded;
		s->period_begins = 0;
		s->until_check = s->check_interval = SELECTION_CHECK_SOON;
		s->look_after_inside = period_budget_ticks();
		return;
	}
	uint64_t elapsed = now - s->period_start_ticks;
	uint64_t elapsed_ns = clock_ticks_to_ns(elapsed);
	schedule_check(s, s->period_begins, elapsed_ns);
	if (elapsed_ns < SELECTION_PERIOD_NS &&
	    !spent_already(s, excluded, elapsed, elapsed_ns))
		return;
	s->period_begins = 0;
	__atomic_store_n(&s->periods, s->periods + 1, __ATOMIC_RELAXED);
	uint64_t cpu_ns = thread_cpu_ns();
	/* The budget in ticks, less what no rate controls: the library's
	 * time outside measured activations (writes, I/O, the sample
	 * handler's) and the skipped activations' own. */
	double budget = (double)(cpu_ns - s->period_start_cpu_ns) *
			((double)elapsed / (double)elapsed_ns) *
			config.budget_centi / 10000.0;
	uint64_t inside = s->period_inside;
	uint64_t spent = excluded - s->period_start_excluded;
	uint64_t fixed = (spent > inside ? spent - inside : 0) +
			 s->period_skipped * selection.skip_ticks;
	/* What measured activations spent beyond their share is paid back
	 * by the next periods (no credit for spending less: the budget is a
	 * ceiling), up to SELECTION_DEBT_PERIODS periods' budget. */
	double share = budget > (double)fixed ? budget - (double)fixed : 0;
	s->overspent += (double)inside - share;
	if (s->overspent < 0)
		s->overspent = 0;
	if (s->overspent > SELECTION_DEBT_PERIODS * budget)
		s->overspent = SELECTION_DEBT_PERIODS * budget;
	/* Spent beyond the budget inside activations still measured: give
	 * them up (their time counts as fixed, with no end to count it). */
	if (s->measured_from && (double)spent > budget)
		s->give_up = true;
	adapt(s, share > s->overspent ? share - s->overspent : 0);
	s->period_start_ticks = now;
	s->period_start_cpu_ns = cpu_ns;
	s->period_start_excluded = excluded;
	s->period_skipped = 0;
	s->period_inside = 0;
	s->look_after_inside = period_budget_ticks();
}

void selection_for_each_unmeasured(const struct selection_thread *s,
				   void (*fn)(void *ctx, uint32_t region,
					      uint64_t begun,
					      uint64_t measured),
				   void *ctx)
{
	uint32_t capacity = __atomic_load_n(&s->capacity, __ATOMIC_ACQUIRE);
	const struct selection_region *regions =
		__atomic_load_n(&s->regions, __ATOMIC_ACQUIRE);

	for (uint32_t id = 0; id < capacity; id++) {
		const struct selection_region *r = &regions[id];
		uint64_t begun = __atomic_load_n(&r->activations,
						 __ATOMIC_RELAXED) +
				 selection_slot_taken(s, r);
		uint64_t measured =
			__atomic_load_n(&r->measured, __ATOMIC_RELAXED);
		if (r->known && r->member && measured < begun)
			fn(ctx, id, begun, measured);
	}
}
