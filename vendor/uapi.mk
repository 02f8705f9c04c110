# Kernel UAPI headers for the musl build.
#
# musl ships libc headers only; the netlink code needs <linux/...>.  We point
# the musl compiler at the build machine's kernel headers (Debian's
# linux-libc-dev) through a private include directory that holds just
# linux/, asm/ and asm-generic/, so glibc's own headers never leak into the
# musl build.  Pinning copies in-tree is only needed if a build host's
# headers are older than the nf_tables attributes we use.
UAPI_STAMP := $(B)/uapi/.stamp
UAPI_ASM   := $(firstword $(wildcard /usr/include/$(shell gcc -dumpmachine)/asm /usr/include/asm))

$(UAPI_STAMP):
	@mkdir -p $(B)/uapi
	@test -d /usr/include/linux || { echo "need linux-libc-dev (kernel headers)"; exit 1; }
	ln -sfn /usr/include/linux $(B)/uapi/linux
	ln -sfn /usr/include/asm-generic $(B)/uapi/asm-generic
	ln -sfn $(UAPI_ASM) $(B)/uapi/asm
	@touch $@
