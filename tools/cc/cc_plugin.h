/*
 * cc_plugin.h - the Clang plugin of `trms cc --trms-full`
 * (tools/cc/plugin/): where it is, and whether a given clang can load it.
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

#endif
