import Foundation

/// How many calls to one service this process keeps in flight, adjusted as the service answers
/// (additive increase, multiplicative decrease, as TCP does): halved on a 429, shrunk by a tenth
/// when an endpoint's latency climbs to twice its long-run average, grown by about one per
/// round of good answers. Never below 1 nor above the configured maximum.
public actor AdaptiveConcurrency {
    public private(set) var limit: Double
    private let ceiling: Double
    private var inFlight = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    /// Per endpoint: a fast and a slow moving average of latency. Endpoints differ by orders of
    /// magnitude (upload-url vs analyze), so each is compared only with itself.
    private var latency: [String: (fast: Double, slow: Double, samples: Int)] = [:]
    private var lastDecrease = ContinuousClock.now - .seconds(10)

    /// How many endpoints have a latency figure: a handful per service, whatever the jobs.
    var endpointsTracked: Int { latency.count }

    public init(maximum: Int) {
        ceiling = Double(max(1, maximum))
        limit = ceiling
    }

    public var inFlightCalls: Int { inFlight }

    public func acquire() async {
        if Double(inFlight) < limit.rounded(.down) || inFlight == 0 {
            inFlight += 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    public enum Outcome: Sendable { case answered(seconds: Double), rateLimited, failed }

    /// - Parameter endpoint: what an answer's latency is compared with (a fixed name, kept for
    ///   the life of the process); nil: the answer only counts as a good one.
    public func release(_ outcome: Outcome, endpoint: String? = "") {
        inFlight -= 1
        switch outcome {
        case .answered(let seconds):
            if let endpoint {
                observe(seconds, endpoint: endpoint)
            } else {
                limit = min(ceiling, limit + 1 / max(limit, 1))
            }
        case .rateLimited:
            decrease(by: 0.5)
        case .failed:
            break
        }
        while !waiters.isEmpty, Double(inFlight) < max(1, limit.rounded(.down)) {
            inFlight += 1
            waiters.removeFirst().resume()
        }
    }

    private func observe(_ seconds: Double, endpoint: String) {
        var entry = latency[endpoint] ?? (fast: seconds, slow: seconds, samples: 0)
        entry.fast = entry.fast * 0.8 + seconds * 0.2
        entry.slow = entry.slow * 0.98 + seconds * 0.02
        entry.samples += 1
        latency[endpoint] = entry
        if entry.samples >= 20, entry.fast > 2 * entry.slow, entry.slow > 0.005 {
            decrease(by: 0.9)
        } else {
            limit = min(ceiling, limit + 1 / max(limit, 1))
        }
    }

    /// At most once a second, so one burst of bad answers does not collapse the limit.
    private func decrease(by factor: Double) {
        let now = ContinuousClock.now
        guard now - lastDecrease > .seconds(1) else { return }
        lastDecrease = now
        limit = max(1, limit * factor)
    }
}
