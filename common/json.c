/*
 * Strict JSON (RFC 8259) for untrusted bytes: a one-pass validator, a
 * canonical encoder, and readers of what the validator accepted.
 *
 * Nothing allocates.  The validator is iterative: the open containers are
 * a stack of at most JSON_DEPTH_MAX entries, and the names of the members
 * of the open objects another stack of at most JSON_OPEN_MEMBERS_MAX,
 * each name held as its offset and a hash of its code points.  A new name
 * is compared in full only with the earlier names of its object that have
 * the same hash, so duplicate detection costs at most JSON_MEMBERS_MAX
 * comparisons per name.
 *
 * The encoder recurses, once per nesting level of a document that has
 * passed the depth limit, and holds all members of every object it is
 * inside.  The validator therefore also computes, as each container
 * closes, its "need": its own member count plus the largest need among
 * its children; a need above JSON_OPEN_MEMBERS_MAX is refused, so the
 * encoder's fixed table always suffices.
 *
 * Numbers are read as IEEE-754 doubles, as RFC 7493 (I-JSON) says every
 * receiver may read them: json_num_read() is the one reader, used by the
 * validator (a number that overflows to an infinity is refused), by the
 * encoder and by json_number().  The canonical form of a number is
 * described, and its length bounded, above json_put_number().
 */

#include <sys/types.h>

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/*
 * Only a number's first JSON_NUM_DIGITS significant digits are kept, the
 * rest as "a nonzero digit follows" (a double has at most 767, a midpoint
 * between two 768: the value read is the full text's).  One whose first
 * lies JSON_NUM_EXP_MAX places from the point is 0 or too large, and so is
 * one whose exponent reaches the clamp: its digits (< 2^56) move it less.
 */
#define JSON_NUM_DIGITS		800
#define JSON_NUM_EXP_MAX	400
#define JSON_NUM_EXP_CLAMP	100000000000000000LL	/* 10^17 */
#define JSON_NUM_TEXT		(JSON_NUM_DIGITS + 32)	/* for strtod() */
#define JSON_NUM_OUT		344	/* "-0." 323 zeros and 17 digits */
#define JSON_TWO53		9007199254740992.0

#define FNV_BASIS	0x811c9dc5U
#define FNV_PRIME	0x01000193U

/* A byte that stands for itself in a string: ASCII, no control, no escape. */
#define PLAIN(c)	((c) >= 0x20 && (c) < 0x80 && (c) != '"' && \
			    (c) != '\\')

struct json_name {
	size_t		 jn_off;	/* opening quote */
	uint32_t	 jn_hash;	/* of the unescaped code points */
};

struct json_open {
	int		 jo_object;	/* 1 object, 0 array */
	size_t		 jo_names;	/* its first name in js_names */
	size_t		 jo_inner;	/* largest need of a closed child */
};

struct json_scan {
	const unsigned char	*js_buf;
	size_t			 js_len;
	size_t			 js_pos;
	int			 js_depth;
	size_t			 js_nnames;
	struct json_open	 js_open[JSON_DEPTH_MAX];
	struct json_name	 js_names[JSON_OPEN_MEMBERS_MAX];
};

/*
 * A number as read: its double and, when it has at most DBL_DIG
 * significant digits, those digits (value = 0.dig x 10^exp).
 */
struct json_num {
	double		 nu_value;
	int		 nu_ndig;	/* 0: more than DBL_DIG */
	char		 nu_dig[DBL_DIG];
	long long	 nu_exp;
};

struct json_member {
	size_t		 jm_name;
	size_t		 jm_value;
};

struct json_canon {
	const unsigned char	*jc_buf;
	size_t			 jc_len;
	char			*jc_out;
	size_t			 jc_outsz;	/* room, NUL not counted */
	size_t			 jc_outlen;
	int			 jc_full;
	size_t			 jc_nmembers;
	struct json_member	 jc_members[JSON_OPEN_MEMBERS_MAX];
};

enum json_scan_state {
	SCAN_VALUE,		/* a value must start here */
	SCAN_AFTER,		/* a value ended: ',' or a close, or the end */
	SCAN_NAME		/* a member name must start here */
};

static const char *const json_reasons[JSON_ERROR_MAX] = {
	[JSON_OK] = "no error",
	[JSON_ELIMITS] = "invalid limits",
	[JSON_ESIZE] = "document too large",
	[JSON_ENUL] = "NUL byte",
	[JSON_EUTF8] = "invalid UTF-8",
	[JSON_ESURROGATE] = "unpaired surrogate",
	[JSON_ESYNTAX] = "syntax error",
	[JSON_ETRAILING] = "trailing data",
	[JSON_EDEPTH] = "nesting too deep",
	[JSON_EMEMBERS] = "too many members",
	[JSON_EDUPKEY] = "duplicate key",
	[JSON_ESPACE] = "output too large",
	[JSON_ERANGE] = "number out of range",
};

static size_t	json_utf8_decode(const unsigned char *, size_t, uint32_t *);
static int	json_hex4(const unsigned char *, size_t, size_t, uint32_t *);
static int	json_str_next(const unsigned char *, size_t, size_t *,
		    uint32_t *, enum json_error *);
static int	json_name_cmp(const unsigned char *, size_t, size_t, size_t);
static size_t	json_ws(const unsigned char *, size_t, size_t);
static enum json_error json_bad_byte(const struct json_scan *);
static enum json_error json_scan_string(struct json_scan *, uint32_t *);
static enum json_error json_scan_number(struct json_scan *);
static enum json_error json_num_read(const unsigned char *, size_t, size_t *,
		    struct json_num *);
static int	json_num_fast(struct json_num *, int);
static double	json_digits_value(const char *, int, long long);
static int	json_digits_try(double, int, int, char *, int *, long long *);
static void	json_shortest(double, char *, int *, long long *);
static size_t	json_num_format(double, int, const char *, int, long long,
		    size_t, char *);
static void	json_put_number(struct json_canon *, size_t);
static enum json_error json_scan_literal(struct json_scan *);
static enum json_error json_scan_name(struct json_scan *);
static enum json_error json_close(struct json_scan *);
static size_t	json_string_end(const unsigned char *, size_t, size_t);
static size_t	json_scalar_end(const unsigned char *, size_t, size_t);
static int	json_iter_next(const unsigned char *, size_t, size_t *,
		    size_t *, size_t *);
static void	json_put(struct json_canon *, const void *, size_t);
static size_t	json_string_run(const unsigned char *, size_t, size_t);
static void	json_put_string(struct json_canon *, size_t);
static void	json_sort(struct json_canon *, struct json_member *, size_t);
static int	json_canon_value(struct json_canon *, size_t, int);

const char *
json_strerror(enum json_error e)
{
	if (e < 0 || e >= JSON_ERROR_MAX)
		return "unknown error";
	return json_reasons[e];
}

int
json_validate(const char *buf, size_t len, const struct json_limits *lim,
    const char **why)
{
	enum json_error	 e;

	if ((e = json_check(buf, len, lim)) == JSON_OK)
		return 0;
	if (why != NULL)
		*why = json_strerror(e);
	return -1;
}

enum json_error
json_check(const char *buf, size_t len, const struct json_limits *lim)
{
	struct json_scan	 js;
	struct json_open	*top;
	enum json_scan_state	 state;
	enum json_error		 e;
	unsigned char		 c;

	if (lim == NULL || lim->max_depth < 0 ||
	    lim->max_depth > JSON_DEPTH_MAX || (buf == NULL && len > 0))
		return JSON_ELIMITS;
	if (len > lim->max_bytes)
		return JSON_ESIZE;
	if (len > 0 && memchr(buf, '\0', len) != NULL)
		return JSON_ENUL;

	js.js_buf = (const unsigned char *)buf;
	js.js_len = len;
	js.js_pos = json_ws(js.js_buf, len, 0);
	js.js_depth = 0;
	js.js_nnames = 0;
	state = SCAN_VALUE;

	for (;;) {
		top = js.js_depth > 0 ? &js.js_open[js.js_depth - 1] : NULL;
		if (state == SCAN_NAME) {
			if ((e = json_scan_name(&js)) != JSON_OK)
				return e;
			state = SCAN_VALUE;
			continue;
		}
		if (state == SCAN_AFTER) {
			js.js_pos = json_ws(js.js_buf, len, js.js_pos);
			if (top == NULL)
				return js.js_pos == len ? JSON_OK :
				    JSON_ETRAILING;
			if (js.js_pos >= len)
				return JSON_ESYNTAX;
			c = js.js_buf[js.js_pos];
			if (c == ',') {
				js.js_pos = json_ws(js.js_buf, len,
				    js.js_pos + 1);
				state = top->jo_object ? SCAN_NAME :
				    SCAN_VALUE;
			} else if (c == (top->jo_object ? '}' : ']')) {
				js.js_pos++;
				if ((e = json_close(&js)) != JSON_OK)
					return e;
			} else
				return json_bad_byte(&js);
			continue;
		}

		/* SCAN_VALUE */
		if (js.js_pos >= len)
			return JSON_ESYNTAX;
		c = js.js_buf[js.js_pos];
		switch (c) {
		case '{':
		case '[':
			if (js.js_depth >= lim->max_depth)
				return JSON_EDEPTH;
			top = &js.js_open[js.js_depth++];
			top->jo_object = c == '{';
			top->jo_names = js.js_nnames;
			top->jo_inner = 0;
			js.js_pos = json_ws(js.js_buf, len, js.js_pos + 1);
			if (js.js_pos < len &&
			    js.js_buf[js.js_pos] == (c == '{' ? '}' : ']')) {
				js.js_pos++;
				js.js_depth--;
				state = SCAN_AFTER;
			} else
				state = c == '{' ? SCAN_NAME : SCAN_VALUE;
			continue;
		case '"':
			e = json_scan_string(&js, NULL);
			break;
		case 't':
		case 'f':
		case 'n':
			e = json_scan_literal(&js);
			break;
		case '-':
		case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			e = json_scan_number(&js);
			break;
		default:
			return json_bad_byte(&js);
		}
		if (e != JSON_OK)
			return e;
		state = SCAN_AFTER;
	}
}

/* Close the innermost container and pass its need to its parent. */
static enum json_error
json_close(struct json_scan *js)
{
	struct json_open	*top = &js->js_open[js->js_depth - 1];
	struct json_open	*parent;
	size_t			 need = top->jo_inner;

	if (top->jo_object) {
		need += js->js_nnames - top->jo_names;
		js->js_nnames = top->jo_names;
	}
	if (need > JSON_OPEN_MEMBERS_MAX)
		return JSON_EMEMBERS;
	if (--js->js_depth > 0) {
		parent = &js->js_open[js->js_depth - 1];
		if (parent->jo_inner < need)
			parent->jo_inner = need;
	}
	return JSON_OK;
}

/*
 * A member name at js_pos, checked against the earlier names of the
 * innermost object, then its ':' and the whitespace before the value.
 */
static enum json_error
json_scan_name(struct json_scan *js)
{
	struct json_open	*top = &js->js_open[js->js_depth - 1];
	struct json_name	*n;
	enum json_error		 e;
	size_t			 off, i;
	uint32_t		 h;

	if (js->js_pos >= js->js_len || js->js_buf[js->js_pos] != '"')
		return json_bad_byte(js);
	if (js->js_nnames - top->jo_names >= JSON_MEMBERS_MAX ||
	    js->js_nnames >= JSON_OPEN_MEMBERS_MAX)
		return JSON_EMEMBERS;
	off = js->js_pos;
	if ((e = json_scan_string(js, &h)) != JSON_OK)
		return e;
	for (i = top->jo_names; i < js->js_nnames; i++) {
		n = &js->js_names[i];
		if (n->jn_hash == h &&
		    json_name_cmp(js->js_buf, js->js_len, n->jn_off, off) == 0)
			return JSON_EDUPKEY;
	}
	n = &js->js_names[js->js_nnames++];
	n->jn_off = off;
	n->jn_hash = h;

	js->js_pos = json_ws(js->js_buf, js->js_len, js->js_pos);
	if (js->js_pos >= js->js_len || js->js_buf[js->js_pos] != ':')
		return json_bad_byte(js);
	js->js_pos = json_ws(js->js_buf, js->js_len, js->js_pos + 1);
	return JSON_OK;
}

/* An unexpected byte: ill-formed UTF-8 says so, anything else is syntax. */
static enum json_error
json_bad_byte(const struct json_scan *js)
{
	uint32_t	 cp;

	if (js->js_pos < js->js_len && js->js_buf[js->js_pos] >= 0x80 &&
	    json_utf8_decode(js->js_buf + js->js_pos, js->js_len - js->js_pos,
	    &cp) == 0)
		return JSON_EUTF8;
	return JSON_ESYNTAX;
}

/* One FNV-1a step over a code point: its low byte, then the rest. */
static inline uint32_t
json_hash(uint32_t h, uint32_t cp)
{
	h = (h ^ (cp & 0xff)) * FNV_PRIME;
	return (h ^ (cp >> 8)) * FNV_PRIME;
}

/*
 * The string at js_pos; a member name (hash not NULL) also gets the hash
 * of its code points.  Runs of plain ASCII are taken without decoding.
 */
static enum json_error
json_scan_string(struct json_scan *js, uint32_t *hash)
{
	const unsigned char	*b = js->js_buf;
	enum json_error		 e = JSON_OK;
	size_t			 pos = js->js_pos + 1;
	uint32_t		 h = FNV_BASIS, cp;
	int			 r;

	for (;;) {
		for (; pos < js->js_len && PLAIN(b[pos]); pos++)
			if (hash != NULL)
				h = json_hash(h, b[pos]);
		if ((r = json_str_next(b, js->js_len, &pos, &cp, &e)) != 1)
			break;
		if (hash != NULL)
			h = json_hash(h, cp);
	}
	if (r == -1)
		return e;
	js->js_pos = pos;
	if (hash != NULL)
		*hash = h;
	return JSON_OK;
}

static enum json_error
json_scan_number(struct json_scan *js)
{
	struct json_num	 nu;

	return json_num_read(js->js_buf, js->js_len, &js->js_pos, &nu);
}

static enum json_error
json_scan_literal(struct json_scan *js)
{
	static const char *const lits[] = { "true", "false", "null" };
	size_t			 i, n, room = js->js_len - js->js_pos;

	for (i = 0; i < sizeof(lits) / sizeof(lits[0]); i++) {
		n = strlen(lits[i]);
		if (room >= n && memcmp(js->js_buf + js->js_pos, lits[i],
		    n) == 0) {
			js->js_pos += n;
			return JSON_OK;
		}
	}
	return JSON_ESYNTAX;
}

/*
 * Length of the well-formed UTF-8 sequence at p (n bytes available) with
 * its code point in *cp, or 0 when it is ill-formed: a continuation byte
 * first, an overlong form, a surrogate, above U+10FFFF, or truncated.
 * The second byte's range carries the overlong, surrogate and maximum
 * rules (Unicode 15, table 3-7).
 */
static size_t
json_utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	unsigned char	 lo = 0x80, hi = 0xbf;
	size_t		 need, i;
	uint32_t	 c;

	if (n == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] < 0xc2)
		return 0;
	if (p[0] < 0xe0) {
		need = 1;
		c = p[0] & 0x1f;
	} else if (p[0] < 0xf0) {
		need = 2;
		c = p[0] & 0x0f;
		if (p[0] == 0xe0)
			lo = 0xa0;
		else if (p[0] == 0xed)
			hi = 0x9f;
	} else if (p[0] < 0xf5) {
		need = 3;
		c = p[0] & 0x07;
		if (p[0] == 0xf0)
			lo = 0x90;
		else if (p[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n <= need || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 1; i <= need; i++) {
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
		c = (c << 6) | (p[i] & 0x3f);
	}
	*cp = c;
	return need + 1;
}

/* Four hex digits at b[pos], either case. */
static int
json_hex4(const unsigned char *b, size_t len, size_t pos, uint32_t *v)
{
	size_t		 i;
	unsigned char	 c;

	if (pos > len || len - pos < 4)
		return -1;
	*v = 0;
	for (i = 0; i < 4; i++) {
		c = b[pos + i];
		if (c >= '0' && c <= '9')
			*v = (*v << 4) | (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v = (*v << 4) | (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v = (*v << 4) | (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/*
 * The next code point of a string body at *pos: 1 with *cp, 0 at the
 * closing quote (*pos then past it), -1 with *err.  Every reader of a
 * string goes through here, so the validator and the readers cannot
 * disagree on what a string says.
 */
static int
json_str_next(const unsigned char *b, size_t len, size_t *pos, uint32_t *cp,
    enum json_error *err)
{
	size_t		 p = *pos, n;
	uint32_t	 lo;

	if (p >= len) {
		*err = JSON_ESYNTAX;
		return -1;
	}
	if (b[p] == '"') {
		*pos = p + 1;
		return 0;
	}
	if (b[p] < 0x20) {
		*err = b[p] == '\0' ? JSON_ENUL : JSON_ESYNTAX;
		return -1;
	}
	if (b[p] != '\\') {
		if ((n = json_utf8_decode(b + p, len - p, cp)) == 0) {
			*err = JSON_EUTF8;
			return -1;
		}
		*pos = p + n;
		return 1;
	}
	if (p + 1 >= len) {
		*err = JSON_ESYNTAX;
		return -1;
	}
	switch (b[p + 1]) {
	case '"':
	case '\\':
	case '/':
		*cp = b[p + 1];
		break;
	case 'b':
		*cp = '\b';
		break;
	case 'f':
		*cp = '\f';
		break;
	case 'n':
		*cp = '\n';
		break;
	case 'r':
		*cp = '\r';
		break;
	case 't':
		*cp = '\t';
		break;
	case 'u':
		if (json_hex4(b, len, p + 2, cp) == -1) {
			*err = JSON_ESYNTAX;
			return -1;
		}
		p += 4;
		if (*cp >= 0xdc00 && *cp <= 0xdfff) {
			*err = JSON_ESURROGATE;
			return -1;
		}
		if (*cp >= 0xd800 && *cp <= 0xdbff) {
			/* Only a low surrogate escape may follow. */
			if (p + 3 >= len || b[p + 2] != '\\' ||
			    b[p + 3] != 'u') {
				*err = JSON_ESURROGATE;
				return -1;
			}
			if (json_hex4(b, len, p + 4, &lo) == -1) {
				*err = JSON_ESYNTAX;
				return -1;
			}
			if (lo < 0xdc00 || lo > 0xdfff) {
				*err = JSON_ESURROGATE;
				return -1;
			}
			*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
			p += 6;
		}
		if (*cp == 0) {
			*err = JSON_ENUL;
			return -1;
		}
		break;
	default:
		*err = JSON_ESYNTAX;
		return -1;
	}
	*pos = p + 2;
	return 1;
}

/*
 * Order of two strings (opening quotes at a and c) by unescaped code
 * points, which is the order of their UTF-8 bytes; a prefix sorts first.
 */
static int
json_name_cmp(const unsigned char *b, size_t len, size_t a, size_t c)
{
	enum json_error	 e;
	uint32_t	 ca, cc;
	int		 ra, rc;

	a++;
	c++;
	for (;;) {
		ra = json_str_next(b, len, &a, &ca, &e);
		rc = json_str_next(b, len, &c, &cc, &e);
		if (ra != 1 || rc != 1)
			return (ra == 1) - (rc == 1);
		if (ca != cc)
			return ca < cc ? -1 : 1;
	}
}

static size_t
json_ws(const unsigned char *b, size_t len, size_t pos)
{
	while (pos < len && (b[pos] == ' ' || b[pos] == '\t' ||
	    b[pos] == '\n' || b[pos] == '\r'))
		pos++;
	return pos;
}

/* Numbers. */

/*
 * The number at b[*pos], of the RFC 8259 grammar, read as the double
 * nearest its exact value (ties to even), as strtod() and every correct
 * parser read it: JSON_ESYNTAX when the grammar is not followed,
 * JSON_ERANGE when the nearest double is an infinity, else JSON_OK with
 * *pos past it.  A value too small for the smallest subnormal reads as 0
 * (or -0): it is finite, and every double parser agrees on it, so it is
 * not refused; the canonical form writes it as 0.
 *
 * strtod() is given a text of bounded length and no radix character
 * (integer digits and an exponent), so the locale cannot change it.
 */
static enum json_error
json_num_read(const unsigned char *b, size_t len, size_t *pos,
    struct json_num *nu)
{
	char		 text[JSON_NUM_TEXT];
	size_t		 p = *pos, nsig = 0, lastnz = 0, n;
	long long	 point = 0, e = 0, exp10;
	int		 neg = 0, eneg = 0, w;
	unsigned char	 c;

#define DIGIT(i)	((i) < len && b[(i)] >= '0' && b[(i)] <= '9')
	nu->nu_value = 0;
	nu->nu_ndig = 0;
	nu->nu_exp = 0;
	if (p < len && b[p] == '-') {
		neg = 1;
		text[0] = '-';
		p++;
	}
	n = neg;
	if (!DIGIT(p))
		return JSON_ESYNTAX;
	/*
	 * Significant digits from the first nonzero one, integer part and
	 * fraction as one run; point counts the integer digits among them
	 * (or, negated, the fraction's zeros before the first).
	 */
	if (b[p] == '0')
		p++;
	else
		for (; DIGIT(p); p++, nsig++) {
			point++;
			if (nsig < JSON_NUM_DIGITS)
				text[n++] = (char)b[p];
			if (b[p] != '0')
				lastnz = nsig + 1;
		}
	if (p < len && b[p] == '.') {
		if (!DIGIT(p + 1))
			return JSON_ESYNTAX;
		for (p++; DIGIT(p); p++) {
			c = b[p];
			if (nsig == 0 && c == '0') {
				point--;
				continue;
			}
			if (nsig < JSON_NUM_DIGITS)
				text[n++] = (char)c;
			if (c != '0')
				lastnz = nsig + 1;
			nsig++;
		}
	}
	if (p < len && (b[p] == 'e' || b[p] == 'E')) {
		p++;
		if (p < len && (b[p] == '+' || b[p] == '-'))
			eneg = b[p++] == '-';
		if (!DIGIT(p))
			return JSON_ESYNTAX;
		for (; DIGIT(p); p++)
			if (e < JSON_NUM_EXP_CLAMP)
				e = e * 10 + (b[p] - '0');
	}
#undef DIGIT
	*pos = p;
	if (lastnz == 0) {
		nu->nu_value = neg ? -0.0 : 0.0;
		return JSON_OK;
	}

	/* The value is 0.d1d2... x 10^exp10, d1 not 0. */
	exp10 = point + (eneg ? -e : e);
	if (exp10 > JSON_NUM_EXP_MAX)
		return JSON_ERANGE;
	if (exp10 < -JSON_NUM_EXP_MAX) {
		nu->nu_value = neg ? -0.0 : 0.0;
		return JSON_OK;
	}
	if (lastnz <= DBL_DIG) {
		nu->nu_ndig = (int)lastnz;
		memcpy(nu->nu_dig, text + neg, lastnz);
		nu->nu_exp = exp10;
		if (json_num_fast(nu, neg))
			return JSON_OK;
	}
	/*
	 * Trailing zeros dropped; or the digits cut, with a nonzero one
	 * after them, which a 1 in the next place stands for.
	 */
	if (lastnz <= JSON_NUM_DIGITS)
		n = neg + lastnz;
	else
		text[n++] = '1';
	w = snprintf(text + n, sizeof(text) - n, "e%lld",
	    exp10 - (long long)(n - neg));
	if (w < 0 || (size_t)w >= sizeof(text) - n)
		return JSON_ERANGE;	/* cannot happen: the text is bounded */
	nu->nu_value = strtod(text, NULL);
	if (nu->nu_value > DBL_MAX || nu->nu_value < -DBL_MAX)
		return JSON_ERANGE;
	return JSON_OK;
}

/*
 * Most numbers are short: at most DBL_DIG digits m, exact as a double,
 * and a power of ten up to 10^22, exact too, so m x 10^x (or m / 10^-x)
 * is one correctly rounded operation, the value strtod() would give
 * (W. D. Clinger, How to read floating point numbers accurately, 1990).
 * Only where doubles are evaluated as doubles, without excess precision.
 */
static int
json_num_fast(struct json_num *nu, int neg)
{
	static const double	 pow10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
	};
	long long	 x = nu->nu_exp - nu->nu_ndig;
	uint64_t	 m = 0;
	int		 i;

	if (FLT_EVAL_METHOD != 0 || x > 22 || x < -22)
		return 0;
	for (i = 0; i < nu->nu_ndig; i++)
		m = m * 10 + (uint64_t)(nu->nu_dig[i] - '0');
	nu->nu_value = x >= 0 ? (double)m * pow10[x] : (double)m / pow10[-x];
	if (neg)
		nu->nu_value = -nu->nu_value;
	return 1;
}

int
json_number(const char *buf, size_t len, size_t off, double *d)
{
	struct json_num	 nu;
	size_t		 end, pos = off;

	if (off >= len)
		return -1;
	end = json_scalar_end((const unsigned char *)buf, len, off);
	if (json_num_read((const unsigned char *)buf, end, &pos, &nu) !=
	    JSON_OK || pos != end)
		return -1;
	*d = nu.nu_value;
	return 0;
}

/* Readers. */

size_t
json_skip_ws(const char *buf, size_t len, size_t off)
{
	return json_ws((const unsigned char *)buf, len, off);
}

enum json_type
json_type(const char *buf, size_t len, size_t off)
{
	if (off >= len)
		return JSON_INVALID;
	switch (buf[off]) {
	case '{':
		return JSON_OBJECT;
	case '[':
		return JSON_ARRAY;
	case '"':
		return JSON_STRING;
	case 't':
		return JSON_TRUE;
	case 'f':
		return JSON_FALSE;
	case 'n':
		return JSON_NULL;
	case '-':
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return JSON_NUMBER;
	default:
		return JSON_INVALID;
	}
}

/*
 * Past the closing quote of the string whose opening quote is at off: the
 * first quote after it behind an even run of backslashes.
 */
static size_t
json_string_end(const unsigned char *b, size_t len, size_t off)
{
	const unsigned char	*q;
	size_t			 pos = off + 1, bs;

	while (pos < len && (q = memchr(b + pos, '"', len - pos)) != NULL) {
		pos = (size_t)(q - b);
		for (bs = 0; pos - bs > off + 1 && b[pos - bs - 1] == '\\';
		    bs++)
			;
		pos++;
		if (bs % 2 == 0)
			return pos;
	}
	return len;
}

static size_t
json_scalar_end(const unsigned char *b, size_t len, size_t off)
{
	while (off < len && b[off] != ',' && b[off] != ']' && b[off] != '}' &&
	    b[off] != ' ' && b[off] != '\t' && b[off] != '\n' &&
	    b[off] != '\r')
		off++;
	return off;
}

size_t
json_value_end(const char *buf, size_t len, size_t off)
{
	const unsigned char	*b = (const unsigned char *)buf;
	size_t			 depth = 0;

	if (off >= len)
		return len;
	if (b[off] == '"')
		return json_string_end(b, len, off);
	if (b[off] != '{' && b[off] != '[')
		return json_scalar_end(b, len, off);
	while (off < len) {
		switch (b[off]) {
		case '"':
			off = json_string_end(b, len, off);
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (--depth == 0)
				return off + 1;
			break;
		}
		off++;
	}
	return len;
}

/*
 * One step through a container: *it is at its opening bracket, or past
 * the previous value.  The name offset is only set in objects.
 */
static int
json_iter_next(const unsigned char *b, size_t len, size_t *it, size_t *name,
    size_t *value)
{
	size_t	 pos = *it;
	int	 object;

	if (pos >= len)
		return 0;
	if (b[pos] == '{' || b[pos] == '[')
		pos++;
	pos = json_ws(b, len, pos);
	if (pos < len && b[pos] == ',')
		pos = json_ws(b, len, pos + 1);
	if (pos >= len || b[pos] == '}' || b[pos] == ']')
		return 0;
	object = b[pos] == '"' && name != NULL;
	if (object) {
		*name = pos;
		pos = json_string_end(b, len, pos);
		pos = json_ws(b, len, pos);
		if (pos < len && b[pos] == ':')
			pos++;
		pos = json_ws(b, len, pos);
	}
	*value = pos;
	*it = json_value_end((const char *)b, len, pos);
	if (*it == pos)
		*it = len;	/* no progress: not a document we accepted */
	return 1;
}

int
json_member_next(const char *buf, size_t len, size_t *it, size_t *name,
    size_t *value)
{
	return json_iter_next((const unsigned char *)buf, len, it, name,
	    value);
}

int
json_element_next(const char *buf, size_t len, size_t *it, size_t *value)
{
	return json_iter_next((const unsigned char *)buf, len, it, NULL,
	    value);
}

int
json_string_equal(const char *buf, size_t len, size_t off, const char *s)
{
	const unsigned char	*b = (const unsigned char *)buf;
	const unsigned char	*u = (const unsigned char *)s;
	enum json_error		 e;
	size_t			 pos = off + 1, n, ulen = strlen(s);
	uint32_t		 cp, sc;

	if (off >= len || b[off] != '"')
		return 0;
	while (json_str_next(b, len, &pos, &cp, &e) == 1) {
		if ((n = json_utf8_decode(u, ulen, &sc)) == 0 || sc != cp)
			return 0;
		u += n;
		ulen -= n;
	}
	return ulen == 0;
}

int
json_string_copy(const char *buf, size_t len, size_t off, char *dst,
    size_t dstsz, size_t *dstlen)
{
	const unsigned char	*b = (const unsigned char *)buf;
	enum json_error		 e;
	size_t			 pos = off + 1, n = 0;
	uint32_t		 cp;
	int			 r;

	if (dstsz == 0 || off >= len || b[off] != '"')
		return -1;
	while ((r = json_str_next(b, len, &pos, &cp, &e)) == 1) {
		if (cp < 0x80) {
			if (dstsz - n < 2)
				return -1;
			dst[n++] = (char)cp;
		} else if (cp < 0x800) {
			if (dstsz - n < 3)
				return -1;
			dst[n++] = (char)(0xc0 | cp >> 6);
			dst[n++] = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			if (dstsz - n < 4)
				return -1;
			dst[n++] = (char)(0xe0 | cp >> 12);
			dst[n++] = (char)(0x80 | (cp >> 6 & 0x3f));
			dst[n++] = (char)(0x80 | (cp & 0x3f));
		} else {
			if (dstsz - n < 5)
				return -1;
			dst[n++] = (char)(0xf0 | cp >> 18);
			dst[n++] = (char)(0x80 | (cp >> 12 & 0x3f));
			dst[n++] = (char)(0x80 | (cp >> 6 & 0x3f));
			dst[n++] = (char)(0x80 | (cp & 0x3f));
		}
	}
	if (r == -1)
		return -1;
	dst[n] = '\0';
	if (dstlen != NULL)
		*dstlen = n;
	return 0;
}

/* Canonical form. */

int
json_canonical(const char *buf, size_t len, const struct json_limits *lim,
    char *out, size_t outsz, size_t *outlen, const char **why)
{
	enum json_error	 e;

	if ((e = json_canon(buf, len, lim, out, outsz, outlen)) == JSON_OK)
		return 0;
	if (why != NULL)
		*why = json_strerror(e);
	return -1;
}

enum json_error
json_canon(const char *buf, size_t len, const struct json_limits *lim,
    char *out, size_t outsz, size_t *outlen)
{
	struct json_canon	 jc;
	enum json_error		 e;
	size_t			 start;

	if ((e = json_check(buf, len, lim)) != JSON_OK)
		return e;
	if (out == NULL || outsz == 0)
		return JSON_ESPACE;
	jc.jc_buf = (const unsigned char *)buf;
	jc.jc_len = len;
	jc.jc_out = out;
	jc.jc_outsz = outsz - 1;
	jc.jc_outlen = 0;
	jc.jc_full = 0;
	jc.jc_nmembers = 0;
	start = json_ws(jc.jc_buf, len, 0);
	if (json_canon_value(&jc, start, lim->max_depth) == -1 || jc.jc_full)
		return JSON_ESPACE;
	out[jc.jc_outlen] = '\0';
	if (outlen != NULL)
		*outlen = jc.jc_outlen;
	return JSON_OK;
}

static void
json_put(struct json_canon *jc, const void *p, size_t n)
{
	if (jc->jc_full || jc->jc_outsz - jc->jc_outlen < n) {
		jc->jc_full = 1;
		return;
	}
	memcpy(jc->jc_out + jc->jc_outlen, p, n);
	jc->jc_outlen += n;
}

/* Offset of the first quote or backslash at or after pos, or len. */
static size_t
json_string_run(const unsigned char *b, size_t len, size_t pos)
{
	const unsigned char	*q, *bs;
	size_t			 end;

	if (pos >= len)
		return len;
	q = memchr(b + pos, '"', len - pos);
	end = q != NULL ? (size_t)(q - b) : len;
	bs = memchr(b + pos, '\\', end - pos);
	return bs != NULL ? (size_t)(bs - b) : end;
}

static void
json_put_string(struct json_canon *jc, size_t off)
{
	static const char	 hex[] = "0123456789abcdef";
	enum json_error		 e;
	size_t			 pos = off + 1, run;
	uint32_t		 cp;
	char			 esc[6];
	unsigned char		 u[4];

	json_put(jc, "\"", 1);
	for (;;) {
		/*
		 * A validated string's raw bytes are well-formed UTF-8 with
		 * no control character: they are their own canonical form.
		 */
		run = json_string_run(jc->jc_buf, jc->jc_len, pos);
		json_put(jc, jc->jc_buf + pos, run - pos);
		pos = run;
		if (json_str_next(jc->jc_buf, jc->jc_len, &pos, &cp, &e) != 1)
			break;
		esc[0] = '\\';
		switch (cp) {
		case '"':
		case '\\':
			esc[1] = (char)cp;
			json_put(jc, esc, 2);
			continue;
		case '\b':
			json_put(jc, "\\b", 2);
			continue;
		case '\f':
			json_put(jc, "\\f", 2);
			continue;
		case '\n':
			json_put(jc, "\\n", 2);
			continue;
		case '\r':
			json_put(jc, "\\r", 2);
			continue;
		case '\t':
			json_put(jc, "\\t", 2);
			continue;
		}
		if (cp < 0x20) {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[cp >> 4];
			esc[5] = hex[cp & 0xf];
			json_put(jc, esc, 6);
		} else if (cp < 0x80) {
			u[0] = (unsigned char)cp;
			json_put(jc, u, 1);
		} else if (cp < 0x800) {
			u[0] = (unsigned char)(0xc0 | cp >> 6);
			u[1] = (unsigned char)(0x80 | (cp & 0x3f));
			json_put(jc, u, 2);
		} else if (cp < 0x10000) {
			u[0] = (unsigned char)(0xe0 | cp >> 12);
			u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
			u[2] = (unsigned char)(0x80 | (cp & 0x3f));
			json_put(jc, u, 3);
		} else {
			u[0] = (unsigned char)(0xf0 | cp >> 18);
			u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
			u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
			u[3] = (unsigned char)(0x80 | (cp & 0x3f));
			json_put(jc, u, 4);
		}
	}
	json_put(jc, "\"", 1);
}

/*
 * Heapsort of the members of one object by name: in place, O(n log n)
 * comparisons, whatever order an adversary chose.
 */
static void
json_sort(struct json_canon *jc, struct json_member *m, size_t n)
{
	struct json_member	 t;
	size_t			 start, end, root, child;

	if (n < 2)
		return;
	start = n / 2;
	end = n;
	while (end > 1) {
		if (start > 0)
			start--;
		else {
			end--;
			t = m[0];
			m[0] = m[end];
			m[end] = t;
		}
		root = start;
		while ((child = 2 * root + 1) < end) {
			if (child + 1 < end && json_name_cmp(jc->jc_buf,
			    jc->jc_len, m[child].jm_name,
			    m[child + 1].jm_name) < 0)
				child++;
			if (json_name_cmp(jc->jc_buf, jc->jc_len,
			    m[root].jm_name, m[child].jm_name) >= 0)
				break;
			t = m[root];
			m[root] = m[child];
			m[child] = t;
			root = child;
		}
	}
}

/*
 * The canonical form of a number, from its double v and the length L of
 * the text it was read from.  Receivers read numbers as doubles (RFC 7493
 * 2.2) and so does the gateway's policy; the form makes sure that every
 * reader gets exactly v, that it is a function of v (and of L) only, and
 * that it is never longer than the text it replaces:
 *
 *  - v is 0 or -0 (also a value below the smallest subnormal): "0", as
 *    JSON.stringify() writes -0;
 *  - else the digits are the shortest decimal D x 10^r that reads back
 *    as v (k <= 17 digits, the last not 0; of two, the one nearer v);
 *  - written plain, "123", "1.5" or "0.001", when that is not longer than
 *    L, else as the integer D and the exponent r: "12e99", "15e-7" (no
 *    point, no '+').  The plain form of an integer is its exact value,
 *    which below 2^53 is D and r zeros and above it has no more digits:
 *    readers that keep integer texts exact (Python's int, big numbers)
 *    read v too, and a text with a point or an exponent is read as a
 *    double by them as well.
 *
 * So 1.0 is 1, 1e2 is 100, 1e3 stays 1e3 while 1000 stays 1000, and
 * 99.999999999999999999 is 100.  The form is its own canonical form: the
 * plain form fits its own length, and when the exponent form was taken
 * the plain one is longer still.
 *
 * Never longer than L.  The exponent form, k + 1 + |r|'s digits (and '-'),
 * is taken only when the plain form is longer than L.  Let the input have
 * m significant digits (m >= k: it reads as v too) and its leading digit
 * at the same place E as D's (E = k + r; a power of ten lies between the
 * two otherwise, and then k = 1 and L >= m >= 16 for a normal v).  A text
 * without an exponent is then at least as long as the plain form of D,
 * which has fewer digits at the same place.  A text with one has at least
 * m + 1 + len(E - j) characters, len(x) those of the integer x written,
 * j >= 1 the integer digits of its mantissa, one more for a point when
 * j < m.  With len(a + d) <= len(a) + d for d >= 0: if j >= k,
 * len(E - k) <= len(E - j) + j - k and the exponent form fits; if j < k
 * (a point), either E >= k and len(E - k) <= len(E - j), or 0 < E < k and
 * the plain form, k + 1, fits, or E <= 0 and E - k has at most one digit
 * more than E - j (k - j <= 16), which the point pays for.
 */
static void
json_put_number(struct json_canon *jc, size_t off)
{
	struct json_num	 nu;
	char		 dig[DBL_DECIMAL_DIG], out[JSON_NUM_OUT];
	size_t		 pos = off, n;
	long long	 r;
	double		 v;
	int		 k, neg;

	if (json_num_read(jc->jc_buf, jc->jc_len, &pos, &nu) != JSON_OK) {
		jc->jc_full = 1;	/* not a document json_check() took */
		return;
	}
	v = nu.nu_value;
	if (v == 0) {
		json_put(jc, "0", 1);
		return;
	}
	neg = v < 0;
	if (neg)
		v = -v;
	/*
	 * Up to DBL_DIG digits, a normal double's shortest form is the
	 * input's own: any decimal of DBL_DIG digits reads back from its
	 * double, so no other one of at most as many reads as v.
	 */
	if (nu.nu_ndig > 0 && v >= DBL_MIN) {
		k = nu.nu_ndig;
		memcpy(dig, nu.nu_dig, (size_t)k);
		r = nu.nu_exp - k;
	} else
		json_shortest(v, dig, &k, &r);
	n = json_num_format(v, neg, dig, k, r, pos - off, out);
	json_put(jc, out, n);
}

/*
 * Write v (> 0, neg for its sign), whose shortest digits are dig[0..k) x
 * 10^r, into out (JSON_NUM_OUT bytes): plain if that takes at most max
 * bytes, else with an exponent.  Its length.
 */
static size_t
json_num_format(double v, int neg, const char *dig, int k, long long r,
    size_t max, char *out)
{
	long long	 e = k + r;	/* the place of the leading digit */
	size_t		 plain, n = 0, i;
	int		 w;

	if (r >= 0)
		plain = (size_t)e;	/* or one less, above 2^53 */
	else if (e > 0)
		plain = (size_t)k + 1;
	else
		plain = 2 + (size_t)-r;
	if (neg)
		out[n++] = '-';
	if (r >= 0 && v >= JSON_TWO53) {
		w = plain + n <= max + 1 ? snprintf(out + n, JSON_NUM_OUT - n,
		    "%.0f", v) : -1;
		if (w > 0 && (size_t)w < JSON_NUM_OUT - n &&
		    n + (size_t)w <= max)
			return n + (size_t)w;
	} else if (plain + n <= max) {
		if (r >= 0) {
			memcpy(out + n, dig, (size_t)k);
			n += (size_t)k;
			for (i = 0; i < (size_t)r; i++)
				out[n++] = '0';
		} else if (e > 0) {
			memcpy(out + n, dig, (size_t)e);
			n += (size_t)e;
			out[n++] = '.';
			memcpy(out + n, dig + e, (size_t)(k - e));
			n += (size_t)(k - e);
		} else {
			out[n++] = '0';
			out[n++] = '.';
			for (i = 0; i < (size_t)-e; i++)
				out[n++] = '0';
			memcpy(out + n, dig, (size_t)k);
			n += (size_t)k;
		}
		return n;
	}
	memcpy(out + n, dig, (size_t)k);
	n += (size_t)k;
	w = snprintf(out + n, JSON_NUM_OUT - n, "e%lld", r);
	if (w < 0 || (size_t)w >= JSON_NUM_OUT - n)
		return 0;	/* cannot happen: |r| < 400 */
	return n + (size_t)w;
}

/* The double that dig[0..k) x 10^r reads as. */
static double
json_digits_value(const char *dig, int k, long long r)
{
	char	 text[DBL_DECIMAL_DIG + 32];
	int	 w;

	w = snprintf(text, sizeof(text), "%.*se%lld", k, dig, r);
	if (w < 0 || (size_t)w >= sizeof(text))
		return 0;
	return strtod(text, NULL);
}

/*
 * The p + 1 digit decimal nearest v, in dig[0..*k) x 10^*r, when it reads
 * back as v: 1.  Else, with other_side, the p + 1 digit decimal next to
 * it on the other side of v is tried, which near a power of two (where
 * the doubles below are twice as close as those above) can read back as
 * v when the nearer one does not.
 */
static int
json_digits_try(double v, int p, int other_side, char *dig, int *k,
    long long *r)
{
	char		 buf[64];
	const char	*s;
	double		 w;
	long long	 x = 0;
	int		 i, n, xneg = 0;

	n = snprintf(buf, sizeof(buf), "%.*e", p, v);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return 0;
	/* d[.ddd]e[+-]xx, the radix character the locale's. */
	s = buf;
	dig[0] = *s++;
	for (i = 1; i <= p; i++) {
		while (*s != '\0' && (*s < '0' || *s > '9'))
			s++;
		if (*s == '\0')
			return 0;
		dig[i] = *s++;
	}
	if (*s++ != 'e')
		return 0;
	if (*s == '-' || *s == '+')
		xneg = *s++ == '-';
	for (; *s >= '0' && *s <= '9'; s++)
		x = x * 10 + (*s - '0');
	*k = p + 1;
	*r = (xneg ? -x : x) - p;
	if ((w = json_digits_value(dig, *k, *r)) == v)
		return 1;
	if (!other_side)
		return 0;
	if (w < v) {
		/* One up in the last place; 99..9 becomes 10..0. */
		for (i = *k - 1; i >= 0 && dig[i] == '9'; i--)
			dig[i] = '0';
		if (i >= 0)
			dig[i]++;
		else {
			dig[0] = '1';
			(*r)++;
		}
	} else {
		/* One down; 10..0 becomes 99..9 one place lower. */
		for (i = *k - 1; i >= 0 && dig[i] == '0'; i--)
			dig[i] = '9';
		if (i > 0 || dig[0] != '1')
			dig[i]--;
		else {
			memset(dig, '9', (size_t)*k);
			(*r)--;
		}
	}
	return json_digits_value(dig, *k, *r) == v;
}

/*
 * The shortest digits dig[0..*k) x 10^*r that read back as v (finite,
 * > 0), the last digit not 0.  For a normal double, a decimal of at most
 * DBL_DIG digits that reads as v is the nearest one of DBL_DIG digits,
 * so the search starts there; a subnormal has fewer significant bits and
 * is searched from one digit.  DBL_DECIMAL_DIG digits always suffice.
 */
static void
json_shortest(double v, char *dig, int *k, long long *r)
{
	int	 p, normal = v >= DBL_MIN;

	for (p = normal ? DBL_DIG - 1 : 0; p < DBL_DECIMAL_DIG - 1; p++)
		if (json_digits_try(v, p, !normal || p >= DBL_DIG, dig, k, r))
			break;
	if (p == DBL_DECIMAL_DIG - 1)
		(void)json_digits_try(v, p, 0, dig, k, r);
	while (*k > 1 && dig[*k - 1] == '0') {
		(*k)--;
		(*r)++;
	}
}

/* depth: nesting levels still allowed, as the validator enforced. */
static int
json_canon_value(struct json_canon *jc, size_t off, int depth)
{
	struct json_member	*m;
	size_t			 it, name, value, base, i, n;
	int			 first = 1;

	switch (json_type((const char *)jc->jc_buf, jc->jc_len, off)) {
	case JSON_OBJECT:
		if (depth <= 0)
			return -1;
		base = jc->jc_nmembers;
		it = off;
		while (json_member_next((const char *)jc->jc_buf, jc->jc_len,
		    &it, &name, &value)) {
			if (jc->jc_nmembers >= JSON_OPEN_MEMBERS_MAX)
				return -1;
			m = &jc->jc_members[jc->jc_nmembers++];
			m->jm_name = name;
			m->jm_value = value;
		}
		n = jc->jc_nmembers - base;
		json_sort(jc, jc->jc_members + base, n);
		json_put(jc, "{", 1);
		for (i = 0; i < n; i++) {
			m = &jc->jc_members[base + i];
			if (i > 0)
				json_put(jc, ",", 1);
			json_put_string(jc, m->jm_name);
			json_put(jc, ":", 1);
			if (json_canon_value(jc, m->jm_value, depth - 1) == -1)
				return -1;
		}
		json_put(jc, "}", 1);
		jc->jc_nmembers = base;
		return 0;
	case JSON_ARRAY:
		if (depth <= 0)
			return -1;
		json_put(jc, "[", 1);
		it = off;
		while (json_element_next((const char *)jc->jc_buf, jc->jc_len,
		    &it, &value)) {
			if (!first)
				json_put(jc, ",", 1);
			first = 0;
			if (json_canon_value(jc, value, depth - 1) == -1)
				return -1;
		}
		json_put(jc, "]", 1);
		return 0;
	case JSON_STRING:
		json_put_string(jc, off);
		return 0;
	case JSON_NUMBER:
		json_put_number(jc, off);
		return 0;
	case JSON_INVALID:
		return -1;
	default:
		json_put(jc, jc->jc_buf + off,
		    json_scalar_end(jc->jc_buf, jc->jc_len, off) - off);
		return 0;
	}
}
