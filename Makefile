# kgate build. `make` builds build/kgate; `make SANITIZE=address,undefined` builds the same
# into build/san/ with sanitizers; `make test` installs what is missing, builds with the
# sanitizers and runs every test against a real etcd; `make run` starts a local cluster.

# Every build runs one job per CPU unless told otherwise (make -jN). Only the top make sets it:
# the makes it runs share its job slots.
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(shell nproc)
endif

CC ?= cc
SANITIZE ?=
ifeq ($(strip $(SANITIZE)),)
BUILD := build
SANFLAGS :=
else
BUILD := build/san
SANFLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
GEN := $(BUILD)/gen

# libsodium: the secretbox provider of encryption at rest (XSalsa20-Poly1305, as kube's).
PKGS := grpc gpr libevent libevent_pthreads libevent_openssl jansson yaml-0.1 libprotobuf-c \
        openssl libjwt zlib libnghttp2 libsodium
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# gRPC's .pc lists every abseil archive for static links; a dynamic link needs only these two.
PKG_LIBS = $(shell pkg-config --libs $(filter-out grpc gpr,$(PKGS)) 2>/dev/null) -lgrpc -lgpr

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wwrite-strings -Wundef -Wformat=2
OPT ?= -O2 -g
CFLAGS_ALL = -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) $(SANFLAGS) -MMD -MP $(FOLDER_INCS) \
             $(PKG_CFLAGS)
# libkgate.a's authenticators compile CEL expressions: programs link libcel.a and PCRE2 too.
LDFLAGS_ALL = $(SANFLAGS) $(PKG_LIBS) $(shell pkg-config --libs libpcre2-8 2>/dev/null) -lpthread -lm
# kgate itself takes its libraries from their archives, glibc aside: mapping and binding some
# 60 shared objects at exec (gRPC and abseil alone are 50) was a quarter of its start-up. The
# sanitizer build takes only gRPC and abseil so (the sanitizers' runtime stands in for some
# of the system libraries' symbols).
comma := ,
GRPC_STATIC = $(filter-out -Wl$(comma)% -pthread -ldl -lrt -latomic -lssl -lcrypto -lz, \
                $(shell pkg-config --static --libs grpc 2>/dev/null))
PCRE_LIBS = $(shell pkg-config --libs libpcre2-8 2>/dev/null)
ifeq ($(strip $(SANITIZE)),)
KGATE_LDFLAGS = -Wl,-Bstatic $(filter-out -lgrpc -lgpr -ljwt -lssl -lcrypto -lz,$(PKG_LIBS)) \
                $(GRPC_STATIC) -lssl -lcrypto -lz $(PCRE_LIBS) -lstdc++ -latomic -Wl,-Bdynamic \
                -static-libgcc -ljwt -lpthread -ldl -lm
else
KGATE_LDFLAGS = $(SANFLAGS) $(filter-out -lgrpc -lgpr,$(PKG_LIBS)) -Wl,-Bstatic $(GRPC_STATIC) \
                -Wl,-Bdynamic -lstdc++ -latomic $(PCRE_LIBS) -lpthread -lm
endif

# Sources are discovered, so adding a module needs no Makefile edit.
LIB_DIRS := gateway etcdproto kmsproto authn authz
PROTOS := $(wildcard etcdproto/*.proto kmsproto/*.proto)
GEN_C := $(patsubst %.proto,$(GEN)/%.pb-c.c,$(notdir $(PROTOS)))
GEN_H := $(GEN_C:.c=.h)
LIB_SRC := $(filter-out gateway/main.c,$(shell find $(LIB_DIRS) -name '*.c' 2>/dev/null | sort))
LIB_HDR := $(shell find $(LIB_DIRS) cel -name '*.h' 2>/dev/null | sort)
HDR_DIRS := $(sort $(dir $(LIB_HDR) $(wildcard tests/lib/*.h)))
# Tests, benchmarks, fuzz drivers and tools see every header folder. A library folder's objects
# see only their own and those layers.json lets them include (FOLDER_INCS, set per folder by
# $(LAYERS_MK) below), so the compiler refuses an include across an edge nobody wrote down.
INCS = $(addprefix -I,$(HDR_DIRS)) -I$(GEN)
FOLDER_INCS = $(INCS)
LAYERS_MK := $(BUILD)/layers.mk

# Assembly sources embed data files into the library with .incbin (no generated C, no xxd).
LIB_ASM := $(shell find $(LIB_DIRS) -name '*.S' 2>/dev/null | sort)
LIB_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRC)) $(GEN_C:$(GEN)/%.c=$(BUILD)/obj/gen/%.o) \
           $(patsubst %.S,$(BUILD)/obj/%.o,$(LIB_ASM))
LIB := $(BUILD)/libkgate.a

# cel/ is a standalone library (no libevent, gRPC or gateway headers): its own archive, its own
# tests (tests/unit/cel/) linked against it alone plus PCRE2.
CEL_SRC := $(shell find cel -name '*.c' -not -path 'cel/tools/*' 2>/dev/null | sort)
CEL_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(CEL_SRC))
CEL_LIB := $(BUILD)/libcel.a
CEL_LIBS = $(shell pkg-config --libs libpcre2-8 jansson 2>/dev/null) -lm

TEST_LIB_SRC := $(wildcard tests/lib/*.c)
TEST_LIB_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(TEST_LIB_SRC))
TEST_SRC := $(shell find tests/unit tests/integration -name 'test_*.c' -not -path 'tests/unit/cel/*' \
              2>/dev/null | sort)
TEST_BIN := $(patsubst %.c,$(BUILD)/%,$(TEST_SRC))
CEL_TEST_SRC := $(shell find tests/unit/cel -name 'test_*.c' 2>/dev/null | sort)
CEL_TEST_BIN := $(patsubst %.c,$(BUILD)/%,$(CEL_TEST_SRC))
# bench/bench_https.c is the benchmarks' HTTPS client, linked into each; every other
# bench/*.c is a program.
BENCH_SRC := $(filter-out bench/bench_https.c,$(wildcard bench/*.c))
BENCH_BIN := $(patsubst %.c,$(BUILD)/%,$(BENCH_SRC))
BENCH_OBJ := $(BUILD)/obj/bench/bench_https.o
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BIN := $(patsubst %.c,$(BUILD)/%,$(TOOL_SRC))

# Generated sources and objects are intermediates make must not delete.
.SECONDARY:

.PHONY: all deps test test-build run stop bench fuzz clean format check-layers check-format
all: $(BUILD)/kgate

deps:
	@scripts/install-deps.sh

$(GEN)/%.pb-c.c $(GEN)/%.pb-c.h: etcdproto/%.proto $(PROTOS)
	@mkdir -p $(GEN)
	protoc-c -Ietcdproto --c_out=$(GEN) $<

$(GEN)/%.pb-c.c $(GEN)/%.pb-c.h: kmsproto/%.proto
	@mkdir -p $(GEN)
	protoc-c -Ikmsproto --c_out=$(GEN) $<

# Each library folder's include path, from layers.json and the headers' own includes
# (scripts/check-layers.py --make); remade when either changes.
$(LAYERS_MK): layers.json scripts/check-layers.py $(LIB_HDR) $(PROTOS)
	@mkdir -p $(dir $@)
	scripts/check-layers.py --make >$@.tmp && mv $@.tmp $@

ifneq ($(filter-out clean deps format check-layers check-format stop,$(or $(MAKECMDGOALS),all)),)
include $(LAYERS_MK)
endif

# Every object may include a generated header: generate them all first.
$(BUILD)/obj/%.o: %.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

# -MMD cannot see .incbin inputs: name them.
$(BUILD)/obj/gateway/catalog/gw_catalog_blob.o: gateway/catalog/catalog.json
$(BUILD)/obj/gateway/controllers/gw_rbac_blob.o: gateway/controllers/rbac_bootstrap.json

# Generated code is not ours to fix: keep -Werror, drop only the prototype-style warnings.
$(BUILD)/obj/gen/%.o: $(GEN)/%.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Wno-missing-prototypes -Wno-undef -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(CEL_LIB): $(CEL_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/kgate: $(BUILD)/obj/gateway/main.o $(LIB) $(CEL_LIB)
	$(CC) $^ $(KGATE_LDFLAGS) -o $@

# build/cel-eval: evaluate expressions from JSON lines (cel/tools/cel_eval.c).
$(BUILD)/cel-eval: $(BUILD)/obj/cel/tools/cel_eval.o $(CEL_LIB)
	$(CC) $^ $(SANFLAGS) $(CEL_LIBS) -o $@

# build/patch-apply: JSON, merge, strategic and server-side apply patches from JSON lines
# (tools/patch_apply.c).
$(BUILD)/patch-apply: $(BUILD)/obj/tools/patch_apply.o $(LIB) $(CEL_LIB)
	$(CC) $^ $(LDFLAGS_ALL) -o $@

$(BUILD)/tests/unit/cel/%: tests/unit/cel/%.c $(CEL_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< $(CEL_LIB) $(SANFLAGS) $(CEL_LIBS) -o $@

$(BUILD)/tests/%: tests/%.c $(TEST_LIB_OBJ) $(LIB) $(CEL_LIB) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< $(TEST_LIB_OBJ) $(LIB) $(CEL_LIB) $(LDFLAGS_ALL) -o $@

# bench_cel measures the CEL library alone: libcel.a, not libkgate.a.
$(BUILD)/bench/bench_cel: bench/bench_cel.c $(CEL_LIB) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< $(CEL_LIB) $(SANFLAGS) $(CEL_LIBS) -o $@

$(BUILD)/bench/%: bench/%.c $(BENCH_OBJ) $(TEST_LIB_OBJ) $(LIB) $(CEL_LIB) | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $< $(BENCH_OBJ) $(TEST_LIB_OBJ) $(LIB) $(CEL_LIB) $(LDFLAGS_ALL) -o $@

CEL_EVAL := $(if $(wildcard cel/tools/cel_eval.c),$(BUILD)/cel-eval)
PATCH_APPLY := $(if $(wildcard tools/patch_apply.c),$(BUILD)/patch-apply)
test-build: $(BUILD)/kgate $(TEST_BIN) $(CEL_TEST_BIN) $(CEL_EVAL) $(PATCH_APPLY) $(BENCH_BIN)

# The test run always uses the sanitizer build.
test: deps
	$(MAKE) check-layers check-format
	$(MAKE) all
	$(MAKE) SANITIZE=address,undefined test-build
	$(MAKE) fuzz-smoke
	KGATE_BUILD=build/san tests/run.sh

# deps first: the build needs what it installs.
run: deps
	$(MAKE) all
	@scripts/run-local.sh start

stop:
	@scripts/run-local.sh stop

# `make image`: the container image (Dockerfile), built by docker, podman or buildah
# (scripts/image.sh) and tagged kgate:<the chart's appVersion>, the tag the chart runs by default.
# IMAGE names another tag; IMAGE_ARGS go to the build, e.g. --build-arg BUILD_BASE=... and
# RUN_BASE=... for Debian 12 bases of one's own (scripts/image-base.sh makes one).
.PHONY: image
VERSION := $(shell sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$$/\1/p' \
             charts/kgate/Chart.yaml 2>/dev/null)
IMAGE ?= kgate:$(VERSION)
image:
	scripts/image.sh $(IMAGE) $(IMAGE_ARGS)

bench: deps
	$(MAKE) $(BUILD)/kgate $(BENCH_BIN)
	KGATE_BUILD=$(BUILD) bench/run.sh

# Fuzz drivers (tests/fuzz/fuzz_*.c) are built with clang's libFuzzer. `make fuzz` runs each
# for FUZZ_SECONDS; `make fuzz-smoke` (part of `make test`) replays the corpus plus a fixed
# number of mutations. tests/fuzz/<driver>.flags, when present, holds libFuzzer flags of that
# driver (a driver whose runs cover much code can turn off the entropic schedule, whose
# bookkeeping per covered feature costs it more than its own code).
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRC))
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) -fsanitize=fuzzer,address,undefined \
              $(INCS) $(PKG_CFLAGS)

# A driver #includes the .c files it exercises, so it builds on its own.
build/fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(CEL_SRC) $(LIB_HDR) | $(GEN_H)
	@mkdir -p build/fuzz
	clang $(FUZZ_CFLAGS) $< $(FUZZ_GEN) $(PKG_LIBS) $(CEL_LIBS) -lpthread -lm -o $@

# A driver of protobuf-c messages links their generated code (which has no prototypes).
build/fuzz/fuzz_kms: FUZZ_GEN = -Wno-missing-prototypes -Wno-undef $(GEN)/kms_object.pb-c.c \
                                $(GEN)/kms_service.pb-c.c

# One target per driver, so that make's jobs run drivers side by side (each is one thread).
FUZZ_SMOKE := $(patsubst build/fuzz/%,fuzz-smoke-%,$(FUZZ_BIN))
fuzz-smoke: $(FUZZ_SMOKE)
.PHONY: fuzz-smoke $(FUZZ_SMOKE)
$(FUZZ_SMOKE): fuzz-smoke-%: build/fuzz/%
	@mkdir -p build/fuzz/corpus-$*
	@echo "fuzz $*: corpus + 20000 runs"
	@$< $$(cat tests/fuzz/$*.flags 2>/dev/null) -runs=20000 -seed=1 \
	    build/fuzz/corpus-$* tests/fuzz/corpus/$* >/dev/null 2>build/fuzz/$*.log \
	    || { tail -30 build/fuzz/$*.log; exit 1; }

fuzz: $(FUZZ_BIN)
	@for f in $(FUZZ_BIN); do \
	    n=$$(basename $$f); mkdir -p build/fuzz/corpus-$$n; \
	    $$f $$(cat tests/fuzz/$$n.flags 2>/dev/null) -max_total_time=$(FUZZ_SECONDS) \
	        build/fuzz/corpus-$$n tests/fuzz/corpus/$$n || exit 1; \
	done

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

# Checks of the source tree, not yet part of `make test`: every #include follows the folder
# graph in layers.json (scripts/check-layers.py; `--graph` prints the graph the includes make),
# and every C file reads as `make format` writes it.
check-layers:
	@scripts/check-layers.py

check-format:
	@scripts/check-format.sh

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
