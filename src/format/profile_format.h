/*
 * profile_format.h - the vocabulary of the profile file format
 * (docs/profile-format.md): its version, the words its lines are made
 * of, how names are escaped and how numbers are written.
 *
 * The writer (profile_writer.h), the reader (profile_doc.h) and the look
 * at a profile's head (profile_head.h) spell the format with these; so do
 * the library and the tools wherever they name a kind of tree node, a
 * metric or escape a name.  Nothing else spells a word of the format.
 *
 * Everything here allocates nothing and is async-signal-safe: the library
 * writes profiles from signal handlers.
 */
#ifndef TRMS_PROFILE_FORMAT_H
#define TRMS_PROFILE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/tuples.h"

/* The first line is PROFILE_MAGIC followed by the version. */
#define PROFILE_FORMAT_VERSION 4
/* The oldest version the reader still reads (version 1 has no
 * activations lines). */
#define PROFILE_FORMAT_OLDEST 1
/* The first version with activations lines, and the first whose tuple
 * lines end with the correction's three fields. */
#define PROFILE_FORMAT_ACTIVATIONS 2
#define PROFILE_FORMAT_CORRECTIONS 3
/* The first version with object lines (the file of a function's code). */
#define PROFILE_FORMAT_OBJECTS 4

/* The oldest version that holds what a profile has: object lines,
 * activations lines, tuples with the correction's fields.  A profile is
 * written in it, so that older readers read whatever does not need a
 * newer one. */
static inline unsigned profile_format_version_for(bool activations,
						  bool corrections,
						  bool objects)
{
	return objects	     ? PROFILE_FORMAT_OBJECTS
	       : corrections ? PROFILE_FORMAT_CORRECTIONS
	       : activations ? PROFILE_FORMAT_ACTIVATIONS
			     : PROFILE_FORMAT_OLDEST;
}
#define PROFILE_MAGIC "trms-profile "
#define PROFILE_MAGIC_LEN (sizeof(PROFILE_MAGIC) - 1)

/* The kinds of line, by their first word. */
enum profile_line_kind {
	PROFILE_LINE_META,
	PROFILE_LINE_REGION,
	PROFILE_LINE_THREAD,
	PROFILE_LINE_TUPLE,
	PROFILE_LINE_MODULE,
	PROFILE_LINE_SYMBOL,
	PROFILE_LINE_CCT,
	PROFILE_LINE_ACTIVATIONS,
	PROFILE_LINE_OBJECT,
	PROFILE_LINE_END,
};
#define PROFILE_LINE_KINDS (PROFILE_LINE_END + 1)

const char *profile_line_word(enum profile_line_kind kind);

/* The kind of line @word starts, or -1. */
int profile_line_kind(const char *word);

/* The kinds of node of a sampled calling context tree (cct lines). */
enum profile_cct_kind {
	PROFILE_CCT_FRAME,
	PROFILE_CCT_REGION,
	PROFILE_CCT_THREAD,
};
#define PROFILE_CCT_KINDS (PROFILE_CCT_THREAD + 1)

const char *profile_cct_kind_word(enum profile_cct_kind kind);

/* The kind of node @word names, or -1. */
int profile_cct_kind(const char *word);

/* A tuple's metric: "trms" or "rms". */
const char *profile_metric_word(enum metric metric);

/* The metric @word names, or -1. */
int profile_metric(const char *word);

/* The keys of a thread line's key=value fields, in the order the writer
 * writes them. */
enum profile_thread_key {
	PROFILE_THREAD_NAME,
	PROFILE_THREAD_CREATOR,
	PROFILE_THREAD_CONTEXT,
	PROFILE_THREAD_IN_BYTES,
	PROFILE_THREAD_IN_CALLS,
	PROFILE_THREAD_OUT_BYTES,
	PROFILE_THREAD_OUT_CALLS,
	PROFILE_THREAD_SAMPLES,
	PROFILE_THREAD_CPU_NS,
	PROFILE_THREAD_LIBRARY_SAMPLES,
	PROFILE_THREAD_LIBRARY_NS,
	PROFILE_THREAD_ENDED_THREADS,
	PROFILE_THREAD_FOLDED_INTO,
};
#define PROFILE_THREAD_KEYS (PROFILE_THREAD_FOLDED_INTO + 1)

const char *profile_thread_key_word(enum profile_thread_key key);

/* The key @word names, or -1 (readers ignore keys they do not know). */
int profile_thread_key(const char *word);

/* The meta keys (docs/profile-format.md, "Meta keys"), spelt here only:
 * the library writes them (src/output/), the tools read them.  A
 * window's profile (TRMS_INTERVAL) has its number, from 1, and when it
 * began and ended, ns since the epoch; the sampler's drops are
 * PROFILE_META_SAMPLES_DROPPED followed by the drop's name. */
#define PROFILE_META_WINDOW "window"
#define PROFILE_META_WINDOW_START "window_start_ns"
#define PROFILE_META_WINDOW_END "window_end_ns"
#define PROFILE_META_SAMPLES_DROPPED "samples_dropped_"
#define PROFILE_META_PROGRAM "program"
#define PROFILE_META_COMMAND "command"
#define PROFILE_META_PID "pid"
#define PROFILE_META_PPID "ppid"
#define PROFILE_META_PROCESS_START "process_start"
#define PROFILE_META_START_NS "start_ns"
#define PROFILE_META_END_NS "end_ns"
#define PROFILE_META_COST "cost"
#define PROFILE_META_CLOCK "clock"
#define PROFILE_META_GRANULARITY "granularity"
#define PROFILE_META_STAMP_BITS "stamp_bits"
#define PROFILE_META_SHADOW_BYTES "shadow_bytes"
#define PROFILE_META_RENUMBERS "renumbers"
#define PROFILE_META_LIBRARY "library"
#define PROFILE_META_ACTIVATION_SAMPLE "activation_sample"
#define PROFILE_META_BUDGET_PERCENT "budget_percent"
#define PROFILE_META_PARTITION "partition"
#define PROFILE_META_EXACT_KINDS "exact_kinds"
#define PROFILE_META_BUDGET_PERIODS "budget_periods"
#define PROFILE_META_TUPLES_SKIPPED "tuples_skipped"
#define PROFILE_META_TUPLES_DROPPED "tuples_dropped"
#define PROFILE_META_MEMORY_LIMIT "memory_limit"
#define PROFILE_META_MEMORY_PEAK "memory_peak"
#define PROFILE_META_MEMORY_REFUSED "memory_refused"
#define PROFILE_META_SHADOW_FORGOTTEN "shadow_forgotten"
#define PROFILE_META_ACTIVATIONS_INCOMPLETE "activations_incomplete"
#define PROFILE_META_SAMPLE_CLOCK "sample_clock"
#define PROFILE_META_SAMPLE_SOURCE "sample_source"
#define PROFILE_META_SAMPLE_THREADS_LEFT_PERF "sample_threads_left_perf"
#define PROFILE_META_SAMPLE_KERNEL "sample_kernel"
#define PROFILE_META_SAMPLE_HZ "sample_hz"
#define PROFILE_META_SAMPLE_SIGNAL "sample_signal"
#define PROFILE_META_SAMPLES "samples"
#define PROFILE_META_SAMPLES_OVERRUN "samples_overrun"
#define PROFILE_META_SAMPLES_UNATTACHED "samples_unattached"
#define PROFILE_META_SAMPLE_HANDLER_NS "sample_handler_ns"
#define PROFILE_META_SAMPLE_CPU_NS "sample_cpu_ns"
#define PROFILE_META_SAMPLE_ELAPSED_NS "sample_elapsed_ns"
#define PROFILE_META_SAMPLE_HZ_DELIVERED "sample_hz_delivered"
#define PROFILE_META_MERGED "merged"

/* The region ids of a thread's creation context are separated by this. */
#define PROFILE_CONTEXT_SEPARATOR "/"
/* A module line says whether the module was still loaded. */
#define PROFILE_MODULE_LOADED "loaded"
#define PROFILE_MODULE_UNLOADED "unloaded"
/* A cct line's parent at the top of its tree. */
#define PROFILE_NO_PARENT "-"
/* A module path or symbol name that is unknown (a name is never empty). */
#define PROFILE_UNKNOWN_NAME "?"

/*
 * Names (region, thread, module, symbol, text meta values) are written
 * with every byte that could end a field or a line, and '%' itself, as
 * %XX (two upper-case hexadecimal digits).  %00 never appears.
 */
static inline bool profile_byte_escaped(unsigned char c)
{
	return c <= ' ' || c == '%' || c == 0x7f;
}

/* Byte @c as a name writes it, into @out: itself, or %XX.
 * @return how many bytes: 1 or 3. */
size_t profile_escape_byte(unsigned char c, char out[3]);

/* Undo the escaping of a name, in place.  @return 0, or -EINVAL if the
 * name is malformed (a '%' not followed by two hexadecimal digits, or
 * %00). */
int profile_unescape(char *s);

/* Numbers are decimal digits only, no sign, no leading blanks. */

/* Decimal text of @v into @buf (at least 40 bytes); returns @buf. */
char *u128_to_text(unsigned __int128 v, char *buf);

/* A number as profiles write it, of at most 64 (128) bits.  @return false
 * for anything else. */
bool profile_parse_u64(const char *s, uint64_t *out);
bool profile_parse_u128(const char *s, unsigned __int128 *out);

/*
 * A function region the library could not name (a profile written from a
 * signal handler or at _exit, code built with `trms cc`) is named by its
 * place: the byte 0x01, then "MODULE:OFFSET" (its module's id, decimal;
 * its offset there, hex).  The tools name it from the module's file.
 */
#define PROFILE_FUNCTION_PLACE_MAX 32

/* The name for the function at @offset of @module into @buf (at least
 * PROFILE_FUNCTION_PLACE_MAX bytes). */
void profile_function_place(char *buf, uint32_t module, uint64_t offset);

/* Whether region name @name is such a place; its parts if so. */
bool profile_function_place_parse(const char *name, uint32_t *module,
				  uint64_t *offset);

#endif
