/*
 * The configuration text the gateway's tests start from: the five
 * users and the agent, string literals to paste in front of a case's own
 * text.  The agent's block takes the lines a case adds after its image
 * and command (CONF_AGENT("") for none).
 */

#define CONF_USERS_BUT_DOCKER						\
	"user bridge 61001:61001\n"					\
	"user gateway 61002:61002\n"					\
	"user auditor 61003:61003\n"					\
	"user watchdog 61004:61004\n"
#define CONF_USER_DOCKER	"user dockerd-client 61005:61005\n"
#define CONF_USERS		CONF_USERS_BUT_DOCKER CONF_USER_DOCKER

#define CONF_AGENT(lines)						\
	"agent {\n"							\
	"\timage \"sha256:0123456789abcdef0123456789abcdef"		\
	"0123456789abcdef0123456789abcdef\"\n"				\
	"\tcommand \"/usr/local/bin/agent\"\n"				\
	lines								\
	"}\n"
