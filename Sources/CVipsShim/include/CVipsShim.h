// Non-variadic wrappers around the libvips calls discern needs. Swift cannot call C variadics,
// so each wrapper fixes the optional arguments it passes. Nothing here holds state.
#ifndef CVIPSSHIM_H
#define CVIPSSHIM_H

#include <vips/vips.h>

int cvipsshim_init(const char *program_name);
/// libvips' start writes VIPSHOME into the environment when it is not set (vips_guess_prefix),
/// and setenv while another thread reads the environment (posix_spawn, libpq's getenv) can crash
/// glibc. This does that one write alone; call it before any thread starts.
void cvipsshim_settle_environment(const char *program_name);
/// Turns libvips' ORC vector code on or off (vips/vector.h is not in the umbrella header).
void cvipsshim_set_vector_enabled(int enabled);

// Opens a buffer lazily: only the header is read. fail_on_error refuses truncated input.
VipsImage *cvipsshim_header_from_buffer(const void *data, size_t length, int fail_on_error);

VipsImage *cvipsshim_header_from_file(const char *path, int fail_on_error);
int cvipsshim_thumbnail_file(const char *path, VipsImage **out, int width, int height, int fail_on_error);

// Shrink-on-load thumbnail that fits inside width x height, never upscaling; auto-rotates.
// Images with an embedded profile, and CMYK ones, are colour-managed to sRGB; untagged images
// are taken as sRGB already (no costly transform of every pixel).
int cvipsshim_thumbnail_buffer(const void *data, size_t length, VipsImage **out,
                               int width, int height, int fail_on_error);

// A JPEG decoded by libjpeg at 1/shrink scale (1, 2, 4, 8), sequentially, without resampling.
int cvipsshim_jpegload_file(const char *path, VipsImage **out, int shrink, int fail_on_error);
int cvipsshim_jpegload_buffer(const void *data, size_t length, VipsImage **out, int shrink, int fail_on_error);
int cvipsshim_autorot(VipsImage *in, VipsImage **out);

int cvipsshim_flatten_white(VipsImage *in, VipsImage **out);
int cvipsshim_colourspace_srgb(VipsImage *in, VipsImage **out);
int cvipsshim_cast_uchar(VipsImage *in, VipsImage **out);
int cvipsshim_resize(VipsImage *in, VipsImage **out, double scale);
int cvipsshim_jpegsave_buffer(VipsImage *in, void **buffer, size_t *length, int quality);


// The standard deviation of all pixels: how much an image shows (the simulator's "no face").
int cvipsshim_deviate(VipsImage *in, double *deviation);

// A difference hash of an encoded image (64 bits: each of 8 rows of a 9 x 8 grey thumbnail,
// whether each pixel is darker than its right neighbour). Near-identical photos (resized,
// recompressed, slightly cropped) differ in a few bits. 0 on success.
int cvipsshim_dhash_buffer(const void *data, size_t length, unsigned long long *hash);

#endif
