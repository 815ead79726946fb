#include "CVipsSampleShim.h"

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

int cvipssampleshim_copy_interpretation(VipsImage *in, VipsImage **out, VipsInterpretation interpretation) {
    return vips_copy(in, out, "interpretation", interpretation, NULL);
}

int cvipssampleshim_save_buffer(VipsImage *in, const char *suffix, void **buffer, size_t *length) {
    return vips_image_write_to_buffer(in, suffix, buffer, length, NULL);
}

int cvipssampleshim_add(VipsImage *left, VipsImage *right, VipsImage **out) {
    return vips_add(left, right, out, NULL);
}

int cvipssampleshim_bandjoin2(VipsImage *a, VipsImage *b, VipsImage **out) {
    VipsImage *bands[] = {a, b};
    return vips_bandjoin(bands, out, 2, NULL);
}
