/// Exponential backoff with jitter, floored by what the service asked for (Retry-After).
public struct Backoff: Sendable {
    public var baseSeconds: Double
    public var maxSeconds: Double

    public init(baseSeconds: Double = 2, maxSeconds: Double = 600) {
        self.baseSeconds = baseSeconds
        self.maxSeconds = maxSeconds
    }

    /// Full exponential delay for `attempt`, with "equal jitter": between half and all of it, so
    /// workers that failed together do not retry together.
    public func delay(
        afterAttempt attempt: Int, retryAfter: Double? = nil,
        random: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
    ) -> Double {
        let exponent = Double(min(max(attempt - 1, 0), 30))
        let full = min(maxSeconds, baseSeconds * pow2(exponent))
        let jittered = full / 2 + random(0...(full / 2))
        return max(jittered, retryAfter ?? 0)
    }

    private func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(exponent) { value *= 2 }
        return value
    }
}
