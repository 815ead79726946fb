import ServiceClients
import JobQueue
import Testing
@testable import Worker

@Suite("Leased rate-limit slots")
struct LeasedSlotsTests {
    /// A slot at `moment`, kept until the lateness allowed.
    static func at(_ moment: ContinuousClock.Instant) -> RateSlot { RateSlot(sendAt: moment, sendBy: moment + RateSlot.maxLateness) }
    @Test("slots are handed out earliest first; a slot later than its lateness allows is dropped, never handed out")
    func earliestFirstMissedDropped() {
        let now = ContinuousClock.now
        var slots = LeasedSlots()
        slots.append([now - .seconds(1), now - .milliseconds(300), now - .milliseconds(100), now, now + .seconds(1)].map(Self.at))
        #expect(slots.takeFirst(keptBy: now)?.sendAt == now - .milliseconds(100))
        #expect(slots.takeFirst(keptBy: now)?.sendAt == now)
        slots.append([Self.at(now + .seconds(2))])
        #expect(slots.takeFirst(keptBy: now)?.sendAt == now + .seconds(1))
        // Three seconds on, the last slot is 1 s late: missed, so there is none left.
        #expect(slots.takeFirst(keptBy: now + .seconds(3)) == nil)
        #expect(slots.takeFirst(keptBy: now) == nil)
    }

    @Test("what lies behind a slot that can still be kept is checked when its turn comes")
    func eachSlotCheckedInTurn() {
        let now = ContinuousClock.now
        var slots = LeasedSlots()
        // Two leases appended out of order: the later lease's slots first.
        slots.append([Self.at(now + .seconds(1))])
        slots.append([Self.at(now - .seconds(5))])
        #expect(slots.takeFirst(keptBy: now)?.sendAt == now + .seconds(1))
        #expect(slots.takeFirst(keptBy: now) == nil)
        #expect(RateSlot.maxLateness == .milliseconds(200))
    }

    @Test(
        "a lease's slots lie between the round trip's start and end: never sent before its end, never kept past its start plus the lateness allowed")
    func slotsWithinTheRoundTrip() {
        let asked = ContinuousClock.now
        let lease = RateLimits.Lease(firstWait: -0.25, spacing: 0.25, granted: 3)
        // A quick round trip: the first slot (burst credit) goes at once, the others 0.25 s apart.
        let quick = PostgresRateGate.slots(lease, asked: asked, answered: asked + .milliseconds(10))
        #expect(quick.map { $0.sendAt! - asked } == [.milliseconds(10), .milliseconds(10), .milliseconds(260)])
        #expect(quick.allSatisfy { $0.sendBy! > $0.sendAt! })
        // A round trip of a second (a stalled backend or worker): the server may have chosen the
        // slots anywhere in it, so no moment keeps every possibility; none can be kept.
        let stalled = PostgresRateGate.slots(lease, asked: asked, answered: asked + .seconds(1))
        #expect(stalled.allSatisfy { $0.sendBy! < $0.sendAt! })
        var slots = LeasedSlots()
        slots.append(stalled)
        #expect(slots.takeFirst(keptBy: asked + .seconds(1)) == nil)
    }
}
