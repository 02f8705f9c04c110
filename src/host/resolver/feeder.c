/*
 * feeder.c - the egress sets fed off the answering path (see feeder.h).
 *
 * A job passes FREE -> QUEUED (answering thread) -> WORKING -> DONE
 * (worker) -> FREE (answering thread, in rsv_feeder_done).  The mutex
 * guards the states; a job's contents belong to whoever moved it last.
 * The mirror is the answering thread's alone: it is written when a job
 * comes back fed.
 */
#include "host/resolver/feeder.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/clock.h"

#define NCL	258		/* client indices (resolver.c's NCLIENT) */

enum { J_FREE = 0, J_QUEUED, J_WORKING, J_DONE };

struct job {
	int state;
	int cl, slot, ok;
	uint32_t gen;
	uint64_t seq;
	struct rsv_box b;
	char name[DNS_NAME_TEXT];
	struct dns_addr a[DNS_MAXADDR];
	size_t na;
	unsigned char *m;
	size_t n;
};

struct mirror_ent {
	uint32_t addr;
	uint64_t until;
};

struct rsv_feeder {
	const struct rsv_conf *c;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop, evfd, started;
	struct job job[RSV_FEED_JOBS];
	int held[NCL];
	uint64_t seq;
	int last_cl;			/* the worker's turn */
	unsigned char *out;		/* the answer rsv_feeder_done gave */
	struct mirror_ent *mirror[NCL];	/* answering thread only */
	/* the worker's log cap */
	uint64_t log_ms;
	unsigned long log_quiet;
};

/* The next job in turn: the queued job of the first box after the last
 * served, its oldest.  Called locked. */
static struct job *
next_job(struct rsv_feeder *f)
{
	struct job *best = NULL;
	int i, d, bd = NCL + 1;

	for (i = 0; i < RSV_FEED_JOBS; i++) {
		struct job *j = &f->job[i];

		if (j->state != J_QUEUED)
			continue;
		d = (j->cl - f->last_cl + NCL - 1) % NCL;
		if (d < bd || (d == bd && j->seq < best->seq)) {
			best = j;
			bd = d;
		}
	}
	if (best != NULL)
		f->last_cl = best->cl;
	return best;
}

static void
log_failure(struct rsv_feeder *f, const struct job *j, const char *why)
{
	uint64_t now = clock_ms();

	if (f->log_ms != 0 && now - f->log_ms < RSV_FEED_LOG_MS) {
		f->log_quiet++;
		return;
	}
	fprintf(stderr, "box resolver: feeding %s's set for %s failed: %s"
	    "%s", j->b.name, j->name, why, f->log_quiet ? "" : "\n");
	if (f->log_quiet)
		fprintf(stderr, " (and %lu failed feeds not logged)\n",
		    f->log_quiet);
	f->log_ms = now;
	f->log_quiet = 0;
}

static void *
worker(void *arg)
{
	struct rsv_feeder *f = arg;
	struct rsv_feedsock *s = NULL;
	uint64_t one = 1;

	/* The answering thread first: the feeds wait for a spare core,
	 * never a sibling's lookup (a thread's own nice, Linux's). */
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	pthread_mutex_lock(&f->mu);
	for (;;) {
		struct box_err e;
		struct job *j;
		int rc;

		while (!f->stop && (j = next_job(f)) == NULL)
			pthread_cond_wait(&f->cv, &f->mu);
		if (f->stop)
			break;
		j->state = J_WORKING;
		pthread_mutex_unlock(&f->mu);
		err_clear(&e);
		rc = f->c->feed(&s, &j->b, j->name, j->a, j->na, &e);
		/* -ENOENT: no set (not enforced): nothing to wait for */
		j->ok = rc == 0 || rc == -ENOENT;
		if (!j->ok)
			log_failure(f, j, e.msg[0] != '\0' ? e.msg :
			    strerror(-rc));
		pthread_mutex_lock(&f->mu);
		j->state = J_DONE;
		(void)write(f->evfd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&f->mu);
	if (s != NULL && f->c->feed_close != NULL)
		f->c->feed_close(s);
	return NULL;
}

int
rsv_feeder_start(struct rsv_feeder **fp, const struct rsv_conf *c,
    int *evfd)
{
	struct rsv_feeder *f;

	*fp = NULL;
	if ((f = calloc(1, sizeof(*f))) == NULL)
		return -ENOMEM;
	f->c = c;
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	if ((f->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
		int rc = -errno;

		rsv_feeder_stop(f);
		return rc;
	}
	if (pthread_create(&f->th, NULL, worker, f) != 0) {
		rsv_feeder_stop(f);
		return -EAGAIN;
	}
	f->started = 1;
	*evfd = f->evfd;
	*fp = f;
	return 0;
}

void
rsv_feeder_stop(struct rsv_feeder *f)
{
	int i;

	if (f == NULL)
		return;
	if (f->started) {
		pthread_mutex_lock(&f->mu);
		f->stop = 1;
		pthread_cond_signal(&f->cv);
		pthread_mutex_unlock(&f->mu);
		pthread_join(f->th, NULL);
	}
	for (i = 0; i < RSV_FEED_JOBS; i++)
		free(f->job[i].m);
	for (i = 0; i < NCL; i++)
		free(f->mirror[i]);
	free(f->out);
	if (f->evfd > 0)
		close(f->evfd);
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	free(f);
}

static struct mirror_ent *
mirror_of(struct rsv_feeder *f, int cl, uint32_t a)
{
	uint32_t h = a * 2654435761u;

	if (f->mirror[cl] == NULL)
		return NULL;
	return &f->mirror[cl][(h >> 16) % RSV_MIRROR_N];
}

static int
known(struct rsv_feeder *f, int cl, uint32_t a, uint64_t now)
{
	struct mirror_ent *m = mirror_of(f, cl, a);

	return m != NULL && m->addr == a && m->until > now;
}

static void
remember(struct rsv_feeder *f, int cl, const struct job *j, uint64_t now)
{
	struct mirror_ent *m;
	size_t i;

	if (f->mirror[cl] == NULL &&
	    (f->mirror[cl] = calloc(RSV_MIRROR_N, sizeof(*m))) == NULL)
		return;		/* no mirror: every answer is fed */
	for (i = 0; i < j->na; i++) {
		m = mirror_of(f, cl, j->a[i].addr);
		m->addr = j->a[i].addr;
		m->until = now + RSV_MIRROR_MS;
	}
}

/* A free job, or NULL.  Called locked. */
static struct job *
free_job(struct rsv_feeder *f)
{
	int i;

	for (i = 0; i < RSV_FEED_JOBS; i++)
		if (f->job[i].state == J_FREE)
			return &f->job[i];
	return NULL;
}

int
rsv_feeder_put(struct rsv_feeder *f, int cl, const struct rsv_box *b,
    const char *name, const struct dns_addr *a, size_t na,
    const unsigned char *m, size_t n, int slot, uint32_t gen, uint64_t now)
{
	struct job *j;
	size_t i, k = 0;

	if (cl < 0 || cl >= NCL)
		return -EBUSY;
	for (i = 0; i < na && k == 0; i++)
		k += !known(f, cl, a[i].addr, now);
	if (k == 0)
		return 0;
	if (f->held[cl] >= RSV_FEED_BOX)
		return -EBUSY;
	pthread_mutex_lock(&f->mu);
	j = free_job(f);
	pthread_mutex_unlock(&f->mu);
	if (j == NULL)
		return -EBUSY;
	/* Free and unseen by the worker until queued: ours to fill. */
	if ((j->m = malloc(n)) == NULL)
		return -EBUSY;
	memcpy(j->m, m, n);
	j->n = n;
	j->b = *b;
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->na = na > DNS_MAXADDR ? DNS_MAXADDR : na;
	memcpy(j->a, a, j->na * sizeof(*a));
	j->cl = cl;
	j->slot = slot;
	j->gen = gen;
	j->ok = 0;
	f->held[cl]++;
	pthread_mutex_lock(&f->mu);
	j->seq = ++f->seq;
	j->state = J_QUEUED;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
	return 1;
}

int
rsv_feeder_done(struct rsv_feeder *f, struct rsv_fed *d,
    const unsigned char **m, size_t *n, uint64_t now)
{
	struct job *j = NULL;
	uint64_t v;
	int i;

	free(f->out);
	f->out = NULL;
	(void)read(f->evfd, &v, sizeof(v));
	pthread_mutex_lock(&f->mu);
	for (i = 0; i < RSV_FEED_JOBS && j == NULL; i++)
		if (f->job[i].state == J_DONE)
			j = &f->job[i];
	pthread_mutex_unlock(&f->mu);
	if (j == NULL)
		return 0;
	d->slot = j->slot;
	d->gen = j->gen;
	d->ok = j->ok;
	if (j->ok)
		remember(f, j->cl, j, now);
	f->out = j->m;
	*m = j->m;
	*n = j->n;
	j->m = NULL;
	f->held[j->cl]--;
	pthread_mutex_lock(&f->mu);
	j->state = J_FREE;
	pthread_mutex_unlock(&f->mu);
	/* more may be done: the next call looks again */
	return 1;
}

void
rsv_feeder_forget(struct rsv_feeder *f, int cl)
{
	int i;

	for (i = 0; i < NCL; i++)
		if ((cl < 0 || i == cl) && f->mirror[i] != NULL)
			memset(f->mirror[i], 0,
			    RSV_MIRROR_N * sizeof(*f->mirror[i]));
}

int
rsv_feeder_held(const struct rsv_feeder *f, int cl)
{
	return cl >= 0 && cl < NCL ? f->held[cl] : 0;
}
