// Non-variadic wrappers around the libvips calls that make sample photos and test fixtures
// (discern samples, the tests). Not part of the product's image preparation.
#ifndef CVIPSSAMPLESHIM_H
#define CVIPSSAMPLESHIM_H

#include <vips/vips.h>

// Sample image generation (demo photos and test fixtures).
int cvipssampleshim_perlin(VipsImage **out, int width, int height, int cell_size, int seed);
int cvipssampleshim_gaussnoise(VipsImage **out, int width, int height, double mean, double sigma);
int cvipssampleshim_bandjoin3(VipsImage *a, VipsImage *b, VipsImage *c, VipsImage **out);
int cvipssampleshim_cast(VipsImage *in, VipsImage **out, VipsBandFormat format);
int cvipssampleshim_copy_interpretation(VipsImage *in, VipsImage **out, VipsInterpretation interpretation);
int cvipssampleshim_jpegsave_buffer_keep(VipsImage *in, void **buffer, size_t *length, int quality);
// Saves in the format the suffix names (".webp", ".heic", ".gif", ".png", ...), metadata kept.
int cvipssampleshim_save_buffer(VipsImage *in, const char *suffix, void **buffer, size_t *length);
int cvipssampleshim_add(VipsImage *left, VipsImage *right, VipsImage **out);
int cvipssampleshim_bandjoin2(VipsImage *a, VipsImage *b, VipsImage **out);
int cvipssampleshim_black(VipsImage **out, int width, int height, int bands);
int cvipssampleshim_rot(VipsImage *in, VipsImage **out, VipsAngle angle);
int cvipssampleshim_flip(VipsImage *in, VipsImage **out, VipsDirection direction);
int cvipssampleshim_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space);
int cvipssampleshim_draw_rect(VipsImage *image, double ink, int left, int top, int width, int height);
// The mean of all bands over a rectangle, for checking pixels in tests.
int cvipssampleshim_region_mean(VipsImage *in, int left, int top, int width, int height, double *mean);

#endif
