/*
 * cc_plugin.h - the compiler plugins of `trms cc --trms-full`
 * (tools/cc/plugin/), Clang's and GCC's: where they are, and whether a
 * given compiler can load them.
 */
#ifndef TRMS_CC_PLUGIN_H
#define TRMS_CC_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

/* Where the plugin is looked for, as run_find_near takes them: next to
 * the trms command in a build tree, or in @installed_libdir/trms/; into
 * @paths (two, of @len bytes each, the second filled here).  @return how
 * many: 0 if this trms was built without the plugin. */
size_t cc_plugin_places(const char *installed_libdir, char (*paths)[4096]);

/* Is the plugin at @path complete: its checks' bitcode beside it? */
bool cc_plugin_complete(const char *path);

/* Can @compiler (a Clang, by name or path) load the plugin, built for
 * one version of LLVM?  Told without running it: by the version in the
 * name it resolves to (Debian's clang is /usr/lib/llvm-N/bin/clang, and
 * clang-N links there). */
bool cc_plugin_fits(const char *compiler);

/* The major version of LLVM the plugin was built for; 0 if none was. */
int cc_plugin_llvm(void);

/* GCC's plugin: where it is looked for, as for cc_plugin_places (0 if
 * this trms was built without it). */
size_t cc_gcc_plugin_places(const char *installed_libdir,
			    char (*paths)[4096]);

/* Can @compiler (a GCC, by name or path) load GCC's plugin, built for one
 * major version of GCC?  Told by the name it resolves to (Debian's gcc and
 * g++ are x86_64-linux-gnu-gcc-N and -g++-N). */
bool cc_gcc_plugin_fits(const char *compiler);

/* The major version of GCC the plugin was built for; 0 if none was. */
int cc_gcc_plugin_major(void);

#endif
