import Telemetry
import Testing
import TraceExport

/// Traces are off unless the standard OpenTelemetry variables ask (docs/tracing.md), and off
/// they make nothing: no span, no traceparent.
@Suite("Trace switch")
struct TraceSwitchTests {
    @Test("on with an OTLP endpoint or a named exporter; off by default, with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none")
    func wanted() {
        #expect(!TraceExport.isWanted([:]))
        #expect(!TraceExport.isWanted(["OTEL_SERVICE_NAME": "discern", "OTEL_EXPORTER_OTLP_ENDPOINT": ""]))
        #expect(TraceExport.isWanted(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"]))
        #expect(TraceExport.isWanted(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"]))
        #expect(TraceExport.isWanted(["OTEL_TRACES_EXPORTER": "otlp"]))
        #expect(!TraceExport.isWanted(["OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"]))
        #expect(!TraceExport.isWanted(["OTEL_SDK_DISABLED": "TRUE", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"]))
    }

    @Test("off, a span is nothing: no traceparent, no link, and the work runs as it is")
    func offCostsNothing() async {
        #expect(!Traces.isOn)
        let traced = Traces.begin(
            "process discerner", parent: .remote(traceparent: "00-\(String(repeating: "a", count: 32))-\(String(repeating: "b", count: 16))-01"))
        #expect(traced.traceparent == nil)
        traced.link(to: "00-\(String(repeating: "c", count: 32))-\(String(repeating: "d", count: 16))-01")
        traced.end()
        let answer = await Traces.span("prepare") { inner in inner.traceparent == nil ? 42 : 0 }
        #expect(answer == 42)
    }
}
