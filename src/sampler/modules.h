/*
 * modules.h - the objects loaded in the process, over the whole run.
 *
 * A sample records a code address as (module, offset): the module's
 * number and the address relative to the module's load base, which is what
 * the object file's symbols use.  The table of modules is taken when first
 * needed (the first sample, a second thread, a dlopen, a profile that
 * names functions) and again after every dlopen and dlclose; a module that is unloaded
 * keeps its number and entry, so samples taken while it was loaded are
 * still attributed to it when the profile is written.
 *
 * Lookups are made from the sampling signal handler: the current set of
 * address ranges is an immutable sorted array, replaced (never changed in
 * place) when the set changes; an old array is freed once no lookup can
 * still be reading it.  An object unloaded and loaded again at the same
 * address keeps its number.
 */
#ifndef TRMS_MODULES_H
#define TRMS_MODULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A loaded object, as recorded. */
struct module {
	uint32_t id;
	bool unloaded;      /* gone by dlclose */
	uintptr_t base;     /* load bias: address = base + ELF address */
	uintptr_t start, end; /* its executable addresses: [start, end) */
	const char *path;
	bool program;       /* the main program (the one without a name) */
};

/* Take the first table if none has been taken yet.  @in_handler: from a
 * sample handler, which gives up (rather than wait) if the table is being
 * taken meanwhile.  Async-signal-safe with @in_handler set on a thread not
 * inside the loader (see modules_loader_busy).  @return true if a table
 * is there. */
bool modules_ready(bool in_handler);

/* Take the table again (after dlopen or dlclose). */
void modules_refresh(void);

/* The number of the object that holds this library's own code, once a
 * table is taken, if that object is a shared library of its own (one
 * linked into the program cannot be told apart from the program's code);
 * else UINT32_MAX.  Async-signal-safe. */
uint32_t modules_library(void);

/* The module containing code address @ip and the offset of @ip in it
 * (ELF address); async-signal-safe.  @return false if no module holds it. */
bool modules_find(uintptr_t ip, uint32_t *id, uintptr_t *offset);

/*
 * A stack walk (which reads the objects' unwind tables) and dlclose (which
 * unmaps them) exclude each other.  modules_walk_begin returns the loaded
 * objects as they are, for the walk to look up without touching shared
 * counters again, or NULL if an unload is under way: do not walk
 * (async-signal-safe).  An unload waits for the walks under way to end.
 */
struct modules_view;
const struct modules_view *modules_walk_begin(void);
void modules_walk_end(void);

/* modules_find, within a walk. */
bool modules_find_in(const struct modules_view *view, uintptr_t ip,
		     uint32_t *id, uintptr_t *offset);

/* Whether [@addr, @addr + @len) lies in a readable segment of a loaded
 * object, within a walk. */
bool modules_readable_in(const struct modules_view *view, uintptr_t addr,
			 size_t len);
void modules_unload_begin(void);
void modules_unload_end(void);

/* Every module recorded so far, in id order; the array stays valid. */
const struct module *modules_all(uint32_t *count);

/* Around the loader's critical sections in the calling thread (dlopen,
 * dlclose, dl_iterate_phdr): while this thread may hold the loader's lock,
 * unwinding (which takes it) must not start from a signal handler that
 * interrupted it. */
void modules_loader_enter(void);
void modules_loader_leave(void);
bool modules_loader_busy(void);

#endif
