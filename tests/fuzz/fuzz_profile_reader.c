/*
 * fuzz_profile_reader.c - a libFuzzer target for the profile reader: any
 * bytes, read as a profile file, are either refused with one message that
 * names the file, or read into a document that `trms report` can use
 * without crashing, hanging or leaking.
 *
 * Built by clang with -fsanitize=fuzzer (tests/fuzz/meson.build, the fuzz
 * suite), and by the project's compiler with replay_corpus.c as main, which
 * runs the kept corpus through this same code on every test run.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cct_view.h"
#include "profile_reader.h"
#include "report_output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property the report relies on does not hold: a crash for the fuzzer
 * to keep. */
#define require(cond)                                                      \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "%s:%d: %s does not hold\n",       \
				__FILE__, __LINE__, #cond);                \
			abort();                                           \
		}                                                          \
	} while (0)

/* The input lives in an anonymous memory file, read through its
 * /proc/self/fd name, as the reader reads paths. */
static int input_fd = -1;
static char input_path[64];
static FILE *sink;

/* A module may be named after a FIFO (which nobody ever writes): looking
 * up its symbols must not wait for a writer. */
#define FIFO_PATH "/tmp/trms-fuzz-fifo"

static void set_up(void)
{
	struct stat st;

	if (lstat(FIFO_PATH, &st) != 0)
		(void)mkfifo(FIFO_PATH, 0600);
	input_fd = memfd_create("fuzz-profile", MFD_CLOEXEC);
	require(input_fd >= 0);
	snprintf(input_path, sizeof(input_path), "/proc/self/fd/%d", input_fd);
	sink = fopen("/dev/null", "w");
	require(sink != NULL);
}

static void write_input(const uint8_t *data, size_t size)
{
	require(ftruncate(input_fd, 0) == 0);
	for (size_t done = 0; done < size;) {
		ssize_t n = pwrite(input_fd, data + done, size - done,
				   (off_t)done);
		require(n > 0);
		done += (size_t)n;
	}
}

/* A refusal is one line: "PATH: problem" or "PATH:LINE: problem". */
static void check_message(const char *err)
{
	size_t len = strlen(input_path);

	require(!strncmp(err, input_path, len) && err[len] == ':');
	require(strchr(err, '\n') == NULL);
	require(strlen(err) > len + 2);
}

/* Node @i of the trees is new in its thread's tree and its parent came
 * before it (inputs are small: quadratic is fine). */
static bool tree_node_placed(const struct profile_doc *doc, size_t i)
{
	const struct profile_cct *c = &doc->cct[i];
	bool parent_seen = !c->has_parent;

	for (size_t k = 0; k < i; k++) {
		const struct profile_cct *before = &doc->cct[k];
		if (before->thread != c->thread)
			continue;
		if (before->node == c->node)
			return false;
		if (before->node == c->parent)
			parent_seen = true;
	}
	return parent_seen;
}

/* What `trms report` looks up for the tuples, threads and metadata. */
static void use_tables(struct profile_doc *doc)
{
	static const char *const keys[] = { "cost", "program", "command",
					    "sample_clock", "granularity" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *value = profile_meta(doc, keys[i]);
		if (value) {
			char *copy = strdup(value);
			require(copy != NULL);
			(void)profile_unescape(copy);
			free(copy);
		}
	}
	for (size_t i = 0; i < doc->n_tuples; i++) {
		const struct profile_tuple *t = &doc->tuples[i];
		require(profile_region_name(doc, t->data.region) != NULL);
		require(profile_thread(doc, t->thread) != NULL);
		require(t->data.count > 0 && t->data.min <= t->data.max);
	}
	for (size_t i = 0; i < doc->n_threads; i++) {
		const struct profile_thread *th = &doc->threads[i];
		require(profile_thread(doc, th->ordinal) == th);
		require(th->context_depth <= PROFILE_CONTEXT_MAX);
		for (unsigned k = 0; k < th->context_depth; k++)
			(void)profile_region_name(doc, th->context[k]);
		if (th->has_creator)
			(void)profile_thread(doc, th->creator);
	}
	for (size_t i = 0; i < doc->n_modules; i++)
		require(profile_module(doc, doc->modules[i].id) != NULL);
	for (size_t i = 0; i < doc->n_symbols; i++)
		(void)profile_symbol(doc, doc->symbols[i].module,
				     doc->symbols[i].offset);
	for (size_t i = 0; i < doc->n_cct; i++) {
		const struct profile_cct *c = &doc->cct[i];
		char buf[512];
		require(profile_thread(doc, c->thread) != NULL);
		require(cct_label(doc, c, false, buf, sizeof(buf)) != NULL);
		require(tree_node_placed(doc, i));
	}
}

/* The calling context trees as --tree, --folded and the summary show
 * them: per thread, and merged (with itself, as two profiles are). */
static void use_trees(struct profile_doc *doc)
{
	for (int per_thread = 0; per_thread < 2; per_thread++) {
		struct view v;
		view_init(&v, per_thread, false);
		view_add(&v, doc);
		if (!per_thread)
			view_add(&v, doc);
		view_finish(&v);
		view_print_tree(&v, sink, 0.0);
		view_print_tree(&v, sink, 1.0);
		view_print_folded(&v, sink);
		view_print_hot(&v, sink, 15);
		view_free(&v);
	}
}

/* The regions as the table and --json show them, with each option that
 * changes what is computed. */
static void use_report(struct profile_doc *doc)
{
	static const struct report_options options[] = {
		{ METRIC_TRMS, STAT_WORST, false },
		{ METRIC_RMS, STAT_MEAN, true },
		{ METRIC_TRMS, STAT_BEST, true },
	};
	char *paths[] = { doc->path };
	char err[512];

	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		struct report r;
		if (report_build(&r, doc, 1, &options[i], err, sizeof(err))) {
			report_free(&r);
			continue;
		}
		report_sort(&r, (enum report_sort)i);
		report_print_table(&r, sink, i == 1);
		report_print_json(&r, NULL, paths, 1, sink);
		report_free(&r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile_doc doc;
	char err[512];

	if (input_fd < 0)
		set_up();
	write_input(data, size);
	err[0] = '\0';
	if (profile_read(input_path, &doc, err, sizeof(err)) == 0) {
		use_tables(&doc);
		use_trees(&doc);
		use_report(&doc);
	} else {
		check_message(err);
	}
	profile_doc_free(&doc);
	return 0;
}
