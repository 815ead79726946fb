"""An OTLP/HTTP trace receiver, to look at discern's spans by hand and for the tests. It decodes
each export with the OpenTelemetry project's own protobuf classes (the `opentelemetry-proto`
package from PyPI), written apart from discern's exporter, and appends every span to a file, one
JSON object per line:

    python3 scripts/otlp-receiver.py --port 0 --url-file /tmp/otlp.url --log /tmp/spans.jsonl
    OTEL_EXPORTER_OTLP_ENDPOINT=$(cat /tmp/otlp.url) discern enqueue ...

    {"service": "discern", "trace_id": "4bf9…", "span_id": "00f0…", "parent_span_id": "", "name": "enqueue discerner",
     "kind": "SPAN_KIND_PRODUCER", "attributes": {"messaging.system": "discern", ...}, "links": [...], "status": "STATUS_CODE_UNSET"}

It takes http/protobuf and http/json bodies, gzip or not, at /v1/traces, and answers as a
collector does (an empty ExportTraceServiceResponse). Listens on 127.0.0.1 only. With --discard it
only answers (a collector that costs the exporter's machine nothing: the benchmarks' sink).
"""
import gzip
import json
import threading

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

import loopback_server


def value(any_value):
    """An AnyValue as plain JSON."""
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(item) for item in any_value.array_value.values]
    if kind == "kvlist_value":
        return {item.key: value(item.value) for item in any_value.kvlist_value.values}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind) if kind else None


def spans(request):
    for resource_spans in request.resource_spans:
        resource = {item.key: value(item.value) for item in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "service": resource.get("service.name"),
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": Span.SpanKind.Name(span.kind),
                    "start_ns": span.start_time_unix_nano,
                    "end_ns": span.end_time_unix_nano,
                    "attributes": {item.key: value(item.value) for item in span.attributes},
                    "links": [{"trace_id": link.trace_id.hex(), "span_id": link.span_id.hex()} for link in span.links],
                    "status": Status.StatusCode.Name(span.status.code),
                }


def main():
    parser = loopback_server.arguments()
    parser.add_argument("--discard", action="store_true")
    options = parser.parse_args()
    lock = threading.Lock()

    class Handler(loopback_server.QuietHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if options.discard:
                body = b""
            elif self.headers.get("Content-Encoding", "").lower() == "gzip":
                body = gzip.decompress(body)
            content_type = self.headers.get("Content-Type", "")
            request = ExportTraceServiceRequest()
            try:
                if self.path != "/v1/traces":
                    raise ValueError(f"unexpected path {self.path}")
                if content_type.startswith("application/json"):
                    json_format.Parse(body or b"{}", request)
                else:
                    request.ParseFromString(body)
            except Exception as error:  # an undecodable export is the exporter's bug: say so
                self.answer(400, f"cannot decode: {error}".encode())
                return
            with lock, open(options.log, "a") as log:
                for span in spans(request):
                    log.write(json.dumps(span) + "\n")
            answer = ExportTraceServiceResponse()
            if content_type.startswith("application/json"):
                self.answer(200, json_format.MessageToJson(answer).encode(), "application/json")
            else:
                self.answer(200, answer.SerializeToString(), "application/x-protobuf")

    loopback_server.serve(Handler, options.port, options.url_file)


if __name__ == "__main__":
    main()
