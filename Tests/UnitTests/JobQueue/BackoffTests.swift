import JobQueue
import TestFixtures
import Testing

@Suite("Backoff")
struct BackoffTests {
    @Test("delays double per attempt, with jitter between half and all of the step, up to the cap")
    func exponential() {
        let backoff = Backoff(baseSeconds: 2, maxSeconds: 60)
        #expect(backoff.delay(afterAttempt: 1, random: { $0.lowerBound }) == 1)
        #expect(backoff.delay(afterAttempt: 1, random: { $0.upperBound }) == 2)
        #expect(backoff.delay(afterAttempt: 4, random: { $0.upperBound }) == 16)
        #expect(backoff.delay(afterAttempt: 30, random: { $0.upperBound }) == 60)
    }

    @Test("a service's Retry-After is a floor")
    func retryAfter() {
        let backoff = Backoff(baseSeconds: 2, maxSeconds: 60)
        #expect(backoff.delay(afterAttempt: 1, retryAfter: 30, random: { $0.upperBound }) == 30)
    }
}
