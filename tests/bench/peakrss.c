/*
 * peakrss CMD ARGS... - run CMD (output to /dev/null) and print its peak
 * resident set size in KiB.  Built static and tiny, and spawning with
 * vfork semantics, so the figure is CMD's own: a fork of a big parent (a
 * Python harness) would be counted in the child's high-water mark.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

int
main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2)
		return 2;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, argv[1], &fa, NULL, argv + 1, environ) != 0)
		return 1;
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return 1;
	printf("%ld\n", ru.ru_maxrss);
	return 0;
}
