#include "CVipsFixtureShim.h"

int cvipsfixtureshim_jpegsave_buffer_keep(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, NULL);
}

int cvipsfixtureshim_cast(VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return vips_cast(in, out, format, NULL);
}

int cvipsfixtureshim_black(VipsImage **out, int width, int height, int bands) {
    return vips_black(out, width, height, "bands", bands, NULL);
}

int cvipsfixtureshim_rot(VipsImage *in, VipsImage **out, VipsAngle angle) {
    return vips_rot(in, out, angle, NULL);
}

int cvipsfixtureshim_flip(VipsImage *in, VipsImage **out, VipsDirection direction) {
    return vips_flip(in, out, direction, NULL);
}

int cvipsfixtureshim_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

int cvipsfixtureshim_draw_rect(VipsImage *image, double ink, int left, int top, int width, int height) {
    return vips_draw_rect1(image, ink, left, top, width, height, "fill", TRUE, NULL);
}

int cvipsfixtureshim_region_mean(VipsImage *in, int left, int top, int width, int height, double *mean) {
    VipsImage *region = NULL;
    if (vips_crop(in, &region, left, top, width, height, NULL) != 0) return -1;
    int status = vips_avg(region, mean, NULL);
    g_object_unref(region);
    return status;
}

int cvipsfixtureshim_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}
