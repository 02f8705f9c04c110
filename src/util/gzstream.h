/*
 * gzstream.h - a whole gzip file, streamed (RFC 1951 + RFC 1952).
 *
 * box import has to read every member of an export, which can be
 * gigabytes, before it sends anything (the config that decides what a box
 * may do sits near its end).  So this pulls compressed bytes from a source
 * and pushes plain bytes to a sink through a 32 KiB window, decoding
 * Huffman codes through a 9-bit table (the slow bit-at-a-time walk only
 * for longer codes).  Reading the start of a file (gz_prefix) is the same
 * decoder stopped at a bound.
 *
 * It is strict where gzip(1) and Go's reader would refuse: every member's
 * CRC-32 and length are checked, concatenated members are read in turn,
 * and anything after the last member that is not another member is an
 * error, as is input that ends inside one.
 */
#ifndef BOX_GZSTREAM_H
#define BOX_GZSTREAM_H

#include <stddef.h>
#include <sys/types.h>

/* Up to cap bytes into buf: > 0, 0 at the end, < 0 (negative errno). */
typedef ssize_t (*gz_source)(void *ctx, unsigned char *buf, size_t cap);

/* Plain bytes: 0 for more, > 0 to stop early (done), < 0 to fail. */
typedef int (*gz_sink)(void *ctx, const unsigned char *p, size_t n);

/*
 * Decode the gzip stream from src into sink.  0 when the input ended
 * cleanly after a whole member, 1 when the sink stopped it, -EBOX_PROTO
 * for a malformed stream or trailing garbage, -ENODATA when the input
 * ended inside a member, -ENOMEM, or what the source or sink returned.
 */
int gz_stream(gz_source src, void *sctx, gz_sink sink, void *kctx);

/* The same over a buffer (tests, fuzzing). */
int gz_stream_mem(const unsigned char *in, size_t n, gz_sink sink,
    void *kctx);

/*
 * The first plain bytes of the gzip data in[0..n) into out[0..cap), for a
 * caller that wants only the start of a file it read part of.  Returns the
 * bytes produced: cap when the buffer filled first, fewer when the input
 * ended (cleanly, or inside a member: a prefix is all the caller wants).
 * Everything gz_stream refuses before that point is still refused
 * (-EBOX_PROTO: a bad header or DEFLATE data, a bad CRC-32 or length of a
 * member that ended, bytes after the last member that are not a member);
 * -ENODATA when the input ran out before any byte came out; -ENOMEM.
 */
long gz_prefix(const unsigned char *in, size_t n, unsigned char *out,
    size_t cap);

#endif
