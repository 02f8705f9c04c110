/*
 * agent.c - a hostile agent for inside a box (the drill and the
 * verify/doctor tests push it in, built static):
 *
 *   agent swap DIR   watch DIR (inotify) and rename a script of its own
 *                    over every file named .box-* that appears there (not
 *                    a report): the host that pushes its binary in and
 *                    runs it then runs the agent's script, which claims
 *                    every probe held (run as `doctor`: a report of 520
 *                    passing findings, a flood).  One line per swap on
 *                    stdout.
 *   agent ready      PATCH /1.0 {"state":"Ready"} on the guest API
 *                    (/dev/incus/sock): the box sets its own status.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static const char script[] =
    "#!/bin/sh\n"
    "# the swapper's stand-in for box's in-box half: every probe 'held';\n"
    "# run as doctor, a flood of 520 passing findings\n"
    "out=${BOX_INBOX_REPORT:-/dev/stdout}\n"
    "if [ \"$1\" = doctor ]; then\n"
    "  { echo 'box-doctor-report 1'; echo 'where inside'; i=0\n"
    "    while [ $i -lt 520 ]; do\n"
    "      printf 'c routing\\ns pass\\nt the swapper, %d\\n' $i; i=$((i+1))\n"
    "    done; echo 'end 520'; } >\"$out\"\n"
    "  exit 0\n"
    "fi\n"
    "{\n"
    "echo 'verify-report 1'\n"
    "printf '%s\\n' \"$BOX_VERIFY_PLAN\" | while read -r k v; do\n"
    "  [ \"$k\" = p ] || continue\n"
    "  echo \"r $v\"\n"
    "  case $v in\n"
    "  inet|inetname|allowed) echo 'v connected (the swapper)' ;;\n"
    "  forge*|arp*) echo 'v sent (the swapper)' ;;\n"
    "  v6) echo 'v none (the swapper)' ;;\n"
    "  *) echo 'v dropped (the swapper)' ;;\n"
    "  esac\n"
    "done\n"
    "} >\"$out\"\n";

static int
ours(const char *n)
{
	size_t l = strlen(n);

	if (strncmp(n, ".box-", 5) != 0)
		return 0;
	return !(l > 5 && (strcmp(n + l - 5, ".json") == 0 ||
	    strstr(n, ".report") != NULL || strstr(n, ".part") != NULL));
}

static int
swap(const char *dir)
{
	char buf[4096], tmp[512], dst[512];
	int fd = inotify_init1(IN_CLOEXEC), w, t;
	ssize_t n, o;

	if (fd < 0 || (w = inotify_add_watch(fd, dir, IN_CLOSE_WRITE |
	    IN_MOVED_TO | IN_CREATE)) < 0) {
		perror("inotify");
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "%s/.agent.tmp", dir);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			return 1;
		for (o = 0; o < n;) {
			struct inotify_event *ev = (void *)(buf + o);

			o += (ssize_t)sizeof(*ev) + ev->len;
			if (ev->len == 0 || !ours(ev->name) ||
			    !(ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)))
				continue;
			t = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0755);
			if (t < 0)
				continue;
			(void)!write(t, script, sizeof(script) - 1);
			close(t);
			chmod(tmp, 0755);
			snprintf(dst, sizeof(dst), "%s/%s", dir, ev->name);
			if (rename(tmp, dst) == 0) {
				printf("swapped %s\n", dst);
				fflush(stdout);
			}
		}
	}
}

static int
ready(void)
{
	static const char body[] = "{\"state\":\"Ready\"}";
	struct sockaddr_un sa;
	char req[512], rep[1024];
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), n;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/dev/incus/sock");
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("/dev/incus/sock");
		return 1;
	}
	n = snprintf(req, sizeof(req), "PATCH /1.0 HTTP/1.1\r\nHost: incus\r\n"
	    "Content-Type: application/json\r\nContent-Length: %zu\r\n"
	    "Connection: close\r\n\r\n%s", sizeof(body) - 1, body);
	if (write(fd, req, (size_t)n) != n)
		return 1;
	n = (int)read(fd, rep, sizeof(rep) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	rep[n] = '\0';
	rep[strcspn(rep, "\r\n")] = '\0';
	printf("%s\n", rep);
	return strstr(rep, " 200") != NULL ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "swap") == 0)
		return swap(argv[2]);
	if (argc == 2 && strcmp(argv[1], "ready") == 0)
		return ready();
	fprintf(stderr, "usage: agent swap DIR | agent ready\n");
	return 2;
}
