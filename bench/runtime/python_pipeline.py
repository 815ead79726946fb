"""The straightforward Python pipeline the runtime benchmark compares discern with: 8 threads,
each claiming one job at a time from discern's queue (psycopg, FOR UPDATE SKIP LOCKED),
preparing the image with Pillow (sent as it is when it already complies, otherwise shrunk to
4096 px and re-encoded, lowering the quality until it fits), calling Image Discerner with
requests (upload-url, the presigned PUT, analyze) and writing the result in the transaction that
completes the job.

    python3 python_pipeline.py DATABASE_URL SERVICE_URL [--threads 8]
"""
import argparse
import io
import json
import threading
import time

import psycopg
import requests
from PIL import Image, ImageOps

# Image Discerner forwards the image base64-encoded to Cloud Vision: the same budget as discern's.
BUDGET = 7_800_000

CLAIM = """
UPDATE discern.jobs SET state = 'running', attempts = attempts + 1, lease_owner = 'python',
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
       %(confidence)s, %(raw)s, %(original_bytes)s, %(width)s, %(height)s, 'jpeg', %(sent_bytes)s, %(sent_width)s,
       %(sent_height)s, 'jpeg', %(passed)s, %(prepare_ms)s, %(analyze_ms)s
FROM done
"""


def prepare(path):
    with open(path, "rb") as handle:
        original = handle.read()
    image = Image.open(io.BytesIO(original))
    width, height = image.size
    orientation = image.getexif().get(0x0112, 1)
    if (image.format == "JPEG" and len(original) <= BUDGET and max(width, height) <= 4096
            and orientation == 1 and image.mode in ("RGB", "L")):
        return original, (width, height), (width, height), True
    image = ImageOps.exif_transpose(image)
    image.thumbnail((4096, 4096))
    if image.mode != "RGB":
        image = image.convert("RGB")
    while True:
        for quality in (85, 80, 75, 70):
            buffer = io.BytesIO()
            image.save(buffer, "JPEG", quality=quality)
            if buffer.tell() <= BUDGET:
                return buffer.getvalue(), (width, height), image.size, False
        image = image.resize((image.width * 8 // 10, image.height * 8 // 10))


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


def primary(body):
    """The most confident entity of a response_format_version 3.0 answer (empty when none)."""
    entities = body.get("entities") or []
    return max(entities, key=lambda e: e.get("confidence") or 0) if entities else {}


def identifier(entity, prefix):
    """The value of the first `prefix:...` identifier (a plate's region prefix dropped)."""
    for item in entity.get("identifiers") or []:
        if item.startswith(prefix + ":"):
            return item.split(":")[-1]
    return None


def worker(database_url, base, counts):
    session = requests.Session()
    with psycopg.connect(database_url, autocommit=False) as connection:
        while True:
            with connection.transaction():
                row = connection.execute(CLAIM).fetchone()
            if row is None:
                return
            job_id, path = row
            started = time.monotonic()
            data, (width, height), (sent_width, sent_height), passed = prepare(path)
            prepared = time.monotonic()
            body = analyze(session, base, data)
            subject = primary(body["analysis_result"]["body"])
            with connection.transaction():
                connection.execute(COMPLETE, {
                    "id": job_id, "category": subject.get("type"), "operator": subject.get("operator"),
                    "fleet_id": identifier(subject, "fleet"), "plate": identifier(subject, "license_plate"),
                    "confidence": subject.get("confidence"), "raw": json.dumps(body),
                    "original_bytes": 0, "width": width, "height": height, "sent_bytes": len(data),
                    "sent_width": sent_width, "sent_height": sent_height, "passed": passed,
                    "prepare_ms": (prepared - started) * 1000, "analyze_ms": (time.monotonic() - prepared) * 1000,
                })
            counts.append(job_id)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("database_url")
    parser.add_argument("service_url")
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    counts = []
    threads = [threading.Thread(target=worker, args=(args.database_url, args.service_url, counts)) for _ in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"completed {len(counts)}")


if __name__ == "__main__":
    main()
