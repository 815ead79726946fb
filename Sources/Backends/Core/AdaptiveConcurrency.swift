import Foundation

/// How many calls to one service this process keeps in flight, adjusted as the service answers
/// (additive increase, multiplicative decrease, as TCP does): halved on a 429, shrunk by a tenth
/// when latency climbs well above the best seen recently, grown by one per window of good calls.
public actor AdaptiveConcurrency {
    public private(set) var limit: Double
    private let ceiling: Double
    private var inFlight = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    /// The lowest latency seen lately; it drifts up slowly so an old best does not rule forever.
    private var baselineSeconds: Double?
    private var smoothedSeconds: Double?
    private var lastDecrease = ContinuousClock.now
    private let latencyTolerance: Double

    public init(maximum: Int, latencyTolerance: Double = 3) {
        ceiling = Double(max(1, maximum))
        limit = ceiling
        self.latencyTolerance = latencyTolerance
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

    public func release(_ outcome: Outcome) {
        inFlight -= 1
        switch outcome {
        case .answered(let seconds):
            observe(latency: seconds)
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

    private func observe(latency seconds: Double) {
        baselineSeconds = min(seconds, (baselineSeconds ?? seconds) * 1.001)
        smoothedSeconds = (smoothedSeconds ?? seconds) * 0.8 + seconds * 0.2
        if let baseline = baselineSeconds, let smoothed = smoothedSeconds, smoothed > baseline * latencyTolerance, baseline > 0.005 {
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
