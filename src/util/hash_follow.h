/*
 * hash_follow.h - the SHA-256 of a file while it is being written, on a
 * thread of its own that reads back what the writer has already put there.
 *
 * An export waits for the daemon to pack the box, then downloads it; hashing
 * each piece as it came off the socket made the download about three times
 * as long as the socket and the disk need (the hash runs at ~380 MB/s with
 * the SHA extensions, the copy at ~650 MB/s).  The follower trails the
 * writer with pread() from the page cache, so the download runs at the
 * socket's pace and the fsync overlaps the hash's tail.  The digest is of the
 * bytes in the file, which is what the sidecar vouches for.
 *
 * The caller owns the context and the fd; the fd must be open for reading
 * and stay open until hash_follow_end() or hash_follow_abandon().
 */
#ifndef BOX_HASH_FOLLOW_H
#define BOX_HASH_FOLLOW_H

#include <pthread.h>

#include "util/sha256.h"

#define HASH_FOLLOW_BUF	(256u << 10)

struct hash_follow {
	int fd;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	long long written;	/* under mu: bytes the writer has put in fd */
	int closed;		/* under mu: 1 no more to come, -1 abandoned */
	long long hashed;	/* the follower's; read after the join */
	int rc;			/* the follower's: 0, or -errno of a read */
	struct sha256 sha;
	unsigned char buf[HASH_FOLLOW_BUF];
};

/* Start following fd from offset 0: 0, or -errno when no thread starts. */
int hash_follow_start(struct hash_follow *f, int fd);
/* The writer has put bytes [0, written) into the file. */
void hash_follow_wrote(struct hash_follow *f, long long written);
/*
 * No more is coming: wait for the follower to hash all that was written,
 * put the digest in out, and end the thread.  0; -EIO when the file ends
 * before what was written; -errno of a failed read.
 */
int hash_follow_end(struct hash_follow *f, unsigned char out[32]);
/* Stop at once, without a digest (a failed download). */
void hash_follow_abandon(struct hash_follow *f);

#endif
