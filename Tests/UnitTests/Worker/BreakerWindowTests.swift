import Testing
@testable import Worker

@Suite("Breaker window")
struct BreakerWindowTests {
    static let settings = BreakerSettings()
    static let start = ContinuousClock.now

    /// Records `outcomes` one a tenth of a second apart, job ids counting up from `firstJob`.
    static func window(_ outcomes: [Bool], firstJob: Int = 1, settings: BreakerSettings = settings) -> BreakerWindow {
        var window = BreakerWindow()
        for (index, failed) in outcomes.enumerated() {
            window.record(job: firstJob + index, failed: failed, at: start + .milliseconds(100 * index), keeping: settings.windowSeconds)
        }
        return window
    }

    @Test("a service that went away just now trips after five jobs' attempts fail in a row, whatever succeeded before")
    func runOfFailures() {
        let healthy = Array(repeating: false, count: 500)
        #expect(!Self.window(healthy + Array(repeating: true, count: 4)).isTripped(by: Self.settings))
        #expect(Self.window(healthy + Array(repeating: true, count: 5)).isTripped(by: Self.settings))
    }

    @Test("the same job failing again and again is one job, not five")
    func oneJobIsNotAnOutage() {
        var window = BreakerWindow()
        for index in 0..<10 { window.record(job: 7, failed: true, at: Self.start + .seconds(index), keeping: 60) }
        #expect(!window.isTripped(by: Self.settings))
    }

    @Test("failing half the time over the window trips; one attempt in five does not, nor in a hundred thousand")
    func ratio() {
        let half = (0..<200).map { $0 % 2 == 0 }
        #expect(Self.window(half).isTripped(by: Self.settings))
        let fifth = (0..<200).map { $0 % 5 == 0 }
        #expect(!Self.window(fifth).isTripped(by: Self.settings))
        // An attempt tries each call three times: a service failing one call in five fails
        // about one attempt in 125; never five in a row here.
        var generator = SplitMix64(seed: 40)
        let attempts = (0..<100_000).map { _ in Double.random(in: 0..<1, using: &generator) < 0.008 }
        var window = BreakerWindow(), tripped = 0
        for (index, failed) in attempts.enumerated() {
            window.record(job: index, failed: failed, at: Self.start + .milliseconds(10 * index), keeping: 60)
            if failed, window.isTripped(by: Self.settings) { tripped += 1 }
        }
        #expect(tripped == 0)
    }

    @Test("failures older than the window are forgotten; a reset forgets everything")
    func forgetting() {
        var window = Self.window(Array(repeating: true, count: 4))
        window.record(job: 99, failed: true, at: Self.start + .seconds(120), keeping: 60)
        #expect(!window.isTripped(by: Self.settings), "four failures two minutes ago and one now are not five")
        var tripped = Self.window(Array(repeating: true, count: 5))
        #expect(tripped.isTripped(by: Self.settings))
        tripped.reset()
        #expect(!tripped.isTripped(by: Self.settings))
    }

    @Test("settings keep to what makes sense")
    func settingsClamp() {
        let odd = BreakerSettings(failedJobs: 0, failureRatio: 7, windowSeconds: -1, firstProbeSeconds: 0, maxProbeSeconds: 0.01)
        #expect(odd.failedJobs == 1 && odd.failureRatio == 1 && odd.windowSeconds == 1)
        #expect(odd.firstProbeSeconds == 0.1 && odd.maxProbeSeconds == 0.1)
    }
}
