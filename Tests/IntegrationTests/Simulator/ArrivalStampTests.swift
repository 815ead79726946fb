import DedicatedThreads
import Dispatch
import Foundation
import NIOCore
import NIOPosix
import Simulator
import TestFixtures
import Testing

/// A service counts calls where they reach it. The simulator's stamp must say when a call
/// arrived, however late its own loop, or the tasks that take new connections, got to read it.
@Suite("Simulator: arrival stamps", .integrationTimeLimit)
struct ArrivalStampTests {
    @Test("calls sent spaced while the simulator reads nothing keep the moments they arrived, not the moment it read them all")
    func lateReadsKeepArrivals() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        try await SimulatorServer.withRunning(eventLoopGroup: group) { simulator in
            let port = try #require(URLComponents(string: simulator.baseURL)?.port)
            // Its only event loop held: no connection is accepted and no byte read until let go.
            let held = Signal(latched: true), letGo = DispatchSemaphore(value: 0)
            group.next().execute {
                held.signal(); letGo.wait()
            }
            await held.wait()
            var sends: [(before: Date, after: Date)] = [], answers: [Task<RawHTTP.Answer, Never>] = []
            for _ in 0..<4 {
                let sent = Signal(latched: true), before = Date()
                // Answered only once all four are sent: however slow a loaded machine makes that
                // (past the 60 s default), 600 s only guards against a hang.
                answers.append(
                    Task {
                        await RawHTTP.post(
                            port: port, path: "/landmark/api/prediction/predict", body: "x", answerWithinSeconds: 600, onSent: { sent.signal() })
                    })
                await sent.wait()
                sends.append((before, Date()))
                // Spaced, as a client keeping a rate limit sends them.
                try await Task.sleep(for: .milliseconds(200))
            }
            let letGoAt = Date()
            letGo.signal()
            for answer in answers { #expect(await answer.value.status == 400, "each call was read and answered once let go") }
            let calls = await simulator.stats.readDelays("landmark")
            try #require(calls.count == sends.count)
            for (call, send) in zip(calls, sends) {
                // The kernel counts in ticks of a few milliseconds: 20 ms of resolution either side.
                #expect(
                    call.arrived >= send.before.addingTimeInterval(-0.02) && call.arrived <= send.after.addingTimeInterval(0.02),
                    "stamped \(call.arrived.timeIntervalSince(send.before)) s after it was sent")
                #expect(call.arrived.addingTimeInterval(call.delay) >= letGoAt, "read only once the loop was let go")
            }
            #expect(await simulator.stats.maxCalls("landmark", within: 0.1) == 1, "sent 0.2 s apart, counted apart")
        }
        try await group.shutdownGracefully()
    }
}
