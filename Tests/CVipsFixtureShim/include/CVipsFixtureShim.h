// Non-variadic wrappers around the libvips calls that only the tests use: fixtures (oriented
// markers, CMYK, 16-bit, flat images) and pixel measurements. Never part of the product.
#ifndef CVIPSFIXTURESHIM_H
#define CVIPSFIXTURESHIM_H

#include <vips/vips.h>

int cvipsfixtureshim_cast(VipsImage *in, VipsImage **out, VipsBandFormat format);
int cvipsfixtureshim_jpegsave_buffer_keep(VipsImage *in, void **buffer, size_t *length, int quality);
int cvipsfixtureshim_black(VipsImage **out, int width, int height, int bands);
int cvipsfixtureshim_rot(VipsImage *in, VipsImage **out, VipsAngle angle);
int cvipsfixtureshim_flip(VipsImage *in, VipsImage **out, VipsDirection direction);
int cvipsfixtureshim_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space);
int cvipsfixtureshim_draw_rect(VipsImage *image, double ink, int left, int top, int width, int height);
// The mean of all bands over a rectangle, for checking pixels in tests.
int cvipsfixtureshim_region_mean(VipsImage *in, int left, int top, int width, int height, double *mean);

int cvipsfixtureshim_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height);

#endif
