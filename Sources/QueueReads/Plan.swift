import Foundation
import Postgres
import SQLSchema

/// The night's plan (`discern plan`, the console's /plan, the monitor's discern_plan_* series):
/// per service, what is queued, the pace it will go at and what binds it, when it finishes (a
/// range), what will not finish before `until` and what it costs. The figures are
/// discern.plan_until (sql/functions/plan_until.sql); this adds, per service, the jobs left over
/// when the window closes, by batch and priority, in the order workers claim them.
public struct Plan: Codable, Sendable {
    public struct Service: Codable, Sendable {
        public let service: String
        /// Jobs waiting (claimable before `until`), running, and scheduled after `until`.
        public let waiting: Int
        public let running: Int
        public let later: Int
        /// Waiting jobs by priority ("0": 1200).
        public let byPriority: [String: Int]
        /// Measured over the service's last 1,000 results and finished jobs: calls a result took, attempts a job took.
        public let callsPerJob: Double?
        public let attemptsPerJob: Double?
        /// The tightest shared rate limit, in jobs a minute.
        public let limitKey: String?
        public let limitPerMinute: Double?
        /// Jobs finished a minute over the last ten complete minutes (median and quartiles).
        public let measuredPerMinute: Double?
        public let measuredLow: Double?
        public let measuredHigh: Double?
        /// The pace the forecast takes, and its range; nil when nothing moves it (paused, no worker).
        public let perMinute: Double?
        public let perMinuteLow: Double?
        public let perMinuteHigh: Double?
        /// What binds the pace: "rate limit discerner:analyze", "the workers (...)", "no live worker", "paused", "not measured yet".
        public let constraintText: String
        public let finishEarly: String?
        public let finishLate: String?
        /// With a window: the jobs that finish in it and those that will not.
        public let fits: Int?
        public let willNotFinish: Int?
        public let pricePerCall: Double?
        public let costForecast: Double?
        public let callsThisMonth: Int
        public let spendThisMonth: Double?
        /// The spend cap in calls (a money cap divided by the price), its period (day, month)
        /// and the calls of the period so far; nil without a cap.
        public let capCalls: Double?
        public let capPeriod: String?
        public let capUsed: Int?
        public let leftOver: [LeftOver]
    }

    /// Jobs that will still wait when the window closes, by batch and priority.
    public struct LeftOver: Codable, Sendable {
        public let batch: String?
        public let priority: Int
        public let jobs: Int
        public let oldest: String
    }

    public let generatedAt: String
    public let until: String?
    public let services: [Service]
}

extension Plan.Service {
    /// The pace as people read it: "27.0–30.0" jobs a minute, "30.0" when the range is one
    /// figure; nil when nothing moves the jobs.
    public var paceText: String? {
        guard let low = perMinuteLow, let high = perMinuteHigh else { return nil }
        return abs(high - low) < 0.05 ? String(format: "%.1f", high) : String(format: "%.1f–%.1f", low, high)
    }

    /// The finish range, early and late (one moment when they agree); nil: never at this pace.
    public var finishRange: [String]? {
        guard let early = finishEarly, let late = finishLate else { return nil }
        return early == late ? [early] : [early, late]
    }

    /// The soonest finish of a service that is unavailable now (its latest is unknown).
    public var finishNoSoonerThan: String? { finishLate == nil ? finishEarly : nil }
}

extension Plan {
    /// When a window given as text ends: "06:00" is the next 06:00 in this machine's time zone
    /// (tomorrow's once today's has passed); else an ISO 8601 time with its offset.
    public static func windowEnd(_ text: String, now: Date = Date(), calendar: Calendar = .current) -> Date? {
        if let match = text.wholeMatch(of: /(\d{1,2}):(\d{2})/), let hour = Int(match.1), let minute = Int(match.2),
            (0..<24).contains(hour), (0..<60).contains(minute)
        {
            return calendar.nextDate(after: now, matching: DateComponents(hour: hour, minute: minute, second: 0), matchingPolicy: .nextTime)
        }
        return try? Date(text, strategy: .iso8601)
    }
}

extension QueueReader {
    /// - Parameter until: the end of the window, or nil for the forecast alone.
    public func plan(until: Date?) async throws -> Plan {
        try await document(Plan.self, Queries.Plan.Document(until: until.map { $0.formatted(.iso8601) }))
    }
}
