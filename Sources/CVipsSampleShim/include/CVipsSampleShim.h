// Non-variadic wrappers around the libvips calls that make sample photos (discern samples,
// the demo). Not part of the product's image preparation; the tests' own are CVipsFixtureShim.
#ifndef CVIPSSAMPLESHIM_H
#define CVIPSSAMPLESHIM_H

#include <vips/vips.h>

// Sample image generation.
int cvipssampleshim_perlin(VipsImage **out, int width, int height, int cell_size, int seed);
int cvipssampleshim_gaussnoise(VipsImage **out, int width, int height, double mean, double sigma);
int cvipssampleshim_bandjoin3(VipsImage *a, VipsImage *b, VipsImage *c, VipsImage **out);
int cvipssampleshim_copy_interpretation(VipsImage *in, VipsImage **out, VipsInterpretation interpretation);
// Saves in the format the suffix names (".webp", ".heic", ".gif", ".png", ...), metadata kept.
int cvipssampleshim_save_buffer(VipsImage *in, const char *suffix, void **buffer, size_t *length);
int cvipssampleshim_add(VipsImage *left, VipsImage *right, VipsImage **out);
int cvipssampleshim_bandjoin2(VipsImage *a, VipsImage *b, VipsImage **out);

#endif
