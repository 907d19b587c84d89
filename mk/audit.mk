# Audit store, included by the top Makefile after its variables.
#
#   the suite        links the store (auditor, audit commands) and SQLite
#   make audit-units     the store's ATF tests (regress/auditor)
#   make audit-sanitize  the same under ASan+UBSan
#   make bench-audit     durable appends/s, group commit, verify of 1M
#                        records; figures in bench/results/audit.tsv

AUDIT_SQLITE_CFLAGS!= pkg-config --cflags sqlite3 2>/dev/null
AUDIT_SQLITE_LIBS!=  pkg-config --libs sqlite3 2>/dev/null
AUDIT_CPPFLAGS=	$(CPPFLAGS) -Iauditor $(AUDIT_SQLITE_CFLAGS)

AUDIT_HDRS=	auditor/auditdb.h common/auditrec.h common/sha256.h \
		common/log.h common/cmcp.h
AUDIT_SRCS=	auditor/auditdb.c common/auditrec.c common/sha256.c \
		common/log.c

AUDIT_UNIT_TESTS= regress/auditor/auditdb_test
AUDIT_BENCH=	bench/audit

# The suite: the auditor keeps the store; the parent reads it for the
# audit commands; every sender builds records (common/auditrec.c).
SRCS+=		auditor/auditdb.c
AUDIT_SUITE_OBJS= obj/auditor/auditdb.o obj-test/auditor/auditdb.o \
		obj/auditor/auditor.o obj-test/auditor/auditor.o \
		obj/parent/parent.o obj-test/parent/parent.o
$(AUDIT_SUITE_OBJS): CPPFLAGS+= -Iauditor $(AUDIT_SQLITE_CFLAGS)
$(AUDIT_SUITE_OBJS): auditor/auditdb.h common/auditrec.h
obj/common/auditrec.o obj-test/common/auditrec.o \
    obj/dockerd-client/dockerd.o obj-test/dockerd-client/dockerd.o: \
    common/auditrec.h common/sha256.h
$(PROG) $(TPROG): LDLIBS+= $(AUDIT_SQLITE_LIBS)

# The top Makefile's targets pick these up.
UNIT_TESTS+=	$(AUDIT_UNIT_TESTS)
SANITIZE_EXTRA+= audit-sanitize
BENCH_TARGETS+=	bench-audit
CLEAN_EXTRA+=	audit-clean

.PHONY: audit-units audit-sanitize bench-audit audit-clean

audit-units: $(AUDIT_UNIT_TESTS)

regress/auditor/auditdb_test: regress/auditor/auditdb_test.c $(AUDIT_SRCS) \
    $(AUDIT_HDRS)
	$(CC) $(AUDIT_CPPFLAGS) $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    regress/auditor/auditdb_test.c $(AUDIT_SRCS) $(ATF_LIBS) \
	    $(AUDIT_SQLITE_LIBS) $(LDLIBS)

$(AUDIT_BENCH): bench/audit.c $(AUDIT_SRCS) $(AUDIT_HDRS)
	$(CC) $(AUDIT_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ bench/audit.c \
	    $(AUDIT_SRCS) $(AUDIT_SQLITE_LIBS) $(LDLIBS)

# BENCH_DIR must be on the file system whose fsync is to be measured.
# AUDIT_BENCH_FLAGS: -b records per group commit, -n records to verify,
# -s seconds per append run.
BENCH_DIR?=	$(CURDIR)/obj/bench
AUDIT_BENCH_FLAGS?=
bench-audit: $(AUDIT_BENCH)
	BENCH_DIR=$(BENCH_DIR) bench/audit.sh $(AUDIT_BENCH) \
	    bench/results/audit.tsv $(AUDIT_BENCH_FLAGS)

audit-sanitize: regress/auditor/auditdb_test.c $(AUDIT_SRCS) $(AUDIT_HDRS)
	@mkdir -p obj-san
	$(CC) $(AUDIT_CPPFLAGS) $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/auditdb_test regress/auditor/auditdb_test.c \
	    $(AUDIT_SRCS) $(ATF_LIBS) $(AUDIT_SQLITE_LIBS) $(LDLIBS)
	scripts/san-run obj-san/auditdb_test

audit-clean:
	rm -f $(AUDIT_UNIT_TESTS) $(AUDIT_BENCH) obj-san/auditdb_test
