# box — one static binary.  `make` builds ./box with musl-gcc, statically
# linked and stripped.  `make V=1` shows the commands.
#
#   make            the binary
#   make test       unit tests (system compiler, ASan+UBSan), the CLI surface,
#                   the layering rule (tests/layering.sh), the docs' facts
#                   (tests/docs.sh) and their negative tests (*_neg.sh);
#                   tests/README.md runs one of each
#   make fuzz-smoke each libFuzzer harness for FUZZ_SECONDS under ASan+UBSan
#   make integration tests against the real Incus daemon (root)
#   make check      test + fuzz-smoke + integration
#   make bench      performance comparison (see tests/bench/)
#   make size       what each module costs in the binary
#   make release    dist/ with versioned binaries and SHA256SUMS
#   make install    the binary, box.1 and the completions under PREFIX

VERSION   := $(shell cat VERSION)
CC_STATIC ?= musl-gcc
CC_TEST   ?= gcc
CC_FUZZ   ?= clang
FUZZ_SECONDS ?= 20

Q := @
ifeq ($(V),1)
Q :=
endif

B := build
LTO ?= 1
ifeq ($(LTO),1)
LTO_C := -flto
LTO_L := -flto=2 -Wno-maybe-uninitialized
endif
WARN   := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wno-unused-parameter
COMMON := -std=c11 -D_GNU_SOURCE -Isrc -I$(B)/gen -I$(B)/uapi $(WARN) \
          -DBOX_VERSION='"$(VERSION)"'
CFLAGS_STATIC := $(COMMON) -Os $(LTO_C) -ffunction-sections -fdata-sections \
          -fno-asynchronous-unwind-tables -fno-unwind-tables -fno-stack-protector
# Link-time optimisation: 12 KiB of the (then) 768 KiB budget (measured on this
# tree).  `make clean; make size LTO=0` for the per-module split (the
# linker map of an LTO link names only its partitions).  Each file's
# warnings are judged when it is compiled; at the link LTO's cross-file inlining adds only maybe-uninitialized guesses through
# out-parameters the callees always set (mint_mode's vm, setup_pool's
# created), so that one is not an error there.
LDFLAGS_STATIC := $(LTO_L) -static -s -Wl,--gc-sections -Wl,-Map,$(B)/box.map
CFLAGS_TEST := $(COMMON) -O1 -g -fsanitize=address,undefined \
          -fno-omit-frame-pointer -fno-sanitize-recover=undefined -Itests/unit
CFLAGS_FUZZ := $(COMMON) -O1 -g -fsanitize=fuzzer,address,undefined \
          -fno-sanitize-recover=undefined -DBOX_FUZZ
LDLIBS_STATIC :=

# Everything under src/ goes into the binary; src/tools/ are build-time
# helpers compiled for the build machine.
SRC      := $(filter-out src/tools/%,$(shell find src -name '*.c' | sort))
LIB_SRC  := $(filter-out src/main.c,$(SRC))
GEN_SRC  := $(B)/gen/templates_data.c $(B)/gen/host_data.c
OBJ      := $(SRC:%.c=$(B)/musl/%.o) $(GEN_SRC:$(B)/gen/%.c=$(B)/musl/gen/%.o)
TEST_SRC := $(sort $(wildcard tests/unit/*.c))
TEST_OBJ := $(LIB_SRC:%.c=$(B)/test/%.o) $(TEST_SRC:%.c=$(B)/test/%.o) \
            $(GEN_SRC:$(B)/gen/%.c=$(B)/test/gen/%.o)
FUZZERS  := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_LIB := $(LIB_SRC:%.c=$(B)/fuzzobj/%.o) \
            $(GEN_SRC:$(B)/gen/%.c=$(B)/fuzzobj/gen/%.o)

-include vendor/*.mk

PREFIX ?= /usr/local
# The manual page and the completion scripts are written by the binary
# from its verb table (src/cmd/verbs.def), so they cannot drift from it.
DOCS := $(B)/box.1 $(B)/completions/box.bash $(B)/completions/_box \
        $(B)/completions/box.fish

all: box $(DOCS)

$(B)/box.1: box
	$(Q)./box help --man >$@.tmp && mv $@.tmp $@
$(B)/completions/box.bash: box
	@mkdir -p $(@D)
	$(Q)./box completion bash >$@.tmp && mv $@.tmp $@
$(B)/completions/_box: box
	@mkdir -p $(@D)
	$(Q)./box completion zsh >$@.tmp && mv $@.tmp $@
$(B)/completions/box.fish: box
	@mkdir -p $(@D)
	$(Q)./box completion fish >$@.tmp && mv $@.tmp $@

install: all
	install -D -m 0755 box $(DESTDIR)$(PREFIX)/bin/box
	install -D -m 0644 $(B)/box.1 $(DESTDIR)$(PREFIX)/share/man/man1/box.1
	install -D -m 0644 $(B)/completions/box.bash \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/box
	install -D -m 0644 $(B)/completions/_box \
	    $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_box
	install -D -m 0644 $(B)/completions/box.fish \
	    $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/box.fish

box: $(OBJ)
	@echo "  LD      $@"
	$(Q)$(CC_STATIC) $(CFLAGS_STATIC) $(LDFLAGS_STATIC) -o $@ $(OBJ) $(LDLIBS_STATIC)

$(B)/musl/%.o: %.c | $(UAPI_STAMP) $(GEN_SRC)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC_STATIC) $(CFLAGS_STATIC) -MMD -MP -c -o $@ $<
$(B)/musl/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(@D)
	$(Q)$(CC_STATIC) $(CFLAGS_STATIC) -c -o $@ $<

# Templates and the firewall boot unit are compiled into the binary: a generator of our own turns them into C tables.
TEMPLATE_FILES := $(shell find templates -type f | sort)
HOST_FILES     := host/box-firewall.service host/box-resolver.service \
                  host/box-guard.service
$(B)/tools/embed: src/tools/embed.c
	@mkdir -p $(@D)
	$(Q)$(CC_TEST) -std=c11 -O1 -Wall -Wextra -Werror -o $@ $<
$(B)/gen/templates_data.c: $(B)/tools/embed $(TEMPLATE_FILES)
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)$(B)/tools/embed $@.tmp templates templates/ $(TEMPLATE_FILES) && mv $@.tmp $@
$(B)/gen/host_data.c: $(B)/tools/embed $(HOST_FILES)
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	$(Q)$(B)/tools/embed $@.tmp host host/ $(HOST_FILES) && mv $@.tmp $@

# --- unit tests (system compiler, ASan+UBSan) -------------------------------
$(B)/test/%.o: %.c | $(UAPI_STAMP) $(GEN_SRC)
	@mkdir -p $(@D)
	@echo "  CC-T    $<"
	$(Q)$(CC_TEST) $(CFLAGS_TEST) -MMD -MP -c -o $@ $<
$(B)/test/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(@D)
	$(Q)$(CC_TEST) $(CFLAGS_TEST) -c -o $@ $<
$(B)/unit-tests: $(TEST_OBJ)
	$(Q)$(CC_TEST) $(CFLAGS_TEST) -o $@ $(TEST_OBJ) $(LDLIBS_TEST)

test: $(B)/unit-tests box
	ASAN_OPTIONS=detect_leaks=1 BOX_TEST_DATA=tests $(B)/unit-tests
	$(Q)sh tests/cli/run.sh
	$(Q)sh tests/layering.sh
	$(Q)sh tests/layering_neg.sh
	$(Q)sh tests/docs.sh
	$(Q)sh tests/docs_neg.sh

# After a deliberate change to help, completion or the man page: rewrite
# tests/cli/golden/ and read `git diff` before committing it.
golden: box
	$(Q)sh tests/cli/run.sh --update

# --- fuzzing (clang libFuzzer, ASan+UBSan) ----------------------------------
$(B)/fuzzobj/%.o: %.c | $(UAPI_STAMP) $(GEN_SRC)
	@mkdir -p $(@D)
	$(Q)$(CC_FUZZ) $(CFLAGS_FUZZ) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<
$(B)/fuzzobj/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(@D)
	$(Q)$(CC_FUZZ) $(CFLAGS_FUZZ) -c -o $@ $<
$(B)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB)
	@mkdir -p $(@D)
	@echo "  FUZZ    $@"
	$(Q)$(CC_FUZZ) $(CFLAGS_FUZZ) -o $@ $< $(FUZZ_LIB) $(LDLIBS_FUZZ)

# the differential tar harness reads every archive a second time with
# libarchive (libarchive-dev, ci/install-deps.sh): the harness only
$(B)/fuzz/fuzz_tar: LDLIBS_FUZZ += -larchive
$(B)/fuzz/fuzz_reframe: LDLIBS_FUZZ += -larchive

fuzzers: $(FUZZERS)

# Each harness runs FUZZ_SECONDS on its checked-in corpus (copied, so the
# tree is not touched); a crash fails the target.  FUZZ_JOBS harnesses run
# at once (each is one process: one per core).
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
fuzz-smoke: $(FUZZERS)
	$(Q)$(MAKE) --no-print-directory -j$(FUZZ_JOBS) $(FUZZERS:%=%.smoke)

$(B)/fuzz/%.smoke: $(B)/fuzz/%
	$(Q)n=$*; rm -rf $(B)/corpus/$$n; mkdir -p $(B)/corpus/$$n; \
	  cp tests/fuzz/corpus/$$n/* $(B)/corpus/$$n/ 2>/dev/null; \
	  echo "  RUN     $$n ($(FUZZ_SECONDS)s)"; \
	  $< -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	    -rss_limit_mb=2048 -print_final_stats=1 $(B)/corpus/$$n \
	    >$(B)/corpus/$$n.log 2>&1 || { tail -40 $(B)/corpus/$$n.log; exit 1; }; \
	  echo "  DONE    $$n: $$(grep -E 'stat::number_of_executed_units' $(B)/corpus/$$n.log)"

fuzz-long:
	$(MAKE) fuzz-smoke FUZZ_SECONDS=600

# --- integration, bench, size, release --------------------------------------
integration: box
	sh tests/integration/run.sh

check: box test fuzz-smoke integration

bench: box
	sh tests/bench/run.sh

size: box
	$(Q)sh ci/size.sh $(B)/box.map box

release: box
	$(Q)sh ci/release.sh $(VERSION)

clean:
	rm -rf $(B) box dist

.PHONY: all install golden test fuzzers fuzz-smoke fuzz-long integration check bench size release clean

-include $(shell find $(B) -name '*.d' 2>/dev/null)
