/*
 * profile_writer.c - writes a profile file atomically (see
 * profile_writer.h and docs/profile-format.md).
 */
#define _GNU_SOURCE
#include "format/profile_writer.h"

#include <string.h>

static void flush_buffer(struct profile_writer *w)
{
	if (w->len && !w->error) {
		int rc = w->sink(w->sink_ctx, w->buf, w->len);
		if (rc)
			w->error = -rc;
	}
	w->len = 0;
}

static void put_bytes(struct profile_writer *w, const char *s, size_t n)
{
	while (n && !w->error) {
		if (w->len == sizeof(w->buf))
			flush_buffer(w);
		size_t room = sizeof(w->buf) - w->len;
		size_t take = n < room ? n : room;
		memcpy(w->buf + w->len, s, take);
		w->len += take;
		s += take;
		n -= take;
	}
}

static void put(struct profile_writer *w, const char *s)
{
	put_bytes(w, s, strlen(s));
}

static void put_u128(struct profile_writer *w, unsigned __int128 v)
{
	char buf[40];

	put(w, u128_to_text(v, buf));
}

/* " @v": a field that is a number. */
static void put_number(struct profile_writer *w, unsigned __int128 v)
{
	put(w, " ");
	put_u128(w, v);
}

/* A name, escaped as the format says. */
static void put_name(struct profile_writer *w, const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		char byte[3];
		put_bytes(w, byte, profile_escape_byte(*p, byte));
	}
}

/* The first word of a line of kind @kind, and the blank after it. */
static void put_line_word(struct profile_writer *w,
			  enum profile_line_kind kind)
{
	put(w, profile_line_word(kind));
	put(w, " ");
}

static unsigned __int128 scaled(struct profile_writer *w, unsigned __int128 v,
				int power)
{
	if (w->ns_per_tick) {
		w->scale = w->ns_per_tick();
		w->ns_per_tick = NULL;
	}
	if (w->scale == 1.0)
		return v;
	long double x = (long double)v * w->scale;
	if (power == 2)
		x *= w->scale;
	return (unsigned __int128)(x + 0.5L);
}

static int file_sink(void *ctx, const void *buf, size_t n)
{
	return atomic_file_write(ctx, buf, n);
}

void profile_writer_start(struct profile_writer *w, profile_sink *sink,
			  void *ctx)
{
	w->sink = sink;
	w->sink_ctx = ctx;
	w->error = 0;
	w->tuples = 0;
	w->len = 0;
	if (w->scale == 0)
		w->scale = 1.0;
	put(w, PROFILE_MAGIC);
	put_u128(w, w->version ? w->version : PROFILE_FORMAT_OLDEST);
	put(w, "\n");
}

int profile_writer_open(struct profile_writer *w, const char *path)
{
	int rc = atomic_file_open(&w->file, path);

	if (rc)
		return rc;
	profile_writer_start(w, file_sink, &w->file);
	return 0;
}

void profile_writer_meta(struct profile_writer *w, const char *key,
			 const char *value)
{
	put_line_word(w, PROFILE_LINE_META);
	put(w, key);
	if (*value) {
		put(w, " ");
		put_name(w, value);
	}
	put(w, "\n");
}

void profile_writer_meta_raw(struct profile_writer *w, const char *key,
			     const char *value)
{
	put_line_word(w, PROFILE_LINE_META);
	put(w, key);
	if (*value) {
		put(w, " ");
		put(w, value);
	}
	put(w, "\n");
}

void profile_writer_meta_u64(struct profile_writer *w, const char *key,
			     uint64_t value)
{
	put_line_word(w, PROFILE_LINE_META);
	put(w, key);
	put(w, " ");
	put_u128(w, value);
	put(w, "\n");
}

void profile_writer_region(struct profile_writer *w, uint32_t id,
			   const char *name)
{
	put_line_word(w, PROFILE_LINE_REGION);
	put_u128(w, id);
	put(w, " ");
	put_name(w, name);
	put(w, "\n");
}

void profile_writer_object(struct profile_writer *w, uint32_t region,
			   const char *path)
{
	put_line_word(w, PROFILE_LINE_OBJECT);
	put_u128(w, region);
	put(w, " ");
	put_name(w, path);
	put(w, "\n");
}

/* " KEY=" of a thread line's field. */
static void put_key(struct profile_writer *w, enum profile_thread_key key)
{
	put(w, " ");
	put(w, profile_thread_key_word(key));
	put(w, "=");
}

static void put_field(struct profile_writer *w, enum profile_thread_key key,
		      uint64_t value)
{
	put_key(w, key);
	put_u128(w, value);
}

void profile_writer_thread(struct profile_writer *w,
			   const struct thread_info *info)
{
	put_line_word(w, PROFILE_LINE_THREAD);
	put_u128(w, info->ordinal);
	if (info->name && *info->name) {
		put_key(w, PROFILE_THREAD_NAME);
		put_name(w, info->name);
	}
	if (info->has_creator)
		put_field(w, PROFILE_THREAD_CREATOR, info->creator);
	for (unsigned i = 0; i < info->context_depth; i++) {
		if (i)
			put(w, PROFILE_CONTEXT_SEPARATOR);
		else
			put_key(w, PROFILE_THREAD_CONTEXT);
		put_u128(w, info->context[i]);
	}
	put_field(w, PROFILE_THREAD_IN_BYTES, info->in_bytes);
	put_field(w, PROFILE_THREAD_IN_CALLS, info->in_calls);
	put_field(w, PROFILE_THREAD_OUT_BYTES, info->out_bytes);
	put_field(w, PROFILE_THREAD_OUT_CALLS, info->out_calls);
	if (info->sampled) {
		put_field(w, PROFILE_THREAD_SAMPLES, info->samples);
		put_field(w, PROFILE_THREAD_CPU_NS, info->cpu_ns);
		put_field(w, PROFILE_THREAD_LIBRARY_SAMPLES,
			  info->library_samples);
	}
	put_field(w, PROFILE_THREAD_LIBRARY_NS, info->library_ns);
	if (info->ended_threads)
		put_field(w, PROFILE_THREAD_ENDED_THREADS, info->ended_threads);
	if (info->has_folded_into)
		put_field(w, PROFILE_THREAD_FOLDED_INTO, info->folded_into);
	put(w, "\n");
}

void profile_writer_module(struct profile_writer *w, uint32_t id,
			   uintptr_t start, uintptr_t end, uintptr_t base,
			   bool unloaded, const char *path)
{
	put(w, profile_line_word(PROFILE_LINE_MODULE));
	put_number(w, id);
	put_number(w, start);
	put_number(w, end);
	put_number(w, base);
	put(w, " ");
	put(w, unloaded ? PROFILE_MODULE_UNLOADED : PROFILE_MODULE_LOADED);
	put(w, " ");
	put_name(w, *path ? path : PROFILE_UNKNOWN_NAME);
	put(w, "\n");
}

void profile_writer_symbol(struct profile_writer *w, uint32_t module,
			   uint64_t offset, const char *name,
			   uint64_t name_offset)
{
	put(w, profile_line_word(PROFILE_LINE_SYMBOL));
	put_number(w, module);
	put_number(w, offset);
	put(w, " ");
	put_name(w, *name ? name : PROFILE_UNKNOWN_NAME);
	put_number(w, name_offset);
	put(w, "\n");
}

void profile_writer_cct(struct profile_writer *w, const struct cct_line *l)
{
	put(w, profile_line_word(PROFILE_LINE_CCT));
	put_number(w, l->thread);
	put_number(w, l->node);
	if (l->has_parent)
		put_number(w, l->parent);
	else
		put(w, " " PROFILE_NO_PARENT);
	put(w, " ");
	put(w, profile_cct_kind_word(l->kind));
	put_number(w, l->a);
	put_number(w, l->b);
	put_number(w, l->samples);
	put_number(w, l->work);
	put_number(w, l->idleness_millionths);
	put_number(w, l->overhead);
	put_number(w, l->blocked);
	put(w, "\n");
}

void profile_writer_activations(struct profile_writer *w, uint32_t region,
				uint32_t thread, uint64_t activations,
				uint64_t measured)
{
	put(w, profile_line_word(PROFILE_LINE_ACTIVATIONS));
	put_number(w, region);
	put_number(w, thread);
	put_number(w, activations);
	put_number(w, measured);
	put(w, "\n");
}

void profile_writer_tuple(struct profile_writer *w, uint32_t thread,
			  const struct tuple_data *t)
{
	put(w, profile_line_word(PROFILE_LINE_TUPLE));
	put_number(w, t->region);
	put_number(w, thread);
	put(w, " ");
	put(w, profile_metric_word(t->metric));
	put_number(w, t->n);
	put_number(w, t->count);
	put_number(w, scaled(w, t->min, 1));
	put_number(w, scaled(w, t->max, 1));
	put_number(w, scaled(w, t->sum, 1));
	put_number(w, scaled(w, t->sumsq, 2));
	put_number(w, t->induced_thread);
	put_number(w, t->induced_external);
	if (w->version >= PROFILE_FORMAT_CORRECTIONS) {
		put_number(w, t->corrected);
		put_number(w, scaled(w, t->library, 1));
		put_number(w, scaled(w, t->estimated, 1));
	}
	put(w, "\n");
	w->tuples++;
}

int profile_writer_end(struct profile_writer *w)
{
	put_line_word(w, PROFILE_LINE_END);
	put_u128(w, w->tuples);
	put(w, "\n");
	flush_buffer(w);
	return -w->error;
}

int profile_writer_commit(struct profile_writer *w)
{
	int rc = profile_writer_end(w);

	if (rc) {
		atomic_file_abort(&w->file);
		return rc;
	}
	return atomic_file_commit(&w->file);
}

void profile_writer_abort(struct profile_writer *w)
{
	atomic_file_abort(&w->file);
}
