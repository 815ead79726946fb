import Foundation

/// Counts calls per key in a sliding window and refuses those over a limit, as a service's
/// rate limiter does. Refused calls are not counted.
actor CallWindows {
    private var calls: [String: [Date]] = [:]

    /// nil when the call may go on; otherwise the seconds until the oldest call in the window
    /// leaves it.
    func admit(_ key: String, limit: Int, per window: TimeInterval, at moment: Date) -> Double? {
        var recent = (calls[key] ?? []).filter { moment.timeIntervalSince($0) < window }
        defer { calls[key] = recent }
        guard recent.count < limit else {
            return max(0, window - moment.timeIntervalSince(recent[0]))
        }
        recent.append(moment)
        return nil
    }
}
