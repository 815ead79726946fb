/* A wall clock that is off, for one process: preloaded (LD_PRELOAD), it moves what
 * clock_gettime(CLOCK_REALTIME), gettimeofday() and time() say by DISCERN_SKEW_SECONDS, and
 * nothing else: the monotonic and boot clocks that timers use stay true, as on a host whose NTP
 * stopped. The tests use it for a worker 20 minutes off (BucketAnswerTests). Not faketime:
 * libfaketime rewrites the environment (Swift then finds no arguments) and moves absolute
 * monotonic timers too (a 1 s Task.sleep waited 20 minutes).
 *   cc -shared -fPIC -o skewed-clock.so scripts/skewed-clock.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long skew(void) {
    static long seconds;
    static int known;
    if (!known) {
        const char *text = getenv("DISCERN_SKEW_SECONDS");
        seconds = text ? strtol(text, NULL, 10) : 0;
        known = 1;
    }
    return seconds;
}

int clock_gettime(clockid_t clock, struct timespec *moment) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int status = real(clock, moment);
    if (status == 0 && moment && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) moment->tv_sec += skew();
    return status;
}

int gettimeofday(struct timeval *restrict moment, void *restrict zone) {
    static int (*real)(struct timeval *restrict, void *restrict);
    if (!real) real = (int (*)(struct timeval *restrict, void *restrict))dlsym(RTLD_NEXT, "gettimeofday");
    int status = real(moment, zone);
    if (status == 0 && moment) moment->tv_sec += skew();
    return status;
}

time_t time(time_t *out) {
    struct timespec moment;
    clock_gettime(CLOCK_REALTIME, &moment);
    if (out) *out = moment.tv_sec;
    return moment.tv_sec;
}
