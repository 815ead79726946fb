// What Swift cannot call for opening files safely: openat2(2) has no libc wrapper here, only
// the variadic syscall(2).
#ifndef CFILESHIM_H
#define CFILESHIM_H

// Opens `path` relative to the directory `dirfd` without following any symlink and without
// leaving `dirfd` (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), with `flags` as open(2) takes them.
// Returns the descriptor, or -1 with errno set; ENOSYS (or EPERM under some seccomp filters)
// when the kernel cannot do it, and the caller then walks the path itself.
int cfileshim_openat2_beneath(int dirfd, const char *path, int flags);

// O_PATH | O_NOFOLLOW | O_CLOEXEC: opens a path component as itself, a link as a link
// (O_PATH is a GNU extension the Swift Glibc module leaves out).
int cfileshim_component_flags(void);

#endif
