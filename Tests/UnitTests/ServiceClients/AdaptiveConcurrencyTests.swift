import ServiceClients
import Testing

@Suite("Adaptive concurrency")
struct AdaptiveConcurrencyTests {
    @Test("a 429 halves the limit, good answers grow it back, at most the maximum")
    func backsOffAndRecovers() async {
        let limit = AdaptiveConcurrency(maximum: 16)
        await limit.acquire()
        await limit.release(.rateLimited)
        #expect(await limit.limit == 8)
        await limit.acquire()
        await limit.release(.rateLimited)
        #expect(await limit.limit == 8, "one cut per second, however many 429s arrive together")
        for _ in 0..<200 {
            await limit.acquire()
            await limit.release(.answered(seconds: 0.05), endpoint: "analyze")
        }
        #expect(await limit.limit == 16)
    }

    @Test("latency climbing to twice its long-run average shrinks the limit")
    func backsOffOnRisingLatency() async {
        let limit = AdaptiveConcurrency(maximum: 10)
        for _ in 0..<50 {
            await limit.acquire()
            await limit.release(.answered(seconds: 0.1), endpoint: "analyze")
        }
        #expect(await limit.limit == 10)
        for _ in 0..<10 {
            await limit.acquire()
            await limit.release(.answered(seconds: 1.0), endpoint: "analyze")
        }
        #expect(await limit.limit < 10)
    }

    @Test("calls beyond the limit wait for a free slot")
    func waitsForASlot() async {
        let limit = AdaptiveConcurrency(maximum: 1)
        await limit.acquire()
        let waiter = Task {
            await limit.acquire(); return true
        }
        try? await Task.sleep(for: .milliseconds(50))
        #expect(await limit.inFlightCalls == 1)
        await limit.release(.answered(seconds: 0.01))
        #expect(await waiter.value)
        #expect(await limit.inFlightCalls == 1)
    }
}
