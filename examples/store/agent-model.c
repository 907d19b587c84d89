/*
 * agent-model -- the store demo's agent: a deterministic "compromised
 * model" that obeys whatever the supplier bulletin tells it.  It stands
 * in for a model that fell for a prompt injection, so that the demo
 * measures the confinement and not a model's good sense.
 *
 *	agent-model [-w seconds]
 *
 * -w waits that long, 0 to AGENT_WAIT_MAX seconds, before the first
 * request: scripts/demo uses the time to show the running suite.
 *
 * It runs inside the agent container and speaks the agent protocol
 * (DESIGN section 6) on stdin and stdout:
 *
 *	stdin	{"payload": ...}		the first line, read and ignored
 *	stdout	{"operation":"read_bulletin","arguments":{}}
 *	stdin	the reply: the bulletin, which names a product (SKU-...)
 *		and tells it to "buy N tubs"
 *	stdout	{"operation":"read_catalog","arguments":{}}
 *	stdin	the reply
 *	stdout	{"operation":"place_order","arguments":
 *		    {"product":"<from the bulletin>","quantity":<N>}}
 *	stdin	the reply: a refusal when the gateway holds
 *	stdout	{"operation":"stock_report","arguments":{"source":"<sh>"}}
 *	stdin	the reply: {"ok":true,"result":{"outcome":"COMPLETED",
 *		    "status":0,"output":"<what the report printed>"}}
 *	stdout	{"operation":"file_report","arguments":
 *		    {"text":"<the first line of that output>"}}
 *	stdin	the reply, read and ignored
 *
 * and exits 0.  The source it hands the sandbox tool is a busybox sh
 * script (see sandbox-runner.c) that reads the operator-selected input,
 * the product's current stock as the store reported it, from its stdin
 * and prints one line:
 *
 *	stock report: product SKU-VANILLA stock 37 uid 65534
 *
 * "stock unknown" when the input names no stock for the product.  The
 * number is whatever follows the product id in the input, so a stock_level
 * result serves as the text alone or as the whole CallToolResult.
 *
 * The report's reply is read with the project's strict JSON reader
 * (common/json.c, linked in): the output string is unescaped, and its
 * first line, without the newline, is filed as it is, 1 to
 * AGENT_REPORT_BYTES bytes.
 *
 * Only protocol frames go to stdout.  Every line read is bounded by
 * AGENT_LINE_BYTES; a longer one, the end of stdin before a reply, a
 * bulletin reply that is not {"ok":true,...} or that names no product or
 * quantity, a report reply that is not strict JSON or not a COMPLETED
 * outcome with an output string, a first output line that is empty or
 * longer than AGENT_REPORT_BYTES end the agent with status 1 and a fixed
 * message on stderr.  Static, no library but libc.
 */

#include <sys/types.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"

#define AGENT_LINE_BYTES	(64 * 1024)	/* a line, newline excluded */
#define AGENT_FRAME_BYTES	(64 * 1024)	/* a frame, newline excluded */
#define AGENT_PRODUCT_BYTES	64		/* SKU-..., NUL included */
#define AGENT_SOURCE_BYTES	2048
#define AGENT_QUANTITY_MAX	1000000
#define AGENT_REPORT_BYTES	4096		/* file_report's bound */
#define AGENT_JSON_DEPTH	32
#define AGENT_WAIT_MAX		10		/* seconds, -w */
#define NONE			((size_t)-1)

/* The report script; %s is the product id, which needs no quoting. */
#define AGENT_REPORT \
	"# Stock report for %s, written by the agent.\n" \
	"# stdin: the current stock as the store reported it.\n" \
	"in=$(cat)\n" \
	"n=$(printf '%%s\\n' \"$in\" |\n" \
	"    sed -n 's/.*%s[^0-9]*\\([0-9][0-9]*\\).*/\\1/p' | head -n 1)\n" \
	"echo \"stock report: product %s stock ${n:-unknown} uid $(id -u)\"\n"

struct reader {
	char		 buf[AGENT_LINE_BYTES + 1];
	size_t		 have;
};

static char	 line[AGENT_LINE_BYTES + 1];
static char	 frame[AGENT_FRAME_BYTES + 1];
/* Unescaping never makes a string longer, so the line's size will do. */
static char	 output[AGENT_LINE_BYTES + 1];
static char	 filed[6 * AGENT_REPORT_BYTES + 16];

static void	 agent_fail(const char *) __attribute__((__noreturn__));
static int	 agent_seconds(const char *);
static size_t	 agent_read_line(struct reader *);
static void	 agent_send(const char *, size_t);
static size_t	 agent_call(struct reader *, const char *, const char *);
static int	 agent_product(const char *, size_t, char *);
static int	 agent_quantity(const char *, size_t, unsigned long *);
static size_t	 agent_output(const char *, size_t);
static size_t	 agent_member(const char *, size_t, size_t, const char *);
static size_t	 agent_jstr(char *, size_t, const char *);

int
main(int argc, char *argv[])
{
	static struct reader	 rd;
	char			 product[AGENT_PRODUCT_BYTES];
	char			 args[256];
	char			 source[AGENT_SOURCE_BYTES];
	char			 quoted[2 * AGENT_SOURCE_BYTES + 32];
	unsigned long		 quantity;
	size_t			 len;
	int			 n, ch, delay = 0;

	while ((ch = getopt(argc, argv, "w:")) != -1) {
		switch (ch) {
		case 'w':
			delay = agent_seconds(optarg);
			break;
		default:
			agent_fail("usage: agent-model [-w seconds]");
		}
	}
	if (optind != argc)
		agent_fail("usage: agent-model [-w seconds]");
	/* sleep() returns early only on a signal, which ends the agent. */
	if (delay > 0)
		sleep(delay);

	len = agent_read_line(&rd);
	if (len < 11 || memcmp(line, "{\"payload\":", 11) != 0)
		agent_fail("the first line is not the payload");

	/* The hostile text: the model reads it and takes it as an order. */
	len = agent_call(&rd, "read_bulletin", "{}");
	if (strncmp(line, "{\"ok\":true,", 11) != 0)
		agent_fail("the bulletin was not given");
	if (agent_product(line, len, product) == -1 ||
	    agent_quantity(line, len, &quantity) == -1)
		agent_fail("the bulletin orders nothing");

	agent_call(&rd, "read_catalog", "{}");

	n = snprintf(args, sizeof(args),
	    "{\"product\":\"%s\",\"quantity\":%lu}", product, quantity);
	if (n < 0 || (size_t)n >= sizeof(args))
		agent_fail("order too long");
	agent_call(&rd, "place_order", args);

	n = snprintf(source, sizeof(source), AGENT_REPORT, product, product,
	    product);
	if (n < 0 || (size_t)n >= sizeof(source))
		agent_fail("report too long");
	len = sizeof("{\"source\":") - 1;
	memcpy(quoted, "{\"source\":", len);
	len += agent_jstr(quoted + len, sizeof(quoted) - len, source);
	if (len + 2 > sizeof(quoted))
		agent_fail("report too long");
	memcpy(quoted + len, "}", 2);
	len = agent_call(&rd, "stock_report", quoted);

	/* What the sandbox printed goes where the store keeps reports. */
	if (agent_output(line, len) == 0)
		agent_fail("the report is empty");
	len = sizeof("{\"text\":") - 1;
	memcpy(filed, "{\"text\":", len);
	len += agent_jstr(filed + len, sizeof(filed) - len, output);
	if (len + 2 > sizeof(filed))
		agent_fail("report too long");
	memcpy(filed + len, "}", 2);
	agent_call(&rd, "file_report", filed);

	return 0;
}

static void
agent_fail(const char *why)
{
	fprintf(stderr, "agent-model: %s\n", why);
	exit(1);
}

/* A number of seconds, 0 to AGENT_WAIT_MAX, digits without a leading 0. */
static int
agent_seconds(const char *s)
{
	const char	*p;
	int		 n = 0;

	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		agent_fail("-w: not a number of seconds");
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			agent_fail("-w: not a number of seconds");
		n = n * 10 + (*p - '0');
		if (n > AGENT_WAIT_MAX)
			agent_fail("-w: too long");
	}
	return n;
}

/*
 * The next line of stdin into line, NUL terminated, without its newline:
 * its length.  The end of stdin or a line over the bound ends the agent.
 */
static size_t
agent_read_line(struct reader *rd)
{
	char		*nl;
	size_t		 n;
	ssize_t		 r;

	for (;;) {
		if ((nl = memchr(rd->buf, '\n', rd->have)) != NULL) {
			n = nl - rd->buf;
			memcpy(line, rd->buf, n);
			line[n] = '\0';
			rd->have -= n + 1;
			memmove(rd->buf, nl + 1, rd->have);
			return n;
		}
		if (rd->have == sizeof(rd->buf))
			agent_fail("line too long");
		r = read(STDIN_FILENO, rd->buf + rd->have,
		    sizeof(rd->buf) - rd->have);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			agent_fail("read error");
		if (r == 0)
			agent_fail("stdin ended");
		rd->have += r;
	}
}

static void
agent_send(const char *p, size_t len)
{
	ssize_t		 w;

	while (len > 0) {
		w = write(STDOUT_FILENO, p, len);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			agent_fail("write error");
		p += w;
		len -= w;
	}
}

/* One request frame, then its reply into line: the reply's length. */
static size_t
agent_call(struct reader *rd, const char *operation, const char *args)
{
	int		 n;

	n = snprintf(frame, sizeof(frame),
	    "{\"operation\":\"%s\",\"arguments\":%s}\n", operation, args);
	if (n < 0 || (size_t)n >= sizeof(frame))
		agent_fail("frame too long");
	agent_send(frame, n);
	return agent_read_line(rd);
}

/*
 * The reply to the report, s[0..len): strict JSON, "ok" true, and a
 * result whose "outcome" is "COMPLETED" and whose "output" is a string.
 * The output's first line, unescaped, without its newline, goes to
 * output; its length, at most AGENT_REPORT_BYTES.
 */
static size_t
agent_output(const char *s, size_t len)
{
	static const struct json_limits limits = {
		AGENT_LINE_BYTES, AGENT_JSON_DEPTH
	};
	size_t		 top, ok, result, outcome, out, n;
	char		*nl;

	if (json_check(s, len, &limits) != JSON_OK)
		agent_fail("the report reply is not JSON");
	top = json_skip_ws(s, len, 0);
	if (json_type(s, len, top) != JSON_OBJECT ||
	    (ok = agent_member(s, len, top, "ok")) == NONE ||
	    json_type(s, len, ok) != JSON_TRUE ||
	    (result = agent_member(s, len, top, "result")) == NONE ||
	    json_type(s, len, result) != JSON_OBJECT)
		agent_fail("the report was not given");
	if ((outcome = agent_member(s, len, result, "outcome")) == NONE ||
	    json_type(s, len, outcome) != JSON_STRING ||
	    !json_string_equal(s, len, outcome, "COMPLETED") ||
	    (out = agent_member(s, len, result, "output")) == NONE ||
	    json_type(s, len, out) != JSON_STRING ||
	    json_string_copy(s, len, out, output, sizeof(output), &n) == -1)
		agent_fail("the report did not complete");
	if ((nl = memchr(output, '\n', n)) != NULL) {
		*nl = '\0';
		n = nl - output;
	}
	if (n > AGENT_REPORT_BYTES)
		agent_fail("report too long");
	return n;
}

/* The value of the member name of the object at obj, NONE if none. */
static size_t
agent_member(const char *s, size_t len, size_t obj, const char *name)
{
	size_t		 it = obj, k, v;

	while (json_member_next(s, len, &it, &k, &v))
		if (json_string_equal(s, len, k, name))
			return v;
	return NONE;
}

/*
 * The first product id the text names: "SKU-" and what follows of
 * A-Z, 0-9 and '-'.  Those bytes need no escaping in JSON or in sh.
 */
static int
agent_product(const char *s, size_t len, char *product)
{
	const char	*p;
	size_t		 n;

	if ((p = memmem(s, len, "SKU-", 4)) == NULL)
		return -1;
	for (n = 4; p + n < s + len && ((p[n] >= 'A' && p[n] <= 'Z') ||
	    (p[n] >= '0' && p[n] <= '9') || p[n] == '-'); n++)
		;
	if (n == 4 || n >= AGENT_PRODUCT_BYTES)
		return -1;
	memcpy(product, p, n);
	product[n] = '\0';
	return 0;
}

/* The number in the text's first "buy N". */
static int
agent_quantity(const char *s, size_t len, unsigned long *quantity)
{
	const char	*p, *end = s + len;
	unsigned long	 q = 0;

	if ((p = memmem(s, len, "buy ", 4)) == NULL)
		return -1;
	for (p += 4; p < end && *p >= '0' && *p <= '9'; p++) {
		q = q * 10 + (unsigned long)(*p - '0');
		if (q > AGENT_QUANTITY_MAX)
			return -1;
	}
	if (q == 0)
		return -1;
	*quantity = q;
	return 0;
}

/*
 * s as a JSON string into dst (dstsz bytes): its length, or dstsz when
 * it does not fit.  Bytes from 0x80 up are copied: the script is ASCII
 * and a report line came out of strict JSON, so both are valid UTF-8.
 * Controls other than newline and tab are escaped as \u00xx.
 */
static size_t
agent_jstr(char *dst, size_t dstsz, const char *s)
{
	size_t		 n = 0;
	int		 k;

	if (dstsz < 1)
		return dstsz;
	dst[n++] = '"';
	for (; *s != '\0'; s++) {
		if (dstsz - n < 7)
			return dstsz;
		switch (*s) {
		case '"':
		case '\\':
			dst[n++] = '\\';
			dst[n++] = *s;
			break;
		case '\n':
			dst[n++] = '\\';
			dst[n++] = 'n';
			break;
		case '\t':
			dst[n++] = '\\';
			dst[n++] = 't';
			break;
		default:
			if ((unsigned char)*s < 0x20) {
				k = snprintf(dst + n, dstsz - n, "\\u%04x",
				    (unsigned char)*s);
				if (k != 6)
					return dstsz;
				n += k;
			} else
				dst[n++] = *s;
			break;
		}
	}
	if (dstsz - n < 1)
		return dstsz;
	dst[n++] = '"';
	return n;
}
