#include "CVipsSampleShim.h"

int cvipssampleshim_jpegsave_buffer_keep(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, NULL);
}

int cvipssampleshim_perlin(VipsImage **out, int width, int height, int cell_size, int seed) {
    return vips_perlin(out, width, height, "cell_size", cell_size, "uchar", TRUE, "seed", seed, NULL);
}

int cvipssampleshim_gaussnoise(VipsImage **out, int width, int height, double mean, double sigma) {
    return vips_gaussnoise(out, width, height, "mean", mean, "sigma", sigma, NULL);
}

int cvipssampleshim_bandjoin3(VipsImage *a, VipsImage *b, VipsImage *c, VipsImage **out) {
    VipsImage *bands[] = {a, b, c};
    return vips_bandjoin(bands, out, 3, NULL);
}

int cvipssampleshim_cast(VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return vips_cast(in, out, format, NULL);
}

int cvipssampleshim_copy_interpretation(VipsImage *in, VipsImage **out, VipsInterpretation interpretation) {
    return vips_copy(in, out, "interpretation", interpretation, NULL);
}

int cvipssampleshim_save_buffer(VipsImage *in, const char *suffix, void **buffer, size_t *length) {
    return vips_image_write_to_buffer(in, suffix, buffer, length, NULL);
}

int cvipssampleshim_black(VipsImage **out, int width, int height, int bands) {
    return vips_black(out, width, height, "bands", bands, NULL);
}

int cvipssampleshim_rot(VipsImage *in, VipsImage **out, VipsAngle angle) {
    return vips_rot(in, out, angle, NULL);
}

int cvipssampleshim_flip(VipsImage *in, VipsImage **out, VipsDirection direction) {
    return vips_flip(in, out, direction, NULL);
}

int cvipssampleshim_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

int cvipssampleshim_draw_rect(VipsImage *image, double ink, int left, int top, int width, int height) {
    return vips_draw_rect1(image, ink, left, top, width, height, "fill", TRUE, NULL);
}

int cvipssampleshim_region_mean(VipsImage *in, int left, int top, int width, int height, double *mean) {
    VipsImage *region = NULL;
    if (vips_crop(in, &region, left, top, width, height, NULL) != 0) return -1;
    int status = vips_avg(region, mean, NULL);
    g_object_unref(region);
    return status;
}

int cvipssampleshim_add(VipsImage *left, VipsImage *right, VipsImage **out) {
    return vips_add(left, right, out, NULL);
}

int cvipssampleshim_bandjoin2(VipsImage *a, VipsImage *b, VipsImage **out) {
    VipsImage *bands[] = {a, b};
    return vips_bandjoin(bands, out, 2, NULL);
}
