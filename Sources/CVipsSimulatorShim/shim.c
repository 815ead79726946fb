#include "CVipsSimulatorShim.h"

#include <pthread.h>
#include <string.h>
#include <vips/vips.h>

static pthread_once_t started = PTHREAD_ONCE_INIT;
static int start_status = 0;
/* Set once libvips is up: a thread that never met it must not shut it down (a thread of a
 * simulator that decoded nothing crashed in glib doing so, as the test process ended). */
static int vips_running = 0;

static void start(void) {
    start_status = VIPS_INIT("discern-simulator") ? -1 : 0;
    if (start_status == 0) __atomic_store_n(&vips_running, 1, __ATOMIC_RELEASE);
}

static int is_jpeg(const unsigned char *bytes, size_t length) {
    return length >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF;
}

int csimvips_inspect(const void *data, size_t length, int *width, int *height, double *deviation) {
    pthread_once(&started, start);
    if (start_status != 0) return -1;
    VipsImage *header = vips_image_new_from_buffer(data, length, "", "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (header == NULL) {
        vips_error_clear();
        return -1;
    }
    *width = vips_image_get_width(header);
    *height = vips_image_get_height(header);
    g_object_unref(header);
    VipsImage *image = vips_image_new_from_buffer(data, length, is_jpeg(data, length) ? "shrink=8" : "",
                                                  "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (image == NULL) {
        vips_error_clear();
        return -1;
    }
    int status = vips_deviate(image, deviation, NULL);
    g_object_unref(image);
    if (status != 0) vips_error_clear();
    return status;
}

void csimvips_thread_shutdown(void) {
    if (__atomic_load_n(&vips_running, __ATOMIC_ACQUIRE)) vips_thread_shutdown();
}
