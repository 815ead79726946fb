import Backends
import Testing
@testable import Worker

@Suite("Leased rate-limit slots")
struct LeasedSlotsTests {
    @Test("slots are handed out earliest first; a slot later than its lateness allows is dropped, never handed out")
    func earliestFirstMissedDropped() {
        let now = ContinuousClock.now
        var slots = LeasedSlots()
        slots.append([now - .seconds(1), now - .milliseconds(300), now - .milliseconds(100), now, now + .seconds(1)])
        #expect(slots.takeFirst(keptBy: now) == now - .milliseconds(100))
        #expect(slots.takeFirst(keptBy: now) == now)
        slots.append([now + .seconds(2)])
        #expect(slots.takeFirst(keptBy: now) == now + .seconds(1))
        // Three seconds on, the last slot is 1 s late: missed, so there is none left.
        #expect(slots.takeFirst(keptBy: now + .seconds(3)) == nil)
        #expect(slots.takeFirst(keptBy: now) == nil)
    }

    @Test("what lies behind a slot that can still be kept is checked when its turn comes")
    func eachSlotCheckedInTurn() {
        let now = ContinuousClock.now
        var slots = LeasedSlots()
        // Two leases appended out of order: the later lease's slots first.
        slots.append([now + .seconds(1)])
        slots.append([now - .seconds(5)])
        #expect(slots.takeFirst(keptBy: now) == now + .seconds(1))
        #expect(slots.takeFirst(keptBy: now) == nil)
        #expect(RateSlot.maxLateness == .milliseconds(200))
    }
}
