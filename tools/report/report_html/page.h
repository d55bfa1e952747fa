/*
 * page.h - the page of `trms report --html`, compiled into trms: the text
 * of report.html (with report.css and report.js inlined) before and after
 * the place of the report's JSON.  Generated at build time by embed.py.
 */
#ifndef TRMS_REPORT_HTML_PAGE_H
#define TRMS_REPORT_HTML_PAGE_H

#include <stddef.h>

extern const unsigned char report_page_head[];
extern const size_t report_page_head_size;
extern const unsigned char report_page_tail[];
extern const size_t report_page_tail_size;

#endif
