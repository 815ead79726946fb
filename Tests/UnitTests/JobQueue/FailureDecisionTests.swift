import ErrorCodes
import JobQueue
import SQLSchema
import Testing

@Suite("What a failed attempt costs (FailureDecision)")
struct FailureDecisionTests {
    /// A failure of `kind` on attempt `attempts` of 5 with `handBacks` hand-backs so far, backoff 30 s of 600.
    static func facts(
        _ kind: FailureKind = .http5xx, attempts: Int = 1, handBacks: Int = 0, outage: JobFailure.Outage = .none
    ) -> FailureDecision.Facts {
        FailureDecision.Facts(
            kind: kind, outage: outage, attempts: attempts, maxAttempts: 5, handBacks: handBacks, backoffSeconds: 30, maxBackoffSeconds: 600)
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
        let permanent = Self.decide(Self.facts(.imageUndecodable, attempts: 1))
        #expect(permanent.spent && permanent.isDead)
    }

    @Test("a kind tried once more is, on its first attempt only, and says so")
    func once() {
        let first = Self.decide(Self.facts(.imageTruncated, attempts: 1))
        #expect(first.spent && first.retryAfterSeconds == 30 && first.note == " (trying once more later)")
        let second = Self.decide(Self.facts(.imageTruncated, attempts: 2))
        #expect(second.spent && second.isDead && second.note.isEmpty)
    }

    @Test("an attempt the service never started is handed back, 10 times at most; then it counts, and says so")
    func notStarted() {
        let early = Self.decide(Self.facts(.notStarted, attempts: 3, handBacks: 9))
        #expect(!early.spent && early.attemptsAfter == 2 && early.handBacksAfter == 10 && early.retryAfterSeconds == 30)
        #expect(early.note.isEmpty, "the backoff is not doubled, nor noted, for a refusal that is no outage")
        let spent = Self.decide(Self.facts(.notStarted, attempts: 5, handBacks: QueueConstants.maxHandBacks))
        #expect(spent.spent && spent.isDead && spent.handBacksAfter == 10)
        #expect(spent.note == " (the service kept refusing: 10 attempts were handed back before, now they count)")
    }

    @Test("an outage's last attempt is handed back with a wait doubled each time up to the longest: ten span about an hour")
    func outageWaits() {
        var waits: [Double] = []
        for handBacks in 0..<QueueConstants.maxHandBacks {
            let decision = Self.decide(Self.facts(attempts: 5, handBacks: handBacks, outage: .serviceFailing))
            #expect(
                !decision.spent && decision.attemptsAfter == 4
                    && decision.note == " (its last attempt; the failure is the service's; handed back, not spent: \(handBacks + 1) time(s) so far)")
            waits.append(decision.retryAfterSeconds ?? -1)
        }
        #expect(waits == [30, 60, 120, 240, 480, 600, 600, 600, 600, 600])
        #expect(waits.reduce(0, +) == 3930)
    }

    @Test("whose outage: the breaker's finding on the last attempt, a kind whose row hands its last back, a probe failed again and again")
    func whichAttemptsAreAnOutages() {
        let early = Self.decide(Self.facts(attempts: 2, outage: .serviceFailing))
        #expect(early.spent && early.retryAfterSeconds == 30 && early.note.isEmpty, "before the last attempt the failure counts")
        let unreadable = Self.decide(Self.facts(.imageUnreadable, attempts: 2))
        #expect(unreadable.spent && unreadable.retryAfterSeconds == 30, "an unreadable file's attempts count")
        let lastUnreadable = Self.decide(Self.facts(.imageUnreadable, attempts: 5))
        #expect(!lastUnreadable.spent && lastUnreadable.note.hasPrefix(" (its last attempt; the failure is the system's; handed back"))
        let probe = Self.decide(Self.facts(attempts: 2, outage: .probeFailed(why: "it failed as the probe 3 times")))
        #expect(!probe.spent && probe.note.hasPrefix(" (it failed as the probe 3 times; the failure is the service's; handed back"))
    }

    @Test("past the allowance an outage's attempt counts only once the service completed another photo, or after about a day")
    func outageEvidence() {
        var asked = 0
        let waiting = FailureDecision.decide(Self.facts(attempts: 5, handBacks: 10, outage: .serviceFailing)) {
            asked += 1
            return false
        }
        #expect(asked == 1 && !waiting.spent && waiting.retryAfterSeconds == 600 && waiting.handBacksAfter == 11)
        let photo = FailureDecision.decide(Self.facts(attempts: 5, handBacks: 10, outage: .serviceFailing)) { true }
        #expect(photo.spent && photo.isDead)
        #expect(photo.note == " (other photos of this service succeeded since this one last failed, after 10 hand-backs: now the attempt counts)")
        let day = Self.decide(Self.facts(attempts: 5, handBacks: QueueConstants.outageHandBacks, outage: .serviceFailing))
        #expect(day.spent && day.isDead)
        #expect(day.note == " (handed back 150 times over about a day: now the attempt counts; discern retry once what failed it is mended)")
    }

    @Test("the hand-backs stored never pass the column's ceiling, and a wait never overflows")
    func bounds() {
        let decision = FailureDecision.decide(Self.facts(attempts: 5, handBacks: 30000, outage: .serviceFailing)) { false }
        #expect(decision.handBacksAfter == 30000)
        let huge = FailureDecision.decide(
            FailureDecision.Facts(
                kind: .http5xx, outage: .probeFailed(why: "x"), attempts: 1, maxAttempts: 5, handBacks: 12, backoffSeconds: 1e300,
                maxBackoffSeconds: 600)
        ) { false }
        #expect(huge.retryAfterSeconds == 1e300, "never below the backoff the service asked for")
    }
}
