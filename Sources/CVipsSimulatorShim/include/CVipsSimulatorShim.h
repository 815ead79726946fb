// What the simulated services learn from an uploaded image, by libvips directly: the simulator
// never judges an upload with the product's own image code (Imaging), which it is there to test.
#ifndef CVIPSSIMULATORSHIM_H
#define CVIPSSIMULATORSHIM_H

#include <stddef.h>

// Decodes every byte of an image held in memory (a truncated or corrupt file fails) and
// returns 0 with its size and the standard deviation of its pixels (about 0 for a flat image),
// or -1 when libvips cannot decode it. JPEGs are decoded at 1/8 scale by libjpeg itself. No
// operation here compiles vector code (no resize), so it needs no lock shared with Imaging.
int csimvips_inspect(const void *data, size_t length, int *width, int *height, double *deviation);

// Frees libvips' per-thread state; called by each decoding thread as it ends.
void csimvips_thread_shutdown(void);

#endif
