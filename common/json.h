/*
 * Strict JSON for untrusted bytes: agent frames (bridge) and MCP messages
 * (gateway).  cJSON alone accepts duplicate keys and ill-formed UTF-8; the
 * validator here runs first and refuses them, with a fixed reason string
 * that never quotes the input.
 *
 * Nothing here allocates.  The validator keeps its state in fixed tables
 * sized by the ceilings below, so a document that needs more is refused
 * rather than handled with more memory: about 20 KiB of stack for
 * json_check(), 36 KiB and a small frame per nesting level for
 * json_canonical().
 */

#ifndef CMCP_JSON_H
#define CMCP_JSON_H

#include <sys/cdefs.h>

#include <stddef.h>

#define JSON_DEPTH_MAX		128	/* ceiling of json_limits.max_depth */
#define JSON_MEMBERS_MAX	256	/* members of one object */
#define JSON_OPEN_MEMBERS_MAX	1024	/* members of nested objects, summed */

struct json_limits {
	size_t		 max_bytes;	/* whole document */
	int		 max_depth;	/* nesting of arrays and objects */
};

/* Why a document was refused; json_strerror() gives the fixed string. */
enum json_error {
	JSON_OK,
	JSON_ELIMITS,		/* "invalid limits" */
	JSON_ESIZE,		/* "document too large" */
	JSON_ENUL,		/* "NUL byte": raw, or escaped as \u0000 */
	JSON_EUTF8,		/* "invalid UTF-8" */
	JSON_ESURROGATE,	/* "unpaired surrogate" in a \u escape */
	JSON_ESYNTAX,		/* "syntax error" */
	JSON_ETRAILING,		/* "trailing data" after the value */
	JSON_EDEPTH,		/* "nesting too deep" */
	JSON_EMEMBERS,		/* "too many members" */
	JSON_EDUPKEY,		/* "duplicate key" */
	JSON_ESPACE,		/* "output too large" (json_canonical) */
	JSON_ERANGE,		/* "number out of range": not a finite double */
	JSON_ERROR_MAX
};

enum json_type {
	JSON_INVALID,
	JSON_OBJECT,
	JSON_ARRAY,
	JSON_STRING,
	JSON_NUMBER,
	JSON_TRUE,
	JSON_FALSE,
	JSON_NULL
};

__BEGIN_DECLS
/*
 * 0 when buf[0..len) is exactly one RFC 8259 value with optional
 * surrounding whitespace, well-formed UTF-8 (no overlongs, surrogates or
 * code points above U+10FFFF), no NUL byte and no \u0000 escape, no
 * duplicate member name in any object (compared after unescaping), every
 * number a finite IEEE-754 double when read (1e999 and -1e400 are
 * refused; 1e-400 reads as 0 and is taken), within the limits.  -1
 * otherwise, with *why set to a fixed string.
 */
int	 json_validate(const char *, size_t, const struct json_limits *,
	    const char **);

/*
 * The same check with the reason as a code.  A document is scanned once,
 * left to right, and the reason is that of the first violation met; any
 * raw NUL byte is reported before everything but the size.  An object
 * with more than JSON_MEMBERS_MAX members is refused, and so is one whose
 * members and those of all objects around it number more than
 * JSON_OPEN_MEMBERS_MAX, the table json_canonical() sorts them in.
 */
enum json_error	 json_check(const char *, size_t, const struct json_limits *);
const char	*json_strerror(enum json_error);

/*
 * Canonical form of the document buf[0..len), which is first validated
 * against the limits: no insignificant whitespace; object members sorted
 * by the bytes of their unescaped UTF-8 names; strings re-escaped as
 * \" \\ \b \f \n \r \t, \u00xx (lower-case hex) for other controls below
 * U+0020 and raw UTF-8 for everything else; literals kept; each number
 * written as the shortest decimal that reads back as the same double (0
 * for -0), plain (1.0 is 1, 1e2 is 100) unless that is longer than the
 * number's text, else as an integer and an exponent (1.2e100 is 12e99);
 * an integer written plain is the double's exact value (see json.c).  A
 * double parser reads every number of the form as it reads the input's.
 * The form is never longer than the input, has no newline and is its own
 * canonical form.  0 with the bytes
 * in out[0..*outlen) and a NUL after them; -1 with *why when the input is
 * refused or out (outsz bytes, NUL included) is too small.
 */
int	 json_canonical(const char *, size_t, const struct json_limits *,
	    char *, size_t, size_t *, const char **);
/* The same with the reason as a code (JSON_ESPACE: out too small). */
enum json_error	 json_canon(const char *, size_t, const struct json_limits *,
		    char *, size_t, size_t *);

/*
 * Readers of a document json_check() accepted.  Offsets index buf; a value
 * offset is that of its first byte.  On other input they stay within
 * buf[0..len) but their answers mean nothing.
 */
size_t		 json_skip_ws(const char *, size_t, size_t);
enum json_type	 json_type(const char *, size_t, size_t);
size_t		 json_value_end(const char *, size_t, size_t);
/*
 * The double the number at the offset reads as (correctly rounded, as by
 * strtod()): 0, or -1 when no number ends the value there.
 */
int		 json_number(const char *, size_t, size_t, double *);
/*
 * Iterate an object (or an array): *it starts at the offset of its '{'
 * ('['); each call gives the next member's name and value offsets (the
 * next element's offset) and returns 1, or returns 0 at the end.
 */
int		 json_member_next(const char *, size_t, size_t *, size_t *,
		    size_t *);
int		 json_element_next(const char *, size_t, size_t *, size_t *);
/* 1 when the string at the offset unescapes to the C string. */
int		 json_string_equal(const char *, size_t, size_t, const char *);
/*
 * Unescape the string at the offset into dst (dstsz bytes, NUL included):
 * 0 with its length in *dstlen, -1 when it does not fit.
 */
int		 json_string_copy(const char *, size_t, size_t, char *, size_t,
		    size_t *);
__END_DECLS

#endif /* CMCP_JSON_H */
