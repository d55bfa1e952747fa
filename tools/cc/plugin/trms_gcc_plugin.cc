// trms_gcc_plugin.cc - the GCC plugin of `trms cc --trms-full`: the
// accesses GCC's kernel-address pass leaves out are instrumented too.
//
// `trms cc --trms-full` with GCC makes every load and store a call of
// __asan_loadN_noabort / __asan_storeN_noabort through GCC's own
// kernel-address pass, with no sanitizer runtime (no redzones, no
// registration of globals).  That pass skips an access it can prove
// lies inside a variable of static storage defined in the file being
// compiled, at a constant offset — `buf[1]`, `counter`, `s.field` of a
// global or a function's static — unless globals are sanitized and the
// variable may be initialised at run time: for the sanitizer such an
// access is always valid, but for trms it is an access like any other,
// and often the one that carries input from another thread.
//
// So, just before the pass runs on each function, this plugin tells GCC
// that globals are sanitized and that every variable may be initialised
// at run time (varpool_node::dynamically_initialized, which only the
// sanitizer reads: the C++ front end sets it for its initialisation-order
// checks); and before every other pass it puts the user's setting back,
// so that no global gets a redzone or a registration call (the globals'
// instrumentation is decided when they are written out, outside the
// pass).  The function's own variables whose address is taken (handed to
// another thread, say) are checked by the pass only when the stack is
// sanitized for use after scope: the plugin says so to that pass alone
// too.  Those kept in registers stay out, as with Clang's plugin.
//
// Written against GCC 12's plugin API (gcc-12-plugin-dev).

// (GCC's headers, in the order they need one another.)
#include "gcc-plugin.h"
#include "plugin-version.h"
#include "tree.h"
#include "tree-pass.h"
#include "cgraph.h"
#include "options.h"

// GCC loads only plugins that say their licence lets them (trms's, MIT,
// does).
int plugin_is_GPL_compatible;

namespace {

// The user's settings, put back around every pass but the sanitizer's.
int user_asan_globals, user_asan_stack, user_asan_allocas;
int user_use_after_scope;

bool is_sanitizer_pass(const opt_pass *pass)
{
	// "asan" in the optimised pipeline, "asan0" at -O0.
	return pass && pass->name && !strncmp(pass->name, "asan", 4);
}

void before_pass(void *gcc_data, void *)
{
	bool sanitizer = is_sanitizer_pass(static_cast<opt_pass *>(gcc_data));

	global_options.x_param_asan_globals = sanitizer ? 1 : user_asan_globals;
	// Locals: the pass checks a function's own variable whose address
	// is taken only when the stack is sanitized for use after scope.
	// The stack's redzones and scope marks are laid out by other passes
	// (gimplification, expansion), which see the user's setting; in
	// this one, alloca's redzones are kept off.
	global_options.x_param_asan_stack = sanitizer ? 1 : user_asan_stack;
	global_options.x_param_asan_protect_allocas =
		sanitizer ? 0 : user_asan_allocas;
	global_options.x_flag_sanitize_address_use_after_scope =
		sanitizer ? 1 : user_use_after_scope;
	if (!sanitizer)
		return;
	varpool_node *v;
	FOR_EACH_VARIABLE (v)
		v->dynamically_initialized = 1;
}

} // namespace

int plugin_init(struct plugin_name_args *info,
		struct plugin_gcc_version *version)
{
	if (!plugin_default_version_check(version, &gcc_version))
		return 1;
	user_asan_globals = global_options.x_param_asan_globals;
	user_asan_stack = global_options.x_param_asan_stack;
	user_asan_allocas = global_options.x_param_asan_protect_allocas;
	user_use_after_scope =
		global_options.x_flag_sanitize_address_use_after_scope;
	register_callback(info->base_name, PLUGIN_PASS_EXECUTION, before_pass,
			  nullptr);
	return 0;
}
