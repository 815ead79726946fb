import Foundation

/// What the simulator saw: calls per service with their times, faults injected, and calls that
/// came back before the Retry-After they were given. Tests and `GET /_sim/stats` read it.
public actor SimulatorStats {
    private var calls: [String: [Date]] = [:]
    /// Calls stamped when read, for want of the kernel's time (`ArrivalStamp`), by service.
    private var unstamped: [String: Int] = [:]
    /// How long after arriving each call was read, by service, in arrival order (`ArrivalStamp`).
    private var readDelays: [String: [(arrived: Date, delay: Double)]] = [:]
    /// The same calls by route (`discerner.analyze`, `azure.detect`, ...).
    private var routeCalls: [String: [Date]] = [:]
    private var faults: [String: Int] = [:]
    /// What a real service would have refused on its own (not injected): analysis starts in
    /// the same second, images over the vision limit, calls over a rate limit, bad requests.
    private var refusals: [String: Int] = [:]
    /// When each job (by `X-Correlation-ID`) was told to wait (the 429 left), and until when.
    private var notBefore: [String: (arrived: Date, issued: Date, until: Date)] = [:]
    /// When each job's latest call arrived.
    private var lastArrival: [String: Date] = [:]
    private var violations: [String] = []
    private var answers: [String: [Answer]] = [:]
    /// The W3C `traceparent` headers each job's calls carried (by `X-Correlation-ID`), by route.
    private var traceparents: [String: [(route: String, traceparent: String)]] = [:]

    /// An analysis answer as sent, and the size of the image it analysed.
    public struct Answer: Sendable {
        public let body: Data
        public let imageBytes: Int
    }

    package init() {}

    func record(service: String, route: String, correlationID: String?, at moment: Date, read: Date? = nil, kernelStamped: Bool = true) {
        calls[service, default: []].append(moment)
        if !kernelStamped { unstamped[service, default: 0] += 1 }
        readDelays[service, default: []].append((moment, (read ?? moment).timeIntervalSince(moment)))
        routeCalls[route, default: []].append(moment)
        // A call that arrived before the 429 left cannot have been told to wait (a retry of a
        // call whose answer the client had given up on, answered late by a busy simulator). A
        // few milliseconds of slack for clocks read at slightly different points.
        if let id = correlationID, let wait = notBefore[id], moment >= wait.issued, moment < wait.until.addingTimeInterval(-0.02) {
            violations.append(
                "\(service) \(id) came \(String(format: "%.3f", wait.until.timeIntervalSince(moment))) s early "
                    + "(the 429 it was given left \(String(format: "%.3f", wait.issued.timeIntervalSince(wait.arrived))) s after its call arrived)")
        }
        if let id = correlationID { lastArrival[id] = max(lastArrival[id] ?? moment, moment) }
    }

    func recordTraceparent(_ traceparent: String, route: String, correlationID: String?) {
        guard let id = correlationID else { return }
        traceparents[id, default: []].append((route, traceparent))
    }

    /// The `traceparent` headers the calls of a job (`discern-job-<id>`) carried, in order.
    public func traceparents(for correlationID: String) -> [(route: String, traceparent: String)] { traceparents[correlationID] ?? [] }

    func recordFault(_ kind: String) { faults[kind, default: 0] += 1 }
    func recordAnswer(correlationID: String?, _ answer: Answer) {
        guard let id = correlationID else { return }
        answers[id, default: []].append(answer)
    }
    func recordRefusal(_ kind: String) { refusals[kind, default: 0] += 1 }

    /// A 429 for the call of `correlationID` that arrived at `arrived`. A client sends a job's
    /// next call only once it has its answer or has given up on it: if a later call of the job
    /// arrived already, this answer goes to a client that moved on, and asks nothing of it.
    func retryAfter(correlationID: String?, arrived: Date, issued: Date, until: Date) {
        guard let id = correlationID, (lastArrival[id] ?? arrived) <= arrived else { return }
        if let earlier = notBefore[id], earlier.until > until { return }
        notBefore[id] = (arrived, issued, until)
    }

    public func callCount(_ service: String) -> Int { calls[service]?.count ?? 0 }
    public func faultCount(_ kind: String) -> Int { faults[kind] ?? 0 }
    /// e.g. `discerner.start_collision`, `discerner.vision_rejected`, `discerner.analyze.429`,
    /// `azure-face.429`, `s3.unsigned_header`.
    public func refusalCount(_ kind: String) -> Int { refusals[kind] ?? 0 }
    public var allRefusals: [String: Int] { refusals }
    public var retryAfterViolations: [String] { violations }

    /// Every analysis answered for a correlation id (`discern-job-<id>`), in order; recorded only
    /// with `SimulatorConfiguration.recordsAnswers`.
    public func answers(for correlationID: String) -> [Answer] { answers[correlationID] ?? [] }

    /// When each call to `service` arrived, in order.
    public func arrivals(_ service: String) -> [Date] { (calls[service] ?? []).sorted() }

    /// The most calls to `service` that arrived within any window of `seconds`: arrivals are
    /// the kernel's (`ArrivalStamp`), so a simulator that read calls late never bunches them.
    public func maxCalls(_ service: String, within seconds: Double) -> Int {
        let times = arrivals(service)
        var best = 0, upper = 0
        for (first, start) in times.enumerated() {
            while upper < times.count, times[upper] < start.addingTimeInterval(seconds) { upper += 1 }
            best = max(best, upper - first)
        }
        return best
    }

    /// How long after arriving each call to `service` was read, in order of arrival: what a
    /// stamp taken on reading would have been wrong by.
    /// Calls to `service` whose arrival is only their read time: 0 on Linux over TCP.
    public func unstampedCalls(_ service: String) -> Int { unstamped[service] ?? 0 }

    public func readDelays(_ service: String) -> [(arrived: Date, delay: Double)] {
        (readDelays[service] ?? []).sorted { $0.arrived < $1.arrived }
    }

    /// Calls per minute to `route` between its first and last call; nil under two calls.
    public func ratePerMinute(_ route: String) -> Double? {
        guard let times = routeCalls[route], times.count >= 2, let first = times.min(), let last = times.max(),
            last > first
        else { return nil }
        return Double(times.count - 1) / last.timeIntervalSince(first) * 60
    }

    public func routeCallCount(_ route: String) -> Int { routeCalls[route]?.count ?? 0 }

    /// The stats as a JSON document, for `GET /_sim/stats`.
    func snapshotJSON() -> Data {
        var object: [String: Any] = [
            "calls": calls.mapValues(\.count),
            "faults": faults,
            "refusals": refusals,
            "retry_after_violations": violations.count,
            "max_calls_per_minute": Dictionary(uniqueKeysWithValues: calls.keys.map { ($0, maxCalls($0, within: 60)) }),
            "routes": Dictionary(
                uniqueKeysWithValues: routeCalls.keys.map { route in
                    (route, ["calls": routeCalls[route]?.count ?? 0, "per_minute": ratePerMinute(route) ?? 0] as [String: Any])
                })
        ]
        // Only while callers trace (docs/tracing.md): each job's calls' headers, in order.
        if !traceparents.isEmpty { object["traceparents"] = traceparents.mapValues { $0.map(\.traceparent) } }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    }
}
