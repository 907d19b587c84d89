# Confinement evidence artifact (issue 6, item 6), included by the top
# Makefile after its variables.
#
#   make evidence   build, start the private engine when none runs (and
#                   stop it afterwards only then), load the test images,
#                   run the protected run and every causal mutation and
#                   write evidence/observations.jsonl (names, numbers and
#                   booleans only, never the canary) and
#                   evidence/summary.txt, the table it prints.  Root only.
#   make evidence-clean

EVIDENCE_DIR?=	evidence

.PHONY: evidence evidence-clean

evidence: all
	scripts/evidence -o $(EVIDENCE_DIR)

evidence-clean:
	rm -rf $(EVIDENCE_DIR)
