"""The same job in Pillow, as a Python user would write it: open, auto-rotate, shrink to
4096 px (thumbnail uses JPEG draft mode), flatten transparency on white, then lower the JPEG
quality until the file fits; if quality 70 (discern's floor) is still too big, shrink further.

    python3 pillow_fit.py INDIR OUTDIR [--processes N] [--budget BYTES]
"""
import argparse
import io
import os
import sys
from multiprocessing import Pool

from PIL import Image, ImageOps

try:
    import pillow_heif
    pillow_heif.register_heif_opener()
except ImportError:  # HEIC files then fail, and are counted as failures
    pass

BUDGET = 10_000_000


def fit(job):
    path, out_dir = job
    image = Image.open(path)
    image = ImageOps.exif_transpose(image)
    image.thumbnail((4096, 4096))
    if image.mode in ("RGBA", "LA", "P"):
        image = image.convert("RGBA")
        white = Image.new("RGB", image.size, (255, 255, 255))
        white.paste(image, mask=image.getchannel("A"))
        image = white
    elif image.mode != "RGB":
        image = image.convert("RGB")
    encodes = 0
    while True:
        for quality in (85, 80, 75, 70):
            buffer = io.BytesIO()
            image.save(buffer, "JPEG", quality=quality)
            encodes += 1
            if buffer.tell() <= BUDGET:
                name = os.path.splitext(os.path.basename(path))[0] + ".jpg"
                with open(os.path.join(out_dir, name), "wb") as handle:
                    handle.write(buffer.getvalue())
                return encodes
        image = image.resize((image.width * 8 // 10, image.height * 8 // 10))


def main():
    global BUDGET
    parser = argparse.ArgumentParser()
    parser.add_argument("indir")
    parser.add_argument("outdir")
    parser.add_argument("--processes", type=int, default=os.cpu_count())
    parser.add_argument("--budget", type=int, default=BUDGET)
    args = parser.parse_args()
    BUDGET = args.budget
    os.makedirs(args.outdir, exist_ok=True)
    files = sorted(os.path.join(args.indir, name) for name in os.listdir(args.indir))
    with Pool(args.processes) as pool:
        encodes = pool.map(fit, [(path, args.outdir) for path in files])
    print(f"images: {len(files)} encodes: {sum(encodes)}", file=sys.stderr)


if __name__ == "__main__":
    main()
