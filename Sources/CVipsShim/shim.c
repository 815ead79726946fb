#include "CVipsShim.h"
#include <vips/vector.h>

static void cvipsshim_drop_warning(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

int cvipsshim_init(const char *program_name) {
    // What VIPS_WARNING=0 does, without writing the environment from a threaded process.
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, cvipsshim_drop_warning, NULL);
    return VIPS_INIT(program_name);
}

void cvipsshim_settle_environment(const char *program_name) {
    (void)vips_guess_prefix(program_name, "VIPSHOME");
}

void cvipsshim_set_vector_enabled(int enabled) {
    vips_vector_set_enabled(enabled);
}

// Untrusted input: fail_on=error makes a truncated or corrupt file an error instead of an image
// padded with grey. libvips 8.14 takes it differently per source (checked with truncated JPEG
// and PNG files): vips_thumbnail honours the named argument and ignores a "[fail_on=...]" suffix
// on the file name; vips_thumbnail_buffer ignores the named argument and honours option_string.
// Both are passed where both exist.
static VipsFailOn cvipsshim_fail_on(int fail_on_error) {
    return fail_on_error ? VIPS_FAIL_ON_ERROR : VIPS_FAIL_ON_NONE;
}

VipsImage *cvipsshim_header_from_buffer(const void *data, size_t length, int fail_on_error) {
    return vips_image_new_from_buffer(data, length, "",
        "access", VIPS_ACCESS_SEQUENTIAL,
        "fail_on", cvipsshim_fail_on(fail_on_error),
        NULL);
}

VipsImage *cvipsshim_header_from_file(const char *path, int fail_on_error) {
    return vips_image_new_from_file(path,
        "access", VIPS_ACCESS_SEQUENTIAL,
        "fail_on", cvipsshim_fail_on(fail_on_error),
        NULL);
}

int cvipsshim_thumbnail_file(const char *path, VipsImage **out, int width, int height, int fail_on_error) {
    return vips_thumbnail(path, out, width,
        "height", height,
        "size", VIPS_SIZE_DOWN,
        "fail_on", cvipsshim_fail_on(fail_on_error),
        NULL);
}

int cvipsshim_thumbnail_buffer(const void *data, size_t length, VipsImage **out,
                               int width, int height, int fail_on_error) {
    return vips_thumbnail_buffer((void *)data, length, out, width,
        "height", height,
        "size", VIPS_SIZE_DOWN,
        "fail_on", cvipsshim_fail_on(fail_on_error),
        "option_string", fail_on_error ? "fail_on=error" : "",
        NULL);
}

// A JPEG decoded at 1/shrink scale by libjpeg itself (shrink 1, 2, 4 or 8), and nothing else:
// vips_thumbnail picks a smaller shrink-on-load than asked, to leave a resample for quality,
// which decoded a 24 MP photo at full size and then halved it (2.6x the CPU, bench/RESULTS.md).
int cvipsshim_jpegload_file(const char *path, VipsImage **out, int shrink, int fail_on_error) {
    return vips_jpegload(path, out,
        "shrink", shrink,
        "access", VIPS_ACCESS_SEQUENTIAL,
        "fail_on", cvipsshim_fail_on(fail_on_error),
        NULL);
}

int cvipsshim_jpegload_buffer(const void *data, size_t length, VipsImage **out, int shrink, int fail_on_error) {
    return vips_jpegload_buffer((void *)data, length, out,
        "shrink", shrink,
        "access", VIPS_ACCESS_SEQUENTIAL,
        "fail_on", cvipsshim_fail_on(fail_on_error),
        NULL);
}

int cvipsshim_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

int cvipsshim_flatten_white(VipsImage *in, VipsImage **out) {
    double white[] = {255.0, 255.0, 255.0};
    VipsArrayDouble *background = vips_array_double_new(white, 3);
    int status = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return status;
}

int cvipsshim_colourspace_srgb(VipsImage *in, VipsImage **out) {
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

int cvipsshim_cast_uchar(VipsImage *in, VipsImage **out) {
    return vips_cast(in, out, VIPS_FORMAT_UCHAR, NULL);
}

int cvipsshim_resize(VipsImage *in, VipsImage **out, double scale) {
    return vips_resize(in, out, scale, NULL);
}

int cvipsshim_jpegsave_buffer(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, NULL);
}

int cvipsshim_deviate(VipsImage *in, double *deviation) {
    return vips_deviate(in, deviation, NULL);
}

int cvipsshim_dhash_buffer(const void *data, size_t length, unsigned long long *hash) {
    VipsImage *small = NULL, *grey = NULL, *bytes = NULL;
    int failed = vips_thumbnail_buffer((void *)data, length, &small, 9, "height", 8, "size", VIPS_SIZE_FORCE, NULL)
        || vips_colourspace(small, &grey, VIPS_INTERPRETATION_B_W, NULL)
        || vips_cast_uchar(grey, &bytes, NULL);
    if (!failed) {
        size_t size = 0;
        unsigned char *pixels = vips_image_write_to_memory(bytes, &size);
        int bands = vips_image_get_bands(bytes);
        if (pixels && size >= (size_t)(9 * 8 * bands)) {
            unsigned long long bits = 0;
            for (int y = 0; y < 8; y++)
                for (int x = 0; x < 8; x++) {
                    bits <<= 1;
                    if (pixels[(y * 9 + x) * bands] < pixels[(y * 9 + x + 1) * bands]) bits |= 1;
                }
            *hash = bits;
        } else {
            failed = 1;
        }
        g_free(pixels);
    }
    if (bytes) g_object_unref(bytes);
    if (grey) g_object_unref(grey);
    if (small) g_object_unref(small);
    return failed ? -1 : 0;
}
