/* hash_follow.c - hash a file on a second thread as it is written. */
#include "util/hash_follow.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Hash [f->hashed, upto): 0 or -errno (-EIO when the file is short). */
static int
catch_up(struct hash_follow *f, long long upto)
{
	while (f->hashed < upto) {
		long long left = upto - f->hashed;
		size_t want = left < (long long)sizeof(f->buf) ?
		    (size_t)left : sizeof(f->buf);
		ssize_t n = pread(f->fd, f->buf, want, (off_t)f->hashed);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		sha256_update(&f->sha, f->buf, (size_t)n);
		f->hashed += n;
	}
	return 0;
}

static void *
follow(void *arg)
{
	struct hash_follow *f = arg;
	long long upto;
	int closed;

	for (;;) {
		pthread_mutex_lock(&f->mu);
		while (f->written == f->hashed && f->closed == 0)
			pthread_cond_wait(&f->cv, &f->mu);
		upto = f->written;
		closed = f->closed;
		pthread_mutex_unlock(&f->mu);
		if (closed < 0)
			return NULL;
		if ((f->rc = catch_up(f, upto)) < 0 ||
		    (closed > 0 && f->hashed == upto))
			return NULL;
	}
}

int
hash_follow_start(struct hash_follow *f, int fd)
{
	int rc;

	f->fd = fd;
	f->written = f->hashed = 0;
	f->closed = 0;
	f->rc = 0;
	sha256_init(&f->sha, -1);
	if ((rc = pthread_mutex_init(&f->mu, NULL)) != 0)
		return -rc;
	if ((rc = pthread_cond_init(&f->cv, NULL)) != 0) {
		pthread_mutex_destroy(&f->mu);
		return -rc;
	}
	if ((rc = pthread_create(&f->tid, NULL, follow, f)) != 0) {
		pthread_cond_destroy(&f->cv);
		pthread_mutex_destroy(&f->mu);
		return -rc;
	}
	return 0;
}

void
hash_follow_wrote(struct hash_follow *f, long long written)
{
	pthread_mutex_lock(&f->mu);
	f->written = written;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

static void
stop(struct hash_follow *f, int how)
{
	pthread_mutex_lock(&f->mu);
	f->closed = how;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
	pthread_join(f->tid, NULL);
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
}

int
hash_follow_end(struct hash_follow *f, unsigned char out[32])
{
	stop(f, 1);
	if (f->rc < 0)
		return f->rc;
	sha256_out(&f->sha, out);
	return 0;
}

void
hash_follow_abandon(struct hash_follow *f)
{
	stop(f, -1);
}
