/*
 * inflate.h - just enough DEFLATE (RFC 1951) and gzip (RFC 1952) to read
 * the beginning of a compressed file.
 *
 * box import needs one small file near the front of an Incus export
 * (backup/index.yaml, the first tar member) to learn the instance name
 * before it uploads anything.  So this decodes a prefix: it stops, without
 * error, once the caller's output buffer is full.  It is a plain bit-at-a-
 * time canonical Huffman decoder (no tables to size, no allocation), slow
 * per byte and fine for the few KiB it is asked for.
 *
 * Every read is bounds-checked: malformed or truncated input fails, never
 * reads past in[n) or writes past out[cap).
 */
#ifndef BOX_INFLATE_H
#define BOX_INFLATE_H

#include <stddef.h>

/*
 * Inflate raw DEFLATE data in[0..n) into out[0..cap).  Returns the bytes
 * produced: cap when the buffer filled first, fewer when the stream ended
 * or the input ran out first (a prefix is all a caller wants); -ENODATA
 * when the input ran out before any byte came out; -EBOX_PROTO for a
 * malformed stream.
 */
long inflate_prefix(const unsigned char *in, size_t n, unsigned char *out,
    size_t cap);

/* The same for a gzip member: its header is checked and skipped. */
long gunzip_prefix(const unsigned char *in, size_t n, unsigned char *out,
    size_t cap);

#endif
