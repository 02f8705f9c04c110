# BearSSL, linked statically from the build machine's libbearssl-dev.
#
# Debian ships libbearssl.a built for glibc with _FORTIFY_SOURCE, so its
# objects call __memcpy_chk, __memmove_chk and __memset_chk, which musl does
# not have (`nm -u libbearssl.a` lists exactly those three beyond plain libc;
# __stack_chk_fail and __errno_location musl provides).  vendor/
# fortify_shim.c supplies them, with the same abort-on-overflow contract, and
# goes into the musl binary only: glibc builds (unit tests, fuzzers) have
# the real ones.
#
# Headers: musl-gcc must not see /usr/include (glibc's headers would leak
# in), so $(B)/bearssl-inc holds nothing but symlinks to bearssl*.h and is
# put on every build's include path; code says #include <bearssl_hash.h>.

# This fragment is read before the Makefile's first rule; keep `make`
# meaning `make all`.
.DEFAULT_GOAL := all

BEARSSL_A     := $(firstword $(wildcard \
                   /usr/lib/$(shell gcc -dumpmachine)/libbearssl.a \
                   /usr/lib/libbearssl.a /usr/local/lib/libbearssl.a))
BEARSSL_HDRS  := $(firstword $(wildcard /usr/include/bearssl /usr/local/include/bearssl))
BEARSSL_INC   := $(B)/bearssl-inc
BEARSSL_STAMP := $(BEARSSL_INC)/.stamp
FORTIFY_SHIM  := $(B)/musl/vendor/fortify_shim.o

# CFLAGS_* were expanded from COMMON before this file is read (:=), so
# the include path goes to each of them.
CFLAGS_STATIC += -I$(BEARSSL_INC)
CFLAGS_TEST   += -I$(BEARSSL_INC)
CFLAGS_FUZZ   += -I$(BEARSSL_INC)
LDLIBS_STATIC += $(FORTIFY_SHIM) $(BEARSSL_A)
LDLIBS_TEST   += $(BEARSSL_A)
LDLIBS_FUZZ   += $(BEARSSL_A)

$(BEARSSL_STAMP):
	@test -n "$(BEARSSL_A)" -a -n "$(BEARSSL_HDRS)" || \
	  { echo "need libbearssl-dev (libbearssl.a and its headers)"; exit 1; }
	@mkdir -p $(BEARSSL_INC)
	$(Q)for h in $(BEARSSL_HDRS)/bearssl*.h; do ln -sfn $$h $(BEARSSL_INC)/; done
	@touch $@

$(FORTIFY_SHIM): vendor/fortify_shim.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(CC_STATIC) $(CFLAGS_STATIC) -c -o $@ $<

# Every object may include a BearSSL header.
$(OBJ) $(TEST_OBJ) $(FUZZ_LIB): | $(BEARSSL_STAMP)
box: $(FORTIFY_SHIM)
