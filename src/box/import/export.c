/*
 * export.c - the pipeline behind `box export`: the box's whole disk (and
 * its snapshots, unless instance_only) as an Incus backup tarball,
 * through the backups API (incus/backup.h): create one (gzip, expires in
 * a day), stream its export to disk, delete it.
 * The box must be stopped (a settled disk is an artifact one can trust).
 * The file is written to a temporary name beside the target, synced and
 * renamed into place, so a file of that name is always whole; an existing
 * file is never replaced unless force says so (and even then only once
 * the new one is complete).  <file>.sha256 records the digest (sha256sum
 * format) for import to check.  The file is created 0600: it holds the
 * box's secrets.  Progress goes to stderr; the result to the caller.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "box/import/backup.h"
#include "box/box.h"
#include "box/import/export.h"
#include "box/life/life.h"
#include "box/narrate.h"
#include "box/life/waits.h"
#include "incus/api.h"
#include "incus/backup.h"
#include "incus/stream.h"
#include "util/clock.h"
#include "util/fdio.h"
#include "util/hash_follow.h"
#include "util/progress.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif

/*
 * The temporary files, for the signal handler to remove (process-global:
 * a handler cannot be handed a context).
 */
static char tmp_data[PATH_MAX], tmp_sum[PATH_MAX];

static void
on_signal(int sig)
{
	if (tmp_data[0] != '\0')
		unlink(tmp_data);
	if (tmp_sum[0] != '\0')
		unlink(tmp_sum);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Writeback is started every WRITEBACK_STEP bytes while the download runs,
 * so the fsync before the rename finds little left to write: the disk
 * works while the daemon compresses, not after it.
 */
#define WRITEBACK_STEP (8LL << 20)

struct sink {
	int fd;
	struct hash_follow *hash;	/* trails the writes on its own thread */
	long long got, total, started;
	struct progress p;
};

static int
to_file(void *ctx, const void *buf, size_t n)
{
	struct sink *s = ctx;
	char a[32], b[32], line[96];
	int rc;

	rc = fd_write_all(s->fd, buf, n);
	if (rc < 0)
		return rc;
	s->got += (long long)n;
	hash_follow_wrote(s->hash, s->got);
	if (s->got - s->started >= WRITEBACK_STEP) {
		/* a hint only: errors surface at the fsync */
		(void)sync_file_range(s->fd, s->started, s->got - s->started,
		    SYNC_FILE_RANGE_WRITE);
		s->started = s->got;
	}
	progress_bytes(a, sizeof(a), s->got);
	if (s->total > 0) {
		progress_bytes(b, sizeof(b), s->total);
		snprintf(line, sizeof(line), "%s of %s (%lld%%)", a, b,
		    s->got * 100 / s->total);
	} else {
		snprintf(line, sizeof(line), "%s", a);
	}
	progress_note(&s->p, line);
	return 0;
}

/* Make a temporary file in file's directory. */
static int
make_temp(const char *file, const char *tag, char *buf, size_t cap)
{
	const char *slash = strrchr(file, '/');
	int n, fd;

	if (slash != NULL)
		n = snprintf(buf, cap, "%.*s/.%s.%s-XXXXXX",
		    (int)(slash - file), file, slash + 1, tag);
	else
		n = snprintf(buf, cap, ".%s.%s-XXXXXX", file, tag);
	if (n < 0 || (size_t)n >= cap)
		return -ENAMETOOLONG;
	fd = mkstemp(buf);
	return fd < 0 ? -errno : fd;
}

/* rename(2) that refuses to replace, where the kernel and fs allow. */
static int
rename_noreplace(const char *from, const char *to)
{
	if (syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to,
	    RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* no renameat2 here: link() refuses an existing target too */
	if (link(from, to) < 0)
		return -errno;
	unlink(from);
	return 0;
}

static void
sync_dir(const char *file)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(file, '/');
	int fd;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file) + 1 :
	    1, slash ? file : ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static int
backup_create(struct incus *c, const char *box, const char *bname,
    int instance_only, struct box_err *e)
{
	struct incus_backup_spec spec = { bname, time(NULL) + 86400,
	    instance_only, 0, "gzip" };
	struct incus_reply r;
	struct progress p;
	char op[INCUS_OP_LEN];
	int rc;

	rc = incus_backup_create(c, box, &spec, op, sizeof(op), e);
	if (rc < 0)
		return rc;
	progress_start(&p, "packing the box on the daemon");
	rc = life_wait_op(c, op, clock_ms() + 6LL * LIFE_OP_S * 1000,
	    &p, &r, e);
	progress_clear(&p);
	incus_reply_free(&r);
	return rc;
}

static void
backup_delete(struct incus *c, const char *box, const char *bname)
{
	struct box_err le;

	err_clear(&le);
	incus_backup_delete(c, box, bname, 60, &le);
}

struct job {
	const char *box, *file, *bname;
	int force;
	unsigned char digest[32];
	long long bytes;
};

static int
download(struct incus *c, struct job *j, struct box_err *e)
{
	char sum[PATH_MAX], line[PATH_MAX + 80];
	struct sink s;
	int rc, fd;

	memset(&s, 0, sizeof(s));
	s.fd = make_temp(j->file, "box-export", tmp_data, sizeof(tmp_data));
	if (s.fd < 0) {
		tmp_data[0] = '\0';
		return err_set(e, s.fd, "cannot write beside %s: %s", j->file,
		    err_str(s.fd));
	}
	s.hash = malloc(sizeof(*s.hash));
	rc = s.hash == NULL ? -ENOMEM : hash_follow_start(s.hash, s.fd);
	if (rc < 0) {
		free(s.hash);
		close(s.fd);
		return err_set(e, rc, "cannot start the checksum: %s",
		    err_str(rc));
	}
	progress_start(&s.p, "downloading");
	rc = incus_backup_export(c, j->box, j->bname, to_file, &s, &s.total,
	    e);
	progress_clear(&s.p);
	/* the fsync runs while the follower hashes the last of the file */
	if (rc == 0 && fsync(s.fd) < 0)
		rc = err_set(e, -errno, "writing %s: %s", j->file,
		    strerror(errno));
	if (rc < 0)
		hash_follow_abandon(s.hash);
	else if ((rc = hash_follow_end(s.hash, j->digest)) < 0)
		err_set(e, rc, "reading %s back for its checksum: %s",
		    tmp_data, err_str(rc));
	free(s.hash);
	if (close(s.fd) < 0 && rc == 0)
		rc = err_set(e, -errno, "writing %s: %s", j->file,
		    strerror(errno));
	if (rc < 0)
		return rc;
	j->bytes = s.got;
	/* the sidecar, written the same way */
	fd = make_temp(j->file, "box-sum", tmp_sum, sizeof(tmp_sum));
	if (fd < 0) {
		tmp_sum[0] = '\0';
		return err_set(e, fd, "cannot write beside %s", j->file);
	}
	rc = backup_sidecar_line(j->digest, j->file, line, sizeof(line));
	if (rc > 0)
		rc = fd_write_all(fd, line, (size_t)rc);
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	close(fd);
	if (rc < 0)
		return err_set(e, rc, "writing the checksum file: %s",
		    err_str(rc));
	/* into place: the data first, then its sum */
	rc = j->force ? (rename(tmp_data, j->file) < 0 ? -errno : 0) :
	    rename_noreplace(tmp_data, j->file);
	if (rc == -EEXIST) {
		err_set(e, rc, "%s appeared while exporting; it was left "
		    "alone", j->file);
		return rc;
	}
	if (rc < 0)
		return err_set(e, rc, "moving the export into place: %s",
		    err_str(rc));
	tmp_data[0] = '\0';
	backup_sidecar_path(j->file, sum, sizeof(sum));
	if (rename(tmp_sum, sum) < 0)
		return err_set(e, -errno, "moving %s into place: %s", sum,
		    strerror(errno));
	tmp_sum[0] = '\0';
	sync_dir(j->file);
	return 0;
}

int
box_export(const struct box_export_req *q, struct box_export_out *out,
    struct box_err *e)
{
	struct box_info bi;
	struct incus c;
	struct stat st;
	struct job j;
	char bname[64];
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = incus_init(&c, e)) < 0)
		return rc;
	if ((rc = box_resolve(&c, q->box, &bi, e)) < 0)
		goto out;
	if (strcmp(bi.status, "Stopped") != 0) {
		rc = err_set(e, -EBUSY, "box %s is not stopped — export wants "
		    "a settled disk, so the file can be trusted later",
		    q->box);
		err_fix(e, "stop it first: box down %s", q->box);
		goto out;
	}
	if (!q->force && lstat(q->file, &st) == 0) {
		rc = err_set(e, -EEXIST, "%s already exists", q->file);
		err_fix(e, "pick another name, or add --force to replace it");
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	snprintf(bname, sizeof(bname), "box-export-%s", q->stamp);
	life_say("exporting %s → %s ...", q->box, q->file);
	rc = backup_create(&c, q->box, bname, q->instance_only, e);
	if (rc == 0) {
		memset(&j, 0, sizeof(j));
		j.box = q->box;
		j.file = q->file;
		j.bname = bname;
		j.force = q->force;
		rc = download(&c, &j, e);
		backup_delete(&c, q->box, bname);
	}
	if (tmp_data[0] != '\0')
		unlink(tmp_data);
	if (tmp_sum[0] != '\0')
		unlink(tmp_sum);
	tmp_data[0] = tmp_sum[0] = '\0';
	if (rc < 0) {
		err_context(e, "exporting %s", q->box);
		goto out;
	}
	out->bytes = j.bytes;
	backup_hex(j.digest, out->sha256);
out:
	incus_close(&c);
	return rc;
}
