/*
 * function_names.c - the names the profile gives the regions of functions
 * (code built with `trms cc`; see function_hooks.c): the function's
 * symbol, read from its object's symbol table when the profile is
 * written.
 *
 * A function is registered by its address; here the address becomes the
 * object it lies in and its offset there (the sampler's table of loaded
 * objects, which keeps unloaded ones), and one pass over each object's
 * symbol table names all of its functions (elf_symbols_name).  Where no
 * symbol is found, or the profile is written from a signal handler or at
 * _exit, where files are not read, the name is the function's place for
 * `trms report` to name (see name_by_place), or the object's file name
 * and the offset ("prog+0x1139"), or the bare address if no object holds
 * it.
 * Two functions of one name (static functions of different files, or of
 * different objects) would merge in every view, so each of them gets the
 * object's file name appended, and the offset if that is not enough:
 * "helper (libfoo.so.1)", "helper (prog+0x1139)".  Each function's
 * object is written too, on an object line after its region's.
 */
#define _GNU_SOURCE
#include "output/profile_dump.h"

#include <string.h>

#include "base/elf_symbols.h"
#include "sampler/modules.h"
#include "format/profile_format.h"
#include "format/profile_writer.h"
#include "engine/region.h"
#include "sampler/sampler.h"
#include "base/sort.h"
#include "base/text.h"
#include "base/vm.h"

struct function {
	uint32_t id;
	uint32_t module; /* UINT32_MAX: in no known object */
	uintptr_t offset; /* in the module, or the address */
	char name[REGION_NAME_MAX + 1];
};

struct naming {
	struct function *fn; /* the module's run, by offset */
};

/* The object loaded last of those unloaded whose code held @address: a
 * function of a plugin closed before the profile is written, named from
 * its file like the others.  (Functions of two objects loaded one after
 * the other at the same address share a region: the library registers a
 * function by its address.) */
static bool find_unloaded(uintptr_t address, uint32_t *id, uintptr_t *offset)
{
	uint32_t count;
	const struct module *m = modules_all(&count);

	for (uint32_t i = count; i-- > 0;)
		if (m[i].unloaded && address >= m[i].start &&
		    address < m[i].end) {
			*id = m[i].id;
			*offset = address - m[i].base;
			return true;
		}
	return false;
}

static int by_place(const void *a, const void *b)
{
	const struct function *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int by_name(const void *a, const void *b)
{
	const struct function *x = *(struct function *const *)a,
			      *y = *(struct function *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->id < y->id ? -1 : x->id > y->id;
}

static int by_id(const void *a, const void *b)
{
	const struct function *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static const char *module_path(uint32_t module)
{
	uint32_t n;
	const struct module *all = modules_all(&n);

	return module < n ? all[module].path : NULL;
}

static void named(void *ctx, size_t i, const char *name, uintptr_t offset)
{
	struct naming *n = ctx;

	(void)offset;
	text_format(n->fn[i].name, sizeof(n->fn[i].name), "%.*s",
		    (int)elf_symbol_origin_length(name), name);
}

/* "prog+0x1139", or "0x7f..." outside every object.  Where the profile
 * lists the objects (the sampler's table, when it runs), the place itself
 * instead (profile_format.h), which `trms report` names from the object's
 * file (tools/reading/profile_symbols.c). */
static void name_by_place(struct function *f)
{
	const char *path = module_path(f->module);

	if (path && sampler_active())
		profile_function_place(f->name, f->module, f->offset);
	else if (path)
		text_format(f->name, sizeof(f->name), "%s+0x%lx",
			    base_name(path), (unsigned long)f->offset);
	else
		text_format(f->name, sizeof(f->name), "0x%lx",
			    (unsigned long)f->offset);
}

/* Symbols for @fn[0..n), sorted by place. */
static void name_by_symbols(struct function *fn, size_t n)
{
	uint64_t offsets[256];

	for (size_t first = 0, end; first < n; first = end) {
		for (end = first; end < n && fn[end].module == fn[first].module;
		     end++)
			;
		const char *path = module_path(fn[first].module);
		/* In batches of what the array holds. */
		for (size_t at = first; path && at < end;) {
			size_t k = 0;
			for (; at + k < end && k < 256; k++)
				offsets[k] = fn[at + k].offset;
			struct naming naming = { fn + at };
			elf_symbols_name(path, offsets, k, named, &naming);
			at += k;
		}
	}
}

/* Whether the functions @g[0..n) lie in distinct objects. */
static bool distinct_modules(struct function *const *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (g[i]->module == g[j]->module)
				return false;
	return true;
}

/* Append " (OBJECT)", or " (OBJECT+0xOFFSET)" where one object has two
 * of them, to every name that two functions share.  @order: room for @n
 * pointers. */
static void tell_apart(struct function *fn, struct function **order,
		       size_t n)
{
	for (size_t i = 0; i < n; i++)
		order[i] = &fn[i];
	sort_in_place(order, n, sizeof(*order), by_name);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(order[i]->name, order[j]->name);
		     j++)
			;
		if (j - i < 2)
			continue;
		bool with_offset = !distinct_modules(order + i, j - i);
		for (size_t k = i; k < j; k++) {
			struct function *f = order[k];
			const char *path = module_path(f->module);
			size_t len = strlen(f->name);
			if (with_offset || !path)
				text_format(f->name + len, sizeof(f->name) - len,
					    " (%s+0x%lx)",
					    path ? base_name(path) : "",
					    (unsigned long)f->offset);
			else
				text_format(f->name + len, sizeof(f->name) - len,
					    " (%s)", base_name(path));
		}
	}
}

/* How many regions are functions. */
static size_t count_functions(void)
{
	uint32_t regions = region_count();
	uintptr_t address;
	size_t n = 0;

	for (uint32_t id = 0; id < regions; id++)
		n += region_function(id, &address);
	return n;
}

/* Functions with their places, or NULL (none, or no memory); the table
 * of objects taken again first if @read_files. */
static struct function *collect(bool read_files, size_t *count,
				 size_t *bytes)
{
	uint32_t regions = region_count();
	size_t n = count_functions();
	uintptr_t address;

	/* Objects loaded since the sampler's last look (if it runs at all:
	 * this may be the first). */
	if (n && read_files)
		modules_refresh();
	*count = n;
	*bytes = n * (sizeof(struct function) + sizeof(struct function *));
	struct function *fn = n ? vm_alloc(*bytes) : NULL;
	if (!fn)
		return NULL;
	n = 0;
	for (uint32_t id = 0; id < regions && n < *count; id++) {
		if (!region_function(id, &address))
			continue;
		struct function *f = &fn[n++];
		f->id = id;
		if (!modules_find(address, &f->module, &f->offset) &&
		    !find_unloaded(address, &f->module, &f->offset)) {
			f->module = UINT32_MAX;
			f->offset = address;
		}
	}
	*count = n;
	return fn;
}

bool function_names_any(void)
{
	return count_functions() > 0;
}

void function_names_write(struct profile_writer *w, bool read_files)
{
	size_t n, bytes;
	struct function *fn = collect(read_files, &n, &bytes);
	uint32_t regions = region_count();
	uintptr_t address;

	if (fn) {
		struct function **order = (struct function **)(fn + n);
		for (size_t i = 0; i < n; i++)
			name_by_place(&fn[i]);
		if (read_files) {
			sort_in_place(fn, n, sizeof(*fn), by_place);
			name_by_symbols(fn, n);
		}
		tell_apart(fn, order, n);
		sort_in_place(fn, n, sizeof(*fn), by_id);
	}
	for (uint32_t id = 0, i = 0; id < regions; id++) {
		if (!region_function(id, &address)) {
			profile_writer_region(w, id, region_name(id));
		} else if (fn && i < n && fn[i].id == id) {
			const struct function *f = &fn[i++];
			const char *path = module_path(f->module);
			profile_writer_region(w, id, f->name);
			if (path && w->version >= PROFILE_FORMAT_OBJECTS)
				profile_writer_object(w, id, path);
		} else { /* no memory to name it better */
			profile_writer_region(w, id, "(function)");
		}
	}
	if (fn)
		vm_free(fn, bytes);
}
