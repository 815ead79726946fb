import JobQueue
import SQLSchema
import Testing

@Suite("What a failed attempt costs (FailureDecision)")
struct FailureDecisionTests {
    /// A failure on attempt `attempts` of 5 with `handBacks` hand-backs so far, backoff 30 s of 600.
    static func facts(
        attempts: Int = 1, handBacks: Int = 0, retryable: Bool = true, counts: Bool = true, outage: Bool = false
    ) -> FailureDecision.Facts {
        FailureDecision.Facts(
            attempts: attempts, maxAttempts: 5, handBacks: handBacks, retryable: retryable, countsAsAttempt: counts,
            lastAttemptOfOutage: outage, backoffSeconds: 30, maxBackoffSeconds: 600)
    }

    /// Decides with evidence that must not be asked for.
    static func decide(_ facts: FailureDecision.Facts) -> FailureDecision {
        FailureDecision.decide(facts) {
            Issue.record("the service's other completions were asked for, where the rule does not need them")
            return false
        }
    }

    @Test("a counted failure spends the attempt and runs again after the backoff; the last one, or a permanent one, ends dead")
    func counted() {
        let again = Self.decide(Self.facts(attempts: 2))
        #expect(again.spent && again.attemptsAfter == 2 && again.handBacksAfter == 0 && again.retryAfterSeconds == 30 && again.note.isEmpty)
        let last = Self.decide(Self.facts(attempts: 5))
        #expect(last.spent && last.isDead && last.note.isEmpty)
        let permanent = Self.decide(Self.facts(attempts: 1, retryable: false))
        #expect(permanent.spent && permanent.isDead)
    }

    @Test("an attempt the service never started is handed back, 10 times at most; then it counts, and says so")
    func notStarted() {
        let early = Self.decide(Self.facts(attempts: 3, handBacks: 9, counts: false))
        #expect(!early.spent && early.attemptsAfter == 2 && early.handBacksAfter == 10 && early.retryAfterSeconds == 30)
        #expect(early.note.isEmpty, "the backoff is not doubled, nor noted, for a refusal that is no outage")
        let spent = Self.decide(Self.facts(attempts: 5, handBacks: QueueConstants.maxHandBacks, counts: false))
        #expect(spent.spent && spent.isDead && spent.handBacksAfter == 10)
        #expect(spent.note == " (the service kept refusing: 10 attempts were handed back before, now they count)")
    }

    @Test("an outage's last attempt is handed back with a wait doubled each time up to the longest: ten span about an hour")
    func outageWaits() {
        var waits: [Double] = []
        for handBacks in 0..<QueueConstants.maxHandBacks {
            let decision = Self.decide(Self.facts(attempts: 5, handBacks: handBacks, counts: false, outage: true))
            #expect(!decision.spent && decision.attemptsAfter == 4 && decision.note == " (handed back, not spent: \(handBacks + 1) time(s) so far)")
            waits.append(decision.retryAfterSeconds ?? -1)
        }
        #expect(waits == [30, 60, 120, 240, 480, 600, 600, 600, 600, 600])
        #expect(waits.reduce(0, +) == 3930)
    }

    @Test("past the allowance an outage's attempt counts only once the service completed another photo, or after about a day")
    func outageEvidence() {
        var asked = 0
        let waiting = FailureDecision.decide(Self.facts(attempts: 5, handBacks: 10, counts: false, outage: true)) {
            asked += 1
            return false
        }
        #expect(asked == 1 && !waiting.spent && waiting.retryAfterSeconds == 600 && waiting.handBacksAfter == 11)
        let photo = FailureDecision.decide(Self.facts(attempts: 5, handBacks: 10, counts: false, outage: true)) { true }
        #expect(photo.spent && photo.isDead)
        #expect(photo.note == " (other photos of this service succeeded since this one last failed, after 10 hand-backs: now the attempt counts)")
        let day = Self.decide(Self.facts(attempts: 5, handBacks: QueueConstants.outageHandBacks, counts: false, outage: true))
        #expect(day.spent && day.isDead)
        #expect(day.note == " (handed back 150 times over about a day: now the attempt counts; discern retry once what failed it is mended)")
    }

    @Test("the hand-backs stored never pass the column's ceiling, and a wait never overflows")
    func bounds() {
        let decision = FailureDecision.decide(Self.facts(attempts: 5, handBacks: 30000, counts: false, outage: true)) { false }
        #expect(decision.handBacksAfter == 30000)
        let huge = FailureDecision.decide(
            FailureDecision.Facts(
                attempts: 1, maxAttempts: 5, handBacks: 12, retryable: true, countsAsAttempt: false, lastAttemptOfOutage: true,
                backoffSeconds: 1e300, maxBackoffSeconds: 600)
        ) { false }
        #expect(huge.retryAfterSeconds == 1e300, "never below the backoff the service asked for")
    }
}
