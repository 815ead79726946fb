import ArgumentParser
import Worker

/// `discern work`'s settings for the breaker each service has across the workers (docs/
/// operations.md, "When a service is down"): when its calls' failures say it is down, and how it
/// is probed until it answers again. Flags, else DISCERN_BREAKER_* variables, else the defaults.
struct BreakerOptions: ParsableArguments {
    @Option(help: "A service is down for this worker when this many jobs' attempts in a row failed for its own reasons (refused, reset, timeouts, 5xx, 429 beyond Retry-After), or this many within --breaker-window-seconds and at least --breaker-failure-ratio of its attempts there, 1-1000. Default: $DISCERN_BREAKER_FAILED_JOBS, else 5.")
    var breakerFailedJobs: Int?

    @Option(help: "The share of a window's attempts that must fail so, 0.01-1: a service failing one call in five keeps its per-job retries. Default: $DISCERN_BREAKER_FAILURE_RATIO, else 0.5.")
    var breakerFailureRatio: Double?

    @Option(help: "The window those failures are counted over, in seconds, 1-3600. Default: $DISCERN_BREAKER_WINDOW_SECONDS, else 60.")
    var breakerWindowSeconds: Double?

    @Option(help: "Seconds from a service found down to its first probe (one job, one call, across all workers); each failed probe doubles it, 0.1-3600. Default: $DISCERN_BREAKER_FIRST_PROBE_SECONDS, else 5.")
    var breakerFirstProbeSeconds: Double?

    @Option(help: "The longest wait between probes of a service that stays down, in seconds, 1-3600. Default: $DISCERN_BREAKER_MAX_PROBE_SECONDS, else 120.")
    var breakerMaxProbeSeconds: Double?

    func settings() throws -> BreakerSettings {
        let defaults = BreakerSettings()
        let first = try Setting.number(breakerFirstProbeSeconds, "breaker-first-probe-seconds", env: "DISCERN_BREAKER_FIRST_PROBE_SECONDS",
                                       default: defaults.firstProbeSeconds, in: 0.1...3600)
        let most = try Setting.number(breakerMaxProbeSeconds, "breaker-max-probe-seconds", env: "DISCERN_BREAKER_MAX_PROBE_SECONDS",
                                      default: defaults.maxProbeSeconds, in: 1...3600)
        guard most >= first else {
            throw SettingError("the longest wait between probes (\(Setting.plain(most)) s) must not be shorter than the first (\(Setting.plain(first)) s)")
        }
        return BreakerSettings(
            failedJobs: try Setting.integer(breakerFailedJobs, "breaker-failed-jobs", env: "DISCERN_BREAKER_FAILED_JOBS",
                                            default: defaults.failedJobs, in: 1...1000),
            failureRatio: try Setting.number(breakerFailureRatio, "breaker-failure-ratio", env: "DISCERN_BREAKER_FAILURE_RATIO",
                                             default: defaults.failureRatio, in: 0.01...1),
            windowSeconds: try Setting.number(breakerWindowSeconds, "breaker-window-seconds", env: "DISCERN_BREAKER_WINDOW_SECONDS",
                                              default: defaults.windowSeconds, in: 1...3600),
            firstProbeSeconds: first, maxProbeSeconds: most)
    }
}
