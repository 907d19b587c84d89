/*
 * The tools an MCP agent is shown (tlist.h).  The gateway is trusted
 * with the list, but the bridge still checks every message's shape, as
 * for every channel: a message it does not expect ends the bridge.
 */

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "tlist.h"

static void	tlist_clear(struct tlist_list *);
static void	tlist_digest(const struct tlist_list *,
		    uint8_t [SHA256_DIGEST_BYTES]);

int
tlist_tool(struct tlist *tl, const void *data, size_t len)
{
	struct gw_tool		 gt;
	struct tlist_tool	*t;
	struct tlist_list	*n = &tl->next;
	const char		*body = (const char *)data + sizeof(gt);
	size_t			 namelen;

	if (len < sizeof(gt))
		return (-1);
	memcpy(&gt, data, sizeof(gt));
	if ((namelen = strnlen(gt.gt_name, sizeof(gt.gt_name))) ==
	    sizeof(gt.gt_name) ||
	    !bridge_operation_valid(gt.gt_name, namelen) ||
	    gt.gt_desclen > CONF_DESC_BYTES ||
	    gt.gt_schemalen == 0 || gt.gt_schemalen > GW_TOOL_SCHEMA_BYTES ||
	    len - sizeof(gt) != (size_t)gt.gt_desclen + gt.gt_schemalen ||
	    memchr(body, '\0', len - sizeof(gt)) != NULL)
		return (-1);
	/*
	 * A list's first tool begins it; the rest follow in order.  The
	 * list being received is never older than the one in force (its
	 * serial is that list's once it ends): above it is above both.
	 */
	if (gt.gt_index == 0) {
		if (gt.gt_serial <= n->serial)
			return (-1);
		tlist_clear(n);
		n->serial = gt.gt_serial;
	} else if (gt.gt_serial != n->serial || gt.gt_index != n->ntools)
		return (-1);
	if (n->ntools == nitems(n->tools))
		return (-1);
	t = &n->tools[n->ntools];
	memcpy(t->name, gt.gt_name, namelen + 1);
	if (gt.gt_desclen > 0) {
		if ((t->desc = malloc(gt.gt_desclen + 1)) == NULL)
			return (-1);
		memcpy(t->desc, body, gt.gt_desclen);
		t->desc[gt.gt_desclen] = '\0';
	}
	if ((t->schema = malloc(gt.gt_schemalen + 1)) == NULL) {
		free(t->desc);
		t->desc = NULL;
		return (-1);
	}
	memcpy(t->schema, body + gt.gt_desclen, gt.gt_schemalen);
	t->schema[gt.gt_schemalen] = '\0';
	t->schemalen = gt.gt_schemalen;
	n->ntools++;
	return (0);
}

int
tlist_end(struct tlist *tl, const void *data, size_t len, int *changed)
{
	struct gw_tools_end	 ge;
	struct tlist_list	*n = &tl->next;
	uint8_t			 d[SHA256_DIGEST_BYTES];
	size_t			 i, j;

	if (len != sizeof(ge))
		return (-1);
	memcpy(&ge, data, sizeof(ge));
	/* A list ends once: an END again would empty the one in force. */
	if (ge.ge_serial <= tl->cur.serial)
		return (-1);
	/* An empty list has no first tool to begin it. */
	if (ge.ge_count == 0 && ge.ge_serial > n->serial) {
		tlist_clear(n);
		n->serial = ge.ge_serial;
	}
	if (ge.ge_serial != n->serial || ge.ge_count != n->ntools)
		return (-1);
	for (i = 0; i < n->ntools; i++) {
		for (j = 0; j < tl->nlisted; j++)
			if (strcmp(tl->listed[j], n->tools[i].name) == 0)
				break;
		if (j < tl->nlisted)
			continue;
		if (tl->nlisted == nitems(tl->listed))
			return (-1);
		memcpy(tl->listed[tl->nlisted++], n->tools[i].name,
		    sizeof(tl->listed[0]));
	}
	tlist_digest(n, d);
	*changed = tl->cur.serial != 0 &&
	    memcmp(d, tl->digest, sizeof(d)) != 0;
	memcpy(tl->digest, d, sizeof(d));
	tlist_clear(&tl->cur);
	tl->cur = *n;
	memset(n, 0, sizeof(*n));
	n->serial = tl->cur.serial;
	return (0);
}

int
tlist_listed(const struct tlist *tl, const char *name)
{
	size_t	 i;

	for (i = 0; i < tl->nlisted; i++)
		if (strcmp(tl->listed[i], name) == 0)
			return (1);
	return (0);
}

int
tlist_encode(const struct tlist *tl, const struct front_id *id, char *out,
    size_t sz, size_t *outlen, const char **why)
{
	struct front_list	 fl;
	size_t			 i;

	front_list_begin(&fl, id, out, sz);
	for (i = 0; i < tl->cur.ntools; i++)
		front_list_add(&fl, tl->cur.tools[i].name,
		    tl->cur.tools[i].desc, tl->cur.tools[i].schema,
		    tl->cur.tools[i].schemalen);
	return (front_list_end(&fl, outlen, why));
}

static void
tlist_clear(struct tlist_list *l)
{
	size_t	 i;

	for (i = 0; i < l->ntools; i++) {
		free(l->tools[i].desc);
		free(l->tools[i].schema);
	}
	memset(l, 0, sizeof(*l));
}

/* Each tool as its name, its description and its schema, lengths first. */
static void
tlist_digest(const struct tlist_list *l, uint8_t out[SHA256_DIGEST_BYTES])
{
	struct sha256_ctx	 ctx;
	uint64_t		 n;
	size_t			 i;

	sha256_init(&ctx);
	for (i = 0; i < l->ntools; i++) {
		n = strlen(l->tools[i].name);
		sha256_update(&ctx, &n, sizeof(n));
		sha256_update(&ctx, l->tools[i].name, n);
		n = l->tools[i].desc != NULL ? strlen(l->tools[i].desc) + 1 :
		    0;
		sha256_update(&ctx, &n, sizeof(n));
		if (n > 0)
			sha256_update(&ctx, l->tools[i].desc, n - 1);
		n = l->tools[i].schemalen;
		sha256_update(&ctx, &n, sizeof(n));
		sha256_update(&ctx, l->tools[i].schema, n);
	}
	sha256_final(&ctx, out);
}
