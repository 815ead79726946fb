import Foundation
@testable import Simulator
import Testing

/// The rate a client kept is judged where its calls arrived, not where a stalled event loop
/// stamped them (StallWatch).
@Suite("Simulator: blind spots")
struct BlindSpotTests {
    @Test("calls read together after a stall of the simulator's own loop count where they may have arrived; a burst outside any stall still counts whole")
    func stalledStampsDoNotBunch() async {
        let stats = SimulatorStats()
        let zero = Date(timeIntervalSince1970: 1_000_000)
        func at(_ seconds: Double) -> Date { zero.addingTimeInterval(seconds) }
        // Four calls a second, spaced, then the loop stalled from 4.1 s to 6.5 s: the calls sent
        // in that time were all stamped at 6.5 s.
        for moment in [0.0, 0.25, 0.5, 0.75, 1.0, 4.0] { await stats.record(service: "landmark", route: "landmark.predict", correlationID: nil, at: at(moment)) }
        stats.blindSpots.record(from: at(4.1), to: at(6.5))
        for _ in 0..<8 { await stats.record(service: "landmark", route: "landmark.predict", correlationID: nil, at: at(6.5)) }
        #expect(await stats.maxCalls("landmark", within: 1) == 4, "the stalled calls fit no 1 s window whole")
        #expect(await stats.maxCalls("landmark", within: 3) == 9, "4.0 and the eight read at 6.5, all within 4.1-6.5")
        // The same burst with no stall recorded: the clients sent it at once, and it counts.
        let unstalled = SimulatorStats()
        for _ in 0..<8 { await unstalled.record(service: "landmark", route: "landmark.predict", correlationID: nil, at: at(6.5)) }
        #expect(await unstalled.maxCalls("landmark", within: 1) == 8)
    }
}
