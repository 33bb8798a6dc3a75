// SPDX-License-Identifier: MIT
/*
 * cli_out.c - writing OUT of `tilecopy convert` as '>' would, only more
 * carefully.
 *
 *   "-", or a name of this process's   that descriptor, at its offset (so
 *   stdout or stderr (/dev/stdout,     `{ echo head; tilecopy .. /dev/stdout; }
 *   /proc/self/fd/1)                   > f` keeps the head, `>> f` appends)
 *   does not exist                     created whole or not at all: an unnamed
 *                                      O_TMPFILE in OUT's directory, written,
 *                                      then linked in (mode 0666 less the
 *                                      umask); where the file system has no
 *                                      O_TMPFILE, created exclusively, and
 *                                      removed if writing fails
 *   a regular file, one link           must be writable, as for '>'; replaced
 *                                      whole (the data in an unnamed file of
 *                                      the same mode, owner and group, linked
 *                                      under a short temporary name, renamed
 *                                      over OUT) when that keeps its owner and
 *                                      the directory allows it; else written
 *                                      in place (a directory this user may
 *                                      not write, a file of another owner, a
 *                                      file system without O_TMPFILE)
 *   a symlink, a file with hard        written through, never replaced: the
 *   links, a device, a FIFO            target, every name, the device
 *   a symlink to nothing               refused ('>' would create its target,
 *                                      which may be anywhere)
 *   a directory                        refused
 *
 * Every check of the conversion runs before OUT is touched; only an I/O
 * error while writing in place or through can leave a partial OUT. A
 * replaced file does not keep extended attributes or ACLs.
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

/* An unnamed file in @path's directory holding @buf, or -1 (errno set). */
static int tmpfile_with(const char *path, const void *buf, size_t size, mode_t mode)
{
	char *copy = strdup(path);
	int fd, e;

	if (!copy)
		return -1;
	fd = open(dirname(copy), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
	free(copy);
	if (fd < 0)
		return -1;
	if (write_all(fd, buf, size) || fsync(fd)) {
		e = errno;
		close(fd);
		errno = e;
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

/* The file systems that have no O_TMPFILE say one of these. */
static int no_tmpfile(int e)
{
	return e == EOPNOTSUPP || e == EISDIR || e == EINVAL;
}

static int create_new(const char *path, const void *buf, size_t size)
{
	int fd = tmpfile_with(path, buf, size, 0666);

	if (fd < 0 && no_tmpfile(errno)) {
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
		return out_fail(path, "cannot create");
	if (link_fd(fd, path)) {
		close(fd);
		return out_fail(path, "cannot create");
	}
	return close(fd) ? out_fail(path, "closing") : 0;
}

/* The data into an open file, from its start, cut to its length. */
static int write_in_place(int fd, const char *path, int regular, const void *buf, size_t size)
{
	if (regular && lseek(fd, 0, SEEK_SET) < 0)
		return out_fail(path, "cannot write");
	if (write_all(fd, buf, size) ||
	    (regular && (ftruncate(fd, (off_t)size) || fsync(fd))))
		return out_fail(path, "writing failed (it may hold part of the data)");
	return 0;
}

/*
 * Why a replacement could not be made, from errno: 1 when OUT can still be
 * written in place as '>' would (a directory this user may not write, no
 * O_TMPFILE, a mount point OUT cannot be renamed over), -1 on anything
 * else (no space, quota, I/O): writing in place then could lose OUT, so
 * OUT is left as it was.
 */
static int replace_refused(const char *path, const char *what)
{
	if (errno == EACCES || errno == EPERM || errno == EROFS || errno == EBUSY ||
	    errno == EXDEV || no_tmpfile(errno))
		return 1;
	return out_fail(path, what);
}

/*
 * Replace @path by an unnamed file holding @buf, of @old's mode, owner and
 * group. Returns 0, 1 when it cannot be done without changing what OUT is
 * (owner, a directory that refuses, no O_TMPFILE, a bind mount: the caller
 * writes in place), or -1 on a failure that leaves OUT as it was.
 */
static int try_replace(const char *path, const struct stat *old, const void *buf, size_t size)
{
	char *copy = strdup(path), tmp[PATH_MAX];
	int fd = tmpfile_with(path, buf, size, 0600), ret = 1;

	if (!copy)
		goto out;
	if (fd < 0) {
		ret = replace_refused(path, "cannot write a new copy (OUT left as it was)");
		goto out;
	}
	/*
	 * fchown keeps the owner when allowed (else it would be ours); it
	 * clears set-user/group-ID, so the mode comes after it.
	 */
	if (fchown(fd, old->st_uid, old->st_gid) || fchmod(fd, old->st_mode & 07777))
		goto out;
	/* a short name in OUT's directory: OUT may be near NAME_MAX itself */
	tmp[0] = '\0';
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
	if (!tmp[0]) {
		ret = replace_refused(path, "cannot write a new copy (OUT left as it was)");
		goto out;
	}
	if (rename(tmp, path)) {
		ret = replace_refused(path, "cannot replace");
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(copy);
	return ret;
}

/* A regular file of one link: writable, then replaced whole or in place. */
static int replace_regular(const char *path, const struct stat *old, const void *buf,
			   size_t size)
{
	/* '>' opens OUT for writing: a file this user may not write is refused */
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC), ret;

	if (fd < 0)
		return out_fail(path, "cannot open for writing");
	ret = try_replace(path, old, buf, size);
	if (ret == 1)
		ret = write_in_place(fd, path, 1, buf, size);
	if (close(fd) && !ret)
		ret = out_fail(path, "closing");
	return ret;
}

/* Symlink, hard-linked file, device, FIFO: the data goes through it. */
static int write_through(const char *path, const struct stat *st, const void *buf, size_t size)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC), ret;

	if (fd < 0)
		return out_fail(path, "cannot open");
	ret = write_in_place(fd, path, S_ISREG(st->st_mode), buf, size);
	if (close(fd) && !ret)
		ret = out_fail(path, "closing");
	return ret;
}

/* stdout (1) or stderr (2) when @st is the file one of them is, else -1. */
static int std_fd_of(const struct stat *st)
{
	for (int fd = 1; fd <= 2; fd++) {
		struct stat fs;

		if (!fstat(fd, &fs) && fs.st_dev == st->st_dev && fs.st_ino == st->st_ino)
			return fd;
	}
	return -1;
}

int cli_write_output(const char *path, const void *buf, size_t size)
{
	struct stat lst, st;
	int fd;

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
	if (stat(path, &st)) {
		if (errno != ENOENT)
			return out_fail(path, "cannot inspect");
		fprintf(stderr, "tilecopy: OUT: '%s' is a symlink to nothing; not followed\n", path);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tilecopy: OUT: '%s' is a directory\n", path);
		return -1;
	}
	/* our own stdout by another name: write there, at its offset */
	fd = std_fd_of(&st);
	if (fd >= 0) {
		if (write_all(fd, buf, size))
			return out_fail(path, "writing");
		return 0;
	}
	if (S_ISREG(lst.st_mode) && lst.st_nlink == 1)
		return replace_regular(path, &lst, buf, size);
	return write_through(path, &st, buf, size);
}
