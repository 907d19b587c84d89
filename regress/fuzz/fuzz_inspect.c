/*
 * libFuzzer harness for the admission verifiers: the input is an engine
 * document, verified as a container inspect (against the fixture
 * template, with and without the expected ID, and against the server
 * fixture's template), an image inspect, a create
 * response, and a daemon /version and /info pair (the input split at its
 * first newline).  Seeds: the stored real documents.
 */

#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dkr.h"
#include "fixtures/fixture.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dkr_template	 t;
	const char		*s = (const char *)data, *nl;
	char			 why[DKR_WHY_BYTES];
	char			 id[DKR_CONTAINER_ID_BYTES];
	enum dkr_reason		 r;

	fx_template(&t);
	r = dkr_inspect_verify(s, size, &t, FX_ID, why, sizeof(why));
	if (r < DKR_OK || r >= DKR_R_MAX || strlen(why) >= sizeof(why))
		abort();
	(void)dkr_inspect_verify(s, size, &t, NULL, why, sizeof(why));
	/* A server's container: the binds, matched by their targets. */
	fx_server_template(&t);
	r = dkr_inspect_verify(s, size, &t, FX_SERVER_ID, why, sizeof(why));
	if (r < DKR_OK || r >= DKR_R_MAX || strlen(why) >= sizeof(why))
		abort();
	(void)dkr_image_verify(s, size, FX_IMAGE, why, sizeof(why));
	r = dkr_create_verify(s, size, id, why, sizeof(why));
	if (r == DKR_OK && !dkr_container_id_valid(id))
		abort();
	if ((nl = memchr(s, '\n', size)) != NULL)
		(void)dkr_daemon_verify(s, nl - s, nl + 1,
		    size - (nl - s) - 1, why, sizeof(why));
	return 0;
}
