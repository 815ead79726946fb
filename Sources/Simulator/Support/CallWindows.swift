import Foundation

/// Counts calls per key in a sliding window and refuses those over a limit, as a service's
/// rate limiter does. Refused calls are not counted. Calls are judged by when they arrived,
/// which need not be the order their handlers run in: the times are kept sorted.
actor CallWindows {
    private var calls: [String: [Date]] = [:]

    /// nil when the call may go on; otherwise the seconds until the oldest call in the window
    /// leaves it.
    func admit(_ key: String, limit: Int, per window: TimeInterval, at moment: Date) -> Double? {
        var kept = (calls[key] ?? []).filter { moment.timeIntervalSince($0) < window || $0 > moment }
        defer { calls[key] = kept }
        let inWindow = kept.filter { $0 <= moment }
        if inWindow.count >= limit {
            return max(0, window - moment.timeIntervalSince(inWindow[0]))
        }
        kept.insert(moment, at: kept.firstIndex { $0 > moment } ?? kept.endIndex)
        return nil
    }
}
