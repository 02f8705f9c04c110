/*
 * identity.c - a machine identity of its own for a copied box (see
 * identity.h).
 */
#include "box/life/identity.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box/life/life.h"
#include "box/life/waits.h"
#include "incus/instance.h"
#include "incus/kv.h"
#include "incus/transport.h"

int
life_machine_id(char id[34], struct box_err *e)
{
	unsigned char rnd[16];
	int i;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return err_set(e, -errno, "no randomness for a machine id");
	for (i = 0; i < 16; i++)
		snprintf(id + 2 * i, 3, "%02x", rnd[i]);
	id[32] = '\n';
	id[33] = '\0';
	return 0;
}

/* openat of one directory, never through a link (the box's own tree) */
static int
dir_at(int at, const char *name)
{
	return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
}

/*
 * The dbus copy in the copy's tree, when it keeps one: a link to
 * /etc/machine-id (the file API's DELETE and symlink push).  0 done (none
 * there is done), -1 the file API must do it.
 */
static int
host_dbus(int root, uid_t uid, gid_t gid)
{
	static const char *const path[] = { "var", "lib", "dbus" };
	struct stat st;
	int fd = root, nfd, rc = -1;
	size_t i;

	for (i = 0; i < 3; i++, fd = nfd) {
		nfd = dir_at(fd, path[i]);
		if (fd != root)
			close(fd);
		if (nfd < 0)
			return errno == ENOENT ? 0 : -1;
	}
	if (fstatat(fd, "machine-id", &st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = errno == ENOENT ? 0 : -1;
	else if (!S_ISDIR(st.st_mode) && unlinkat(fd, "machine-id", 0) == 0 &&
	    symlinkat("/etc/machine-id", fd, "machine-id") == 0 &&
	    fchownat(fd, "machine-id", uid, gid, AT_SYMLINK_NOFOLLOW) == 0)
		rc = 0;
	close(fd);
	return rc;
}

/*
 * The new id written straight into the stopped copy's root filesystem on
 * this host, where the pool keeps it there unmounted (dir, btrfs): the
 * daemon's file helper (~45 ms to come up, the longest step of a stopped
 * clone) is not needed.  Only as root, for the daemon whose directory is
 * its socket's (not a forwarded or user socket: another host's or
 * another daemon's box of the same name must never be touched), in the
 * default project.  The tree is the box's: every component inside it is
 * opened with O_NOFOLLOW from its parent, the file is made new (O_EXCL)
 * and renamed over the old one (a link the box planted is replaced, never
 * followed), owned as the copy's root directory is (its root, shifted or
 * not).  1 done; 0 not here (the file API does it: nothing is half-done
 * that it does not redo).
 */
static int
host_write(struct incus *c, const char *name, const char *id)
{
	char path[512], pool[64], drv[32];
	const char *p, *dir = incus_daemon_dir();
	struct incus_instance in;
	struct box_err le;
	struct stat st;
	int base = -1, root = -1, etc = -1, fd = -1, ok = 0;
	size_t n = strlen(id);

	snprintf(path, sizeof(path), "%s/unix.socket", dir);
	if (geteuid() != 0 || c->dialer != &unix_dialer ||
	    strcmp(path, c->socket_path) != 0 ||
	    (c->project[0] != '\0' && strcmp(c->project, "default") != 0))
		return 0;
	err_clear(&le);
	if (incus_instance_get(c, name, 0, &in, &le) < 0)
		return 0;
	p = incus_dev_key(&in.expanded_devices, "root", "pool");
	snprintf(pool, sizeof(pool), "%s", p != NULL ? p : "");
	incus_instance_free(&in);
	if (pool[0] == '\0' || strchr(pool, '/') != NULL ||
	    strchr(name, '/') != NULL || name[0] == '.' ||
	    life_pool_driver(c, pool, drv, sizeof(drv), &le) < 0 ||
	    (strcmp(drv, "dir") != 0 && strcmp(drv, "btrfs") != 0))
		return 0;
	/* the daemon's own directories, then the box's tree */
	if ((size_t)snprintf(path, sizeof(path), "%s/storage-pools/%s/"
	    "containers/%s", dir, pool, name) >= sizeof(path) ||
	    (base = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	if ((root = dir_at(base, "rootfs")) < 0 || fstat(root, &st) < 0 ||
	    (etc = dir_at(root, "etc")) < 0)
		goto out;
	{
		struct stat old;

		/* a machine id file it has, or none; anything else is the
		 * API's */
		if (fstatat(etc, "machine-id", &old, AT_SYMLINK_NOFOLLOW) < 0 ?
		    errno != ENOENT : !S_ISREG(old.st_mode))
			goto out;
	}
	if (unlinkat(etc, ".machine-id.box", 0) < 0 && errno != ENOENT)
		goto out;
	fd = openat(etc, ".machine-id.box", O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0444);
	if (fd < 0)
		goto out;
	if (write(fd, id, n) != (ssize_t)n || fchown(fd, st.st_uid,
	    st.st_gid) < 0 || fchmod(fd, 0444) < 0 || close(fd) < 0) {
		fd = -1;
		unlinkat(etc, ".machine-id.box", 0);
		goto out;
	}
	fd = -1;
	if (renameat(etc, ".machine-id.box", etc, "machine-id") < 0) {
		unlinkat(etc, ".machine-id.box", 0);
		goto out;
	}
	ok = host_dbus(root, st.st_uid, st.st_gid) == 0;
out:
	if (fd >= 0)
		close(fd);
	if (etc >= 0)
		close(etc);
	if (root >= 0)
		close(root);
	close(base);
	return ok;
}

static int
offline(struct incus *c, const char *name, int sync_after,
    struct box_err *e)
{
	char id[34];
	struct box_err le;
	int rc;

	if ((rc = life_machine_id(id, e)) < 0)
		return rc;
	if (host_write(c, name, id)) {
		if (sync_after)
			sync();
		return 0;
	}
	rc = life_push(c, name, "/etc/machine-id", "file", "0444", id,
	    strlen(id), e);
	if (rc < 0) {
		err_context(e, "writing a new /etc/machine-id");
		return rc;
	}
	/* dbus's copy, when the image keeps one, must follow. */
	err_clear(&le);
	rc = incus_file_delete(c, name, "/var/lib/dbus/machine-id", &le);
	/* No dbus copy (the DELETE failed) is fine. */
	rc = rc == 0 ? life_push(c, name, "/var/lib/dbus/machine-id",
	    "symlink", "0777", "/etc/machine-id", strlen("/etc/machine-id"),
	    e) : 0;
	/*
	 * The daemon's file helper (forkfile) syncs the instance's filesystem
	 * after each session, and the start asks it to leave and then polls,
	 * once a second, until its sessions are gone.  Right after a restore
	 * or a copy that sync has the whole disk to write, so one start in
	 * two or four waited a full second more.  Writing the dirty pages out
	 * here first (any user may) leaves the helper nothing to wait for:
	 * measured on an import of 65 MiB, the start took 0.2-0.3 s in 12 of
	 * 12 tries, against 1.2-1.5 s in 3 of 6 without, for ~0.2 s of sync.
	 * A copy left stopped is not started now: nothing to flush for.
	 */
	if (sync_after)
		sync();
	return rc < 0 ? rc : 0;
}

int
life_new_machine_id_offline(struct incus *c, const char *name,
    struct box_err *e)
{
	return offline(c, name, 1, e);
}

void
life_identity_begin(struct life_identity *id, const char *name,
    int sync_after)
{
	struct incus c;
	int fds[2];
	pid_t pid;

	memset(id, 0, sizeof(*id));
	err_clear(&id->e);
	id->fd = -1;
	if (pipe(fds) == 0) {
		fflush(NULL);
		if ((pid = fork()) == 0) {
			/* the child: its own connection, its verdict down
			 * the pipe, never the parent's stdio or sockets */
			struct box_err le;
			int rc;

			close(fds[0]);
			err_clear(&le);
			rc = incus_init(&c, &le);
			if (rc == 0) {
				rc = offline(&c, name, sync_after, &le);
				incus_close(&c);
			}
			le.code = rc;
			if (write(fds[1], &le, sizeof(le)) != sizeof(le))
				_exit(2);
			_exit(rc < 0);
		}
		close(fds[1]);
		if (pid > 0) {
			id->pid = (int)pid;
			id->fd = fds[0];
			return;
		}
		close(fds[0]);
	}
	/* no child: in place */
	id->rc = incus_init(&c, &id->e);
	if (id->rc == 0) {
		id->rc = offline(&c, name, sync_after, &id->e);
		incus_close(&c);
	}
}

int
life_identity_join(struct life_identity *id, int timeout_ms,
    struct box_err *e)
{
	struct pollfd pf;
	struct box_err le;
	ssize_t n = -1;
	int st;

	if (id->pid == 0) {
		if (id->rc < 0)
			*e = id->e;
		return id->rc < 0 ? id->rc : 0;
	}
	pf.fd = id->fd;
	pf.events = POLLIN;
	err_clear(&le);
	while (poll(&pf, 1, timeout_ms) < 0 && errno == EINTR)
		;
	if (pf.revents != 0)
		n = read(id->fd, &le, sizeof(le));
	close(id->fd);
	if (n != (ssize_t)sizeof(le))
		kill(id->pid, SIGKILL);
	while (waitpid(id->pid, &st, 0) < 0 && errno == EINTR)
		;
	id->pid = 0;
	if (n != (ssize_t)sizeof(le))
		return err_set(e, -ETIMEDOUT, "writing a new /etc/machine-id: "
		    "no verdict within %d ms", timeout_ms);
	le.msg[sizeof(le.msg) - 1] = '\0';
	le.fix[sizeof(le.fix) - 1] = '\0';
	if (le.code < 0) {
		*e = le;
		return le.code;
	}
	return 0;
}

int
life_new_machine_id_online(struct incus *c, const char *name,
    long long deadline, struct progress *p, struct box_err *e)
{
	static const char script[] =
	    "rm -f /etc/machine-id /var/lib/dbus/machine-id\n"
	    "if command -v systemd-machine-id-setup >/dev/null 2>&1; then\n"
	    "  systemd-machine-id-setup >/dev/null 2>&1\n"
	    "elif command -v dbus-uuidgen >/dev/null 2>&1; then\n"
	    "  dbus-uuidgen >/etc/machine-id\n"
	    "fi\n"
	    "[ -s /etc/machine-id ] || tr -d '-' </proc/sys/kernel/random/uuid"
	    " >/etc/machine-id\n"
	    "if [ -d /var/lib/dbus ]; then\n"
	    "  ln -sf /etc/machine-id /var/lib/dbus/machine-id\n"
	    "fi\n"
	    "test -s /etc/machine-id\n";
	struct box_err le;
	int code = -1, rc;

	rc = life_sh(c, name, script, NULL, 0, 60000, &code, e);
	if (rc == 0 && code != 0)
		rc = err_set(e, -EIO, "regenerating /etc/machine-id exited "
		    "%d", code);
	if (rc < 0)
		return rc;
	/*
	 * Truncating the id and carrying on is not enough: the DHCP client
	 * and systemd read it at boot.  Restart, gracefully first.
	 */
	err_clear(&le);
	if (life_state(c, name, "restart", 0, 60, &le) < 0 &&
	    life_state(c, name, "restart", 1, 0, e) < 0)
		return -EIO;
	return life_wait_agent(c, name, deadline, p, e);
}
