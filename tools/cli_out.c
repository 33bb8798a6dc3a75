// SPDX-License-Identifier: MIT
/*
 * cli_out.c - writing OUT of `tilecopy convert` without surprises.
 *
 *   "-"                          standard output
 *   does not exist               created whole or not at all: an unnamed
 *                                O_TMPFILE in OUT's directory, written,
 *                                then linked in (mode 0666 less the umask)
 *   a regular file, one link     replaced whole: the new data in an unnamed
 *                                file, given the old file's mode (and owner
 *                                when allowed), linked under a short
 *                                temporary name and renamed over OUT
 *   anything else                written through, never replaced: a
 *                                symlink (its target gets the data), a
 *                                file with hard links (all names see it),
 *                                a device or FIFO (/dev/stdout, /dev/null)
 *   a directory                  refused
 *
 * Every check of the conversion runs before OUT is touched; only an I/O
 * error while writing through can leave a partial OUT.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static int write_all(int fd, const void *buf, size_t size)
{
	const char *p = buf;

	while (size) {
		ssize_t w = write(fd, p, size);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		size -= (size_t)w;
	}
	return 0;
}

static int out_fail(const char *path, const char *what)
{
	fprintf(stderr, "tilecopy: OUT: %s '%s': %s\n", what, path, strerror(errno));
	return -1;
}

/* An unnamed file in @path's directory holding @buf, or -1. */
static int tmpfile_with(const char *path, const void *buf, size_t size, mode_t mode)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return -1;
	fd = open(dirname(copy), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	free(copy);
	if (fd < 0)
		return -1;
	if (write_all(fd, buf, size) || fsync(fd)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int link_fd(int fd, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

static int create_new(const char *path, const void *buf, size_t size)
{
	int fd = tmpfile_with(path, buf, size, 0666);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* no O_TMPFILE on this file system: create exclusively */
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0)
			return out_fail(path, "cannot create");
		if (write_all(fd, buf, size) || fsync(fd) || close(fd)) {
			unlink(path);
			return out_fail(path, "writing failed, removed");
		}
		return 0;
	}
	if (fd < 0)
		return out_fail(path, "cannot write next to");
	if (link_fd(fd, path)) {
		close(fd);
		return out_fail(path, "cannot create");
	}
	return close(fd) ? out_fail(path, "closing") : 0;
}

static int replace_regular(const char *path, const struct stat *old, const void *buf,
			   size_t size)
{
	char *copy = strdup(path), tmp[PATH_MAX];
	int fd = tmpfile_with(path, buf, size, 0600), ret = -1;

	if (fd < 0 || !copy) {
		free(copy);
		if (fd >= 0)
			close(fd);
		return out_fail(path, "cannot write next to");
	}
	if (fchmod(fd, old->st_mode & 07777) ||
	    (fchown(fd, old->st_uid, old->st_gid) && errno != EPERM))
		goto out;
	/* a short name in OUT's directory: OUT may be near NAME_MAX itself */
	for (int i = 0; i < 100; i++) {
		snprintf(tmp, sizeof(tmp), "%s/.tc%08x", dirname(copy),
			 (unsigned int)(random() ^ (unsigned int)getpid()));
		strcpy(copy, path);
		if (!link_fd(fd, tmp))
			break;
		tmp[0] = '\0';
		if (errno != EEXIST)
			break;
	}
	if (!tmp[0])
		goto out;
	if (rename(tmp, path)) {
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	if (ret)
		out_fail(path, "cannot replace");
	close(fd);
	free(copy);
	return ret;
}

/* Symlink, hard-linked file, device, FIFO: the data goes through it. */
static int write_through(const char *path, const struct stat *st, const void *buf, size_t size)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return out_fail(path, "cannot open");
	if (write_all(fd, buf, size)) {
		close(fd);
		return out_fail(path, "writing failed (it may hold part of the data)");
	}
	if (S_ISREG(st->st_mode) && (ftruncate(fd, (off_t)size) || fsync(fd))) {
		close(fd);
		return out_fail(path, "writing failed (it may hold part of the data)");
	}
	return close(fd) ? out_fail(path, "closing") : 0;
}

int cli_write_output(const char *path, const void *buf, size_t size)
{
	struct stat lst, st;

	if (!strcmp(path, "-")) {
		if (write_all(STDOUT_FILENO, buf, size))
			return out_fail("-", "writing standard output");
		return 0;
	}
	if (lstat(path, &lst)) {
		if (errno != ENOENT)
			return out_fail(path, "cannot inspect");
		return create_new(path, buf, size);
	}
	if (stat(path, &st))	/* a dangling symlink: not ours to replace */
		return out_fail(path, "is a symlink to nothing");
	if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tilecopy: OUT: '%s' is a directory\n", path);
		return -1;
	}
	if (S_ISREG(lst.st_mode) && lst.st_nlink == 1)
		return replace_regular(path, &lst, buf, size);
	return write_through(path, &st, buf, size);
}
