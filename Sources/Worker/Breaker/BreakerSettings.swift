/// When a service counts as unavailable, and how it is tested again (docs/operations.md, "When a
/// service is down"). The defaults are what a night wants: a burst of a few seconds (a gateway
/// restarting, a Lambda throttled; the inline retries of an attempt ride those out) trips
/// nothing, an outage trips within a few jobs, and a service away for an hour is tried about
/// twice a minute, by one call across every worker.
public struct BreakerSettings: Sendable, Equatable {
    /// This worker finds the service down when the attempts of this many jobs in a row failed
    /// for the service's reasons (it went away just now), or when this many jobs' attempts
    /// failed so within `windowSeconds` and they were at least `failureRatio` of its attempts
    /// there (it fails much of the time). An attempt has tried each call up to three times
    /// already: a service failing one call in five fails fewer than one attempt in a hundred,
    /// five in a row once in three billion attempts, and keeps its per-job retries.
    public var failedJobs: Int
    public var failureRatio: Double
    public var windowSeconds: Double
    /// The first probe goes this long after the trip (a blip is over by then); once a probe has
    /// failed the outage is real, and each next one waits `maxProbeSeconds`, ±10 %: at the
    /// defaults (35 s: 31.5-38.5) at most two probes in any minute of an outage, and work again
    /// within 40 s of the service's return (Resilience4j waits 60 s in its open state). The first
    /// answered probe closes the breaker.
    public var firstProbeSeconds: Double
    public var maxProbeSeconds: Double
    /// How often a worker reads which services other workers found down: it then prepares no
    /// photo for them. (Claims skip them at once, whatever this is.)
    public var refreshSeconds: Double

    public init(
        failedJobs: Int = 5, failureRatio: Double = 0.5, windowSeconds: Double = 60, firstProbeSeconds: Double = 5,
        maxProbeSeconds: Double = 35, refreshSeconds: Double = 2
    ) {
        self.failedJobs = max(1, failedJobs)
        self.failureRatio = min(max(failureRatio, 0.01), 1)
        self.windowSeconds = max(1, windowSeconds)
        self.firstProbeSeconds = max(0.1, firstProbeSeconds)
        self.maxProbeSeconds = max(self.firstProbeSeconds, maxProbeSeconds)
        self.refreshSeconds = max(0.1, refreshSeconds)
    }
}
