import Postgres
import SQLSchema

/// The outbox of batch webhooks (migration 0031): a batch's end becomes an event with its
/// report (`announce`), and each event one delivery per destination, taken by one worker at a
/// time (`takeDue`), then marked delivered or due again later (`record`). Destinations are names
/// only (`WebhookDestination.name`): their URLs stay in the workers' settings.
public enum WebhookOutbox {
    /// Batches that ended and settled get their event; returns how many. One caller at a time
    /// does the work (an advisory lock); the others get 0.
    @discardableResult
    public static func announce(_ connection: Connection, settleSeconds: Double) throws -> Int {
        try connection.run(Queries.WebhookOutbox.Announce(settleSeconds: settleSeconds)).first?.announced ?? 0
    }

    /// Records destinations as known from now: each receives the events after its first sighting.
    public static func register(_ connection: Connection, destinations: [String]) throws {
        guard !destinations.isEmpty else { return }
        try connection.run(Queries.WebhookOutbox.Register(destinations: BinaryArray(destinations)))
    }

    /// One delivery to make: one event's report for one destination.
    public struct Due: Sendable, Equatable {
        public let eventID: Int
        public let destination: String
        /// 1 for the first try.
        public let attempt: Int
        /// The report as discern.batch_event_report wrote it (JSON).
        public let reportJSON: String
        /// When the first try went out, as Unix seconds: how long the retries have lasted.
        public let ageSeconds: Double
    }

    /// Makes the deliveries owed to `destinations` (events since each was first seen) and takes
    /// up to `limit` that are due: each is pushed `leaseSeconds` into the future as it is taken,
    /// so another worker leaves it alone while this one sends, and a worker that dies sending
    /// leaves it due again (the receiver may then get it twice: the delivery id says so).
    public static func takeDue(_ connection: Connection, destinations: [String], limit: Int, leaseSeconds: Double) throws -> [Due] {
        guard !destinations.isEmpty else { return [] }
        try connection.run(Queries.WebhookOutbox.OwedDeliveries(destinations: BinaryArray(destinations)))
        let due = Queries.WebhookOutbox.TakeDue(destinations: BinaryArray(destinations), limit: limit, leaseSeconds: leaseSeconds)
        return try connection.run(due).map {
            Due(eventID: $0.eventId, destination: $0.destination, attempt: $0.attempts, reportJSON: $0.report, ageSeconds: $0.age ?? 0)
        }
    }

    /// What came of one try.
    public enum Outcome: Sendable, Equatable {
        case delivered(status: Int)
        /// Tried again `retryInSeconds` from now.
        case retry(status: Int?, error: String, retryInSeconds: Double)
        /// Given up: retried for as long as the settings allow, or refused for good.
        case failed(status: Int?, error: String)
    }

    public static func record(_ connection: Connection, _ due: Due, _ outcome: Outcome) throws {
        let (state, status, error, retry): (String, Int?, String?, Double) =
            switch outcome {
            case .delivered(let status): ("delivered", status, nil, 0)
            case .retry(let status, let error, let seconds): ("pending", status, error, seconds)
            case .failed(let status, let error): ("failed", status, error, 0)
            }
        try connection.run(
            Queries.WebhookOutbox.Record(
                event: due.eventID, destination: due.destination, state: state, status: status, error: error.map { String($0.prefix(1000)) },
                retrySeconds: retry))
    }
}
