/*
 * io_plugin.c - the plugin io_host.c loads: one activation of the region
 * "consume" per call, reading the buffer it is given.
 */
#include <stddef.h>

#include <trms.h>

void consume(const void *buf, size_t len);

void consume(const void *buf, size_t len)
{
	trms_region_begin("consume");
	trms_read(buf, len);
	trms_region_end("consume");
}
