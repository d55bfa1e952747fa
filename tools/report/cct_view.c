/*
 * cct_view.c - merged calling context trees for display (see cct_view.h).
 */
#define _GNU_SOURCE
#include "cct_view.h"
#include "report_form.h"
#include "xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void view_init(struct view *v, bool per_thread, bool lines)
{
	memset(v, 0, sizeof(*v));
	v->root.label = xstrdup("all");
	v->root.name_len = strlen(v->root.label);
	v->per_thread = per_thread;
	v->lines = lines;
}

static void free_node(struct view_node *n)
{
	for (size_t i = 0; i < n->n_children; i++) {
		free_node(n->children[i]);
		free(n->children[i]);
	}
	free(n->children);
	free(n->label);
}

void view_free(struct view *v)
{
	free_node(&v->root);
}

/* The child of @parent labelled @label (its name the first @name_len
 * bytes, or all of it; from source line @line), made if new. */
static struct view_node *child(struct view_node *parent, const char *label,
			       size_t name_len, unsigned line)
{
	for (size_t i = 0; i < parent->n_children; i++)
		if (!strcmp(parent->children[i]->label, label))
			return parent->children[i];
	if (parent->n_children == parent->cap_children) {
		parent->cap_children = parent->cap_children
					       ? 2 * parent->cap_children
					       : 4;
		parent->children = xrealloc(parent->children,
					    parent->cap_children *
						    sizeof(*parent->children));
	}
	struct view_node *n = xrealloc(NULL, sizeof(*n));
	memset(n, 0, sizeof(*n));
	n->label = xstrdup(label);
	n->name_len = name_len < strlen(label) ? name_len : strlen(label);
	n->line = line;
	n->parent = parent;
	parent->children[parent->n_children++] = n;
	return n;
}

static const char *thread_label(const struct profile_doc *doc, uint32_t id,
				char *buf, size_t len)
{
	const struct profile_thread *th = profile_thread(doc, id);

	if (th && th->name)
		snprintf(buf, len, "thread %" PRIu32 " (%s)", id, th->name);
	else
		snprintf(buf, len, "thread %" PRIu32, id);
	return buf;
}

const char *cct_label(struct profile_doc *doc, const struct profile_cct *c,
		      bool with_line, char *buf, size_t len)
{
	size_t name_len;
	unsigned line;

	return cct_label_parts(doc, c, with_line, buf, len, &name_len, &line);
}

const char *cct_label_parts(struct profile_doc *doc,
			    const struct profile_cct *c, bool with_line,
			    char *buf, size_t len, size_t *name_len,
			    unsigned *line)
{
	const char *name;

	*line = 0;
	switch (c->kind) {
	case PROFILE_CCT_REGION:
		name = profile_region_name(doc, (uint32_t)c->a);
		snprintf(buf, len, "[%s]", name ? name : "?");
		*name_len = strlen(buf);
		return buf;
	case PROFILE_CCT_THREAD:
		*name_len = strlen("(thread start)");
		return "(thread start)";
	case PROFILE_CCT_FRAME:
		break;
	}
	char plain[256];
	const char *debug_name = NULL;
	const char *source = with_line ? profile_source_line(doc,
							     (uint32_t)c->a,
							     c->b, line,
							     &debug_name)
				       : NULL;
	name = profile_symbol(doc, (uint32_t)c->a, c->b);
	if (!name)
		name = debug_name;
	if (!name) {
		const struct profile_module *m =
			profile_module(doc, (uint32_t)c->a);
		const char *file = m ? strrchr(m->path, '/') : NULL;
		snprintf(plain, sizeof(plain), "%s+0x%" PRIx64,
			 m ? (file ? file + 1 : m->path) : "?", c->b);
		name = plain;
	}
	if (source) {
		const char *base = strrchr(source, '/');
		snprintf(buf, len, "%s (%s:%u)", name, base ? base + 1 : source,
			 *line);
	} else {
		snprintf(buf, len, "%s", name);
		*line = 0;
	}
	*name_len = strlen(name) < len ? strlen(name) : strlen(buf);
	return buf;
}

/* A tree node's place in its document, to find it by thread and node. */
struct node_key {
	uint32_t thread, node;
	size_t index; /* in doc->cct */
};

static int by_node(const void *a, const void *b)
{
	const struct node_key *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The index of the last node @parent of @thread before @index in the
 * document, in @keys sorted by_node; SIZE_MAX if there is none. */
static size_t find_parent(const struct node_key *keys, size_t n,
			  uint32_t thread, uint32_t parent, size_t index)
{
	struct node_key key = { thread, parent, index };
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (by_node(&keys[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && keys[lo - 1].thread == thread && keys[lo - 1].node == parent)
		return keys[lo - 1].index;
	return SIZE_MAX;
}

void view_add(struct view *v, struct profile_doc *doc)
{
	/* The view node of each tree node; its parent found by number (not
	 * by indexing with it: node and thread numbers can be anything). */
	struct view_node **placed = xcalloc(doc->n_cct, sizeof(*placed));
	struct node_key *keys = xcalloc(doc->n_cct, sizeof(*keys));
	char buf[512], name[128];

	for (size_t i = 0; i < doc->n_cct; i++)
		keys[i] = (struct node_key){ doc->cct[i].thread,
					     doc->cct[i].node, i };
	if (doc->n_cct)
		qsort(keys, doc->n_cct, sizeof(*keys), by_node);
	for (size_t i = 0; i < doc->n_cct; i++) {
		const struct profile_cct *c = &doc->cct[i];
		size_t up = c->has_parent ? find_parent(keys, doc->n_cct,
							c->thread, c->parent, i)
					  : SIZE_MAX;
		struct view_node *parent = up != SIZE_MAX ? placed[up] : NULL;
		if (!parent)
			parent = v->per_thread
					 ? child(&v->root,
						 thread_label(doc, c->thread,
							      name,
							      sizeof(name)),
						 SIZE_MAX, 0)
					 : &v->root;
		size_t name_len;
		unsigned line;
		const char *label = cct_label_parts(doc, c, v->lines, buf,
						    sizeof(buf), &name_len,
						    &line);
		struct view_node *n = child(parent, label, name_len, line);
		placed[i] = n;
		n->samples += c->samples;
		n->work += c->work;
		n->overhead += c->overhead;
		n->blocked += c->blocked;
		n->idleness += (double)c->idleness_millionths / 1e6;
	}
	free(keys);
	free(placed);
}

static int by_total(const void *a, const void *b)
{
	const struct view_node *x = *(struct view_node *const *)a;
	const struct view_node *y = *(struct view_node *const *)b;

	if (x->total_samples != y->total_samples)
		return x->total_samples > y->total_samples ? -1 : 1;
	return strcmp(x->label, y->label);
}

static void finish(struct view_node *n)
{
	n->total_samples = n->samples;
	n->total_work = n->work;
	n->total_overhead = n->overhead;
	n->total_blocked = n->blocked;
	n->total_idleness = n->idleness;
	for (size_t i = 0; i < n->n_children; i++) {
		struct view_node *c = n->children[i];
		finish(c);
		n->total_samples += c->total_samples;
		n->total_work += c->total_work;
		n->total_overhead += c->total_overhead;
		n->total_blocked += c->total_blocked;
		n->total_idleness += c->total_idleness;
	}
	if (n->n_children)
		qsort(n->children, n->n_children, sizeof(*n->children),
		      by_total);
}

void view_finish(struct view *v)
{
	finish(&v->root);
}

static void print_node(const struct view_node *n, FILE *out, unsigned depth,
		       double total, double min_percent)
{
	double percent = total ? 100.0 * (double)n->total_samples / total : 0;

	if (percent < min_percent)
		return;
	fprintf(out, "%6.1f%% %7" PRIu64 " %7" PRIu64 " %9.1f %8" PRIu64
		     " %7" PRIu64 "  %*s%s\n",
		percent, n->samples, n->total_work, n->total_idleness,
		n->total_overhead, n->total_blocked, (int)(2 * depth), "",
		n->label);
	for (size_t i = 0; i < n->n_children; i++)
		print_node(n->children[i], out, depth + 1, total, min_percent);
}

void view_print_tree(const struct view *v, FILE *out, double min_percent)
{
	double total = (double)v->root.total_samples;

	fprintf(out, "%7s %7s %7s %9s %8s %7s  %s\n", "total", "self", "work",
		"idleness", "overhead", "blocked", "calling context");
	for (size_t i = 0; i < v->root.n_children; i++)
		print_node(v->root.children[i], out, 0, total, min_percent);
}

static void print_folded(const struct view_node *n, FILE *out, char **path,
			 size_t depth)
{
	path[depth] = n->label;
	if (n->samples) {
		for (size_t i = 0; i <= depth; i++) {
			if (i)
				fputc(';', out);
			/* The format splits frames at ';' and the count at
			 * the last blank. */
			for (const char *p = path[i]; *p; p++)
				fputc(*p == ';' ? ':' : *p, out);
		}
		fprintf(out, " %" PRIu64 "\n", n->samples);
	}
	for (size_t i = 0; i < n->n_children; i++)
		print_folded(n->children[i], out, path, depth + 1);
}

static size_t height(const struct view_node *n)
{
	size_t h = 0;

	for (size_t i = 0; i < n->n_children; i++) {
		size_t c = height(n->children[i]);
		if (c > h)
			h = c;
	}
	return h + 1;
}

void view_print_folded(const struct view *v, FILE *out)
{
	char **path = xcalloc(height(&v->root) + 1, sizeof(*path));

	for (size_t i = 0; i < v->root.n_children; i++)
		print_folded(v->root.children[i], out, path, 0);
	free(path);
}

struct hot {
	const char *label;
	uint64_t self, total;
};

/* Per function: samples as leaf, and samples anywhere below it (counted
 * once per sample however often the function recurses). */
static void gather(const struct view_node *n, struct hot **hot, size_t *count,
		   size_t *cap, const char **stack, size_t depth)
{
	bool seen = false;

	for (size_t i = 0; i < depth && !seen; i++)
		seen = !strcmp(stack[i], n->label);
	struct hot *h = NULL;
	for (size_t i = 0; i < *count && !h; i++)
		if (!strcmp((*hot)[i].label, n->label))
			h = &(*hot)[i];
	if (!h) {
		if (*count == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*hot = xrealloc(*hot, *cap * sizeof(**hot));
		}
		h = &(*hot)[(*count)++];
		*h = (struct hot){ n->label, 0, 0 };
	}
	h->self += n->samples;
	if (!seen)
		h->total += n->total_samples;
	stack[depth] = n->label;
	for (size_t i = 0; i < n->n_children; i++)
		gather(n->children[i], hot, count, cap, stack, depth + 1);
}

static int by_self(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->label, y->label);
}

void view_print_hot(const struct view *v, FILE *out, size_t n)
{
	struct hot *hot = NULL;
	size_t count = 0, cap = 0;
	const char **stack = calloc(height(&v->root) + 1, sizeof(*stack));
	double total = (double)v->root.total_samples;

	if (!stack || !total) {
		free(stack);
		return;
	}
	for (size_t i = 0; i < v->root.n_children; i++)
		gather(v->root.children[i], &hot, &count, &cap, stack, 0);
	qsort(hot, count, sizeof(*hot), by_self);
	fprintf(out, "%7s %7s  %s\n", "self", "total", "function");
	for (size_t i = 0; i < count && i < n && hot[i].self; i++)
		fprintf(out, "%6.1f%% %6.1f%%  %s\n",
			100.0 * (double)hot[i].self / total,
			100.0 * (double)hot[i].total / total, hot[i].label);
	free(hot);
	free(stack);
}

static int tree_form(const struct report_form_input *in)
{
	view_print_tree(in->view, stdout, in->min_percent);
	return 0;
}

static int folded_form(const struct report_form_input *in)
{
	view_print_folded(in->view, stdout);
	return 0;
}

const struct report_form report_form_tree = {
	.option = "tree", .print = tree_form, .tree = true,
	.help =
		"the sampled calling context tree, top-down: per node its "
		"share of all samples (total), samples that ended there "
		"(self), and over its subtree the samples of a working "
		"thread (work), the idleness charged to them (blocked "
		"threads per working thread), those in synchronisation "
		"calls (overhead) and those of blocked threads (blocked, "
		"with TRMS_SAMPLE_CLOCK=wall). Regions show as [name]; a "
		"thread's own path starts at (thread start), below its "
		"creation context",
};

const struct report_form report_form_folded = {
	.option = "folded", .print = folded_form, .tree = true,
	.help =
		"the sampled stacks as collapsed stacks, one line per "
		"distinct stack: frame;frame;...;frame count",
};
