/*
 * cc_plugin.h - the Clang plugin of `trms cc --trms-full`
 * (tools/cc/plugin/): where it is, and whether a given clang can load it.
 */
#ifndef TRMS_CC_PLUGIN_H
#define TRMS_CC_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

/* The plugin, with its checks' bitcode beside it: next to the trms
 * command in a build tree (cc/plugin/trms-pass.so), or in
 * @installed_libdir/trms/ (relative paths are from the command's
 * directory): its real path into @out.  @return 0, or -ENOENT if this
 * trms was built without it or it is gone. */
int cc_find_plugin(const char *installed_libdir, char *out, size_t len);

/* Can @compiler (a Clang, by name or path) load the plugin, built for
 * one version of LLVM?  Told without running it: by the version in the
 * name it resolves to (Debian's clang is /usr/lib/llvm-N/bin/clang, and
 * clang-N links there). */
bool cc_plugin_fits(const char *compiler);

/* The major version of LLVM the plugin was built for; 0 if none was. */
int cc_plugin_llvm(void);

#endif
