import ArgumentParser
import ServiceClients
import Foundation
import Logging
import MediaFiles
import ObjectStorage
import Postgres
import Worker

/// All `discern work` is told, as one value: the worker's configuration (its defaults are the
/// runtime's, WorkerConfiguration and BreakerSettings) and what the command sets up around it.
struct WorkSettings: SettingsRoot, Sendable {
    var worker: WorkerConfiguration
    var metricsPort: Int?
    var metricsHost = "127.0.0.1"
    var poolMode = PoolModeChoice.direct
    var listenDatabaseURL: String?
    /// Where the memory budget came from, said at start.
    var budgetSource: String

    /// One look at the memory limit gives both the default budget and where it came from (the
    /// configuration's own default would look again). Path roots come from `--path-root`
    /// (required): none until then.
    static let defaults: WorkSettings = {
        let budget = MemoryBudget.detect()
        return WorkSettings(
            worker: WorkerConfiguration(pathRoots: PathRoots(merging: []), maxBytesInFlight: budget.megabytes << 20),
            budgetSource: budget.reason)
    }()
}

extension WorkerConfiguration {
    /// The memory budget as its flag takes it.
    var megabytesInFlight: Int {
        get { maxBytesInFlight >> 20 }
        set { maxBytesInFlight = newValue << 20 }
    }
}

/// `discern work`'s settings, each declared once: a spec (flag, variable, values, what it does)
/// and its line here; docs/configuration.md's worker table has its row.
struct WorkSettingSpecs: ParsableArguments {
    @OptionGroup var concurrency: SettingFlag<Concurrency>
    @OptionGroup var prepareThreads: SettingFlag<PrepareThreads>
    @OptionGroup var maxMBInFlight: SettingFlag<MaxMBInFlight>
    @OptionGroup var leaseSeconds: SettingFlag<LeaseSeconds>
    @OptionGroup var graceSeconds: SettingFlag<GraceSeconds>
    @OptionGroup var pollSeconds: SettingFlag<PollSeconds>
    @OptionGroup var truncatedRetrySeconds: SettingFlag<TruncatedRetrySeconds>
    @OptionGroup var metricsPort: SettingFlag<MetricsPort>
    @OptionGroup var metricsHost: SettingFlag<MetricsHost>
    @OptionGroup var poolMode: SettingFlag<PoolModeSetting>
    @OptionGroup var listenDatabaseURL: SettingFlag<ListenDatabaseURL>

    enum Concurrency: IntegerSetting {
        static let flag = "concurrency", variable: String? = "DISCERN_CONCURRENCY", range = 1...1024
        static let summary = "Calls to services in flight at once, 1-1024 (hides network latency)"
        static let keyPath = \WorkSettings.worker.concurrency
    }

    enum PrepareThreads: IntegerSetting {
        static let flag = "prepare-threads", variable: String? = "DISCERN_PREPARE_THREADS", range = 1...256
        static let summary = "Threads preparing images, 1-256", defaultText = "the number of cores"
        static let keyPath = \WorkSettings.worker.prepareThreads
    }

    enum MaxMBInFlight: IntegerSetting {
        static let flag = "max-mb-in-flight", variable: String? = "DISCERN_MAX_MB_IN_FLIGHT", range = 1...65536
        static let summary = "Megabytes images may hold at once, while prepared and while waiting for or in a call, 1-65536"
        static let defaultText = "a quarter of the cgroup's memory limit or the RAM, within \(MemoryBudget.floorMB)-\(MemoryBudget.ceilingMB)"
        static let keyPath = \WorkSettings.worker.megabytesInFlight
    }

    enum LeaseSeconds: NumberSetting {
        static let flag = "lease-seconds", variable: String? = "DISCERN_LEASE_SECONDS", range = 1.0...3600
        static let summary = "Seconds a claimed job stays ours without a heartbeat (renewed every 10 s), 1-3600"
        static let keyPath = \WorkSettings.worker.leaseSeconds
    }

    enum GraceSeconds: NumberSetting {
        static let flag = "grace-seconds", variable: String? = "DISCERN_GRACE_SECONDS", range = 0.0...3600
        static let summary = "On SIGTERM/SIGINT, seconds jobs in flight may take before they are handed back to the queue, 0-3600"
        static let keyPath = \WorkSettings.worker.graceSeconds
    }

    enum PollSeconds: NumberSetting {
        static let flag = "poll-seconds", variable: String? = "DISCERN_POLL_SECONDS", range = 0.05...3600
        static let summary = "Seconds between looks at the queue when no notification arrives, 0.05-3600 (LISTEN/NOTIFY is the fast path)"
        static let keyPath = \WorkSettings.worker.pollIntervalSeconds
    }

    enum TruncatedRetrySeconds: NumberSetting {
        static let flag = "truncated-retry-seconds", variable: String? = nil, range = 1.0...86400
        static let summary = "Seconds before a truncated file (maybe still being copied) is tried once more, 1-86400"
        static let keyPath = \WorkSettings.worker.truncatedRetrySeconds
    }

    enum MetricsPort: IntegerSetting {
        static let flag = "metrics-port", variable: String? = "DISCERN_METRICS_PORT", range = 0...65535
        static let summary = "Serve Prometheus metrics on this port, 0-65535 (0 picks one; it is logged)", defaultText = "off"
        static let keyPath = \WorkSettings.metricsPort
    }

    enum MetricsHost: TextSetting {
        static let flag = "metrics-host", variable: String? = "DISCERN_METRICS_HOST"
        static let summary = "Address the metrics endpoint listens on"
        static let keyPath = \WorkSettings.metricsHost
    }

    enum PoolModeSetting: ChoiceSetting {
        static let flag = "pool-mode", variable: String? = "DISCERN_POOL_MODE"
        static let summary =
            "How --database-url reaches PostgreSQL: direct, or through a transaction-mode pooler such as PgBouncer "
            + "(no prepared statements; LISTEN only over --listen-database-url, else polling every --poll-seconds)"
        static let keyPath = \WorkSettings.poolMode
    }

    enum ListenDatabaseURL: TextSetting {
        static let flag = "listen-database-url", variable: String? = "DISCERN_LISTEN_DATABASE_URL"
        static let summary = "A direct PostgreSQL URL for LISTEN when --database-url goes through a transaction-mode pooler", defaultText = "none"
        static let keyPath = \WorkSettings.listenDatabaseURL
    }
}

extension WorkCommand {
    /// Every setting, checked once: flags, then the environment (or --config), then the defaults.
    func settings(logger: Logger) throws -> WorkSettings {
        let roots = try Setting.pathRoots(pathRoots), buckets = try Setting.objectRoots(pathRoots)
        guard roots != nil || !buckets.isEmpty else {
            throw SettingError(
                "set the folders (or buckets) job files may be read from: --path-root /photos (repeatable) or "
                    + "DISCERN_PATH_ROOTS=/photos:/archive:s3://fleet-uploads/cameras/")
        }
        var (settings, sources) = try SettingFlags.apply(knobs, to: WorkSettings.defaults)
        (settings, _) = try SettingFlags.apply(breaker, to: settings)
        try BreakerSettingSpecs.check(settings.worker.breaker)
        settings.worker.pathRoots = roots ?? PathRoots(merging: [])
        if !buckets.isEmpty {
            let store = try Setting.objectStore(logger: logger)
            logger.info("bucket credentials", metadata: ["source": "\(store.credentials.source)"])
            settings.worker.objects = ObjectReader(store: store, allowed: buckets)
        }
        settings.worker.drain = drain
        switch sources[WorkSettingSpecs.MaxMBInFlight.flag] {
        case .flag(let name), .variable(let name): settings.budgetSource = name
        default: break
        }
        return settings
    }

    /// Every configured service, or the ones --service / DISCERN_SERVICES name (each must be
    /// configured). DISCERN_BACKENDS and --backend, the names before 0.11, still work.
    func chosenClients(_ environment: ServiceEnvironment, gate: PostgresRateGate, concurrency: Int) throws -> [any AnalysisClient] {
        var chosen = servedServices.map(\.rawValue)
        let variable = ["DISCERN_SERVICES", "DISCERN_BACKENDS"].first { Setting.present($0) != nil }
        if chosen.isEmpty, let variable, let list = Setting.present(variable) {
            chosen = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if let unknown = chosen.first(where: { ServiceChoice(rawValue: $0) == nil }) {
                throw SettingError("\(variable) names '\(unknown)'; services are \(Services.names.joined(separator: ", "))")
            }
        }
        if let missing = chosen.first(where: { !environment.configuredServiceNames.contains($0) }) {
            throw SettingError("asked to serve \(missing), which is not configured: set its URL (docs/services.md)")
        }
        do {
            let all = try environment.clients(gate: gate, maxConcurrentCalls: concurrency)
            return chosen.isEmpty ? all : all.filter { chosen.contains($0.name) }
        } catch {
            throw SettingError(error.description)
        }
    }
}
