/*
 * sample_dump.c - the sampled call trees in the profile: the modules, the
 * trees of every thread, the names of the functions in them, and what the
 * sampler says about itself.
 */
#define _GNU_SOURCE
#include <string.h>

#include "base/elf_symbols.h"
#include "sampler/modules.h"
#include "format/profile_writer.h"
#include "runtime/thread.h"
#include "base/sort.h"
#include "base/vm.h"
#include "output/profile_dump.h"
#include "base/text.h"

/* The frames met in the trees, to be named. */
struct frames {
	uint64_t *keys; /* NULL: no names wanted, or no memory for them */
	size_t n, capacity, bytes;
};

/* Keep @key.  The trees can grow while they are written (a sample whose
 * leaf is in the C library under the writer is recorded), so their size
 * beforehand is only a first guess. */
static void frames_add(struct frames *f, uint64_t key)
{
	if (!f->keys)
		return;
	if (f->n == f->capacity) {
		size_t bytes = 2 * f->bytes;
		uint64_t *more = vm_resize(f->keys, f->bytes, bytes);
		if (!more)
			return; /* the rest go unnamed: trms report names them */
		f->keys = more;
		f->bytes = bytes;
		f->capacity = bytes / sizeof(*f->keys);
	}
	f->keys[f->n++] = key;
}

struct tree_dump {
	struct profile_writer *w;
	uint32_t thread;
	struct frames *frames;
	uint64_t samples; /* in the nodes written */
};

static enum profile_cct_kind kind_of(uint32_t kind)
{
	return kind == CCT_FRAME    ? PROFILE_CCT_FRAME
	       : kind == CCT_REGION ? PROFILE_CCT_REGION
				    : PROFILE_CCT_THREAD;
}

static void dump_node(void *ctx, const struct cct_node *n)
{
	struct tree_dump *d = ctx;
	struct cct_line l = {
		.thread = d->thread,
		.node = n->id,
		.has_parent = n->parent && n->parent->kind != CCT_ROOT,
		.parent = n->parent ? n->parent->id : 0,
		.kind = kind_of(n->kind),
		.samples = cct_load(&n->samples),
		.work = cct_load(&n->work),
		.idleness_millionths = cct_load(&n->idleness),
		.overhead = cct_load(&n->overhead),
		.blocked = cct_load(&n->blocked),
	};

	if (n->kind == CCT_FRAME) {
		l.a = CCT_FRAME_MODULE(n->key);
		l.b = CCT_FRAME_OFFSET(n->key);
		frames_add(d->frames, n->key);
	} else if (n->kind == CCT_REGION) {
		l.a = n->key;
	}
	d->samples += l.samples;
	profile_writer_cct(d->w, &l);
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct naming {
	struct profile_writer *w;
	uint32_t module;
	const uint64_t *offsets;
};

static void name_frame(void *ctx, size_t i, const char *name,
		       uintptr_t in_symbol)
{
	struct naming *n = ctx;

	profile_writer_symbol(n->w, n->module, n->offsets[i], name, in_symbol);
}

/* Names for every distinct frame, one module's symbol table at a time,
 * each scanned once for all of its frames (not loaded and sorted: a
 * process with a sample in cc1 spent 23 ms on its 27,000 symbols). */
static void write_symbols(struct profile_writer *w, struct frames *f)
{
	uint32_t n_modules;
	const struct module *modules = modules_all(&n_modules);
	size_t n = 0;

	sort_in_place(f->keys, f->n, sizeof(*f->keys), by_key);
	/* Distinct keys, which are module and offset: a module's frames
	 * are a run of ascending offsets. */
	for (size_t i = 0; i < f->n; i++)
		if (!n || f->keys[i] != f->keys[n - 1])
			f->keys[n++] = f->keys[i];
	for (size_t first = 0, end; first < n; first = end) {
		uint32_t module = CCT_FRAME_MODULE(f->keys[first]);
		for (end = first; end < n &&
				  CCT_FRAME_MODULE(f->keys[end]) == module;
		     end++)
			f->keys[end] = CCT_FRAME_OFFSET(f->keys[end]);
		if (module >= n_modules)
			continue;
		struct naming naming = { w, module, f->keys + first };
		elf_symbols_name(modules[module].path, f->keys + first,
				 end - first, name_frame, &naming);
	}
}

/* The elapsed time of every thread, live or dead (runtime.lock held). */
static uint64_t threads_elapsed_ns(void)
{
	uint64_t now = clock_monotonic_ns(), sum = 0;
	struct trms_thread *t;

	cds_list_for_each_entry(t, &runtime.threads, link) {
		uint64_t until = __atomic_load_n(&t->alive_until_ns,
						 __ATOMIC_RELAXED);
		uint64_t from = t->alive_from_ns;
		if (!until)
			until = now;
		if (until > from)
			sum += until - from;
	}
	return sum;
}

/* @samples: those in the trees as written.  Other threads may still be
 * sampling while the profile is written: the count is the one the file's
 * cct lines add up to. */
static void write_totals(struct profile_writer *w, uint64_t samples)
{
	struct sampler_totals s;

	profile_sampler_totals(&s);
	s.samples = samples;
	profile_writer_meta(w, PROFILE_META_SAMPLE_CLOCK, s.clock);
	profile_writer_meta(w, PROFILE_META_SAMPLE_SOURCE, s.source);
	profile_writer_meta_u64(w, PROFILE_META_SAMPLE_THREADS_LEFT_PERF,
				s.threads_left_perf);
	profile_writer_meta(w, PROFILE_META_SAMPLE_KERNEL,
			    s.kernel ? "yes" : "no");
	profile_writer_meta_u64(w, PROFILE_META_SAMPLE_HZ, s.hz);
	profile_writer_meta_u64(w, PROFILE_META_SAMPLE_SIGNAL,
				(uint64_t)s.signal);
	profile_writer_meta_u64(w, PROFILE_META_SAMPLES, s.samples);
	profile_writer_meta_u64(w, PROFILE_META_SAMPLES_OVERRUN, s.overrun);
	for (int i = 0; i < SAMPLE_DROPS; i++) {
		char key[64];
		text_format(key, sizeof(key), PROFILE_META_SAMPLES_DROPPED "%s",
			 sampler_drop_name(i));
		profile_writer_meta_u64(w, key, s.dropped[i]);
	}
	profile_writer_meta_u64(w, PROFILE_META_SAMPLES_UNATTACHED,
				s.unattached);
	profile_writer_meta_u64(w, PROFILE_META_SAMPLE_HANDLER_NS,
				clock_ticks_to_ns(s.handler_ticks));
	profile_writer_meta_u64(w, PROFILE_META_SAMPLE_CPU_NS, s.cpu_ns);
	/* The rate delivered: samples per second of what the sampling clock
	 * counts, each thread's CPU time, or (wall) each thread's elapsed
	 * time. */
	uint64_t per = s.cpu_ns;
	if (!strcmp(s.clock, "wall")) {
		per = threads_elapsed_ns();
		profile_writer_meta_u64(w, PROFILE_META_SAMPLE_ELAPSED_NS, per);
	}
	if (per)
		profile_writer_meta_u64(
			w, PROFILE_META_SAMPLE_HZ_DELIVERED,
			(uint64_t)((double)s.samples * 1e9 / (double)per +
				   0.5));
}

/* Called with runtime.lock held. */
void sample_dump(struct profile_writer *w, bool with_names)
{
	uint32_t n_modules;
	const struct module *modules = modules_all(&n_modules);
	struct frames frames = { 0 };
	struct trms_thread *t;
	uint64_t samples = 0;

	if (!sampler_active())
		return;
	for (uint32_t i = 0; i < n_modules; i++)
		profile_writer_module(w, modules[i].id, modules[i].start,
				      modules[i].end, modules[i].base,
				      modules[i].unloaded, modules[i].path);
	cds_list_for_each_entry(t, &runtime.threads, link)
		frames.capacity += __atomic_load_n(&t->sampler.cct.nodes,
						   __ATOMIC_RELAXED);
	frames.bytes = (frames.capacity + 1) * sizeof(*frames.keys);
	frames.keys = with_names ? vm_alloc(frames.bytes) : NULL;
	cds_list_for_each_entry(t, &runtime.threads, link) {
		struct tree_dump d = { w, t->ordinal, &frames, 0 };
		cct_walk(&t->sampler.cct, dump_node, &d);
		samples += d.samples;
	}
	write_totals(w, samples);
	if (frames.keys) {
		write_symbols(w, &frames);
		vm_free(frames.keys, frames.bytes);
	}
}
