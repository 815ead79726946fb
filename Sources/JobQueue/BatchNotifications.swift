import Postgres

/// The outbox of batch notifications (migration 0031): a batch's end becomes an event with its
/// report (`announce`), and each event one delivery per destination, taken by one worker at a
/// time (`takeDue`), then marked delivered or due again later (`record`). Destinations are names
/// only (`NotificationDestination.name`): their URLs stay in the workers' settings.
public enum BatchNotifications {
    /// Batches that ended and settled get their event; returns how many. One caller at a time
    /// does the work (an advisory lock); the others get 0.
    @discardableResult
    public static func announce(_ connection: Connection, settleSeconds: Double) throws -> Int {
        try connection.query("SELECT discern.announce_batches($1) AS announced", [settleSeconds]).first?.int("announced") ?? 0
    }

    /// Records destinations as known from now: each receives the events after its first sighting.
    public static func register(_ connection: Connection, destinations: [String]) throws {
        guard !destinations.isEmpty else { return }
        _ = try connection.query(
            """
            INSERT INTO discern.notification_destinations (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING
            """, [destinations])
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
        _ = try connection.query(
            """
            INSERT INTO discern.notification_deliveries (event_id, destination)
            SELECT e.id, d.name FROM discern.notification_destinations d
            JOIN discern.batch_events e ON e.created_at >= d.first_seen_at
            WHERE d.name = ANY($1::text[]) AND NOT e.report ? 'before_notifications'
              AND e.created_at > now() - interval '7 days'
            ON CONFLICT (event_id, destination) DO NOTHING
            """, [destinations])
        let rows = try connection.query(
            """
            WITH due AS (
                SELECT event_id, destination FROM discern.notification_deliveries
                WHERE state = 'pending' AND next_attempt_at <= now() AND destination = ANY($1::text[])
                ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED
            ), taken AS (
                UPDATE discern.notification_deliveries d
                SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $3)
                FROM due WHERE d.event_id = due.event_id AND d.destination = due.destination
                RETURNING d.event_id, d.destination, d.attempts
            )
            SELECT t.event_id, t.destination, t.attempts, e.report::text AS report,
                   extract(epoch FROM now() - e.created_at)::float8 AS age
            FROM taken t JOIN discern.batch_events e ON e.id = t.event_id
            ORDER BY t.event_id
            """, [destinations, limit, leaseSeconds])
        return try rows.map {
            Due(
                eventID: try $0.int("event_id"), destination: try $0.string("destination"), attempt: try $0.int("attempts"),
                reportJSON: try $0.string("report"), ageSeconds: try $0.optionalDouble("age") ?? 0)
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
        _ = try connection.query(
            """
            UPDATE discern.notification_deliveries
            SET state = $3, last_status = $4, last_error = $5, next_attempt_at = now() + make_interval(secs => $6),
                delivered_at = CASE WHEN $3 = 'delivered' THEN now() END
            WHERE event_id = $1 AND destination = $2 AND state = 'pending'
            """, [due.eventID, due.destination, state, status, error.map { String($0.prefix(1000)) }, retry])
    }
}
