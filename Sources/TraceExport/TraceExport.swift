import Foundation
import Logging
import OTel
import ServiceLifecycle
import Telemetry

/// OpenTelemetry's OTLP exporter (swift-otel), for every command, when the standard variables
/// ask for it (docs/tracing.md): `OTEL_EXPORTER_OTLP_ENDPOINT` or
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_TRACES_EXPORTER` set to an exporter; never when
/// `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. Every other `OTEL_*` variable
/// (protocol, headers, sampler, batch sizes, resource attributes) is swift-otel's to read.
/// Off by default: nothing starts, and each span helper is a flag's check (`Traces`).
public struct TraceExport {
    private let exporter: Task<Void, any Error>
    private let group: ServiceGroup

    /// Whether the environment asks for traces.
    public static func isWanted(_ environment: [String: String]) -> Bool {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return false }
        if let exporter = environment["OTEL_TRACES_EXPORTER"]?.lowercased(), !exporter.isEmpty { return exporter != "none" }
        return ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].contains { !(environment[$0] ?? "").isEmpty }
    }

    /// Starts exporting when the environment asks for it; nil otherwise. A configuration
    /// swift-otel refuses is said on stderr and the command runs untraced, as it would without.
    public static func startIfWanted(_ environment: [String: String]) -> TraceExport? {
        guard isWanted(environment) else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "discern"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        // Its own diagnostics on stderr: problems only (OTEL_LOG_LEVEL says otherwise).
        configuration.diagnosticLogLevel = .warning
        // A batch tool's bursts: `discern enqueue` makes 10,000 spans a chunk, in a moment. The
        // specification's 2,048 would drop most of them (and their jobs' traces would lose their
        // first span); 32,768 holds three chunks, about 30 MB at worst. OTEL_BSP_* still win.
        configuration.traces.batchSpanProcessor.maxQueueSize = 32_768
        configuration.traces.batchSpanProcessor.maxExportBatchSize = 2_048
        do {
            let service = try OTel.makeTracingBackend(configuration: configuration)
            let group = ServiceGroup(services: [service.service], logger: Logger(label: "discern.traces") { _ in SwiftLogNoOpLogHandler() })
            Traces.start(service.factory)
            return TraceExport(exporter: Task { try await group.run() }, group: group)
        } catch {
            try? FileHandle.standardError.write(contentsOf: Data("traces are off: the OTEL_* settings were refused (\(error))\n".utf8))
            return nil
        }
    }

    /// Sends the spans still buffered and stops: called once the command is done, so a short
    /// command (`discern enqueue`) loses none of its spans.
    public func finish() async {
        await group.triggerGracefulShutdown()
        _ = await exporter.result
    }
}
