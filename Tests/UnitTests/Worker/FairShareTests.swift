import Testing
@testable import Worker

@Suite("Fair share")
struct FairShareTests {
    @Test("one claim in ten that finds jobs is served oldest-first, whole; empty claims do not count")
    func oneClaimInTen() {
        var share = FairShare()
        var oldestFirst: [Int] = []
        for claim in 0..<100 {
            let limit = claim % 7 + 1
            let asked = share.oldestFirst(of: limit)
            #expect(asked == 0 || asked == limit)
            if asked > 0 { oldestFirst.append(claim) }
            share.record(claimed: limit)
            share.record(claimed: 0)
        }
        #expect(oldestFirst == Array(stride(from: 9, to: 100, by: 10)))
    }
}
