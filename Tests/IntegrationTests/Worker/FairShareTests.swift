import Testing
@testable import Worker

@Suite("Fair share")
struct FairShareTests {
    /// Whatever sizes the claims come in, one job in ten is asked for oldest-first.
    @Test("every tenth job claimed is the oldest waiting one, for claims of any size", arguments: [
        [Int](repeating: 1, count: 100), [7, 3, 10, 25, 1, 1, 1, 2, 50], [9, 9, 9, 9, 9, 9, 9, 9, 9, 9], [100],
    ])
    func oneInTen(claims: [Int]) {
        var share = FairShare()
        var oldest = 0
        for size in claims {
            let asked = share.oldestFirst(of: size)
            #expect(asked <= size)
            oldest += asked
            share.record(claimed: size)
        }
        #expect(oldest == claims.reduce(0, +) / FairShare.period)
    }
}
