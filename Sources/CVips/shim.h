#include <vips/vips.h>
// zlib (libvips links it for PNG): its crc32 is the one PNG chunks carry.
#include <zlib.h>
