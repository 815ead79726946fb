/// One service's recent attempts in this worker, for its breaker: which failed for the service's
/// reasons and which the service answered, over the last `seconds`. Oldest first; trimmed as it
/// goes, so a call costs O(1) amortised (a success is recorded for every job).
struct BreakerWindow {
    private var entries: [(at: ContinuousClock.Instant, job: Int, failed: Bool)] = []
    private var head = 0
    private var failures = 0
    /// Plenty for a minute of a busy worker; past it the oldest entries go first.
    static let capacity = 20_000

    mutating func record(job: Int, failed: Bool, at now: ContinuousClock.Instant, keeping seconds: Double) {
        trim(before: now - .seconds(seconds))
        if entries.count - head >= Self.capacity { drop() }
        entries.append((now, job, failed))
        if failed { failures += 1 }
    }

    /// Whether what is in the window says the service is down: its latest attempts all failed,
    /// for `failedJobs` jobs in a row (it went away just now, whatever it did before), or its
    /// failures over the window reach `failureRatio` of the attempts, across `failedJobs` jobs
    /// (it fails much of the time).
    func isTripped(by settings: BreakerSettings) -> Bool {
        guard failures >= settings.failedJobs else { return false }
        var latest = Set<Int>()
        for index in stride(from: entries.count - 1, through: head, by: -1) {
            guard entries[index].failed else { break }
            latest.insert(entries[index].job)
            if latest.count >= settings.failedJobs { return true }
        }
        guard Double(failures) >= settings.failureRatio * Double(entries.count - head) else { return false }
        var jobs = Set<Int>()
        for entry in entries[head...] where entry.failed {
            jobs.insert(entry.job)
            if jobs.count >= settings.failedJobs { return true }
        }
        return false
    }

    /// Forget it all: the breaker changed, and what came before says nothing of what follows.
    mutating func reset() {
        entries.removeAll(keepingCapacity: true)
        head = 0
        failures = 0
    }

    private mutating func trim(before cutoff: ContinuousClock.Instant) {
        while head < entries.count, entries[head].at < cutoff { drop() }
        if head > 1024, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    private mutating func drop() {
        if entries[head].failed { failures -= 1 }
        head += 1
    }
}
