/*
 * libFuzzer harness for the MCP front door (bridge/front.c).
 *
 * Input: one configuration byte, then one line.
 *	byte 0	frame bound: AGENT_FRAME_BYTES if bit 7 is set,
 *		else 16 + 8 * (bits 0-6)
 * Checked: the code and its string agree; a refused line leaves nothing;
 * an accepted one is within the bound, its id text is at most
 * FRONT_ID_BYTES and is a string or an integer, a tools/call has a valid
 * operation name and canonical arguments that are an object and a fixed
 * point of the canonical form; every line the encoders write for it is
 * one valid JSON object and ends in exactly one newline.  The line is
 * also tried as a tool result and as a schema to strip.
 */

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmcp.h"
#include "frame.h"
#include "front.h"
#include "json.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct front_msg	 m;
static char		 out[AGENT_FRAME_BYTES + 2];
static char		 canon[AGENT_FRAME_BYTES + 1];
static char		 tmp[AGENT_FRAME_BYTES + 1];

/* One line of JSON, a newline, a NUL: nothing else. */
static void
check_line(int r, size_t n)
{
	struct json_limits	 lim = { AGENT_FRAME_BYTES, JSON_DEPTH_MAX };

	if (r == -1)
		return;
	if (n == 0 || n + 1 > sizeof(out) || out[n - 1] != '\n' ||
	    out[n] != '\0' || memchr(out, '\n', n - 1) != NULL ||
	    json_check(out, n - 1, &lim) != JSON_OK ||
	    json_type(out, n - 1, 0) != JSON_OBJECT)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_limits	 lim = { AGENT_FRAME_BYTES, FRONT_DEPTH_MAX };
	struct front_list	 fl;
	enum front_code		 code;
	const char		*line, *why = NULL;
	size_t			 len, max, n;
	int			 r;

	if (size < 1)
		return 0;
	max = (data[0] & 0x80) ? AGENT_FRAME_BYTES : 16 + 8 * (data[0] & 0x7f);
	line = (const char *)data + 1;
	len = size - 1;

	code = front_parse(line, len, max, &m, &why);
	if (code < 0 || code >= FRONT_CODE_MAX || why == NULL ||
	    strcmp(why, front_string(code)) != 0)
		abort();
	if (code != FRONT_OK) {
		if (m.fm_id.fi_len != 0 || m.fm_call.br_arglen != 0 ||
		    m.fm_call.br_operation[0] != '\0')
			abort();
	} else {
		if (len > max)
			abort();
		if (m.fm_request && (m.fm_id.fi_len == 0 ||
		    m.fm_id.fi_len > FRONT_ID_BYTES ||
		    m.fm_id.fi_keylen == 0 || m.fm_id.fi_keylen >
		    FRONT_ID_BYTES || !front_id_equal(&m.fm_id, &m.fm_id)))
			abort();
		if (m.fm_method == FRONT_M_TOOLS_CALL) {
			if (!m.fm_request || !bridge_operation_valid(
			    m.fm_call.br_operation,
			    strlen(m.fm_call.br_operation)))
				abort();
			lim.max_bytes = m.fm_call.br_arglen;
			if (json_canon(m.fm_call.br_arguments,
			    m.fm_call.br_arglen, &lim, canon, sizeof(canon),
			    &n) != JSON_OK || n != m.fm_call.br_arglen ||
			    memcmp(canon, m.fm_call.br_arguments, n) != 0 ||
			    json_type(canon, n, 0) != JSON_OBJECT)
				abort();
		}
		if (m.fm_request) {
			r = front_encode_initialize(&m.fm_id, m.fm_version,
			    "1", "{}", 2, out, sizeof(out), &n, NULL);
			if (m.fm_method == FRONT_M_INITIALIZE && r == -1)
				abort();
			check_line(r, n);
			r = front_encode_error(&m.fm_id,
			    FRONT_RPC_METHOD_NOT_FOUND, "Method not found",
			    out, sizeof(out), &n, NULL);
			check_line(r, n);
			r = front_encode_refusal(&m.fm_id, REPLY_DENIED, out,
			    sizeof(out), &n, NULL);
			check_line(r, n);
			if (m.fm_method == FRONT_M_TOOLS_CALL) {
				r = front_encode_tool_result(&m.fm_id,
				    m.fm_call.br_arguments,
				    m.fm_call.br_arglen, out, sizeof(out),
				    &n, NULL);
				check_line(r, n);
				front_list_begin(&fl, &m.fm_id, out,
				    sizeof(out));
				front_list_add(&fl, m.fm_call.br_operation,
				    m.fm_call.br_operation,
				    m.fm_call.br_arguments,
				    m.fm_call.br_arglen);
				r = front_list_end(&fl, &n, NULL);
				check_line(r, n);
			}
		}
	}
	/* The line itself, as a schema to strip. */
	if (front_schema_strip(line, len, tmp, sizeof(tmp), canon,
	    sizeof(canon), &n, &why) == 0) {
		lim.max_bytes = n;
		lim.max_depth = JSON_DEPTH_MAX;
		if (json_canon(canon, n, &lim, tmp, sizeof(tmp), &len) !=
		    JSON_OK || len != n || memcmp(tmp, canon, n) != 0)
			abort();
	}
	return 0;
}
