/*
 * pprof_form.c - trms report --pprof OUT (report_form.h): the pprof
 * profile pprof_export.c builds, put in place whole.
 */
#include "pprof_export.h"
#include "report_form.h"

#include <stdint.h>

static int write_pprof(const struct report_form_input *in)
{
	uint8_t *bytes;
	size_t len;
	char err[512];

	if (pprof_build(in->docs, in->n_docs, in->out, &bytes, &len, err,
			sizeof(err)))
		return report_form_failed(err, 2);
	return report_form_write_out(in, bytes, len);
}

const struct report_form report_form_pprof = {
	.option = "pprof", .arg = "OUT", .print = write_pprof,
	.help =
		"write the sampled stacks to the file OUT as a pprof "
		"profile (gzip-compressed profile.proto), for `go tool "
		"pprof` and other pprof readers, and print nothing. Frames "
		"are named as in --tree, with source lines where there is "
		"debug information; regions are functions [name] and thread "
		"starts (thread start).  Each sample has the labels thread "
		"(its name, else its ordinal) and region (the innermost "
		"region on its stack, if any), and the values samples, cpu "
		"(or wall, with TRMS_SAMPLE_CLOCK=wall) in nanoseconds (the "
		"default), work and overhead.  OUT is written atomically (a "
		"temporary file in its directory, then renamed); if there "
		"are no samples, nothing is written",
};
