import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Moments the simulator's event loops could not run: a busy machine (the whole test suite on 2
/// cores) once held one for 2.4 s. Calls that came meanwhile were read, and stamped, together
/// when it ran again, so their stamps say they arrived at once though they were sent spaced.
/// A count that judges clients by arrival times (`SimulatorStats.maxCalls`) counts such a call
/// only where it may have arrived: anywhere in the blind spot it was read after.
final class BlindSpots: Sendable {
    /// A stall shorter than this is no blind spot: stamps are that late anyway.
    static let threshold = 0.25
    private let spots = Mutex<[(from: Date, to: Date)]>([])

    func record(from: Date, to: Date) { spots.withLock { $0.append((from, to)) } }

    /// The earliest moment a call stamped at `stamp` may have arrived.
    func earliestArrival(_ stamp: Date) -> Date {
        spots.withLock { spots in
            // Read when the loop ran again: at the end of the stall or just after it.
            spots.filter { $0.from < stamp && stamp.timeIntervalSince($0.to) <= Self.threshold }.map(\.from).min() ?? stamp
        }
    }
}

/// Watches every event loop of the group the simulator serves on: a task repeated every 50 ms
/// on each loop notes any gap longer than `BlindSpots.threshold` as a blind spot.
struct StallWatch: Service {
    let spots: BlindSpots
    var group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton

    func run() async throws {
        let period = TimeAmount.milliseconds(50)
        let tasks = group.makeIterator().map { loop in
            let last = Mutex(Date())
            return loop.scheduleRepeatedTask(initialDelay: period, delay: period) { _ in
                let now = Date()
                let previous = last.withLock { value in defer { value = now }; return value }
                if now.timeIntervalSince(previous) > 0.05 + BlindSpots.threshold { spots.record(from: previous, to: now) }
            }
        }
        try? await gracefulShutdown()
        for task in tasks { task.cancel() }
    }
}
