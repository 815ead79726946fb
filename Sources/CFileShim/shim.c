#define _GNU_SOURCE
#include "CFileShim.h"
#include <linux/openat2.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int cfileshim_openat2_beneath(int dirfd, const char *path, int flags) {
#ifdef SYS_openat2
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (unsigned long long)flags;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
    (void)dirfd; (void)path; (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}

int cfileshim_component_flags(void) {
    return O_PATH | O_NOFOLLOW | O_CLOEXEC;
}
