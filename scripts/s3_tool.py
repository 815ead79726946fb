"""What the tests do to an S3 server besides discern, with botocore (an independent SigV4
signer): make a bucket, put files, delete a key, presign a PUT as a service hands one out.

    python3 scripts/s3_tool.py --endpoint URL --key ID --secret SECRET COMMAND ...
      wait SECONDS                      until a signed listing of buckets answers
      mkbucket BUCKET
      put BUCKET PREFIX FILE...         each file as PREFIX + its name
      put-as BUCKET KEY FILE [CLASS]    one file under exactly KEY (any character but NUL), in
                                        storage class CLASS (STANDARD; GLACIER as a lifecycle rule moves one)
      delete BUCKET KEY
      head BUCKET KEY                   prints size and ETag
      presign-put BUCKET KEY CONTENT_TYPE SECONDS
"""
import argparse
import os
import sys
import time

import botocore.session
from botocore.config import Config


def client(args):
    session = botocore.session.get_session()
    return session.create_client("s3", region_name="us-east-1", endpoint_url=args.endpoint,
                                 aws_access_key_id=args.key, aws_secret_access_key=args.secret,
                                 config=Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                               retries={"max_attempts": 5}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("command")
    parser.add_argument("rest", nargs="*")
    args = parser.parse_args()
    s3 = client(args)
    if args.command == "wait":
        deadline = time.time() + float(args.rest[0])
        while True:
            try:
                s3.list_buckets()
                return
            except Exception:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
    elif args.command == "mkbucket":
        try:
            s3.create_bucket(Bucket=args.rest[0])
        except s3.exceptions.BucketAlreadyOwnedByYou:
            pass
    elif args.command == "put":
        bucket, prefix, files = args.rest[0], args.rest[1], args.rest[2:]
        for path in files:
            with open(path, "rb") as file:
                s3.put_object(Bucket=bucket, Key=prefix + os.path.basename(path), Body=file.read())
    elif args.command == "put-as":
        bucket, key, path = args.rest[0], args.rest[1], args.rest[2]
        storage_class = args.rest[3] if len(args.rest) > 3 else "STANDARD"
        with open(path, "rb") as file:
            s3.put_object(Bucket=bucket, Key=key, Body=file.read(), StorageClass=storage_class)
    elif args.command == "delete":
        s3.delete_object(Bucket=args.rest[0], Key=args.rest[1])
    elif args.command == "head":
        head = s3.head_object(Bucket=args.rest[0], Key=args.rest[1])
        print(head["ContentLength"], head["ETag"].strip('"'))
    elif args.command == "presign-put":
        bucket, key, content_type, seconds = args.rest
        print(s3.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": key, "ContentType": content_type},
                                        ExpiresIn=int(seconds)))
    else:
        sys.exit(f"unknown command {args.command}")


if __name__ == "__main__":
    main()
