/*
 * The tools an MCP agent is shown (tools.h).  The schemas are set once,
 * when the upstreams' lists are pinned: a configured tool's definition
 * cannot change after that without ending the session, and the
 * operator's text is fixed with the configuration.  A PolicyGate
 * revision only takes tools out of the list or puts them back, so the
 * list checked to fit at the start always fits.
 */

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "front.h"
#include "log.h"
#include "proc.h"
#include "tools.h"

struct gw_tool_schema {
	char		*s;		/* canonical, NUL after it */
	size_t		 len;
};

static struct {
	const struct cmcp_conf	*conf;
	struct gw_tool_schema	 schemas[CONF_OPERATIONS_MAX];
	uint32_t		 serial;	/* of the last list sent */
	struct {
		struct gw_tool	 hdr;
		char		 body[CONF_DESC_BYTES + GW_TOOL_SCHEMA_BYTES];
	}			*msg;
} gt;

static int	gw_tools_keep(size_t, const char *, size_t);

void
gw_tools_init(const struct cmcp_conf *conf)
{
	gt.conf = conf;
	if ((gt.msg = malloc(sizeof(*gt.msg))) == NULL)
		fatal("malloc");
}

const char *
gw_tools_set(size_t i, const char *upstream, size_t len)
{
	const struct conf_operation	*o;
	const char			*why;
	char				*tmp, *out;
	size_t				 n = 0, outlen;
	int				 r;

	TAILQ_FOREACH(o, &gt.conf->c_operations, entry)
		if (n++ == i)
			break;
	if (o == NULL || gt.schemas[i].s != NULL)
		fatalx("tools: bad operation index");
	if (o->schema != NULL)
		return (gw_tools_keep(i, o->schema, o->schemalen) == -1 ?
		    "tool_schema" : NULL);
	if (o->tool->kind == TOOL_SANDBOX)
		return (gw_tools_keep(i, GW_SANDBOX_SCHEMA,
		    sizeof(GW_SANDBOX_SCHEMA) - 1) == -1 ?
		    "tool_schema" : NULL);
	if (upstream == NULL)
		return ("tool_schema");
	/*
	 * Room for all of it and the two bytes front.h asks: what is
	 * stripped is never longer than the canonical form, which is never
	 * longer than the text.  The bound is gw_tools_keep()'s alone, the
	 * same for every schema.
	 */
	if ((tmp = malloc(len + 1)) == NULL || (out = malloc(len + 2)) == NULL)
		fatal("malloc");
	r = front_schema_strip(upstream, len, tmp, len + 1, out, len + 2,
	    &outlen, &why);
	if (r == 0)
		r = gw_tools_keep(i, out, outlen);
	else
		log_warnx("operation %s: upstream input schema: %s", o->name,
		    why);
	free(tmp);
	free(out);
	return (r == -1 ? "tool_schema" : NULL);
}

static int
gw_tools_keep(size_t i, const char *s, size_t len)
{
	if (len == 0 || len > GW_TOOL_SCHEMA_BYTES)
		return (-1);
	if ((gt.schemas[i].s = malloc(len + 1)) == NULL)
		fatal("malloc");
	memcpy(gt.schemas[i].s, s, len);
	gt.schemas[i].s[len] = '\0';
	gt.schemas[i].len = len;
	return (0);
}

/*
 * The whole list, every operation, built as the bridge will build it
 * for the longest request id an agent can send: if that fits the
 * bridge's line, every list of this session does.
 */
const char *
gw_tools_check(void)
{
	const struct conf_operation	*o;
	struct front_list		 fl;
	struct front_id			 id;
	const char			*why;
	char				*line;
	size_t				 i = 0, len;
	int				 r;

	memset(&id, 0, sizeof(id));
	id.fi_len = FRONT_ID_BYTES;
	memset(id.fi_text, 'x', FRONT_ID_BYTES);
	id.fi_text[0] = id.fi_text[FRONT_ID_BYTES - 1] = '"';
	if ((line = malloc(GW_TOOL_LIST_BYTES)) == NULL)
		fatal("malloc");
	front_list_begin(&fl, &id, line, GW_TOOL_LIST_BYTES);
	TAILQ_FOREACH(o, &gt.conf->c_operations, entry) {
		if (gt.schemas[i].s == NULL)
			fatalx("tools: operation %s without a schema",
			    o->name);
		front_list_add(&fl, o->name, o->description,
		    gt.schemas[i].s, gt.schemas[i].len);
		i++;
	}
	r = front_list_end(&fl, &len, &why);
	free(line);
	if (r == -1) {
		log_warnx("tools/list: %s", why);
		return ("tool_list_too_large");
	}
	log_debug("tools/list: %zu tools, %zu bytes at most", i, len);
	return (NULL);
}

/*
 * A new list: one IMSG_GW_TOOL per operation neither revoked nor
 * unapproved, in configuration order, then IMSG_GW_TOOLS_END.
 */
void
gw_tools_send(const struct gw_session *s)
{
	const struct conf_operation	*o;
	struct gw_tools_end		 ge;
	struct gw_tool			*t = &gt.msg->hdr;
	size_t				 i = 0, dlen;
	uint32_t			 n = 0;

	gt.serial++;
	TAILQ_FOREACH(o, &gt.conf->c_operations, entry) {
		if (!s->s_approved[i] || s->s_revoked[i]) {
			i++;
			continue;
		}
		memset(t, 0, sizeof(*t));
		t->gt_serial = gt.serial;
		t->gt_index = n++;
		if (strlcpy(t->gt_name, o->name, sizeof(t->gt_name)) >=
		    sizeof(t->gt_name))
			fatalx("tools: operation name too long");
		dlen = o->description != NULL ? strlen(o->description) : 0;
		if (dlen > CONF_DESC_BYTES)
			fatalx("tools: description too long");
		t->gt_desclen = dlen;
		t->gt_schemalen = gt.schemas[i].len;
		if (dlen > 0)
			memcpy(gt.msg->body, o->description, dlen);
		memcpy(gt.msg->body + dlen, gt.schemas[i].s,
		    gt.schemas[i].len);
		proc_compose(PROC_BRIDGE, IMSG_GW_TOOL, gt.msg,
		    sizeof(*t) + dlen + gt.schemas[i].len);
		i++;
	}
	memset(&ge, 0, sizeof(ge));
	ge.ge_serial = gt.serial;
	ge.ge_count = n;
	proc_compose(PROC_BRIDGE, IMSG_GW_TOOLS_END, &ge, sizeof(ge));
	proc_flush(PROC_BRIDGE);
	log_debug("tools/list %u: %u tools", gt.serial, n);
}
