/*
 * libFuzzer harness for the strict JSON validator and canonical encoder.
 *
 * Input: one byte choosing the depth limit (0..JSON_DEPTH_MAX), then the
 * document.  Checked on every input:
 *	json_validate, json_check and json_canonical agree on acceptance;
 * and on an accepted document:
 *	the canonical form is no longer than the input, has no newline,
 *	validates under the same limits and is its own canonical form;
 *	json_value_end finds the end of the value;
 *	cJSON parses both the document and its canonical form to the same
 *	tree, numbers equal as doubles (-0 is written 0), and every object
 *	of the canonical form has its names in strictly increasing byte
 *	order.
 * cJSON is looser than the validator (duplicate keys, any UTF-8), so it
 * may accept what is refused, but it must accept what is accepted, except
 * numbers over 63 characters, which it cannot parse.
 *
 * A document that is one number, of any length, is also read by strtod()
 * in full: it is refused as out of range exactly when that gives an
 * infinity; else json_number() reads the canonical form as the same
 * double, and the form is the shortest-digits one of json.c: no '+', no
 * 'E', no point in an exponent form, at most 17 significant digits, the
 * last of them not 0, and 0 for every zero; an integer written plain is
 * the double's exact value.
 */

#include <sys/types.h>

#include <cJSON.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define FUZZ_BYTES		(64 * 1024)	/* largest document tried */
#define CJSON_NUMBER_CHARS	63		/* cJSON's number buffer */

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char	 out[FUZZ_BYTES + 1], again[FUZZ_BYTES + 1];
static char	 text[FUZZ_BYTES + 1];

/* A run of number characters cJSON's fixed buffer would cut short. */
static int
long_number_run(const char *doc, size_t len)
{
	size_t	 i, run = 0;

	for (i = 0; i < len; i++) {
		if (doc[i] != '\0' &&
		    strchr("0123456789+-.eE", doc[i]) != NULL)
			run++;
		else
			run = 0;
		if (run >= CJSON_NUMBER_CHARS)
			return 1;
	}
	return 0;
}

/* Same tree, objects compared by name whatever their order. */
static int
same_tree(const cJSON *a, const cJSON *b)
{
	const cJSON	*ca, *cb;

	if ((a->type & 0xff) != (b->type & 0xff))
		return 0;
	if (cJSON_IsNumber(a))
		return a->valuedouble == b->valuedouble;
	if (cJSON_IsString(a))
		return strcmp(a->valuestring, b->valuestring) == 0;
	if (!cJSON_IsArray(a) && !cJSON_IsObject(a))
		return 1;
	if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
		return 0;
	cb = b->child;
	for (ca = a->child; ca != NULL; ca = ca->next) {
		if (cJSON_IsObject(a))
			cb = cJSON_GetObjectItemCaseSensitive(b, ca->string);
		if (cb == NULL || !same_tree(ca, cb))
			return 0;
		if (cJSON_IsArray(a))
			cb = cb->next;
	}
	return 1;
}

/*
 * The canonical form of a number, see json.c: 0, or -?I (an integer, its
 * exact value, up to 309 digits), -?I.F (F not ending in 0) or -?De-?X (D
 * not ending in 0, X not starting with 0); at most 17 significant digits
 * but in an integer.
 */
static int
number_form_ok(const char *s, size_t n)
{
	size_t	 i = 0, sig = 0, int0, point = 0, x;

	if (n == 1 && s[0] == '0')
		return 1;
	if (i < n && s[i] == '-')
		i++;
	int0 = i;
	if (i == n || s[i] < '0' || s[i] > '9')
		return 0;
	if (s[i] == '0' && (i + 1 == n || s[i + 1] != '.'))
		return 0;	/* a leading zero, or -0 */
	for (; i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); i++) {
		if (s[i] == '.') {
			if (point || i + 1 == n)
				return 0;
			point = i;
		} else if (sig > 0 || s[i] != '0')
			sig++;
	}
	if (point && s[i - 1] == '0')
		return 0;
	if (i == n)
		return point ? sig <= DBL_DECIMAL_DIG : i - int0 <= 309;
	if (s[i++] != 'e' || point || s[i - 2] == '0' ||
	    sig > DBL_DECIMAL_DIG)
		return 0;
	if (i < n && s[i] == '-')
		i++;
	if (i == n || s[i] == '0')
		return 0;
	for (x = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		;
	return i == n && i - x <= 3;
}

/* A document that is one number: the checks of the header. */
static void
check_number(const char *doc, size_t len, enum json_error e, size_t n)
{
	size_t	 start = json_skip_ws(doc, len, 0), end;
	double	 full, canon;

	end = json_value_end(doc, len, start);
	if (e != JSON_OK && e != JSON_ERANGE)
		return;
	memcpy(text, doc + start, end - start);
	text[end - start] = '\0';
	full = strtod(text, NULL);
	if ((e == JSON_ERANGE) != (full > DBL_MAX || full < -DBL_MAX))
		abort();
	if (e != JSON_OK)
		return;
	if (json_number(out, n, 0, &canon) != 0 || canon != full ||
	    !number_form_ok(out, n))
		abort();
	/* An integer written plain is the double's exact value. */
	if (canon != 0 && memchr(out, '.', n) == NULL &&
	    memchr(out, 'e', n) == NULL &&
	    (snprintf(text, sizeof(text), "%.0f", canon) != (int)n ||
	    memcmp(text, out, n) != 0))
		abort();
}

static int
names_sorted(const cJSON *a)
{
	const cJSON	*c;

	for (c = a->child; c != NULL; c = c->next) {
		if (cJSON_IsObject(a) && c->next != NULL &&
		    strcmp(c->string, c->next->string) >= 0)
			return 0;
		if (!names_sorted(c))
			return 0;
	}
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_limits	 lim;
	enum json_error		 e;
	cJSON			*a, *b;
	const char		*doc, *why;
	size_t			 len, n, m, end;
	int			 r;

	if (size < 1 || size - 1 > FUZZ_BYTES)
		return 0;
	lim.max_depth = data[0] % (JSON_DEPTH_MAX + 1);
	lim.max_bytes = FUZZ_BYTES;
	doc = (const char *)data + 1;
	len = size - 1;

	e = json_check(doc, len, &lim);
	why = NULL;
	r = json_validate(doc, len, &lim, &why);
	if (r != (e == JSON_OK ? 0 : -1) ||
	    (r == -1 && strcmp(why, json_strerror(e)) != 0))
		abort();
	r = json_canonical(doc, len, &lim, out, sizeof(out), &n, &why);
	if ((r == 0) != (e == JSON_OK))
		abort();
	if (json_type(doc, len, json_skip_ws(doc, len, 0)) == JSON_NUMBER)
		check_number(doc, len, e, n);
	if (e != JSON_OK)
		return 0;

	if (n > len || strlen(out) != n || memchr(out, '\n', n) != NULL)
		abort();
	if (json_check(out, n, &lim) != JSON_OK)
		abort();
	if (json_canonical(out, n, &lim, again, sizeof(again), &m,
	    &why) != 0 || m != n || memcmp(out, again, n) != 0)
		abort();

	end = json_value_end(doc, len, json_skip_ws(doc, len, 0));
	if (end > len || json_skip_ws(doc, len, end) != len)
		abort();

	if ((a = cJSON_ParseWithLength(doc, len)) == NULL) {
		if (!long_number_run(doc, len))
			abort();
		return 0;
	}
	if ((b = cJSON_ParseWithLength(out, n)) == NULL)
		abort();
	if (!same_tree(a, b) || !names_sorted(b))
		abort();
	cJSON_Delete(a);
	cJSON_Delete(b);
	return 0;
}
