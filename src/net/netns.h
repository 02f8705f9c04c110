/*
 * netns.h - the network namespace of another process (a container's init),
 * entered by a child of ours: the host's own code probes a box's network
 * from inside it, with nothing of the box's running and nothing written
 * into it.
 *
 * The handle is opened first (/proc/<pid>/ns/net) and checked: it must not
 * be this process's own namespace (a box that shares the host's network
 * would make every in-box probe a host probe).  netns_run() forks; the
 * child enters the namespace (setns, CLONE_NEWNET: its sockets are the
 * box's from then on; its files, its resolver configuration and its
 * routes to the daemon stay the host's), runs fn, and hands back what fn
 * wrote through a pipe.  The parent bounds the wait and kills the child
 * past it.
 */
#ifndef BOX_NETNS_H
#define BOX_NETNS_H

#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

struct netns {
	int fd;			/* /proc/<pid>/ns/net, -1 when closed */
	unsigned long long ino;	/* its inode: the namespace's identity */
};

/* Open pid's network namespace; -ESRCH when pid is gone, -EEXIST when it
 * is this process's own. */
int netns_open(struct netns *ns, pid_t pid, struct box_err *e);
void netns_close(struct netns *ns);

/*
 * In a child that has entered ns: fn(arg, out, cap) writes at most cap
 * bytes into out and returns their count (or < 0).  The parent reads them
 * into buf[0..cap) within timeout_ms: the count, or -ETIMEDOUT, -EIO (the
 * child failed: could not enter, or fn failed) with e set.
 */
int netns_run(const struct netns *ns, ssize_t (*fn)(void *arg, char *out,
    size_t cap), void *arg, char *buf, size_t cap, int timeout_ms,
    struct box_err *e);

#endif
