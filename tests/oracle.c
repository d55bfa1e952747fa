/*
 * oracle.c - the naive test oracle for trms and rms (see oracle.h).
 *
 * Written straight from DESIGN §2, literally, with explicit sets: every
 * pending activation owns its own set L (for trms) and R (for rms), and
 * every event is applied to every activation it concerns, one cell at a
 * time.  Nothing here is shared with or copied from the engine, and this
 * file must never be changed to agree with the engine.
 *
 * Cost per event: O(cells of the event x pending activations), each set
 * operation being an expected O(1) hash-table operation.
 */
#include "oracle.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fprintf(stderr, "oracle: out of memory\n");
		abort();
	}
	return p;
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	/* n * size cannot overflow for anything that fits in memory. */
	size_t bytes = n * size;
	void *q = realloc(p, bytes ? bytes : 1);

	if (!q) {
		fprintf(stderr, "oracle: out of memory\n");
		abort();
	}
	return q;
}

/*
 * A hash table from uint64 keys to uint64 values: open addressing, linear
 * probing, tombstones for deletion.  Used both as a set of cells (values
 * ignored) and as a map from cells to numbers.
 *
 * Invariant: a probe for a key stops at the first EMPTY slot, so a key
 * present in the table is always found before an EMPTY slot; deleting
 * marks DELETED (never EMPTY) to keep that true.  used = FULL + DELETED
 * slots is kept at most half the capacity, so probes always terminate.
 */
enum { SLOT_EMPTY = 0, SLOT_FULL = 1, SLOT_DELETED = 2 };

struct table {
	uint64_t *keys;
	uint64_t *vals;
	unsigned char *state;
	size_t cap;   /* power of two, or 0 before the first insertion */
	size_t used;  /* FULL + DELETED slots */
	size_t count; /* FULL slots */
};

static void table_init(struct table *tb)
{
	memset(tb, 0, sizeof(*tb));
}

static void table_free(struct table *tb)
{
	free(tb->keys);
	free(tb->vals);
	free(tb->state);
	table_init(tb);
}

static size_t hash_cell(uint64_t k)
{
	/* splitmix64 finaliser: neighbouring cells must not cluster. */
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebull;
	k ^= k >> 31;
	return (size_t)k;
}

/* The slot holding @key, or SIZE_MAX. */
static size_t table_find(const struct table *tb, uint64_t key)
{
	if (!tb->cap)
		return SIZE_MAX;
	size_t mask = tb->cap - 1;
	for (size_t i = hash_cell(key) & mask;; i = (i + 1) & mask) {
		if (tb->state[i] == SLOT_EMPTY)
			return SIZE_MAX;
		if (tb->state[i] == SLOT_FULL && tb->keys[i] == key)
			return i;
	}
}

static bool table_has(const struct table *tb, uint64_t key)
{
	return table_find(tb, key) != SIZE_MAX;
}

static uint64_t table_get(const struct table *tb, uint64_t key, uint64_t dflt)
{
	size_t i = table_find(tb, key);

	return i == SIZE_MAX ? dflt : tb->vals[i];
}

static void table_put(struct table *tb, uint64_t key, uint64_t val);

/* Rebuild with room for twice the live entries, dropping tombstones. */
static void table_rehash(struct table *tb)
{
	struct table old = *tb;
	size_t cap = 16;

	while (cap < 4 * (old.count + 1))
		cap *= 2;
	tb->keys = xcalloc(cap, sizeof(*tb->keys));
	tb->vals = xcalloc(cap, sizeof(*tb->vals));
	tb->state = xcalloc(cap, sizeof(*tb->state));
	tb->cap = cap;
	tb->used = 0;
	tb->count = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.state[i] == SLOT_FULL)
			table_put(tb, old.keys[i], old.vals[i]);
	table_free(&old);
}

/* Insert @key, or overwrite its value. */
static void table_put(struct table *tb, uint64_t key, uint64_t val)
{
	size_t i = table_find(tb, key);

	if (i != SIZE_MAX) {
		tb->vals[i] = val;
		return;
	}
	if (2 * (tb->used + 1) > tb->cap)
		table_rehash(tb);
	size_t mask = tb->cap - 1;
	/* The key is absent: the first non-FULL slot on its probe path is
	 * free to take, whether EMPTY or DELETED. */
	for (i = hash_cell(key) & mask; tb->state[i] == SLOT_FULL;
	     i = (i + 1) & mask)
		;
	if (tb->state[i] == SLOT_EMPTY)
		tb->used++;
	tb->state[i] = SLOT_FULL;
	tb->keys[i] = key;
	tb->vals[i] = val;
	tb->count++;
}

static void table_add(struct table *tb, uint64_t key)
{
	if (!table_has(tb, key))
		table_put(tb, key, 0);
}

static void table_del(struct table *tb, uint64_t key)
{
	size_t i = table_find(tb, key);

	if (i == SIZE_MAX)
		return;
	tb->state[i] = SLOT_DELETED;
	tb->count--;
}

/* ------------------------------------------------------------------ */

/* One pending activation, with its own explicit sets. */
struct act {
	struct oracle_activation out;
	struct table L; /* cells accessed since it began, shrunk by foreign writes */
	struct table R; /* cells accessed since it began, never shrunk */
};

struct thread {
	struct act *stack; /* [0] outermost .. [depth-1] innermost */
	size_t depth, cap;
	/* cell -> write serial of the cell as of this thread's latest
	 * access to it; equal to the cell's current serial iff the thread
	 * has accessed the cell since the latest write to it. */
	struct table seen;
};

/* Who made the latest write to a cell (value in state.writer). */
#define WRITER_NONE 0	/* never written (absent from the map) */
#define WRITER_KERNEL 1 /* a kwrite */
#define WRITER_THREAD(i) ((uint64_t)(i) + 2)

struct state {
	const struct trace *t;
	struct thread *threads; /* by dense index */
	size_t n_threads;
	struct table writer; /* cell -> WRITER_* of the latest write */
	struct table serial; /* cell -> number of writes to it so far */
	void (*emit)(void *ctx, const struct oracle_activation *a);
	void *ctx;
};

static void push(struct state *s, uint32_t th, uint32_t name)
{
	struct thread *tp = &s->threads[th];

	if (tp->depth == tp->cap) {
		tp->cap = tp->cap ? 2 * tp->cap : 8;
		tp->stack = xrealloc(tp->stack, tp->cap, sizeof(*tp->stack));
	}
	struct act *a = &tp->stack[tp->depth++];
	memset(a, 0, sizeof(*a));
	a->out.tid = s->t->tids[th];
	a->out.name = name;
	table_init(&a->L);
	table_init(&a->R);
}

/* Complete the innermost activation of @th: report it, then forget it. */
static void pop(struct state *s, uint32_t th)
{
	struct thread *tp = &s->threads[th];
	struct act *a = &tp->stack[--tp->depth];

	if (s->emit)
		s->emit(s->ctx, &a->out);
	table_free(&a->L);
	table_free(&a->R);
}

/* read(ℓ) by @th (also kread, which is treated exactly as a read). */
static void read_cell(struct state *s, uint32_t th, uint64_t cell)
{
	struct thread *tp = &s->threads[th];
	uint64_t writer = table_get(&s->writer, cell, WRITER_NONE);
	uint64_t serial = table_get(&s->serial, cell, 0);
	/* Induced: the latest write exists, is not th's own, and th has not
	 * accessed the cell since it. */
	bool induced = writer != WRITER_NONE && writer != WRITER_THREAD(th) &&
		       table_get(&tp->seen, cell, 0) != serial;

	for (size_t i = 0; i < tp->depth; i++) {
		struct act *a = &tp->stack[i];

		/* Count first, then add the cell to the sets. */
		if (induced || !table_has(&a->L, cell))
			a->out.trms++;
		if (induced) {
			if (writer == WRITER_KERNEL)
				a->out.induced_external++;
			else
				a->out.induced_thread++;
		}
		if (!table_has(&a->R, cell))
			a->out.rms++;
		table_add(&a->L, cell);
		table_add(&a->R, cell);
	}
	table_put(&tp->seen, cell, serial);
}

/* Remove @cell from L of every pending activation of every thread except
 * @except (pass SIZE_MAX for a kwrite: no thread is spared). */
static void foreign_write(struct state *s, size_t except, uint64_t cell)
{
	for (size_t u = 0; u < s->n_threads; u++) {
		if (u == except)
			continue;
		struct thread *up = &s->threads[u];
		for (size_t i = 0; i < up->depth; i++)
			table_del(&up->stack[i].L, cell);
	}
}

/* write(ℓ) by @th. */
static void write_cell(struct state *s, uint32_t th, uint64_t cell)
{
	struct thread *tp = &s->threads[th];
	uint64_t serial = table_get(&s->serial, cell, 0) + 1;

	for (size_t i = 0; i < tp->depth; i++) {
		table_add(&tp->stack[i].L, cell);
		table_add(&tp->stack[i].R, cell);
	}
	foreign_write(s, th, cell);
	table_put(&s->serial, cell, serial);
	table_put(&s->writer, cell, WRITER_THREAD(th));
	/* The write is itself an access by th since the (new) latest write. */
	table_put(&tp->seen, cell, serial);
}

/* kwrite(ℓ) caused by some thread: a write by nobody. */
static void kwrite_cell(struct state *s, uint64_t cell)
{
	foreign_write(s, SIZE_MAX, cell);
	table_put(&s->serial, cell, table_get(&s->serial, cell, 0) + 1);
	table_put(&s->writer, cell, WRITER_KERNEL);
	/* No thread's "seen" is touched, so no thread has accessed the cell
	 * since this write, the issuing thread included. */
}

/* Check the whole trace first, so a malformed one produces no output. */
static bool well_formed(const struct trace *t, unsigned granularity)
{
	size_t *depth;
	bool ok = true;

	if (granularity != 1 && granularity != 2 && granularity != 4 &&
	    granularity != 8 && granularity != 16)
		return false;
	depth = xcalloc(t->n_threads, sizeof(*depth));
	for (size_t k = 0; k < t->n_events && ok; k++) {
		const struct trace_event *e = &t->events[k];

		if (e->thread >= t->n_threads) {
			ok = false;
			break;
		}
		switch (e->op) {
		case TRACE_CALL:
			ok = e->name < t->n_names;
			depth[e->thread]++;
			break;
		case TRACE_RETURN:
			ok = depth[e->thread] > 0;
			depth[e->thread]--;
			break;
		case TRACE_READ:
		case TRACE_WRITE:
		case TRACE_KREAD:
		case TRACE_KWRITE:
			/* [addr, addr+size) must be non-empty and not wrap. */
			ok = e->size >= 1 && e->addr + (e->size - 1) >= e->addr;
			break;
		default:
			ok = false;
		}
	}
	free(depth);
	return ok;
}

struct tid_index {
	uint64_t tid;
	uint32_t thread;
};

static int cmp_tid(const void *pa, const void *pb)
{
	uint64_t a = ((const struct tid_index *)pa)->tid;
	uint64_t b = ((const struct tid_index *)pb)->tid;

	return a < b ? -1 : a > b;
}

int oracle_run(const struct trace *t, unsigned granularity,
	       void (*emit)(void *ctx, const struct oracle_activation *a),
	       void *ctx)
{
	struct state s;

	if (!well_formed(t, granularity))
		return -1;
	memset(&s, 0, sizeof(s));
	s.t = t;
	s.n_threads = t->n_threads;
	s.threads = xcalloc(s.n_threads, sizeof(*s.threads));
	for (size_t i = 0; i < s.n_threads; i++)
		table_init(&s.threads[i].seen);
	table_init(&s.writer);
	table_init(&s.serial);
	s.emit = emit;
	s.ctx = ctx;

	for (size_t k = 0; k < t->n_events; k++) {
		const struct trace_event *e = &t->events[k];
		struct thread *tp = &s.threads[e->thread];

		if (e->op == TRACE_CALL) {
			push(&s, e->thread, e->name);
			continue;
		}
		if (e->op == TRACE_RETURN) {
			pop(&s, e->thread);
			continue;
		}
		/* An access event: one unit of cost for every pending
		 * activation of its thread, whatever the number of cells. */
		for (size_t i = 0; i < tp->depth; i++)
			tp->stack[i].out.cost++;
		uint64_t first = e->addr / granularity;
		uint64_t last = (e->addr + (e->size - 1)) / granularity;
		for (uint64_t c = first;; c++) {
			switch (e->op) {
			case TRACE_READ:
			case TRACE_KREAD:
				read_cell(&s, e->thread, c);
				break;
			case TRACE_WRITE:
				write_cell(&s, e->thread, c);
				break;
			case TRACE_KWRITE:
				kwrite_cell(&s, c);
				break;
			}
			if (c == last) /* not c <= last: last may be the top */
				break;
		}
	}

	/* Close what is still pending: ascending tid, innermost first. */
	struct tid_index *order = xcalloc(s.n_threads, sizeof(*order));
	for (size_t i = 0; i < s.n_threads; i++)
		order[i] = (struct tid_index){ t->tids[i], (uint32_t)i };
	qsort(order, s.n_threads, sizeof(*order), cmp_tid);
	for (size_t i = 0; i < s.n_threads; i++)
		while (s.threads[order[i].thread].depth)
			pop(&s, order[i].thread);
	free(order);

	for (size_t i = 0; i < s.n_threads; i++) {
		free(s.threads[i].stack);
		table_free(&s.threads[i].seen);
	}
	free(s.threads);
	table_free(&s.writer);
	table_free(&s.serial);
	return 0;
}
