import JobQueue
import Synchronization
import Testing
@testable import Worker

/// The tickets of the jobs a worker holds (InFlight): forward only, and the room they leave.
@Suite("In flight: a ticket per job")
struct InFlightTests {
    final class Wakeups: Sendable {
        let count = Atomic(0)
        func signal() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    @Test("a ticket moves forward through the stages, never back, and frees room as it leaves each")
    func forwardOnly() async {
        let wakeups = Wakeups()
        let inFlight = InFlight { wakeups.signal() }
        let (fresh, running) = await inFlight.claimed([Job(id: 1), Job(id: 2)])
        #expect(fresh.map(\.id) == [1, 2] && running.isEmpty)
        #expect(await inFlight.counts == (2, 2))
        // Two prepare slots, both taken: no room until one is prepared.
        #expect(await inFlight.room(prepareQueue: 2, concurrency: 4, maxUnwritten: 10) == 0)
        await inFlight.prepared(1)
        #expect(wakeups.value == 1)
        #expect(await inFlight.counts == (1, 2))
        #expect(await inFlight.room(prepareQueue: 2, concurrency: 4, maxUnwritten: 10) == 1)
        await inFlight.prepared(1)  // again: nothing moves, nobody is woken
        #expect(wakeups.value == 1)
        await inFlight.outcomeReady(1)
        #expect(wakeups.value == 2)
        // Its outcome takes room in the completer's backlog only.
        #expect(await inFlight.room(prepareQueue: 2, concurrency: 4, maxUnwritten: 1) == 0)
        await inFlight.writing([1])
        #expect(wakeups.value == 2, "writing frees nothing the outcome had not freed")
        await inFlight.prepared(1)  // late: a ticket never goes back
        #expect(await inFlight.heldAndOpen == [2], "a lease gone for a job being written is its write's doing")
        await inFlight.finished([1])
        #expect(await inFlight.ids == [2])
        #expect(await inFlight.room(prepareQueue: 2, concurrency: 4, maxUnwritten: 1) == 1)
    }

    @Test("a job claimed again while it runs keeps its run; one let go is accounted for until it is settled")
    func claimedAgainAndLetGo() async {
        let inFlight = InFlight {}
        _ = await inFlight.claimed([Job(id: 7)])
        let again = await inFlight.claimed([Job(id: 7), Job(id: 8)])
        #expect(again.fresh.map(\.id) == [8] && again.running == [7])
        await inFlight.letGo([7])
        #expect(Set(await inFlight.ids) == [8])
        #expect(Set(await inFlight.accountedFor) == [7, 8])
        await inFlight.settled([7])
        #expect(Set(await inFlight.accountedFor) == [8])
    }

    @Test("a job that must run alone stops claims until it is let go; the end takes back everything held")
    func aloneAndTakeAll() async {
        let inFlight = InFlight {}
        _ = await inFlight.claimed([Job(id: 1, runsAlone: true), Job(id: 2)])
        #expect(await inFlight.room(prepareQueue: 8, concurrency: 8, maxUnwritten: 100) == 0)
        await inFlight.outcomeReady(1)  // straight from preparing: it leaves that stage too
        #expect(await inFlight.counts == (1, 2))
        await inFlight.finished([1])
        #expect(await inFlight.room(prepareQueue: 8, concurrency: 8, maxUnwritten: 100) == 7)
        #expect(await inFlight.takeAll().map(\.id) == [2])
        #expect(await inFlight.isEmpty)
        #expect(await inFlight.counts == (0, 0))
    }
}
