#include "CVipsShim.h"
#include <vips/vector.h>

int cvipsshim_init(const char *program_name) {
    return VIPS_INIT(program_name);
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
