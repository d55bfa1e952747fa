/*
 * test_engine.c - the engine on hand-written traces: the worked cases of
 * DESIGN §2, renumbering, granularity, shadow memory and bad input.
 * Expected values come from the definitions, worked out by hand.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "test_util.h"
#include "trace_gen.h"
#include "suite_main.h"

static void run_text(const char *text, unsigned granularity,
		     unsigned stamp_bits, struct results *out,
		     struct trace *t)
{
	trace_from_text(t, text);
	ck_assert_int_eq(engine_results(t, granularity, stamp_bits, out, NULL),
			 0);
}

static void expect(const struct results *r, size_t i, const struct trace *t,
		   const char *name, uint64_t trms, uint64_t rms,
		   uint64_t induced_thread, uint64_t induced_external)
{
	ck_assert_uint_lt(i, r->n);
	const struct result *x = &r->v[i];
	ck_assert_str_eq(t->names[x->name], name);
	ck_assert_uint_eq(x->trms, trms);
	ck_assert_uint_eq(x->rms, rms);
	ck_assert_uint_eq(x->induced_thread, induced_thread);
	ck_assert_uint_eq(x->induced_external, induced_external);
}

/* x, y, z, w are the cells at 0, 4, 8, 12 (K = 4). */
START_TEST(worked_one_thread)
{
	struct results r = { 0 };
	struct trace t;

	run_text("0 call f\n0 read 0 4\n0 write 4 4\n0 call g\n0 read 0 4\n"
		 "0 read 4 4\n0 read 8 4\n0 write 12 4\n0 return\n"
		 "0 read 12 4\n0 return\n",
		 4, 0, &r, &t);
	ck_assert_uint_eq(r.n, 2);
	expect(&r, 0, &t, "g", 3, 3, 0, 0);
	expect(&r, 1, &t, "f", 2, 2, 0, 0);
	ck_assert_uint_eq(r.v[0].cost, 4);
	ck_assert_uint_eq(r.v[1].cost, 7);
	results_free(&r);
	trace_free(&t);
}
END_TEST

START_TEST(worked_foreign_write)
{
	struct results r = { 0 };
	struct trace t;

	run_text("1 call f\n1 read 0 4\n2 write 0 4\n1 read 0 4\n1 return\n",
		 4, 0, &r, &t);
	ck_assert_uint_eq(r.n, 1);
	expect(&r, 0, &t, "f", 2, 1, 1, 0);
	results_free(&r);
	trace_free(&t);
}
END_TEST

START_TEST(worked_foreign_write_nested)
{
	struct results r = { 0 };
	struct trace t;

	run_text("1 call f\n1 read 0 4\n2 write 0 4\n1 call h\n1 read 0 4\n"
		 "1 return\n1 read 0 4\n1 return\n",
		 4, 0, &r, &t);
	ck_assert_uint_eq(r.n, 2);
	expect(&r, 0, &t, "h", 1, 1, 1, 0);
	expect(&r, 1, &t, "f", 2, 1, 1, 0);
	results_free(&r);
	trace_free(&t);
}
END_TEST

START_TEST(worked_producer_consumer)
{
	const unsigned n = 50;
	struct results r = { 0 };
	struct trace t;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fprintf(f, "2 call consumer\n");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "1 write 64 4\n2 read 64 4\n");
	fprintf(f, "2 return\n");
	fclose(f);
	run_text(text, 4, 0, &r, &t);
	ck_assert_uint_eq(r.n, 1);
	expect(&r, 0, &t, "consumer", n, 1, n, 0);
	free(text);
	results_free(&r);
	trace_free(&t);
}
END_TEST

START_TEST(worked_device_reads)
{
	const unsigned n = 40;
	struct results r = { 0 };
	struct trace t;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fprintf(f, "0 call loop\n");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "0 kwrite 100 8\n0 read 100 4\n");
	fprintf(f, "0 return\n");
	fclose(f);
	run_text(text, 4, 0, &r, &t);
	ck_assert_uint_eq(r.n, 1);
	/* The device fills cells 25 and 26; only cell 25 is read. */
	expect(&r, 0, &t, "loop", n, 1, 0, n);
	free(text);
	results_free(&r);
	trace_free(&t);
}
END_TEST

START_TEST(granularity_counts_cells)
{
	static const unsigned k[] = { 1, 2, 4, 8, 16 };
	/* Bytes 5..41: cells 5..41, 2..20, 1..10, 0..5, 0..2. */
	static const uint64_t cells[] = { 37, 19, 10, 6, 3 };

	for (unsigned i = 0; i < 5; i++) {
		struct results r = { 0 };
		struct trace t;
		run_text("0 call f\n0 read 5 37\n0 read 5 37\n0 return\n", k[i],
			 0, &r, &t);
		expect(&r, 0, &t, "f", cells[i], cells[i], 0, 0);
		results_free(&r);
		trace_free(&t);
	}
}
END_TEST

/* A range across a 64 KiB chunk boundary, read by parent and child. */
START_TEST(range_across_chunks)
{
	struct results r = { 0 };
	struct trace t;

	run_text("0 call f\n0 read 0xfff0 64\n0 call g\n0 read 0xffe0 96\n"
		 "0 return\n0 return\n",
		 4, 0, &r, &t);
	expect(&r, 0, &t, "g", 24, 24, 0, 0);
	expect(&r, 1, &t, "f", 24, 24, 0, 0);
	results_free(&r);
	trace_free(&t);
}
END_TEST

/* Earlier accesses spread over several ancestors: the per-cell path. */
START_TEST(first_access_charged_to_each_ancestor)
{
	struct results r = { 0 };
	struct trace t;

	run_text("0 call a\n0 read 0 4\n0 call b\n0 read 4 4\n0 call c\n"
		 "0 read 8 4\n0 call d\n0 read 0 12\n0 return\n0 return\n"
		 "0 return\n0 return\n",
		 4, 0, &r, &t);
	expect(&r, 0, &t, "d", 3, 3, 0, 0);
	expect(&r, 1, &t, "c", 3, 3, 0, 0);
	expect(&r, 2, &t, "b", 3, 3, 0, 0);
	expect(&r, 3, &t, "a", 3, 3, 0, 0);
	results_free(&r);
	trace_free(&t);
}
END_TEST

/* The same worked case with stamps so narrow that every few writes force
 * a renumbering: results must not change. */
START_TEST(renumbering_keeps_results)
{
	struct results wide = { 0 }, narrow = { 0 };
	struct trace t;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	unsigned long renumbers = 0;

	fprintf(f, "1 call outer\n2 call other\n");
	for (unsigned i = 0; i < 3000; i++) {
		fprintf(f, "1 call inner\n1 read %u 8\n2 write %u 4\n",
			(i * 12) % 256, (i * 20) % 256);
		fprintf(f, "1 read %u 16\n0 kwrite %u 4\n1 return\n",
			(i * 28) % 256, (i * 8) % 256);
	}
	fprintf(f, "1 return\n2 return\n");
	fclose(f);
	trace_from_text(&t, text);
	ck_assert_int_eq(engine_results(&t, 4, 0, &wide, NULL), 0);
	ck_assert_int_eq(engine_results(&t, 4, STAMP_MIN_BITS, &narrow,
					&renumbers),
			 0);
	ck_assert_uint_gt(renumbers, 100);
	ck_assert_int_eq(results_compare(&wide, &narrow), -1);
	free(text);
	results_free(&wide);
	results_free(&narrow);
	trace_free(&t);
}
END_TEST

/*
 * Threads that really run in parallel, each on memory of its own, with
 * stamps so narrow that renumbering happens every few hundred writes:
 * calls and returns run outside the engine's operations, concurrently
 * with the renumberings, and each thread's activations must come out as
 * they do when its trace is replayed alone at full width (memory nobody
 * else touches gives results that do not depend on the interleaving).
 */
enum { PARALLEL_THREADS = 4, PARALLEL_EVENTS = 1000000 };

struct parallel_thread {
	pthread_t id;
	struct engine *engine;
	struct trace trace;
	struct results got;
	int rc;
};

static void record_return(struct parallel_thread *p, struct engine_thread *t)
{
	struct activation a;

	if (engine_return(t, t->events, &a) == 0) {
		struct result x = { p->trace.tids[0], a.region, a.trms, a.rms,
				    a.induced_thread, a.induced_external,
				    a.cost };
		results_push(&p->got, &x);
	}
}

static void *run_parallel(void *arg)
{
	struct parallel_thread *p = arg;
	struct engine_thread t;

	p->rc = engine_thread_init(p->engine, &t);
	for (size_t i = 0; !p->rc && i < p->trace.n_events; i++) {
		const struct trace_event *e = &p->trace.events[i];
		switch (e->op) {
		case TRACE_CALL:
			p->rc = engine_call(&t, e->name, 0, NULL, 0, t.events);
			break;
		case TRACE_RETURN:
			record_return(p, &t);
			break;
		case TRACE_READ:
		case TRACE_KREAD:
			engine_count_event(&t);
			p->rc = engine_read(&t, e->addr, e->size);
			break;
		case TRACE_WRITE:
			engine_count_event(&t);
			p->rc = engine_write(&t, e->addr, e->size);
			break;
		case TRACE_KWRITE:
			engine_count_event(&t);
			p->rc = engine_kwrite(&t, e->addr, e->size);
			break;
		}
	}
	while (t.depth)
		record_return(p, &t);
	engine_thread_fini(&t);
	return NULL;
}

START_TEST(parallel_renumbering_keeps_results)
{
	static struct parallel_thread threads[PARALLEL_THREADS];
	struct engine e;
	/* 12 bits: 3 local, 9 of G, room for the 4 x 20 pending frames. */
	struct engine_config narrow = { 4, 12 };
	uint64_t seed = test_seed("engine parallel");

	ck_assert_int_eq(engine_init(&e, &narrow), 0);
	for (unsigned i = 0; i < PARALLEL_THREADS; i++) {
		struct gen_params g = {
			.threads = 1,
			.max_depth = 20,
			.events = PARALLEL_EVENTS,
			.addr_base = 0x100000 + (uint64_t)i * 0x10000,
			.addr_span = 4096,
			.max_size = 64,
			.names = 8,
			.run_length = 1,
		};
		memset(&threads[i], 0, sizeof(threads[i]));
		threads[i].engine = &e;
		trace_init(&threads[i].trace);
		gen_trace(&threads[i].trace, &g, seed + i);
	}
	for (unsigned i = 0; i < PARALLEL_THREADS; i++)
		ck_assert_int_eq(pthread_create(&threads[i].id, NULL,
						run_parallel, &threads[i]),
				 0);
	for (unsigned i = 0; i < PARALLEL_THREADS; i++)
		pthread_join(threads[i].id, NULL);
	unsigned long renumbers = engine_renumber_count(&e);
	printf("parallel: %lu renumberings\n", renumbers);
	ck_assert_uint_gt(renumbers, 100);
	for (unsigned i = 0; i < PARALLEL_THREADS; i++) {
		struct results alone = { 0 };
		ck_assert_int_eq(threads[i].rc, 0);
		ck_assert_int_eq(engine_results(&threads[i].trace, 4, 0, &alone,
						NULL),
				 0);
		long at = results_compare(&alone, &threads[i].got);
		ck_assert_msg(at == -1,
			      "thread %u (seed %llu): activation %ld differs "
			      "from the trace replayed alone",
			      i, (unsigned long long)(seed + i), at);
		results_free(&alone);
		results_free(&threads[i].got);
		trace_free(&threads[i].trace);
	}
	engine_fini(&e);
}
END_TEST

START_TEST(bad_config_rejected)
{
	struct engine e;
	struct engine_config c = { 3, 0 };

	ck_assert_int_eq(engine_init(&e, &c), -EINVAL);
	c.granularity = 32;
	ck_assert_int_eq(engine_init(&e, &c), -EINVAL);
	c.granularity = 4;
	c.stamp_bits = STAMP_MIN_BITS - 1;
	ck_assert_int_eq(engine_init(&e, &c), -EINVAL);
	c.stamp_bits = TRMS_STAMP_BITS + 1;
	ck_assert_int_eq(engine_init(&e, &c), -EINVAL);
}
END_TEST

START_TEST(ranges_outside_address_space)
{
	struct engine e;
	struct engine_thread t;
	struct engine_config c = { 4, 0 };

	ck_assert_int_eq(engine_init(&e, &c), 0);
	ck_assert_int_eq(engine_thread_init(&e, &t), 0);
	ck_assert_int_eq(engine_read(&t, SHADOW_ADDR_LIMIT, 1), -EINVAL);
	ck_assert_int_eq(engine_read(&t, SHADOW_ADDR_LIMIT - 4, 8), -EINVAL);
	ck_assert_int_eq(engine_write(&t, UINTPTR_MAX - 2, 8), -EINVAL);
	ck_assert_int_eq(engine_read(&t, SHADOW_ADDR_LIMIT - 4, 4), 0);
	ck_assert_int_eq(engine_read(&t, 100, 0), 0);
	ck_assert_int_eq(engine_return(&t, 0, &(struct activation){ 0 }),
			 -ENOENT);
	engine_thread_fini(&t);
	engine_fini(&e);
}
END_TEST

START_TEST(shadow_bytes_follow_use)
{
	struct engine e;
	struct engine_thread t;
	struct engine_config c = { 4, 0 };

	ck_assert_int_eq(engine_init(&e, &c), 0);
	size_t base = engine_shadow_bytes(&e);
	ck_assert_uint_gt(base, 0); /* the write table's primary level */
	ck_assert_int_eq(engine_thread_init(&e, &t), 0);
	size_t with_thread = engine_shadow_bytes(&e);
	/* 1 MiB read: 16 chunks of 64 KiB of address, each 16384 cells. */
	static char buf[1 << 20];
	ck_assert_int_eq(engine_read(&t, (uintptr_t)buf, sizeof(buf)), 0);
	size_t chunk = (65536 / 4) * sizeof(stamp_t);
	/* (With the tables of who touched which chunk, owners.h: kept
	 * until the engine ends.) */
	size_t owners = atomic_load(&e.owners.bytes);
	ck_assert_uint_le(owners, 512u << 10);
	ck_assert_uint_ge(engine_shadow_bytes(&e),
			  with_thread + 16 * chunk + owners);
	ck_assert_uint_le(engine_shadow_bytes(&e),
			  with_thread + 17 * chunk + (1u << 20) + owners);
	engine_thread_fini(&t);
	ck_assert_uint_eq(engine_shadow_bytes(&e), base + owners);
	engine_fini(&e);
}
END_TEST

/* Memory forgotten (unmapped, then mapped again) is new to every pending
 * activation of every thread: read again, it counts again, in trms and
 * rms, and it is nobody's write any more (not induced). */
START_TEST(forgotten_memory_is_new)
{
	struct engine e;
	struct engine_thread a, b;
	struct engine_config c = { 4, 0 };
	struct activation out;
	static char buf[3 << 16] __attribute__((aligned(1 << 16)));
	uintptr_t at = (uintptr_t)buf;

	ck_assert_int_eq(engine_init(&e, &c), 0);
	ck_assert_int_eq(engine_thread_init(&e, &a), 0);
	ck_assert_int_eq(engine_thread_init(&e, &b), 0);
	ck_assert_int_eq(engine_call(&a, 0, 0, NULL, 0, 0), 0);
	/* 64 cells in a chunk of their own, 16 at the end of another. */
	ck_assert_int_eq(engine_read(&a, at + (1 << 16), 256), 0);
	ck_assert_int_eq(engine_read(&a, at + (1 << 16) - 64, 64), 0);
	ck_assert_int_eq(engine_write(&b, at + (1 << 16), 256), 0);
	/* b forgets the whole second chunk (its chunks leave the maps)
	 * and 8 cells of the first (zeroed in place). */
	engine_forget(&e, &b, at + (1 << 16) - 32, (1 << 16) + 32);
	ck_assert_int_eq(engine_read(&a, at + (1 << 16), 256), 0);
	ck_assert_int_eq(engine_read(&a, at + (1 << 16) - 64, 64), 0);
	ck_assert_int_eq(engine_return(&a, 0, &out), 0);
	/* First 64 + 16 cells, then all 64 again and the 8 forgotten of
	 * the 16; b's write was forgotten with them: nothing induced. */
	ck_assert_uint_eq(out.trms, 64 + 16 + 64 + 8);
	ck_assert_uint_eq(out.rms, 64 + 16 + 64 + 8);
	ck_assert_uint_eq(out.induced_thread, 0);
	/* Once both threads have left: every chunk of the limbo back (the
	 * second chunk's in the write stamps, a's and b's own). */
	engine_forget_reclaim(&e);
	ck_assert_uint_eq(e.limbo.n, 0);
	ck_assert_uint_eq(atomic_load(&e.forgotten_bytes),
			  3 * (65536 / 4) * sizeof(stamp_t));
	engine_thread_fini(&a);
	engine_thread_fini(&b);
	engine_fini(&e);
}
END_TEST

/* A chunk forgotten while another thread is inside an operation stays in
 * the limbo until that thread has left it. */
START_TEST(forgotten_chunk_waits_for_readers)
{
	struct engine e;
	struct engine_thread a;
	struct engine_config c = { 4, 0 };
	static char buf[2 << 16] __attribute__((aligned(1 << 16)));

	ck_assert_int_eq(engine_init(&e, &c), 0);
	ck_assert_int_eq(engine_thread_init(&e, &a), 0);
	ck_assert_int_eq(engine_read(&a, (uintptr_t)buf, 1 << 16), 0);
	/* As if a were inside an operation (its liburcu-bp nesting), and
	 * had not seen the forgetting. */
	rcu_read_lock();
	engine_forget(&e, NULL, (uintptr_t)buf, 1 << 16);
	ck_assert_uint_eq(e.limbo.n, 1); /* a's own: no write stamps yet */
	engine_forget_reclaim(&e);
	ck_assert_uint_eq(e.limbo.n, 1);
	rcu_read_unlock();
	engine_forget_reclaim(&e);
	ck_assert_uint_eq(e.limbo.n, 0);
	/* The cells read after it are new. */
	ck_assert_int_eq(engine_call(&a, 0, 0, NULL, 0, 0), 0);
	ck_assert_int_eq(engine_read(&a, (uintptr_t)buf, 64), 0);
	struct activation out;
	ck_assert_int_eq(engine_return(&a, 0, &out), 0);
	ck_assert_uint_eq(out.trms, 16);
	engine_thread_fini(&a);
	engine_fini(&e);
}
END_TEST

START_TEST(deep_nesting_grows_stack)
{
	struct engine e;
	struct engine_thread t;
	struct engine_config c = { 4, 0 };
	struct activation a;

	ck_assert_int_eq(engine_init(&e, &c), 0);
	ck_assert_int_eq(engine_thread_init(&e, &t), 0);
	for (unsigned i = 0; i < 10000; i++) {
		ck_assert_int_eq(engine_call(&t, 0, 0, NULL, 0, 0), 0);
		ck_assert_int_eq(engine_read(&t, 4 * i, 4), 0);
	}
	for (unsigned i = 10000; i-- > 0;) {
		ck_assert_int_eq(engine_return(&t, 0, &a), 0);
		ck_assert_uint_eq(a.trms, 10000 - i);
	}
	engine_thread_fini(&t);
	engine_fini(&e);
}
END_TEST

static Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *worked = tcase_create("worked cases");
	TCase *units = tcase_create("units");

	SUITE_TESTS(worked, worked_one_thread, worked_foreign_write,
		    worked_foreign_write_nested, worked_producer_consumer,
		    worked_device_reads);
	suite_add_tcase(s, worked);
	tcase_set_timeout(units, 120);
	SUITE_TESTS(units, granularity_counts_cells, forgotten_memory_is_new,
		    forgotten_chunk_waits_for_readers, range_across_chunks,
		    first_access_charged_to_each_ancestor,
		    renumbering_keeps_results, bad_config_rejected,
		    ranges_outside_address_space, shadow_bytes_follow_use,
		    deep_nesting_grows_stack,
		    parallel_renumbering_keeps_results);
	suite_add_tcase(s, units);
	return s;
}

int main(void)
{
	return run_suite(engine_suite());
}
