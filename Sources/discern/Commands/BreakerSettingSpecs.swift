import ArgumentParser
import Worker

/// `discern work`'s settings for the breaker each service has across the workers (docs/
/// operations.md, "When a service is down"): when its calls' failures say it is down, and how it
/// is probed until it answers again. Declared as WorkSettingSpecs are; defaults are BreakerSettings'.
struct BreakerSettingSpecs: ParsableArguments {
    @OptionGroup var failedJobs: SettingFlag<FailedJobs>
    @OptionGroup var failureRatio: SettingFlag<FailureRatio>
    @OptionGroup var windowSeconds: SettingFlag<WindowSeconds>
    @OptionGroup var firstProbeSeconds: SettingFlag<FirstProbeSeconds>
    @OptionGroup var maxProbeSeconds: SettingFlag<MaxProbeSeconds>
    @OptionGroup var refreshSeconds: SettingFlag<RefreshSeconds>

    enum FailedJobs: IntegerSetting {
        static let flag = "breaker-failed-jobs", variable: String? = "DISCERN_BREAKER_FAILED_JOBS", range = 1...1000
        static let summary =
            "A service is down for this worker when this many jobs' attempts in a row failed for its own reasons "
            + "(refused, reset, timeouts, 5xx, 429 beyond Retry-After), or this many within --breaker-window-seconds and at least "
            + "--breaker-failure-ratio of its attempts there, 1-1000"
        static let keyPath = \WorkSettings.worker.breaker.failedJobs
    }

    enum FailureRatio: NumberSetting {
        static let flag = "breaker-failure-ratio", variable: String? = "DISCERN_BREAKER_FAILURE_RATIO", range = 0.01...1
        static let summary =
            "The share of a window's attempts that must fail so, 0.01-1: a service failing one call in five keeps its per-job retries"
        static let keyPath = \WorkSettings.worker.breaker.failureRatio
    }

    enum WindowSeconds: NumberSetting {
        static let flag = "breaker-window-seconds", variable: String? = "DISCERN_BREAKER_WINDOW_SECONDS", range = 1.0...3600
        static let summary = "The window those failures are counted over, in seconds, 1-3600"
        static let keyPath = \WorkSettings.worker.breaker.windowSeconds
    }

    enum FirstProbeSeconds: NumberSetting {
        static let flag = "breaker-first-probe-seconds", variable: String? = "DISCERN_BREAKER_FIRST_PROBE_SECONDS", range = 0.1...3600
        static let summary = "Seconds from a service found down to its first probe (one job, one call, across all workers), 0.1-3600"
        static let keyPath = \WorkSettings.worker.breaker.firstProbeSeconds
    }

    enum MaxProbeSeconds: NumberSetting {
        static let flag = "breaker-max-probe-seconds", variable: String? = "DISCERN_BREAKER_MAX_PROBE_SECONDS", range = 1.0...3600
        static let summary = "Seconds between probes once one has failed (±10 %), 1-3600"
        static let keyPath = \WorkSettings.worker.breaker.maxProbeSeconds
    }

    enum RefreshSeconds: NumberSetting {
        static let flag = "breaker-refresh-seconds", variable: String? = "DISCERN_BREAKER_REFRESH_SECONDS", range = 0.1...3600
        static let summary =
            "How often this worker reads which services other workers found down, in seconds: until then it may "
            + "prepare photos for one (its claims skip it at once), 0.1-3600"
        static let keyPath = \WorkSettings.worker.breaker.refreshSeconds
    }

    /// What no one knob can check alone.
    static func check(_ settings: BreakerSettings) throws {
        guard settings.maxProbeSeconds >= settings.firstProbeSeconds else {
            throw SettingError(
                "the longest wait between probes (\(Setting.plain(settings.maxProbeSeconds)) s) must not be shorter than the first (\(Setting.plain(settings.firstProbeSeconds)) s)"
            )
        }
    }
}
