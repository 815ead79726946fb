import ArgumentParser
import Backends
import Foundation
import Imaging
import MediaFiles
import Postgres
import Worker

extension WorkCommand {
    /// Every setting, checked once: flags, then the environment, then the defaults.
    struct Settings {
        var roots: PathRoots
        var concurrency: Int
        var prepareThreads: Int
        var maxMBInFlight: Int
        /// Where the memory budget came from, said at start.
        var maxMBInFlightReason: String
        var leaseSeconds: Double
        var graceSeconds: Double
        var pollSeconds: Double
        var truncatedRetrySeconds: Double
        var metricsPort: Int?
        var metricsHost: String
        var poolMode: PoolMode
        var listenConninfo: String?
    }

    func settings() throws -> Settings {
        guard let roots = try Setting.pathRoots(pathRoots) else {
            throw SettingError("set the folders job files may be read from: --path-root /photos (repeatable) or DISCERN_PATH_ROOTS=/photos:/archive")
        }
        let port: Int? = metricsPort != nil || Setting.present("DISCERN_METRICS_PORT") != nil
            ? try Setting.integer(metricsPort, "metrics-port", env: "DISCERN_METRICS_PORT", default: 0, in: 0...65535) : nil
        let budget = MemoryBudget.detect()
        return Settings(
            roots: roots,
            concurrency: try Setting.integer(concurrency, "concurrency", env: "DISCERN_CONCURRENCY", default: 16, in: 1...1024),
            prepareThreads: try Setting.integer(prepareThreads, "prepare-threads", env: "DISCERN_PREPARE_THREADS",
                                                default: ProcessInfo.processInfo.activeProcessorCount, in: 1...256),
            maxMBInFlight: try Setting.integer(maxMBInFlight, "max-mb-in-flight", env: "DISCERN_MAX_MB_IN_FLIGHT", default: budget.megabytes, in: 1...65536),
            maxMBInFlightReason: maxMBInFlight != nil ? "--max-mb-in-flight"
                : Setting.present("DISCERN_MAX_MB_IN_FLIGHT") != nil ? "DISCERN_MAX_MB_IN_FLIGHT" : budget.reason,
            leaseSeconds: try Setting.number(leaseSeconds, "lease-seconds", env: "DISCERN_LEASE_SECONDS", default: 30, in: 1...3600),
            graceSeconds: try Setting.number(graceSeconds, "grace-seconds", env: "DISCERN_GRACE_SECONDS", default: 30, in: 0...3600),
            pollSeconds: try Setting.number(pollSeconds, "poll-seconds", env: "DISCERN_POLL_SECONDS", default: 5, in: 0.05...3600),
            truncatedRetrySeconds: try Setting.number(truncatedRetrySeconds, "truncated-retry-seconds", default: 300, in: 1...86400),
            metricsPort: port,
            metricsHost: metricsHost ?? Setting.present("DISCERN_METRICS_HOST") ?? "127.0.0.1",
            poolMode: try Setting.choice(poolMode, env: "DISCERN_POOL_MODE", default: PoolModeChoice.direct).poolMode,
            listenConninfo: listenDatabaseURL ?? Setting.present("DISCERN_LISTEN_DATABASE_URL"))
    }

    /// Every configured service, or the ones --backend / DISCERN_BACKENDS name (each must be configured).
    func chosenBackends(_ environment: BackendEnvironment, gate: PostgresRateGate, concurrency: Int) throws -> [any AnalysisBackend] {
        var chosen = servedBackends.map(\.rawValue)
        if chosen.isEmpty, let list = Setting.present("DISCERN_BACKENDS") {
            chosen = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if let unknown = chosen.first(where: { BackendChoice(rawValue: $0) == nil }) {
                throw SettingError("DISCERN_BACKENDS names '\(unknown)'; services are \(Services.names.joined(separator: ", "))")
            }
        }
        if let missing = chosen.first(where: { !environment.configuredBackendNames.contains($0) }) {
            throw SettingError("asked to serve \(missing), which is not configured: set its URL (docs/backends.md)")
        }
        do {
            let all = try environment.backends(gate: gate, maxConcurrentCalls: concurrency)
            return chosen.isEmpty ? all : all.filter { chosen.contains($0.name) }
        } catch {
            throw SettingError(error.description)
        }
    }
}
