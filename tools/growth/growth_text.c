/*
 * growth_text.c - a growth estimate as the user reads it: the class (or
 * range) and the fitted formula with three significant digits.
 */
#include "growth.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *growth_class_text(const struct growth_estimate *e, char *buf,
			      size_t len)
{
	if (e->has_range)
		snprintf(buf, len, "%s...%s", growth_name(e->range_low),
			 growth_name(e->range_high));
	else
		snprintf(buf, len, "%s", growth_name(e->growth));
	return buf;
}

/* @x with 3 significant digits, trailing zeros dropped: "3.02", "12.5",
 * "200", "0.5", "123456" (integer digits are never dropped below 1e6),
 * "1.2e+07". */
static void format_number(char *buf, size_t len, double x)
{
	double mag = fabs(x);

	if (mag == 0) {
		snprintf(buf, len, "0");
		return;
	}
	int exponent = (int)floor(log10(mag));

	if (exponent >= -4 && exponent < 6) {
		int decimals = exponent >= 2 ? 0 : 2 - exponent;

		snprintf(buf, len, "%.*f", decimals, x);
	} else {
		snprintf(buf, len, "%.2e", x);
	}

	char *e = strchr(buf, 'e');
	char *dot = strchr(buf, '.');

	if (!dot)
		return;
	char *end = e ? e : buf + strlen(buf);
	char *cut = end;

	while (cut > dot + 1 && cut[-1] == '0')
		cut--;
	if (cut == dot + 1)
		cut = dot;
	memmove(cut, end, strlen(end) + 1);
}

const char *growth_formula(const struct growth_estimate *e, char *buf,
			   size_t len)
{
	char c1[32], c0[32];
	const struct growth_model *m = &e->fit;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (e->growth == GROWTH_INSUFFICIENT || m->g == GROWTH_INSUFFICIENT)
		return buf;
	if (m->g == GROWTH_EXP) {
		char base[32];

		format_number(c1, sizeof(c1), m->c1);
		/* The base needs more digits than the coefficient: 1.05^n
		 * and 1.1^n differ by 100x at n = 100. */
		snprintf(base, sizeof(base), "%.4g", m->base);
		snprintf(buf, len, "%s * %s^n", c1, base);
		return buf;
	}
	if (m->g == GROWTH_CONSTANT) {
		format_number(buf, len, m->c0);
		return buf;
	}
	format_number(c0, sizeof(c0), fabs(m->c0));
	format_number(c1, sizeof(c1), m->c1);

	const char *coefficient = strcmp(c1, "1") == 0 ? "" : c1;
	const char *space = *coefficient ? " " : "";
	/* The constant term is left out when it is below 1e-4 of the
	 * growing term at the smallest size: it changes no printed digit of
	 * the sum anywhere in the data. */
	double g_low = growth_g(m->g, e->n_min > 0 ? e->n_min : 1);
	bool with_c0 = !(fabs(m->c0) <= 1e-4 * fabs(m->c1 * g_low));

	if (with_c0)
		snprintf(buf, len, "%s%s%s %c %s", coefficient, space,
			 growth_name(m->g), m->c0 < 0 ? '-' : '+', c0);
	else
		snprintf(buf, len, "%s%s%s", coefficient, space,
			 growth_name(m->g));
	return buf;
}
