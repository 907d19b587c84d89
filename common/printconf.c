/*
 * Print a parsed configuration in normalized form: every setting with its
 * default filled in, macros expanded, includes flattened, a fixed order and
 * the largest exact unit.  The output parses to itself.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

static void	print_string(FILE *, const char *);
static void	print_name(FILE *, const char *);
static void	print_label(FILE *, const struct cmcp_conf *, int);
static void	print_user(FILE *, const struct conf_user *);
static void	print_argv(FILE *, const struct conf_argv *);
static void	print_size(FILE *, const char *, uint64_t);
static void	print_time(FILE *, const char *, uint64_t);
static void	print_container(FILE *, const struct conf_container *);
static void	print_agent(FILE *, const struct cmcp_conf *);
static void	print_watchdog(FILE *, const struct conf_watchdog *);
static void	print_server(FILE *, const struct conf_server *);
static void	print_tool(FILE *, const struct cmcp_conf *,
		    const struct conf_tool *);
static void	print_rule(FILE *, const struct cmcp_conf *,
		    const struct conf_rule *);

static const char *const cmpnames[] = {
	"", "=", "!=", "<", "<=", ">", ">=", "in", "present", "absent"
};

void
conf_fmt_size(char *buf, size_t len, uint64_t v)
{
	if (v != 0 && v % (1ULL << 30) == 0)
		snprintf(buf, len, "%lluG", (unsigned long long)(v >> 30));
	else if (v != 0 && v % (1ULL << 20) == 0)
		snprintf(buf, len, "%lluM", (unsigned long long)(v >> 20));
	else if (v != 0 && v % (1ULL << 10) == 0)
		snprintf(buf, len, "%lluK", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

void
conf_fmt_time(char *buf, size_t len, uint64_t ms)
{
	if (ms != 0 && ms % 60000 == 0)
		snprintf(buf, len, "%llum", (unsigned long long)(ms / 60000));
	else if (ms != 0 && ms % 1000 == 0)
		snprintf(buf, len, "%llus", (unsigned long long)(ms / 1000));
	else
		snprintf(buf, len, "%llums", (unsigned long long)ms);
}

static void
print_string(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

/* Bare when it reads back as the same word, quoted otherwise. */
static void
print_name(FILE *fp, const char *s)
{
	const char	*p;

	if (!isalpha((unsigned char)s[0]) && s[0] != '_') {
		print_string(fp, s);
		return;
	}
	for (p = s; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && strchr("_-.", *p) == NULL) {
			print_string(fp, s);
			return;
		}
	if (conf_keyword(s))
		print_string(fp, s);
	else
		fputs(s, fp);
}

static void
print_label(FILE *fp, const struct cmcp_conf *c, int idx)
{
	print_name(fp, c->c_labels[idx]);
}

static void
print_user(FILE *fp, const struct conf_user *u)
{
	if (u->name[0] != '\0')
		print_string(fp, u->name);
	else
		fprintf(fp, "%u:%u", (unsigned int)u->uid,
		    (unsigned int)u->gid);
	if (!u->has_group)
		return;
	fputs(" group ", fp);
	if (u->group[0] != '\0')
		print_string(fp, u->group);
	else
		fprintf(fp, "%u", (unsigned int)u->sgid);
}

static void
print_argv(FILE *fp, const struct conf_argv *av)
{
	size_t	 i;

	fputs("\tcommand", fp);
	for (i = 0; i < av->argc; i++) {
		fputc(' ', fp);
		print_string(fp, av->argv[i]);
	}
	fputc('\n', fp);
}

static void
print_size(FILE *fp, const char *kw, uint64_t v)
{
	char	 buf[32];

	conf_fmt_size(buf, sizeof(buf), v);
	fprintf(fp, "\t%s %s\n", kw, buf);
}

static void
print_time(FILE *fp, const char *kw, uint64_t v)
{
	char	 buf[32];

	conf_fmt_time(buf, sizeof(buf), v);
	fprintf(fp, "\t%s %s\n", kw, buf);
}

static void
print_container(FILE *fp, const struct conf_container *ctr)
{
	print_argv(fp, &ctr->cmd);
	fprintf(fp, "\tuser %u:%u\n", (unsigned int)ctr->uid,
	    (unsigned int)ctr->gid);
	print_size(fp, "memory", ctr->memory_bytes);
	fprintf(fp, "\tpids %u\n", ctr->pids);
}

static void
print_agent(FILE *fp, const struct cmcp_conf *c)
{
	const struct conf_agent	*a = &c->c_agent;

	fputs("agent {\n\timage ", fp);
	print_string(fp, a->ctr.image);
	fputc('\n', fp);
	print_container(fp, &a->ctr);
	fprintf(fp, "\tnofile %u\n", a->nofile);
	print_size(fp, "frame", a->frame_bytes);
	print_size(fp, "stdout", a->stdout_bytes);
	print_size(fp, "stderr", a->stderr_bytes);
	fprintf(fp, "\tcalls %u\n", a->calls);
	print_time(fp, "timeout", a->ctr.timeout_ms);
	fputs("\tpayload label ", fp);
	print_label(fp, c, a->payload_label);
	fprintf(fp, "\n\tprotocol %s\n",
	    a->protocol == PROTO_MCP ? "mcp" : "frames");
	/* Like a sandbox tool's settings: only where it applies. */
	if (a->protocol == PROTO_MCP)
		fprintf(fp, "\trelay %s\n", a->relay ? "yes" : "no");
	fputs("}\n", fp);
}

static void
print_watchdog(FILE *fp, const struct conf_watchdog *wd)
{
	fputs("watchdog {\n", fp);
	print_time(fp, "pulse", wd->pulse_ms);
	print_time(fp, "ack", wd->ack_ms);
	print_time(fp, "lease", wd->lease_ms);
	fprintf(fp, "\tstop tries %u\n", wd->stop_tries);
	print_time(fp, "stop timeout", wd->stop_timeout_ms);
	fputs("}\n", fp);
}

/* A server's container settings, only where it has an image. */
static void
print_server(FILE *fp, const struct conf_server *s)
{
	const struct conf_mount	*m;
	size_t			 i;

	fputs("server ", fp);
	print_string(fp, s->name);
	fputs(" {\n", fp);
	if (s->image[0] != '\0') {
		fputs("\timage ", fp);
		print_string(fp, s->image);
		fputc('\n', fp);
	}
	print_argv(fp, &s->cmd);
	fputs("\tuser ", fp);
	print_user(fp, &s->user);
	fputc('\n', fp);
	if (s->image[0] != '\0') {
		print_size(fp, "memory", s->memory_bytes);
		fprintf(fp, "\tpids %u\n", s->pids);
	}
	for (i = 0; i < s->nmounts; i++) {
		m = &s->mounts[i];
		fputs("\tmount ", fp);
		print_string(fp, m->host);
		fputc(' ', fp);
		print_string(fp, m->target);
		fprintf(fp, " %s\n", m->rw ? "rw" : "ro");
	}
	print_time(fp, "timeout", s->timeout_ms);
	print_size(fp, "response", s->response_bytes);
	fprintf(fp, "\ttools %u\n", s->tools);
	fprintf(fp, "\tpages %u\n", s->pages);
	fputs("}\n", fp);
}

static void
print_tool(FILE *fp, const struct cmcp_conf *c, const struct conf_tool *t)
{
	fputs("tool ", fp);
	print_string(fp, t->name);
	fputs(" {\n", fp);
	if (t->kind == TOOL_MCP) {
		fputs("\tmcp server ", fp);
		print_string(fp, t->server->name);
		fputs(" tool ", fp);
		print_string(fp, t->remote);
		fputc('\n', fp);
	} else {
		fputs("\tsandbox image ", fp);
		print_string(fp, t->ctr.image);
		fputc('\n', fp);
	}
	fputs("\tceiling ", fp);
	print_label(fp, c, t->ceiling);
	fputs("\n\tlabel ", fp);
	print_label(fp, c, t->label);
	fputc('\n', fp);
	if (t->kind == TOOL_SANDBOX) {
		print_container(fp, &t->ctr);
		print_time(fp, "timeout", t->ctr.timeout_ms);
		print_size(fp, "output", t->output_bytes);
		print_size(fp, "source", t->source_bytes);
		print_size(fp, "input", t->input_bytes);
		if (t->input_tool != NULL) {
			fputs("\tinput tool ", fp);
			print_string(fp, t->input_tool->name);
			fputc('\n', fp);
		}
	}
	fputs("}\n", fp);
}

static void
print_rule(FILE *fp, const struct cmcp_conf *c, const struct conf_rule *r)
{
	const struct conf_pred	*p;
	const struct conf_value	*v;
	size_t			 i;

	fputs(r->action == RULE_PASS ? "pass" : "block", fp);
	if (r->quick)
		fputs(" quick", fp);
	if (r->nops == 0)
		fputs(" all", fp);
	else if (r->nops == 1) {
		fputs(" operation ", fp);
		print_string(fp, r->ops[0]->name);
	} else {
		fputs(" operation {", fp);
		for (i = 0; i < r->nops; i++) {
			fputs(i == 0 ? " " : ", ", fp);
			print_string(fp, r->ops[i]->name);
		}
		fputs(" }", fp);
	}
	if (r->label_cmp != CMP_NONE) {
		fprintf(fp, " label %s ", cmpnames[r->label_cmp]);
		print_label(fp, c, r->label);
	}
	TAILQ_FOREACH(p, &r->preds, entry) {
		fputs(" arg ", fp);
		print_string(fp, p->key);
		fprintf(fp, " %s", cmpnames[p->cmp]);
		if (p->cmp == CMP_IN)
			fputs(" {", fp);
		for (i = 0; i < p->nvalues; i++) {
			v = &p->values[i];
			fputs(p->cmp == CMP_IN && i > 0 ? ", " : " ", fp);
			if (v->is_number)
				fprintf(fp, "%lld", v->number);
			else
				print_string(fp, v->string);
		}
		if (p->cmp == CMP_IN)
			fputs(" }", fp);
	}
	fputc('\n', fp);
}

void
print_config(const struct cmcp_conf *c, FILE *fp)
{
	const struct conf_server	*s;
	const struct conf_tool		*t;
	const struct conf_operation	*o;
	const struct conf_rule		*r;
	char				 buf[32];
	size_t				 i;
	int				 p;

	for (p = PROC_BRIDGE; p < PROC_MAX; p++) {
		fprintf(fp, "user %s ", proc_names[p]);
		print_user(fp, &c->c_users[p]);
		fputc('\n', fp);
	}
	fputs("chroot ", fp);
	print_string(fp, c->c_chroot);
	fputs("\ncontrol socket ", fp);
	print_string(fp, c->c_control_socket);
	if (c->c_control_has_group) {
		fputs(" group ", fp);
		if (c->c_control_group[0] != '\0')
			print_string(fp, c->c_control_group);
		else
			fprintf(fp, "%u", (unsigned int)c->c_control_gid);
	}
	fputs("\ndocker socket ", fp);
	print_string(fp, c->c_docker_socket);
	conf_fmt_time(buf, sizeof(buf), c->c_docker_timeout_ms);
	fprintf(fp, "\ndocker timeout %s\n", buf);
	fputs("init ", fp);
	print_string(fp, c->c_init);
	fputc('\n', fp);
	fputs("audit database ", fp);
	print_string(fp, c->c_audit_db);
	fputs("\nlabels {", fp);
	for (i = 0; i < c->c_nlabels; i++) {
		fputs(i == 0 ? " " : ", ", fp);
		print_name(fp, c->c_labels[i]);
	}
	fputs(" }\n\n", fp);

	print_agent(fp, c);
	fputc('\n', fp);
	print_watchdog(fp, &c->c_wd);

	TAILQ_FOREACH(s, &c->c_servers, entry) {
		fputc('\n', fp);
		print_server(fp, s);
	}
	TAILQ_FOREACH(t, &c->c_tools, entry) {
		fputc('\n', fp);
		print_tool(fp, c, t);
	}
	if (!TAILQ_EMPTY(&c->c_operations))
		fputc('\n', fp);
	TAILQ_FOREACH(o, &c->c_operations, entry) {
		fputs("operation ", fp);
		print_string(fp, o->name);
		fputs(" tool ", fp);
		print_string(fp, o->tool->name);
		if (o->budget != 0)
			fprintf(fp, " budget %u", o->budget);
		if (o->description != NULL) {
			fputs(" description ", fp);
			print_string(fp, o->description);
		}
		if (o->schema != NULL) {
			fputs(" schema ", fp);
			print_string(fp, o->schema);
		}
		fputc('\n', fp);
	}
	if (!TAILQ_EMPTY(&c->c_rules))
		fputc('\n', fp);
	TAILQ_FOREACH(r, &c->c_rules, entry)
		print_rule(fp, c, r);
}
