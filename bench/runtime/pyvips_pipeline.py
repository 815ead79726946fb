"""The pyvips pipeline the runtime benchmark compares discern with: N threads, each claiming one
job at a time from discern's queue (psycopg, FOR UPDATE SKIP LOCKED), preparing the image with
pyvips under Image Discerner's policy (docs/services.md: 7,800,000 bytes, 4096 px, a 1600 px
transform floor; sent as it is when it already complies), calling Image Discerner with requests
(upload-url, the presigned PUT, analyze) and writing the result in the transaction that completes
the job.

    python pyvips_pipeline.py DATABASE_URL SERVICE_URL [--threads 8]
"""
import argparse
import json
import os
import threading
import time

import psycopg
import pyvips
import requests

BUDGET, MAX_SIDE, FLOOR = 7_800_000, 4096, 1600

CLAIM = """
UPDATE discern.jobs SET state = 'running', attempts = attempts + 1, lease_owner = 'pyvips',
       lease_expires_at = now() + interval '5 minutes', updated_at = now()
WHERE id = (SELECT id FROM discern.jobs WHERE state = 'available' AND run_at <= now()
            ORDER BY priority, run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id, image_path
"""

COMPLETE = """
WITH done AS (
    UPDATE discern.jobs SET state = 'succeeded', finished_at = now(), updated_at = now(), lease_owner = NULL,
           lease_expires_at = NULL
    WHERE id = %(id)s AND state = 'running' RETURNING id, batch_id, image_path, backend, action)
INSERT INTO discern.results (job_id, batch_id, image_path, backend, action, category, operator, fleet_id,
    license_plate, confidence, raw_response, original_bytes, original_width, original_height, original_format,
    sent_bytes, sent_width, sent_height, sent_format, passed_through, prepare_ms, analyze_ms)
SELECT id, batch_id, image_path, backend, action, %(category)s, %(operator)s, %(fleet_id)s, %(plate)s,
       %(confidence)s, %(raw)s, %(original_bytes)s, %(width)s, %(height)s, %(format)s, %(sent_bytes)s,
       %(sent_width)s, %(sent_height)s, 'jpeg', %(passed)s, %(prepare_ms)s, %(analyze_ms)s
FROM done
"""


def passes_through(image, size):
    orientation = image.get("orientation") if image.get_typeof("orientation") else 1
    return (image.get("vips-loader") in ("jpegload", "pngload") and size <= BUDGET
            and max(image.width, image.height) <= MAX_SIDE and orientation == 1 and image.format == "uchar"
            and image.interpretation in ("srgb", "b-w") and not image.hasalpha())


def jpeg_shrink(image):
    """The smallest 1/2^n JPEG decode scale (n up to 3) whose long side stays at FLOOR or more."""
    shrink = 1
    while shrink < 8 and max(image.width, image.height) // (shrink * 2) >= FLOOR:
        shrink *= 2
    return shrink


def prepare(path):
    header = pyvips.Image.new_from_file(path)
    if passes_through(header, os.path.getsize(path)):
        with open(path, "rb") as handle:
            return handle.read(), header, header, True
    if header.get("vips-loader") == "jpegload":
        # Rotating needs random access: a sequential decode fails ("out of order read").
        upright = not header.get_typeof("orientation") or header.get("orientation") == 1
        image = pyvips.Image.new_from_file(path, shrink=jpeg_shrink(header),
                                           access="sequential" if upright else "random").autorot()
        if max(image.width, image.height) > MAX_SIDE:
            image = image.resize(MAX_SIDE / max(image.width, image.height))
    else:
        image = pyvips.Image.thumbnail(path, MAX_SIDE, size="down")
    if image.interpretation != "srgb":
        image = image.colourspace("srgb")
    if image.hasalpha():
        image = image.flatten(background=[255, 255, 255])
    if image.format != "uchar":
        image = image.cast("uchar")
    while True:
        for quality in (85, 80, 75, 70):
            data = image.jpegsave_buffer(Q=quality, strip=True)
            if len(data) <= BUDGET:
                return data, header, image, False
        image = image.resize(0.8)


def analyze(session, base, data):
    grant = session.post(f"{base}/upload-url", json={"file_extension": "jpg"}, timeout=60)
    grant.raise_for_status()
    grant = grant.json()
    put = session.put(grant["upload_url"], data=data, timeout=120,
                      headers={"Content-Type": grant["content_type"], "x-amz-server-side-encryption": "AES256"})
    put.raise_for_status()
    answer = session.post(f"{base}/analyze", json={"image_key": grant["image_key"], "bucket_name": grant["bucket_name"]},
                          timeout=330)
    answer.raise_for_status()
    return answer.json()


def worker(database_url, base, done):
    session = requests.Session()
    with psycopg.connect(database_url, autocommit=False) as connection:
        while True:
            with connection.transaction():
                row = connection.execute(CLAIM).fetchone()
            if row is None:
                return
            job_id, path = row
            started = time.monotonic()
            data, original, sent, passed = prepare(path)
            prepared = time.monotonic()
            body = analyze(session, base, data)
            entities = body["analysis_result"]["body"].get("entities") or []
            subject = max(entities, key=lambda e: e.get("confidence") or 0) if entities else {}
            # identifiers look like "fleet:123" and "license_plate:US-CA:7ABC123" (the value is last)
            ids = {i.split(":")[0]: i.split(":")[-1] for i in subject.get("identifiers") or []}
            with connection.transaction():
                connection.execute(COMPLETE, {
                    "id": job_id, "category": subject.get("type"), "operator": subject.get("operator"),
                    "fleet_id": ids.get("fleet"), "plate": ids.get("license_plate"),
                    "confidence": subject.get("confidence"), "raw": json.dumps(body),
                    "original_bytes": os.path.getsize(path), "width": original.width, "height": original.height,
                    "format": "jpeg" if original.get("vips-loader") == "jpegload" else "png",
                    "sent_bytes": len(data), "sent_width": sent.width, "sent_height": sent.height, "passed": passed,
                    "prepare_ms": (prepared - started) * 1000, "analyze_ms": (time.monotonic() - prepared) * 1000,
                })
            done.append(job_id)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("database_url")
    parser.add_argument("service_url")
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    done = []
    threads = [threading.Thread(target=worker, args=(args.database_url, args.service_url, done)) for _ in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"completed {len(done)}")


if __name__ == "__main__":
    main()
